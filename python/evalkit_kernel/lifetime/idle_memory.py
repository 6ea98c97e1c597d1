"""What the runner gives back once it is up, so an idle kernel costs little memory (docs/performance.md).

Start-up leaves two kinds of garbage behind: the sources of the runner's modules, which the bootstrap's loader
keeps for the modules not imported yet (it compiles them on a code-cache miss), and freed heap. The host's
malloc tuning (MALLOC_TRIM_THRESHOLD_, python-command.ts) keeps up to 32 MiB of freed heap mapped for big
frames; start-up freed the bundle (~1 MB read, decoded and parsed), which would otherwise stay resident in
every idle kernel. malloc_trim(0) hands those pages back (glibc; a no-op elsewhere); later frames take new ones.
"""

import sys


def release():
    """Drops the imported modules' sources and returns freed heap pages to the system."""
    loader = getattr(sys.modules.get("evalkit_kernel"), "__loader__", None)
    forget = getattr(loader, "forget_sources", None)
    if forget is not None:
        forget()
    trim_heap()


def trim_heap():
    """glibc's malloc_trim(0) through _ctypes (no `ctypes` import: ~5 ms); False when unavailable."""
    try:
        import _ctypes

        handle = _ctypes.dlopen(None)
        return _ctypes.call_function(_ctypes.dlsym(handle, "malloc_trim"), (0,)) == 1
    except Exception:
        return False
