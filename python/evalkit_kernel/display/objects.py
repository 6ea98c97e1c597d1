"""IPython.display-style wrappers (HTML, Markdown, Latex, SVG, JSON, Image) for showing ready-made content."""

import os

from ..core import json_codec

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _read(filename, binary):
    with open(filename, "rb" if binary else "r") as handle:
        return handle.read()


class DisplayObject(object):
    """Holds data (or the contents of filename); the text/plain repr is IPython's `<IPython.core.display.Name object>`."""

    _binary = False

    def __init__(self, data=None, url=None, filename=None, metadata=None):
        if data is not None and filename is not None:
            raise ValueError("give data or filename, not both")
        if filename is not None:
            data = _read(filename, self._binary)
        self.data = data
        self.url = url
        self.filename = filename
        self.metadata = dict(metadata) if metadata else {}

    def __repr__(self):
        # IPython's own text/plain for these objects, which notebooks store; the model skips it for the rich part.
        return "<IPython.core.display.%s object>" % (type(self).__name__,)

    def _text(self):
        if isinstance(self.data, bytes):
            return self.data.decode("utf-8", "replace")
        return "" if self.data is None else str(self.data)

    def _with_metadata(self, value):
        return (value, self.metadata) if self.metadata else value


class HTML(DisplayObject):
    def _repr_html_(self):
        if self.data is None and self.url is not None:
            return self._with_metadata('<a href="%s">%s</a>' % (self.url, self.url))
        return self._with_metadata(self._text())


class Markdown(DisplayObject):
    def _repr_markdown_(self):
        return self._with_metadata(self._text())


class Latex(DisplayObject):
    def _repr_latex_(self):
        return self._with_metadata(self._text())


class SVG(DisplayObject):
    def _repr_svg_(self):
        return self._with_metadata(self._text())


class JSON(DisplayObject):
    """JSON(data) with a dict/list (or a JSON string); shown as application/json."""

    def __init__(self, data=None, url=None, filename=None, expanded=False, metadata=None, root="root", **kwargs):
        DisplayObject.__init__(self, data=data, url=url, filename=filename, metadata=metadata)
        if isinstance(self.data, (str, bytes)):
            self.data = json_codec.loads(self.data)
        self.metadata.update({"expanded": expanded, "root": root})
        self.metadata.update(kwargs)

    def _repr_json_(self):
        return self.data, self.metadata


class Image(DisplayObject):
    """Image(data=bytes or a path, filename=, url=, format="png"|"jpeg", width=, height=)."""

    _binary = True

    def __init__(self, data=None, url=None, filename=None, format=None, width=None, height=None, metadata=None,
                 embed=None, **kwargs):
        if isinstance(data, str) and url is None and filename is None:
            if data.startswith(("http://", "https://")):
                url, data = data, None
            elif os.path.exists(data):
                filename, data = data, None
        DisplayObject.__init__(self, data=data, url=url, filename=filename, metadata=metadata)
        self.format = _image_format(format, self.data, filename or url)
        if width is not None:
            self.metadata["width"] = width
        if height is not None:
            self.metadata["height"] = height

    def _repr_png_(self):
        if self.data is not None and self.format == "png":
            return self._with_metadata(self.data)
        return None

    def _repr_jpeg_(self):
        if self.data is not None and self.format == "jpeg":
            return self._with_metadata(self.data)
        return None

    def _repr_html_(self):
        if self.data is None and self.url is not None:
            return '<img src="%s"/>' % (self.url,)
        return None


def _image_format(format, data, name):
    if format:
        format = format.lower()
        return "jpeg" if format == "jpg" else format
    if isinstance(data, bytes):
        if data.startswith(_PNG_SIGNATURE):
            return "png"
        if data.startswith(b"\xff\xd8"):
            return "jpeg"
    if name:
        ext = os.path.splitext(name.split("?")[0])[1].lower()
        if ext in (".jpg", ".jpeg"):
            return "jpeg"
    return "png"
