"""A message as plain text for one line of the conversation list (issue 18): the markdown a model
writes (headings, emphasis, links, code, lists, tables, quotes, HTML tags) reduced to its words.
Linear regexes only: a 1 MB reply is cut first, the list shows a line of it."""

from __future__ import annotations

import re

READ_CHARS = 2_000  # a preview reads no further than this into a message

_FENCE = re.compile(r"^\s*(```|~~~)[^\n]*$", re.MULTILINE)
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\([^)\n]*\)")
_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
_REF_LINK = re.compile(r"\[([^\]\n]*)\]\[[^\]\n]*\]")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]*)>")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>\n]*)?/?>")
_LINE_MARK = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+(?:\[[ xX]\][ \t]+)?|\d{1,9}[.)][ \t]+)",
                        re.MULTILINE)
_RULE = re.compile(r"^[ \t]*(?:[-*_][ \t]*){3,}$|^[ \t|:-]*-{3,}[ \t|:-]*$", re.MULTILINE)
_EMPHASIS = re.compile(r"(\*\*|\*|~~)(?=\S)([^\n]*?\S)\1|(?<!\w)(__|_)(?=\S)([^\n]*?\S)\3(?!\w)")
_CODE = re.compile(r"`+([^`\n]*)`+")
_PIPES = re.compile(r"[ \t]*\|[ \t]*")
_SPACES = re.compile(r"\s+")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~])")
_HIDDEN = re.compile("[\ue000-\ue07f]")  # escaped characters, kept aside while the syntax goes


def plain_text(markdown: str, limit: int = 120) -> str:
    """The first `limit` characters of what `markdown` says, on one line, without its syntax."""
    text = _ESCAPE.sub(lambda m: chr(0xE000 + ord(m.group(1))), markdown[:READ_CHARS])
    text = _FENCE.sub(" ", text)
    text = _RULE.sub(" ", text)
    for pattern in (_IMAGE, _LINK, _REF_LINK, _AUTOLINK):
        text = pattern.sub(r"\1", text)
    text = _TAG.sub(" ", text)
    text = _LINE_MARK.sub("", text)
    text = _CODE.sub(r"\1", text)
    for _ in range(2):  # nested emphasis: ***both***
        text = _EMPHASIS.sub(lambda m: m.group(2) or m.group(4), text)
    text = _PIPES.sub(" ", text)
    text = _HIDDEN.sub(lambda m: chr(ord(m.group()) - 0xE000), text)
    return _SPACES.sub(" ", text).strip()[:limit]
