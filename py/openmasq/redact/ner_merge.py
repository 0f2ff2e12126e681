"""How the NER model's spans join the rule and lexicon spans: model labels become engine kinds, a given name
and surname side by side become one person, spans that swallowed a lowercase neighbour ("Lyon hier") are
trimmed, unsure spans are dropped, and only the kinds the measurement kept for a language go on.

Pure: the spans come from the browser worker (transformers.js) or from `openmasq.ner` on CPython; the result
goes into `RedactOptions.spans`, where the engine weighs it against its own detectors."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..patterns import deferred
from . import lexicon
from .spans import Span

# Model label (lower case, without B-/I-) -> engine kind (kinds.py). Address parts are joined first and only
# become an address when a street name is among them; identifiers without a kind of their own are opaque tokens.
PERSON_PARTS = frozenset({"given_name", "surname"})
ADDRESS_PARTS = frozenset({"street_name", "building_number", "secondary_address", "zip_code"})
LABEL_KINDS: dict[str, str] = {
    "given_name": "person",
    "surname": "person",
    "city": "location",
    "state": "location",
    "street_name": "address",
    "building_number": "address",
    "secondary_address": "address",
    "zip_code": "address",
    "email": "email",
    "phone": "phone",
    "url": "url",
    "bank_account": "iban",
    "routing_number": "token",
    "tax_id": "token",
    "government_id": "token",
    "passport": "token",
    "drivers_license": "token",
}
# Kinds whose value is a name: their edges are trimmed back to capitalised words.
NAME_KINDS = frozenset({"person", "location"})

# A group of joined parts (one person, one street address) below this probability is dropped; its score is its
# surest part's, so that a sure given name carries a less sure surname beside it ("Sophie" 0.99, "Lemoine" 0.54).
# Person spans only, corpus + held-out pooled (434 messages), leaks whole,+name part / clean messages changed,
# replacements on no label (bench/models.py ner): rules only 10,11 / 8, 12; at 0.5: 3,3 / 9, 13;
# 0.6 to 0.8: 3,3 / 8, 12; 0.9: 4,4 / 8, 12. The middle of the plateau where no over-redaction is added.
SCORE_THRESHOLD = 0.7

# What separates two parts of one name ("Marie Dupont", "Jean-Pierre"): spaces or a hyphen; of one street
# address ("42 Queen Street", "Bahnhofstraße 14"): spaces. Never a line break or a comma (the postcode after
# "Bahnhofstraße 14, " is left to the rules).
_NAME_GAP = deferred(r"[ \t\u00a0\u202f]*-?[ \t\u00a0\u202f]*")
_ADDRESS_GAP = deferred(r"[ \t\u00a0\u202f]*")
_MAX_GAP = 3
_WORD = deferred(r"\S+")
_LINE_BREAK = deferred(r"[\r\n\u2028\u2029]")
_LETTER_WORD = deferred(r"(?<!\w)[^\W\d_][\w-]*")
_FAMOUS_MAX_WORDS = 4

# Where the model is kept, per language and engine kind: only where it lowers leaks without raising any leak
# count, clean messages changed or replacements on no labelled value (measure.helps). Measured by
# `python bench/models.py ner` on the corpus + held-out set (434 messages; no location is labelled there, so
# every model city counts as over-redaction), one model kind at a time at SCORE_THRESHOLD, leaks whole,+name part
# and over-redaction clean changed,on-no-label, rules only -> with that kind:
#   person    de 1,1->0,0 over 0,0->0,0   en 5,5->2,2 over 6,9->6,9   fr 4,5->1,1 over 1,2->1,2   KEPT
#             es 0,0->0,0 and it 0,0->0,0 (the rules already leak no labelled value there): nothing to gain
#             all languages pooled ("auto"): 10,11->3,3 over 8,12->8,12   KEPT
#   location  en 5,5->4,4 over 6,9->10,17; fr 4,5->4,5 over 1,2->5,8; de, es, it no gain, over up to +1
#   address   en over 6,9->9,14, no leak fewer anywhere (the address rules already find the labelled streets)
#   email, phone, iban, url, token: no leak fewer, over-redaction unchanged (the rules own structured values)
# Organisations are not among the model's labels: they come from the rule and lexicon detectors only.
KEPT_KINDS: dict[str, frozenset[str]] = {
    "de": frozenset({"person"}),
    "en": frozenset({"person"}),
    "fr": frozenset({"person"}),
    "es": frozenset(),
    "it": frozenset(),
    "auto": frozenset({"person"}),
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


def model_spans(text: str, raw: Iterable[Span], lang: str, threshold: float = SCORE_THRESHOLD) -> list[Span]:
    """The spans to give the engine (`RedactOptions.spans`) for the model's raw spans over `text`."""
    keep = kept_kinds(lang)
    return [span for span in engine_spans(text, raw, threshold) if span.kind in keep]


