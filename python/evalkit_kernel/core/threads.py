"""Starts the runner's own daemon threads with SIGINT blocked, so an interrupt is only ever taken by the main thread."""

import _signal as signal  # `signal` imports enum (~2 ms of start-up) to wrap these in enums

try:
    import _thread
except ImportError:  # pragma: no cover - CPython always has it
    _thread = None
import threading

started = 0  # the runner's own threads in this process (what checkpoints/time_travel count as not the user's)
_BLOCKED = {signal.SIGINT} if hasattr(signal, "SIGINT") else set()


def start_daemon(target, name, *args):
    """Run target(*args) in a daemon thread.

    A raw thread, not threading.Thread: start() there waits for the new thread to check in (a GIL ping-pong
    per thread at start-up), and the runner's threads stay out of the user's threading.enumerate().
    """

    global started
    started += 1

    def run():
        if _BLOCKED and hasattr(signal, "pthread_sigmask"):
            # If a cell blocks SIGINT in the main thread, the kernel must see the interrupt go unanswered
            # (and escalate), not have one of our threads take the signal on the main thread's behalf.
            signal.pthread_sigmask(signal.SIG_BLOCK, _BLOCKED)
        target(*args)

    if _thread is not None:
        _thread.start_new_thread(run, ())
        return None
    thread = threading.Thread(target=run, name=name)
    thread.daemon = True
    thread.start()
    return thread
