"""`get_ipython().display_formatter`: one formatter per MIME type with for_type/for_type_by_name/enabled, as IPython has.

Nothing here is created until a cell asks for the display formatter; until then display_format uses the
default tables directly, so a kernel that never registers a printer pays nothing.
"""

from . import pretty
from . import pretty_types

# MIME type, repr method, and the name of IPython's formatter class for it (code prints the formatters).
_MIME_METHODS = (
    ("text/html", "_repr_html_", "HTMLFormatter"),
    ("text/markdown", "_repr_markdown_", "MarkdownFormatter"),
    ("image/svg+xml", "_repr_svg_", "SVGFormatter"),
    ("image/png", "_repr_png_", "PNGFormatter"),
    ("application/pdf", "_repr_pdf_", "PDFFormatter"),
    ("image/jpeg", "_repr_jpeg_", "JPEGFormatter"),
    ("text/latex", "_repr_latex_", "LatexFormatter"),
    ("application/json", "_repr_json_", "JSONFormatter"),
    ("application/javascript", "_repr_javascript_", "JavascriptFormatter"),
)


def _split_name(dotted):
    module, _, name = dotted.rpartition(".")
    return module, name


class BaseFormatter(object):
    """Printers registered by type (or by "module.Name" without importing it) for one MIME type."""

    def __init__(self, format_type, print_method=None):
        self.format_type = format_type
        self.print_method = print_method
        self.enabled = True
        self.type_printers = {}
        self.deferred_printers = {}
        self.singleton_printers = {}

    def __repr__(self):
        return "<%s for %s>" % (type(self).__name__, self.format_type)

    def for_type(self, typ, func=None):
        """Register func(obj) for typ (a class or "module.Name"); returns the printer it replaced."""
        if isinstance(typ, str):
            module, name = _split_name(typ)
            return self.for_type_by_name(module, name, func)
        old = self.lookup_by_type(typ, None)
        if func is not None:
            self.type_printers[typ] = func
        return old

    def for_type_by_name(self, type_module, type_name, func=None):
        """Register func for the class type_module.type_name without importing the module."""
        key = (type_module, type_name)
        old = self.deferred_printers.get(key)
        for typ in self.type_printers:
            if (getattr(typ, "__module__", None), getattr(typ, "__name__", None)) == key:
                old = self.type_printers[typ]
        if func is not None:
            self.deferred_printers[key] = func
        return old

    def lookup_by_type(self, typ, default=KeyError):
        if isinstance(typ, str):
            found = self.deferred_printers.get(_split_name(typ))
        else:
            found = None
            for cls in pretty_types.get_mro(typ):
                if cls in self.type_printers:
                    found = self.type_printers[cls]
                    break
                key = (getattr(cls, "__module__", None), getattr(cls, "__name__", None))
                if key in self.deferred_printers:
                    found = self.type_printers[cls] = self.deferred_printers.pop(key)
                    break
        if found is None:
            if default is KeyError:
                raise KeyError("No registered printer for %r" % (typ,))
            return default
        return found

    def lookup(self, obj):
        printer = self.singleton_printers.get(id(obj))
        return printer if printer is not None else self.lookup_by_type(type(obj))

    def __contains__(self, typ):
        return self.lookup_by_type(typ, None) is not None

    def pop(self, typ, default=KeyError):
        if isinstance(typ, str):
            key = _split_name(typ)
            if key in self.deferred_printers:
                return self.deferred_printers.pop(key)
        elif typ in self.type_printers:
            return self.type_printers.pop(typ)
        if default is KeyError:
            raise KeyError("No registered value for %r" % (typ,))
        return default

    def registered(self, obj):
        """The printer registered for obj, or None (instances only; classes are printed as values)."""
        if not (self.type_printers or self.deferred_printers or self.singleton_printers):
            return None
        try:
            return self.lookup(obj)
        except KeyError:
            return None

    def __call__(self, obj):
        if not self.enabled:
            return None
        printer = self.registered(obj)
        if printer is not None:
            return printer(obj)
        if self.print_method and not isinstance(obj, type):
            method = pretty_types.safe_getattr(obj, self.print_method, None)
            if callable(method):
                return method()
        return None


class PlainTextFormatter(BaseFormatter):
    """text/plain: the pretty printer; its printers take (obj, p, cycle) as in IPython."""

    def __init__(self):
        BaseFormatter.__init__(self, "text/plain")
        self.pprint = True
        self.max_width = pretty.MAX_WIDTH
        self.max_seq_length = pretty.MAX_SEQ_LENGTH
        self.type_printers = dict(pretty_types.TYPE_PRINTERS)
        self.deferred_printers = dict(pretty_types.DEFERRED_PRINTERS)
        self.singleton_printers = pretty_types.singleton_printers()

    def __call__(self, obj):
        if not self.enabled:
            return None
        if not self.pprint:
            return repr(obj)
        return pretty.pretty(
            obj, self.max_width, self.max_seq_length, type_printers=self.type_printers,
            deferred_printers=self.deferred_printers, singleton_printers=self.singleton_printers,
        )


class IPythonDisplayFormatter(BaseFormatter):
    """Calls obj._ipython_display_() (or a registered func(obj)); True when the object displayed itself."""

    def __init__(self):
        BaseFormatter.__init__(self, "ipython_display", "_ipython_display_")

    def __call__(self, obj):
        if not self.enabled:
            return False
        printer = self.registered(obj)
        if printer is not None:
            printer(obj)
            return True
        if isinstance(obj, type):
            return False
        method = pretty_types.safe_getattr(obj, "_ipython_display_", None)
        if callable(method):
            method()
            return True
        return False


class DisplayFormatter(object):
    """What get_ipython().display_formatter is: .formatters[mime], .ipython_display_formatter, .format()."""

    def __init__(self):
        self.formatters = {"text/plain": PlainTextFormatter()}
        for mime, method, class_name in _MIME_METHODS:
            self.formatters[mime] = type(class_name, (BaseFormatter,), {})(mime, method)
        self.ipython_display_formatter = IPythonDisplayFormatter()
        self.mimebundle_formatter = BaseFormatter("mimebundle", "_repr_mimebundle_")
        self.plain_text_only = False

    @property
    def active_types(self):
        return [mime for mime, formatter in self.formatters.items() if formatter.enabled]

    def format(self, obj, include=None, exclude=None):
        """(data, metadata) as display() would publish them; ({}, {}) when obj displayed itself."""
        from . import formatting

        if self.ipython_display_formatter(obj):
            return {}, {}
        formatted = formatting.format_object(obj, include=include, exclude=exclude)
        return formatted if formatted is not None else ({}, {})


_instance = []


def get():
    """The display formatter, created on first use."""
    if not _instance:
        _instance.append(DisplayFormatter())
    return _instance[0]


def active():
    """The display formatter if a cell ever asked for it, else None (the default tables apply)."""
    return _instance[0] if _instance else None
