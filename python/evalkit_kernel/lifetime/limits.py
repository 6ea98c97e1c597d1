"""Resource limits the host asked for (RLIMIT_DATA/CPU/NPROC), and interrupts that must reach the whole group."""

import os
import _signal as signal


def apply(limits):
    """Sets the memory and CPU limits in `limits`; inherited by every child the kernel starts (processes: below)."""
    if not limits:
        return
    try:
        import resource
    except ImportError:
        return  # Windows: no rlimits (documented)
    memory = limits.get("memoryMb")
    if memory:
        # RLIMIT_DATA counts heap and private mappings (what allocations use) but not shared libraries or
        # address space merely reserved, so a numpy import or a thread stack does not trip it; RLIMIT_AS would.
        _lower(resource, resource.RLIMIT_DATA, int(memory) << 20)
    cpu = limits.get("cpuSeconds")
    if cpu:
        # SIGXCPU at the soft limit (the process dies of it, which the host reports); SIGKILL 2 s later at the latest.
        _lower(resource, resource.RLIMIT_CPU, int(cpu), int(cpu) + 2)


def apply_process_limit(limits):
    """RLIMIT_NPROC from `limits.processes`: called once the runner's own threads and helpers exist.

    The OS counts every task (process or thread) of the user, so the limit is N more than the user runs now,
    the runner's threads included (counted before they started, they would eat into N). In a sandbox's PID
    namespace the host's tasks are invisible, so the host counts those for us (processesBase).
    """
    processes = (limits or {}).get("processes")
    if not processes:
        return
    try:
        import resource
    except ImportError:
        return
    if not hasattr(resource, "RLIMIT_NPROC"):
        return
    base = limits.get("processesBase")
    own = _count_own_tasks()
    # In a user namespace of its own (bwrap run by an ordinary user) the OS counts only that namespace's tasks,
    # all of which the runner sees; the host's count only matters in the host's namespace (root, setuid bwrap).
    base = own if base is None or _in_own_user_namespace() else int(base) + own
    _lower(resource, resource.RLIMIT_NPROC, base + int(processes))


def _lower(resource, which, soft, hard=None):
    hard = soft if hard is None else hard
    _, old_hard = resource.getrlimit(which)
    if old_hard != resource.RLIM_INFINITY:
        soft, hard = min(soft, old_hard), min(hard, old_hard)
    try:
        resource.setrlimit(which, (soft, hard))
    except (ValueError, OSError):
        resource.setrlimit(which, (soft, old_hard))


def _in_own_user_namespace():
    try:
        with open("/proc/self/uid_map") as f:
            return f.read().split()[:3] != ["0", "0", "4294967295"]
    except (OSError, IndexError):
        return False


def _count_own_tasks():
    """Tasks (threads included) of this user that /proc shows; RLIMIT_NPROC counts threads too."""
    uid = os.getuid()
    count = 0
    try:
        names = os.listdir("/proc")
    except OSError:
        return 0
    for name in names:
        if name.isdigit():
            try:
                if os.stat("/proc/" + name).st_uid == uid:
                    count += len(os.listdir("/proc/%s/task" % name))
            except OSError:
                pass
    return count


def lead_own_group():
    """In a sandbox the host's signals cannot reach the runner: lead a group so interrupts can reach children."""
    try:
        os.setpgid(0, 0)
        return True
    except OSError:
        return False


def interrupt_group():
    """SIGINT to the runner's own group: the main thread raises KeyboardInterrupt, children the cell started stop."""
    os.killpg(os.getpgrp(), signal.SIGINT)