def engine_spans(text: str, raw: Iterable[Span], threshold: float = SCORE_THRESHOLD) -> list[Span]:
    """Every model span as an engine span (kinds.py kinds, source "ner"), joined, trimmed and thresholded,
    before the per-language table."""
    parts = sorted(
        (_Part(s.start, s.end, s.kind.lower(), s.score) for s in raw if s.kind.lower() in LABEL_KINDS),
        key=lambda p: (p.start, p.end),
    )
    out: list[Span] = []
    for group in _groups(text, parts):
        if max(part.score for part in group) < threshold:
            continue
        span = _to_span(text, group)
        if span is not None:
            out.append(span)
    return out


def _groups(text: str, parts: list[_Part]) -> list[list[_Part]]:
    """Consecutive parts of one person or of one street address, each group in text order."""
    groups: list[list[_Part]] = []
    for part in parts:
        previous = groups[-1][-1] if groups else None
        if previous is not None and _joins(text, previous, part):
            groups[-1].append(part)
        else:
            groups.append([part])
    return groups


def _joins(text: str, left: _Part, right: _Part) -> bool:
    if right.start < left.end or right.start - left.end > _MAX_GAP:
        return False
    gap = text[left.end : right.start]
    if left.label in PERSON_PARTS and right.label in PERSON_PARTS:
        return _NAME_GAP.fullmatch(gap) is not None
    if left.label in ADDRESS_PARTS and right.label in ADDRESS_PARTS:
        return _ADDRESS_GAP.fullmatch(gap) is not None
    return False


def _to_span(text: str, group: list[_Part]) -> Span | None:
    labels = {part.label for part in group}
    if labels <= ADDRESS_PARTS and "street_name" not in labels:
        return None  # a postcode or house number alone names nobody, and its fake would be a whole street
    kind = LABEL_KINDS[group[0].label]
    edges: tuple[int, int] | None = (group[0].start, group[-1].end)
    if kind in NAME_KINDS:
        # A name never runs over a line break ("Lefèvre\r\nMerci": the signature's next line).
        line_end = _LINE_BREAK.search(text, group[0].start, group[-1].end)
        edges = trim_name(text, group[0].start, line_end.start() if line_end else group[-1].end)
    elif kind == "address":
        # The model labels an unknown token ([UNK]: an emoji) like its neighbour: edges must be letters or digits.
        edges = _strip_punctuation(text, group[0].start, group[-1].end)
    if edges is not None and kind == "person":
        edges = _person_edges(text, *edges)
    if edges is None:
        return None
    start, end = edges
    score = max(part.score for part in group)
    return Span(start, end, text[start:end], kind, "ner", score)


def trim_name(text: str, start: int, end: int) -> tuple[int, int] | None:
    """`text[start:end]` without edge punctuation and, in a text that uses capitals at all, without the
    words at either end that do not start with one: the lowercase model runs "Lyon hier" into one city and
    takes "banana" or "phpMyAdmin" for a name. None if nothing is left."""
    words = [(start + m.start(), start + m.end()) for m in _WORD.finditer(text[start:end])]
    words = [edge for edge in (_strip_punctuation(text, a, b) for a, b in words) if edge is not None]
    if _has_capital(text):
        while words and not _starts_capitalised(text[words[0][0] : words[0][1]]):
            words.pop(0)
        while words and not _starts_capitalised(text[words[-1][0] : words[-1][1]]):
            words.pop()
    if not words:
        return None
    return words[0][0], words[-1][1]


def _person_edges(text: str, start: int, end: int) -> tuple[int, int] | None:
    """A person span that is part of, or overruns, a famous person's name ("Emmanuel" in "Emmanuel Macron",
    "Angela Merkel Physik") becomes that name, so that the engine's notoriety rule judges the whole name;
    a lone word that is a place ("Sydney") or no known name word is no person."""
    famous = _famous_name_around(text, start, end)
    if famous is not None:
        return famous
    value = text[start:end]
    if " " not in value and (lexicon.is_place(value) or not _is_name_word(value)):
        return None
    return start, end


def _is_name_word(word: str) -> bool:
    """In the name lists. A lone word the lists do not know is rarely a person when the model says so
    (corpus and held-out: 1 such span was a name, "Kasia"; 3 were products or brands: "Symfony", "Evri",
    "NumPy"); names of two words or more are taken from the model as they are."""
    return lexicon.is_first_name(word) or lexicon.is_surname(word)


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


def _starts_capitalised(word: str) -> bool:
    letters = [ch for ch in word if ch.isalpha()]
    return bool(letters) and letters[0].isupper()


def _strip_punctuation(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and not text[start].isalnum():
        start += 1
    while end > start and not text[end - 1].isalnum():
        end -= 1
    return (start, end) if start < end else None


def _has_capital(word: str) -> bool:
    return any(ch.isupper() for ch in word)
