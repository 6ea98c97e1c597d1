"""How the runner leaves: at once, taking every process it started along, and never waiting on a user thread."""

import os
import _signal as signal  # `signal` imports enum (~2 ms of start-up) to wrap these in enums
import threading

from . import state
from ..lifetime import process_tree
from ..lifetime import reaper
from .threads import start_daemon


def exit_now(code, graceful):
    """Leave at once: flush what we can, take every child of ours along, never wait on user threads."""
    if graceful:
        try:
            import atexit

            atexit._run_exitfuncs()
        except BaseException:
            pass
        try:
            state.sync_streams()
        except BaseException:
            pass
    state.kill_child_groups()
    try:
        # Before our group goes: children in their own sessions too (as subreaper, our tree holds them all).
        process_tree.kill_descendants(spare=process_tree.guard_pid(), is_subreaper=reaper.is_subreaper)
    except BaseException:
        pass
    if hasattr(os, "getpgrp") and os.getpgrp() == (kernel_group or os.getpid()):
        # We lead our process group: children the cell started die with us. When the host is gone
        # there is nobody to report to, so the whole group, runner included, is killed outright.
        try:
            if graceful:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                os.killpg(os.getpgrp(), signal.SIGTERM)
            else:
                os.killpg(os.getpgrp(), signal.SIGKILL)
        except OSError:
            pass
    os._exit(code)


kernel_group = None  # the group the kernel's first process leads; set at start-up, kept by forked runners


def note_kernel_group():
    global kernel_group
    if hasattr(os, "getpgrp") and os.getpgrp() == os.getpid():
        kernel_group = os.getpid()


def start_parent_watchdog():
    """A parent that changed (the host died and init adopted us) ends the runner within a second."""
    parent = os.getppid()
    if parent <= 1:
        return

    def watch():
        stop = threading.Event()
        while not stop.wait(1.0):
            if os.getppid() != parent:
                exit_now(0, graceful=False)

    start_daemon(watch, "evalkit-parent-watchdog")
