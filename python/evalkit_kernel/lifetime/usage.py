"""Each cell's CPU time and peak memory, reported in its `done` frame (getrusage: this process and its children)."""

import os
import sys
import time

_IS_LINUX = sys.platform.startswith("linux")
# ru_maxrss is in KiB on Linux and the BSDs, in bytes on macOS.
_MAXRSS_UNIT = 1 if sys.platform == "darwin" else 1024
_resource = None
_children_peak = 0


def _rusage():
    global _resource
    if _resource is None:
        try:
            import resource as module  # imported as the first cell starts, not during start-up
        except ImportError:  # Windows
            module = False
        _resource = module
    return _resource or None


class CellMeter(object):
    """Started as a cell begins; `finish()` gives {cpuMs, peakRssBytes} for the `done` frame."""

    __slots__ = ("_own", "_children")

    def __init__(self):
        global _children_cpu
        # The process's own CPU from the clock (one call, nanoseconds: the same sum of user and system time
        # getrusage reports); the children's from the last reading, which only a wait() can have moved.
        self._own = _process_time()
        if _children_cpu is None:
            _children_cpu = _children_cpu_now()
        self._children = _children_cpu

    def finish(self):
        global _children_cpu
        own_ms = (_process_time() - self._own) * 1000.0
        resource = _rusage()
        if resource is None:
            children_cpu, peak = _children_cpu_now(), 0
        else:
            # One reading of each figure serves both numbers: every getrusage is a system call.
            own = resource.getrusage(resource.RUSAGE_SELF)
            children = resource.getrusage(resource.RUSAGE_CHILDREN)
            children_cpu = children.ru_utime + children.ru_stime
            peak = _peak_rss_bytes(own.ru_maxrss, children.ru_maxrss)
        children_ms = max(0.0, (children_cpu - self._children) * 1000.0)
        _children_cpu = children_cpu
        return {"cpuMs": round(max(0.0, own_ms) + children_ms, 3), "peakRssBytes": peak}


_process_time = time.process_time
# The children's CPU seconds (those waited for) as the last cell ended; None: read afresh at the next start.
_children_cpu = None


def _children_cpu_now():
    resource = _rusage()
    if resource is None:
        times = os.times()  # Windows: no getrusage (and these two are 0 there)
        return times[2] + times[3]
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return children.ru_utime + children.ru_stime


def forget_children_baseline():
    """A child was waited for between cells (the reaper): the next cell reads the children's CPU afresh."""
    global _children_cpu
    _children_cpu = None


def _peak_rss_bytes(own_maxrss, children_maxrss):
    global _children_peak
    own = own_maxrss * _MAXRSS_UNIT
    # The children's figure is the largest child ever waited for: count it only when this cell raised it.
    children = children_maxrss * _MAXRSS_UNIT
    child_peak = children if children > _children_peak else 0
    _children_peak = max(_children_peak, children)
    return int(max(own, child_peak))


def reset_peak():
    """Linux: start the next cell's peak from the current size (called after `done`, off the cell's clock)."""
    if not _IS_LINUX:
        return
    try:
        fd = os.open("/proc/self/clear_refs", os.O_WRONLY)
        try:
            os.write(fd, b"5")  # 5 resets only the peak RSS; the other values would clear page flags
        finally:
            os.close(fd)
    except OSError:
        pass
