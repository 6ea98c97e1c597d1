"""Resource limits the host asked for (RLIMIT_DATA/CPU/NPROC), and interrupts that must reach the whole group."""

import os
import _signal as signal


def apply(limits):
    """Sets the limits in `limits` ({memoryMb, cpuSeconds, processes}); inherited by every child the kernel starts."""
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
    processes = limits.get("processes")
    if processes and hasattr(resource, "RLIMIT_NPROC"):
        # The OS counts every process of the user: allow N more than the user runs now. In a sandbox's PID
        # namespace most of them are invisible, so the host counts them for us (processesBase).
        base = limits.get("processesBase")
        base = _count_own_processes() if base is None else int(base)
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


def _count_own_processes():
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
                    count += 1
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
