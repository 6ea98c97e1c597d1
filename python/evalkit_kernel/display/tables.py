"""Converts an HTML table (pandas' own _repr_html_) into a compact markdown table for the model's view."""

from html.parser import HTMLParser

_CELL_TAGS = ("td", "th")
_SKIP_TAGS = ("style", "script")


class _TableParser(HTMLParser):
    """Collects the first table's rows (with spans) and the text after it (pandas' "N rows x M columns")."""

    def __init__(self):
        HTMLParser.__init__(self, convert_charrefs=True)
        self.rows = []  # each row: list of (text, colspan, rowspan, in_thead, is_th)
        self.footer = []
        self._depth = 0
        self._done = False
        self._in_thead = False
        self._row = None
        self._cell = None
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in _SKIP_TAGS:
            self._skip += 1
            return
        if tag == "table" and not self._done:
            self._depth += 1
        elif self._depth == 1:
            if tag == "thead":
                self._in_thead = True
            elif tag == "tr":
                self._row = []
            elif tag in _CELL_TAGS and self._row is not None:
                found = dict(attrs)
                self._cell = [[], _span(found.get("colspan")), _span(found.get("rowspan")), tag == "th"]
            elif tag == "br" and self._cell is not None:
                self._cell[0].append(" ")

    def handle_endtag(self, tag):
        if tag in _SKIP_TAGS:
            self._skip = max(0, self._skip - 1)
            return
        if tag == "table" and self._depth:
            self._depth -= 1
            if not self._depth:
                self._done = True
        elif self._depth == 1:
            if tag == "thead":
                self._in_thead = False
            elif tag in _CELL_TAGS and self._cell is not None and self._row is not None:
                text, colspan, rowspan, is_th = self._cell
                self._row.append((" ".join("".join(text).split()), colspan, rowspan, self._in_thead, is_th))
                self._cell = None
            elif tag == "tr" and self._row is not None:
                self.rows.append(self._row)
                self._row = None

    def handle_data(self, data):
        if self._skip:
            return
        if self._cell is not None:
            self._cell[0].append(data)
        elif self._done and data.strip():
            self.footer.append(" ".join(data.split()))


def _span(value):
    try:
        return max(1, min(int(value), 1000))
    except (TypeError, ValueError):
        return 1


def _grid(rows):
    """Expand colspan/rowspan so every row has one entry per column (spanned labels repeat)."""
    grid = []
    carried = {}  # column -> (text, rows left)
    has_thead = any(c[3] for row in rows for c in row)
    for index, row in enumerate(rows):
        out = []
        cells = list(row)
        col = 0
        if has_thead:
            in_head = bool(cells) and all(c[3] for c in cells)
        else:
            in_head = index == 0 and bool(cells) and all(c[4] for c in cells)
        while cells or col in carried:
            if col in carried:
                text, left = carried[col]
                out.append(text)
                if left <= 1:
                    del carried[col]
                else:
                    carried[col] = (text, left - 1)
                col += 1
                continue
            text, colspan, rowspan = cells.pop(0)[:3]
            for _ in range(colspan):
                if rowspan > 1:
                    carried[col] = (text, rowspan - 1)
                out.append(text)
                col += 1
        grid.append((out, in_head))
    return grid


def _escape(text):
    return text.replace("\\", "\\\\").replace("|", "\\|")


def html_table_to_markdown(html):
    """A GFM table for the first <table> in html, or None when there is none."""
    parser = _TableParser()
    try:
        parser.feed(html)
        parser.close()
    except Exception:
        return None
    grid = _grid(parser.rows)
    if not grid:
        return None
    width = max(len(cells) for cells, _ in grid)
    head_rows = []
    body_rows = []
    for cells, in_head in grid:
        cells = cells + [""] * (width - len(cells))
        (head_rows if in_head and not body_rows else body_rows).append(cells)
    # Several header rows (MultiIndex columns, pandas' index-name row) merge into one label per column.
    header = []
    for col in range(width):
        parts = []
        for row in head_rows:
            if row[col] and (not parts or parts[-1] != row[col]):
                parts.append(row[col])
        header.append(" / ".join(parts))
    lines = ["| " + " | ".join(_escape(h) for h in header) + " |"]
    lines.append("|" + "|".join("---" for _ in range(width)) + "|")
    for row in body_rows:
        lines.append("| " + " | ".join(_escape(c) for c in row) + " |")
    text = "\n".join(lines)
    if parser.footer:
        text += "\n\n" + " ".join(parser.footer)
    return text
