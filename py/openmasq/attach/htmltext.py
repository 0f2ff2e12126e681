"""HTML to the text a reader sees (an e-mail's HTML part): blocks on their own lines, table
cells separated by tabs, list items with a dash, scripts, styles and comments left out. Pure,
on the standard library's parser, which never fetches anything."""

from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCKS = frozenset({"p", "div", "section", "article", "header", "footer", "blockquote", "pre", "h1", "h2", "h3",
                     "h4", "h5", "h6", "ul", "ol", "table", "tr", "address", "hr", "form", "dl", "dt", "dd"})
_HIDDEN = frozenset({"script", "style", "head", "title", "template", "noscript"})


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN:
            self.hidden += 1
        elif tag == "br":
            self.out.append("\n")
        elif tag == "li":
            self.out.append("\n- ")
        elif tag in ("td", "th"):
            self.out.append("\t")
        elif tag in _BLOCKS:
            self.out.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in _BLOCKS:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.out.append(data)


_SPACES = re.compile(r"[ \u00a0]+")
_BLANK_LINES = re.compile(r"\n\s*\n(\s*\n)+")


def html_to_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    text = "".join(parser.out)
    lines = [_SPACES.sub(" ", line).strip(" ") for line in text.split("\n")]
    lines = [line.strip("\t") if not line.strip() else line.lstrip(" ").lstrip("\t") for line in lines]
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()
