"""How the NER model's spans join the rule and lexicon spans: model labels (PER / ORG / LOC) become engine kinds,
spans are cut at line breaks and stripped of edge punctuation, a person span inside a famous person's name becomes
that name (so the engine's notoriety rule judges it whole), unsure spans are dropped, and only the kinds the
measurement kept for a language go on.

Pure: the spans come from the browser worker (ml-worker.js runs the model on the arrays openmasq.ner.features
made, openmasq.ner.decode decodes them) or from `openmasq.ner.runtime` on CPython; the result goes into
`RedactOptions.spans`, where the engine weighs it against its own detectors."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..patterns import deferred
from . import lexicon
from .language import UNKNOWN, guess_language
from .spans import Span

# Model label (lower case) -> engine kind (kinds.py).
LABEL_KINDS: dict[str, str] = {"per": "person", "org": "org", "loc": "location"}
# Kinds whose value is a name: cut at a line break, edge punctuation stripped.
NAME_KINDS = frozenset({"person", "org", "location"})

# A span below its kind's probability (the mean over its words that each word is of that kind) is dropped.
# `python bench/models.py ner` sweeps each kind's threshold on corpus + dev (never tests/data/unseen) and ranks
# them by OVER_PER_LEAK x leaks + replacements on no label. Measured with the person edges trimmed (2 Dec 2026,
# leaks whole,+part and over clean changed,on-no-label, all languages, rules only 119,123 35,78): person at 0.5
# 96,100 45,101, at 0.9 105,109 40,86 (0.5 ranks first); location at 0.5 104,108 38,153, at 0.9 105,109 36,117
# (0.9 first); org ranks 0.9 first but is kept nowhere (below).
SCORE_THRESHOLDS: dict[str, float] = {"person": 0.5, "org": 0.5, "location": 0.9}
SCORE_THRESHOLD = 0.5  # the default of a kind not in the table

_LINE_BREAK = deferred(r"[\r\n\u2028\u2029]")
_LETTER_WORD = deferred(r"(?<!\w)[^\W\d_][\w-]*")
_NAME_PIECE = deferred(r"(?<![\w'’])[^\W\d_][\w'’-]*")
_FAMOUS_MAX_WORDS = 4

# Where the model is kept, per language and engine kind: only where it lowers leaks without raising any leak
# count, and adds at most measure.OVER_PER_LEAK (3) over-redactions per leak avoided (measure.helps). Measured by
# `python bench/models.py ner` on corpus + dev (1,074 messages, dev's three sets; never tests/data/unseen), one
# model kind at a time at SCORE_THRESHOLDS, leaks whole,+part and over clean changed,on-no-label, rules -> with
# that kind (2 Dec 2026, person edges trimmed):
#   person    de 19,20->16,17 over 4,12->4,15; en 32,34->27,29 over 15,26->17,30; es 23,23->17,17 over 7,12->9,18;
#             fr 23,24->17,18 over 3,10->4,13; it 22,22->19,19 over 6,18->11,25; auto 119,123->96,100: KEPT
#   location  (at 0.9) de 19,20->15,16 over 4,12->4,19; en 32,34->27,29 over 15,26->16,34; it 22,22->19,19 over
#             6,18->6,26; auto 119,123->105,109 over 35,78->36,117: KEPT; es (23->22 over 12->21) and fr (23->22
#             over 10->17) too costly
#   org       every language: too costly (en 32,34->29,31 over 15,26->25,59; fr 23,24->21,22 over 3,10->12,42)
# A text of unknown language is read as the language its commonest words say (language.py), else "auto".
# The rules were written against these sets; models/ner/TRAINING.md has the model's own figures.
KEPT_KINDS: dict[str, frozenset[str]] = {
    "de": frozenset({"person", "location"}),
    "en": frozenset({"person", "location"}),
    "fr": frozenset({"person"}),
    "es": frozenset({"person"}),
    "it": frozenset({"person", "location"}),
    "auto": frozenset({"person", "location"}),
}


@dataclass(frozen=True)
class _Part:
    """A model span on its way to an engine span: its range, model label and probability."""

    start: int
    end: int
    label: str
    score: float


def kept_kinds(lang: str) -> frozenset[str]:
    """The engine kinds the model contributes for `lang`; "auto" and unmeasured languages get the decision
    taken on every language pooled."""
    return KEPT_KINDS.get(lang, KEPT_KINDS["auto"])


def threshold_of(kind: str, threshold: float | None = None) -> float:
    return SCORE_THRESHOLDS.get(kind, SCORE_THRESHOLD) if threshold is None else threshold


def model_spans(text: str, raw: Iterable[Span], lang: str, threshold: float | None = None) -> list[Span]:
    """The spans to give the engine (`RedactOptions.spans`) for the model's raw spans over `text`; a text of
    unknown language ("auto") gets the kinds of the language its words say, when they say one."""
    keep = kept_kinds(guess_language(text) if lang == UNKNOWN else lang)
    return [span for span in engine_spans(text, raw, threshold) if span.kind in keep]


def engine_spans(text: str, raw: Iterable[Span], threshold: float | None = None) -> list[Span]:
    """Every model span as an engine span (kinds.py kinds, source "ner"), trimmed and thresholded (each kind at
    its own threshold, or all at `threshold`), before the per-language table."""
    parts: list[_Part] = []
    for s in sorted(raw, key=lambda s: (s.start, s.end)):
        kind = LABEL_KINDS.get(s.kind.lower())
        if kind is None:
            continue
        part = _Part(s.start, s.end, kind, s.score)
        if parts and _joins(text, parts[-1], part):
            # An organisation cut in two ("Müller" + "Logistik GmbH"): one name, scored by its surer half.
            previous = parts.pop()
            part = _Part(previous.start, part.end, kind, max(previous.score, part.score))
        parts.append(part)
    out: list[Span] = []
    for part in parts:
        if part.score < threshold_of(part.label, threshold):
            continue
        span = _to_span(text, part)
        if span is not None:
            out.append(span)
    return out


def _joins(text: str, left: _Part, right: _Part) -> bool:
    """Two organisation spans one space apart are one organisation."""
    return left.label == right.label == "org" and text[left.end : right.start] == " "


def _to_span(text: str, part: _Part) -> Span | None:
    kind = part.label
    # A name never runs over a line break ("Lefèvre\r\nMerci": the signature's next line): the first line is kept.
    line_end = _LINE_BREAK.search(text, part.start, part.end)
    edges = _strip_punctuation(text, part.start, line_end.start() if line_end else part.end)
    if edges is not None and kind == "org":
        edges = _with_legal_dot(text, *edges)
    if edges is not None and kind == "person":
        edges = _person_edges(text, *edges)
    if edges is None or _is_famous_thing(text[edges[0] : edges[1]]):
        return None
    start, end = edges
    return Span(start, end, text[start:end], kind, "ner", part.score)


def _person_edges(text: str, start: int, end: int) -> tuple[int, int] | None:
    """A person span that is part of, or overruns, a famous person's name ("Emmanuel" in "Emmanuel Macron",
    "Angela Merkel Physik") becomes that name, so that the engine's notoriety rule judges the whole name;
    a lone word that is a place ("Sydney", "Paris") or no known name word is no person."""
    famous = _famous_name_around(text, start, end)
    if famous is not None:
        return famous
    trimmed = _without_edge_words(text, start, end)
    if trimmed is None:
        return None
    start, end = trimmed
    value = text[start:end]
    if " " not in value and (lexicon.is_place(value) or not _is_name_word(value) or _is_lowercase_word(value)):
        return None
    return start, end


def _without_edge_words(text: str, start: int, end: int) -> tuple[int, int] | None:
    """A person span without the words at its edges that belong to no name: a function word ("Der
    Vorstandsvorsitzende", "Francesca nel", "le LDDS") or a word no name list knows ("Surtout Monet",
    "el Cupra Formentor"); None when no word is left. Words inside the span stay ("Jean de La Fontaine")."""
    words = [(m.start(), m.end()) for m in _NAME_PIECE.finditer(text, start, end)]
    while words and _is_edge_filler(text, *words[0]):
        words.pop(0)
    while words and _is_edge_filler(text, *words[-1]):
        words.pop()
    if not words:
        return None
    return words[0][0], words[-1][1]


def _is_edge_filler(text: str, start: int, end: int) -> bool:
    """A function word ("I run", "Francesca nel"), an everyday word that is no name ("Surtout Monet") or, in
    lower case, one that is a name too ("run", "will"); an initial ("J.") and a word no dictionary knows (a
    rare surname) stay."""
    word = text[start:end]
    if len(word) == 1 and word.isupper() and text[end : end + 1] == ".":
        return False
    if lexicon.is_stopword(word) or (word.islower() and lexicon.is_homograph(word)):
        return True
    known = lexicon.is_frequent_word(word) or lexicon.is_common_word(word) or lexicon.is_everyday_form(word)
    return known and not _is_name_word(word)


def _is_lowercase_word(value: str) -> bool:
    """A lone word in lower case that no first-name list knows ("gagné", "bind", "cucul"): a word, or a surname
    the model took for a name, not a first name typed in lower case ("karim"). Measured on corpus + dev: no
    person leaked more, three clean messages fewer changed."""
    return value.islower() and not lexicon.is_first_name(value)


def _is_name_word(word: str) -> bool:
    """In the name lists. A lone word the lists do not know is rarely a person when the model says so (corpus +
    dev, this model: "refonte", "payé", "proxy", "Angular", "Evri", "Pixel", "O2"); names of two words or more are
    taken from the model as they are."""
    return lexicon.is_first_name(word) or lexicon.is_surname(word)


def _is_famous_thing(value: str) -> bool:
    """A world-famous brand, public body, country or service: O under the labelling rule, whatever the model
    says ("Orange" taken for a person); famous PEOPLE stay, for the engine's notoriety rule to judge."""
    return lexicon.is_notorious(value, "company", commercial=True, people=False)


