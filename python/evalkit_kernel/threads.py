"""Starts the runner's own daemon threads with SIGINT blocked, so an interrupt is only ever taken by the main thread."""

import signal
import threading

_BLOCKED = {signal.SIGINT} if hasattr(signal, "SIGINT") else set()


def start_daemon(target, name, *args):
    def run():
        if _BLOCKED and hasattr(signal, "pthread_sigmask"):
            # If a cell blocks SIGINT in the main thread, the kernel must see the interrupt go unanswered
            # (and escalate), not have one of our threads take the signal on the main thread's behalf.
            signal.pthread_sigmask(signal.SIG_BLOCK, _BLOCKED)
        target(*args)

    thread = threading.Thread(target=run, name=name)
    thread.daemon = True
    thread.start()
    return thread
