"""Moves the runner's private descriptors (protocol, capture pipes) to high numbers, out of a cell's way.

A cell that closes low descriptors (`os.closerange(3, 20)`) and opens a file gets the lowest free number: had
the protocol lived there, the runner would write frames into the user's file. Descriptors the runner keeps
live near the top of the descriptor table (below RLIMIT_NOFILE, at most a few thousand so the table stays
small), marked close-on-exec so no child process inherits them.
"""

import os

try:
    import fcntl as _fcntl
except ImportError:  # not POSIX: descriptors stay where the OS put them
    _fcntl = None

_F_DUPFD_CLOEXEC = getattr(_fcntl, "F_DUPFD_CLOEXEC", 1030)
_TOP = 4096  # a bigger table costs memory in every process that forks from the runner
_base = None


def _lowest_private():
    global _base
    if _base is None:
        try:
            soft = os.sysconf("SC_OPEN_MAX")
        except (AttributeError, ValueError, OSError):
            soft = 1024
        if soft <= 0:
            soft = _TOP
        # Room for a few dozen private descriptors (pipes rebuilt after sabotage included) below the limit.
        _base = max(10, min(soft, _TOP) - 96)
    return _base


def move_high(fd):
    """Return a close-on-exec duplicate of fd at a high number and close fd (fd itself if that fails)."""
    if _fcntl is None:
        return fd
    try:
        moved = _fcntl.fcntl(fd, _F_DUPFD_CLOEXEC, _lowest_private())
    except (OSError, ValueError):
        return fd
    try:
        os.close(fd)
    except OSError:
        pass
    return moved


def private_pipe():
    """os.pipe() with both ends moved high."""
    read_fd, write_fd = os.pipe()
    return move_high(read_fd), move_high(write_fd)


def reset_blocking(fds=(1, 2)):
    """Clear O_NONBLOCK on fd 1/2 (shared with the capture pipes' write ends); returns the fds it fixed.

    A child such as `node` can leave its inherited stdout non-blocking; later children then see EAGAIN on a
    full pipe and lose output without a word.
    """
    fixed = []
    if _fcntl is None:
        return fixed
    for fd in fds:
        try:
            flags = _fcntl.fcntl(fd, _fcntl.F_GETFL)
            if flags & os.O_NONBLOCK:
                _fcntl.fcntl(fd, _fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
                fixed.append(fd)
        except (OSError, ValueError):
            pass
    return fixed
