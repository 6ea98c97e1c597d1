"""Each cell's CPU time and peak memory, reported in its `done` frame (getrusage: this process and its children)."""

import os
import sys

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

    __slots__ = ("_cpu",)

    def __init__(self):
        self._cpu = _cpu_seconds()

    def finish(self):
        # One reading of each figure serves both numbers: every getrusage is a system call, ~1-5 µs here.
        resource = _rusage()
        if resource is None:
            cpu_ms = max(0.0, (_cpu_seconds() - self._cpu) * 1000.0)
            return {"cpuMs": round(cpu_ms, 3), "peakRssBytes": 0}
        own = resource.getrusage(resource.RUSAGE_SELF)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        spent = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
        cpu_ms = max(0.0, (spent - self._cpu) * 1000.0)
        return {"cpuMs": round(cpu_ms, 3), "peakRssBytes": _peak_rss_bytes(own.ru_maxrss, children.ru_maxrss)}


def _cpu_seconds():
    # getrusage has microseconds (os.times() counts 10 ms clock ticks); children: those the kernel waited for.
    resource = _rusage()
    if resource is None:
        times = os.times()
        return times[0] + times[1] + times[2] + times[3]
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


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