def _famous_name_around(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The longest run of capitalised words, one space apart, that overlaps [start, end) and is a famous
    person's name (lexicon.is_famous_person), if any."""
    words = [(m.start(), m.end()) for m in _LETTER_WORD.finditer(text) if m.group()[0].isupper()]
    touched = [i for i, (a, b) in enumerate(words) if a < end and start < b]
    if not touched:
        return None
    first, last = touched[0], touched[-1]
    while first > 0 and text[words[first - 1][1] : words[first][0]] == " ":
        first -= 1
    while last + 1 < len(words) and text[words[last][1] : words[last + 1][0]] == " ":
        last += 1
    best: tuple[int, int] | None = None
    for i in range(first, last + 1):
        for j in range(i, min(last, i + _FAMOUS_MAX_WORDS - 1) + 1):
            a, b = words[i][0], words[j][1]
            overlaps = a < end and start < b
            longer = best is None or b - a > best[1] - best[0]
            if overlaps and longer and lexicon.is_famous_person(text[a:b]):
                best = (a, b)
    return best


def _with_legal_dot(text: str, start: int, end: int) -> tuple[int, int]:
    """An organisation keeps the dot that closes its legal form ("Transportes Ruiz S.L.", "Dorne e.V.")."""
    if end < len(text) and text[end] == ".":
        last = text[start:end].rsplit(" ", 1)[-1]
        if lexicon.is_legal_form(last + "."):
            return start, end + 1
    return start, end


def _strip_punctuation(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and not text[start].isalnum():
        start += 1
    while end > start and not text[end - 1].isalnum():
        end -= 1
    return (start, end) if start < end else None
