"""`tool.name(**args)` / `tool["name"](args)`: the host's tools, bound by name; the bridge code loads on first call."""


class ToolNamespace(object):
    """`tool.name(**args)` or `tool["name"](args)`: calls the host tool registered under that name."""

    __slots__ = ()

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)  # keep copy/pickle/introspection probes from calling the host
        return ToolCall(name)

    def __getitem__(self, name):
        if not isinstance(name, str):
            raise TypeError("tool[...] takes the tool's name as a str (got %s)" % type(name).__name__)
        if not name.strip():
            raise ValueError("tool[...] needs a non-empty tool name")
        return ToolCall(name)

    def __call__(self, *args, **kwargs):
        raise TypeError("tool is not callable itself: use tool.name(**args) or tool['name'](args)")

    def __repr__(self):
        return "<evalkit tools: call tool.name(**args) or tool['name']({...}); the host decides which exist>"

    def __dir__(self):
        return []


class ToolCall(object):
    """One host tool, bound to its name."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __call__(self, *args, **kwargs):
        helper = "tool.%s()" % self.name if self.name.isidentifier() else "tool[%r]()" % self.name
        if len(args) > 1:
            raise TypeError("%s takes keyword arguments or one dict of arguments (got %d positional)" % (helper, len(args)))
        merged = {}
        if args:
            if args[0] is not None and not isinstance(args[0], dict):
                raise TypeError("%s positional argument must be a dict of arguments (got %s)"
                                % (helper, type(args[0]).__name__))
            merged.update(args[0] or {})
        merged.update(kwargs)
        for key in merged:
            if not isinstance(key, str):
                raise TypeError("%s argument names must be str (got %r)" % (helper, key))
        from .host import call_host

        return call_host(helper, "tool", {"name": self.name, "args": merged}, {"name": self.name})

    def __repr__(self):
        return "<evalkit tool %r>" % self.name


tool = ToolNamespace()
