"""Gather candidate spans from every source: rules, the name and organisation lexicons,
forced values and spans given from outside (the NER model).

Detectors read the text without zero-width characters; spans are mapped back to offsets in
the original text, and their value is the clean spelling."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from ..patterns import deferred
from . import lexicon
from .lone_names import detect_lone_names
from .names import detect_handles, detect_names
from .options import Forced, RedactOptions
from .orgs import detect_orgs
from .places import detect_places
from .rules import detect_rules
from .spans import Span
from .tables import detect_table_values
from .text import (
    FoldedText,
    fold,
    is_word_char,
    strip_accents,
    symbols_as_spaces,
    tolerant_pattern,
    tolerant_spans,
    without_zero_width,
    word_bounded,
)

NAME_CATEGORIES = frozenset({"name", "company", "username"})


# Detection of one text in two halves of similar cost that share nothing: a shell with a second
# core (the proxy) runs the names-and-organisations half elsewhere while this one runs the rest.
# An `Offload` starts that half for a view and the known names, and gives back a function that
# waits for its result (NamesAndOrgs), or for None when it could not be had there (that half then
# runs here); without an Offload, both halves run here, one after the other.
NamesAndOrgs = tuple[list[Span], list[Span]]
Offload = Callable[[str, tuple[str, ...]], Callable[[], NamesAndOrgs | None]]


def gather(text: str, options: RedactOptions, *, offload: Offload | None = None) -> list[Span]:
    """Every candidate span of the text (overlaps included), on original offsets; the same
    list, in the same order, whether `offload` runs a half elsewhere or not."""
    plain, offsets = without_zero_width(text)
    view = symbols_as_spaces(plain)
    with_names = bool(NAME_CATEGORIES & options.active_categories())
    pending = offload(view, options.known_names) if offload is not None and with_names else None
    try:
        found: list[Span] = list(detect_rules(view))
        handles = detect_handles(view) if with_names else []
    finally:  # an offloaded half is always collected, so its worker is free for the next text
        names_and_orgs = pending() if pending is not None else None
    if with_names:
        names, orgs = names_and_orgs or detect_names_and_orgs(view, options.known_names)
        found += names + handles + orgs
    found += detect_table_values(view)
    if "location" in options.active_categories():
        found += detect_places(view)
    found.extend(forced_spans(view, options.force))
    if view != plain:
        found = [piece for span in found for piece in _cut_at_symbols(span, plain, view)]
    mapped = [_to_original(span, offsets, len(text)) for span in found]
    mapped.extend(_given_spans(text, options.spans))
    return mapped + sites_naming(mapped)


# A URL or domain whose host holds a word of a person or an organisation found in the same text
# ("Jens Albrecht, Tischlerei Albrecht" and "www.tischlerei-albrecht-bielefeld.de") is their own site: masked as
# an e-mail's domain is ("site"), where a URL alone is public. Words of four letters or more, folded.
_SITE_NAMERS = frozenset({"person", "org"})
_SITE_WORD_MIN = 4
_WEB_KINDS = frozenset({"url", "domain"})


def sites_naming(spans: list[Span]) -> list[Span]:
    """A "site" span over each URL or domain span that names one of the people or organisations of `spans`."""
    webs = [s for s in spans if s.kind in _WEB_KINDS]
    if not webs:
        return []
    words = {fold(w) for s in spans if s.kind in _SITE_NAMERS for w in _WORD.findall(s.value)
             if len(w) >= _SITE_WORD_MIN}
    if not words:
        return []
    return [Span(s.start, s.end, s.value, "site", "rule", 0.9) for s in webs
            if any(word in label for label in _host_labels(s.value) for word in words)]


_WORD = deferred(r"[^\W\d_]+")


def _host_labels(value: str) -> list[str]:
    """The host's labels but its top-level domain and "www", folded ("www.tischlerei-albrecht.de" ->
    ["tischlerei-albrecht"])."""
    host = value.split("//", 1)[-1].split("/", 1)[0].rpartition("@")[2].split(":", 1)[0]
    labels = strip_accents(host.casefold()).split(".")
    return [label for label in labels[:-1] if label != "www"]


def detect_names_and_orgs(view: str, known_names: tuple[str, ...]) -> NamesAndOrgs:
    """The half of detection an Offload may run elsewhere: person and organisation names."""
    names = detect_names(view, known=known_names) + detect_lone_names(view)
    return [part for span in names for part in _split_repeated_name(span)], detect_orgs(view)


def _split_repeated_name(span: Span) -> list[Span]:
    """A name whose first word comes again, spelt the same ("Marie Dupont Marie Martin", "Marie Dupont Marie
    Dupont": a list without commas), is several names, cut where it starts again: as one value, its fake would
    be fakes side by side, which a restore could not tell apart. "DUPONT Marie Dupont" stays one value (a
    surname said twice in two spellings is one person)."""
    words = span.value.split(" ")
    starts = [k for k, word in enumerate(words) if word == words[0]]
    if len(starts) == 1:
        return [span]
    pieces: list[Span] = []
    for first, stop in zip(starts, [*starts[1:], len(words)], strict=True):
        offset = len(" ".join(words[:first])) + (1 if first else 0)
        piece = " ".join(words[first:stop])
        pieces.append(Span(span.start + offset, span.start + offset + len(piece), piece, span.kind, span.source,
                           span.score))
    return pieces


def _cut_at_symbols(span: Span, plain: str, view: str) -> list[Span]:
    """A span read across a pictograph ("Marie 🙂 Dupont") is cut there, into the pieces either side: the
    pictograph stays in the text as written, and each piece gets its own fake (a value holding the space the
    detector read would be restored without the pictograph)."""
    pieces: list[Span] = []
    start = span.start
    for i in range(span.start, span.end + 1):
        if i < span.end and plain[i] == view[i]:
            continue
        piece = view[start:i]
        left = len(piece) - len(piece.lstrip())
        piece = piece.strip()
        if any(is_word_char(ch) for ch in piece):
            pieces.append(Span(start + left, start + left + len(piece), piece, span.kind, span.source, span.score))
        start = i + 1
    return pieces if len(pieces) != 1 or pieces[0].value != span.value else [span]


def _to_original(span: Span, offsets: list[int], length: int) -> Span:
    if len(offsets) == length:
        return span
    start = offsets[span.start]
    end = offsets[span.end - 1] + 1
    return Span(start, end, span.value, span.kind, span.source, span.score)


def _given_spans(text: str, given: Iterable[Span]) -> list[Span]:
    out: list[Span] = []
    for span in given:
        if not (0 <= span.start < span.end <= len(text)):
            raise ValueError(f"given span {span.start}:{span.end} is outside the text")
        value, _ = without_zero_width(text[span.start : span.end])
        if value.strip():
            out.append(Span(span.start, span.end, value, span.kind, span.source, span.score))
    return out


def forced_spans(text: str, forced: Iterable[Forced]) -> list[Span]:
    """Every case-, accent- and spacing-variant occurrence of each forced value."""
    out: list[Span] = []
    folded: FoldedText | None = None
    for item in forced:
        value = item.value.strip()
        if len(value) < 2:
            continue
        kind = item.kind or guess_kind(value)
        folded = folded or FoldedText(text)
        found = tolerant_spans(folded, value)
        if found is None:
            found = [m.span() for m in forced_pattern(value).finditer(text)]
        out.extend(Span(start, end, text[start:end], kind, "forced") for start, end in found)
    return out


@lru_cache(maxsize=4096)
def forced_pattern(value: str) -> re.Pattern[str]:
    """The compiled tolerant pattern of a forced value the folded search cannot answer for
    (tolerant_spans: a letter such as "ı" whose spellings fold apart); compiling one costs
    about 2 ms on CPython."""
    return re.compile(word_bounded(tolerant_pattern(value), value))


@lru_cache(maxsize=4096)
def guess_kind(value: str) -> str:
    """The kind of a forced value given without one: a rule that matches all of it, else a
    person when it starts with a known first name, else an organisation."""
    for span in detect_rules(value):
        if span.start == 0 and span.end == len(value):
            return span.kind
    first = value.split()[0]
    if "@" in value:
        return "email"
    if lexicon.is_first_name(first) and not any(ch.isdigit() for ch in value):
        return "person"
    if any(ch.isdigit() for ch in value):
        return "token"
    return "org"
