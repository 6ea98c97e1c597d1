# evalkit bootstrap: reads the runner bundle from stdin (header line, then JSON), imports it lazily, runs it.
# The short loader on the command line (RUNNER_LOADER in src/kernel/python/runner-bundle.ts) read this file
# from stdin first; the words after it (`evalkit-kernel python`) are for `ps` only, so cells see sys.argv ["-c"].
import os, sys
def _evalkit_boot():
    del sys.argv[1:]
    bundle = _read_bundle()
    mods, pkgs = bundle["modules"], set(bundle["packages"])
    hashes = bundle.get("hashes") or {}
    entry, config = bundle["entry"], bundle.get("config") or {}
    del bundle  # this frame lives as long as the runner: keep only what the loader needs
    cache = _code_cache(config.get("codeCache"))
    # importlib.abc/util would pull in importlib.resources, pathlib, tempfile... (~10 ms): plain duck typing instead.
    ModuleSpec = type(sys.__spec__)

    class Loader(object):
        def find_spec(self, name, path=None, target=None):
            if name not in mods:
                return None
            spec = ModuleSpec(name, self, origin=self.get_filename(name), is_package=name in pkgs)
            spec.has_location = True
            return spec
        def create_module(self, spec):
            return None
        def get_filename(self, name):
            tail = "/__init__.py" if name in pkgs else ".py"
            return "<evalkit>/" + name.replace(".", "/") + tail
        def get_data(self, path):
            raise OSError(path)
        def get_source(self, name):
            return mods[name]
        def forget_sources(self):
            """Drops the sources no longer needed: imported modules', and those in the code cache (an idle
            kernel's memory; tracebacks through evalkit's own code then show file and line only)."""
            for name in mods:
                if name in sys.modules or os.path.exists(self.cache_path(name) or "\0"):
                    mods[name] = None
        def cache_path(self, name):
            key = hashes.get(name)
            return cache and key and os.path.join(cache, "%s-%s-%s.bin" % (name, key, _TAG))
        def is_package(self, name):
            return name in pkgs
        def get_code(self, name):
            path = self.cache_path(name)
            if path:
                try:
                    with open(path, "rb") as f:
                        return _marshal.loads(f.read())
                except Exception:
                    pass
            if mods[name] is None:  # its source was dropped for the cached code, which is gone since
                raise ImportError("evalkit: the compiled code of %s is gone from the cache" % name, name=name)
            code = compile(mods[name], self.get_filename(name), "exec", dont_inherit=True)
            if path:
                try:  # atomic: concurrent kernels write the same bytes; readers never see a partial file
                    tmp = "%s.%d.tmp" % (path, os.getpid())
                    with open(tmp, "wb") as f:
                        f.write(_marshal.dumps(code))
                    os.replace(tmp, path)
                except Exception:
                    pass
            return code
        def exec_module(self, module):
            if module.__spec__.submodule_search_locations is not None:
                module.__path__ = []
            exec(self.get_code(module.__name__), module.__dict__)

    loader = Loader()
    if config.get("compileOnly"):
        # The host fills the cache for sandboxed kernels, which see it read-only: compile, store, run nothing.
        for name in sorted(mods):
            loader.get_code(name)
        return
    sys.meta_path.insert(0, loader)
    __import__(entry, fromlist=["main"]).main(config)
def _read_bundle():
    """The bundle from stdin: a header line `EVALKIT <size>`, then that many bytes of JSON."""
    head = b""
    while not head.endswith(b"\n"):
        c = os.read(0, 1)
        if not c:
            raise SystemExit(3)
        head += c
    size = int(head.split()[1])
    parts = []
    while size > 0:
        c = os.read(0, min(size, 1 << 20))
        if not c:
            raise SystemExit(3)
        parts.append(c)
        size -= len(c)
    return _parse_json(b"".join(parts).decode("utf-8"))
def _parse_json(text):
    """json.loads without importing json (it pulls in re and enum: ~9 ms of start-up)."""
    try:
        import _json
    except ImportError:
        import json
        return json.loads(text)
    class Context(object):
        strict, object_hook, object_pairs_hook = True, None, None
        parse_float, parse_int = float, int
        def parse_constant(self, name):
            raise ValueError(name)
    return _json.make_scanner(Context())(text, 0)[0]
def _code_cache(path):
    """The compiled-code cache directory when it is usable and ours alone (never code others could plant)."""
    global _TAG, _marshal
    magic = getattr(sys.modules.get("_frozen_importlib_external"), "MAGIC_NUMBER", None)
    if not path or not isinstance(path, str) or not magic or not hasattr(os, "getuid"):
        return None
    try:
        import marshal as _marshal
        os.makedirs(path, 0o700, exist_ok=True)
        st = os.stat(path)
        if st.st_uid != os.getuid() or st.st_mode & 0o022:
            return None
    except Exception:
        return None
    _TAG = "%s-%s" % (sys.implementation.cache_tag, magic.hex())
    return path
_TAG = _marshal = None
_evalkit_boot()
