"""Which candidate spans are masked: category switches, the keep list, the generic-term and
notoriety filters, and a deterministic choice among overlapping spans."""

from __future__ import annotations

import bisect
import ipaddress

from . import lexicon, places
from .kinds import category_of
from .lone_names import contracted_verb_follows, known_to_the_writer
from .name_ideas import offered_as_a_name
from .options import RedactOptions
from .public_figures import introduced_as_public_figure
from .spans import Span
from .text import fold

# Kinds whose value is a word-like name: these go through the "never PII on its own" and
# notoriety filters (an e-mail or an IBAN is never a generic term).
WORDLIKE_KINDS = frozenset({"person", "org", "location", "username"})
NOTORIETY_KINDS = WORDLIKE_KINDS | {"domain", "url", "site"}

# Ties in overlap resolution: a forced value beats a checksum-validated rule, which beats
# context and lexicon guesses.
_SOURCE_RANK = {"forced": 3, "rule": 2, "context": 1, "ner": 1, "given": 1, "lexicon": 0}


# Person spans the rules found from the words around them (not the model, not the user).
_RULE_SOURCES = frozenset({"lexicon", "context"})
# Kinds that say nothing about a person by themselves: a message holding only these ties a famous place to
# nobody.
_IMPERSONAL_KINDS = frozenset({"location", "date", "number", "amount", "url", "domain", "path"})


def admitted(spans: list[Span], text: str, options: RedactOptions) -> list[Span]:
    """The candidates this pass masks, before overlap resolution."""
    active = options.active_categories()
    keep = {fold(value) for value in options.keep if value.strip()}
    kept_ranges = _kept_ranges(text, options.keep)
    chosen = [span for span in spans
              if _admits(span, text, options, active, keep) and not _inside(span, kept_ranges)]
    personal = any(span.kind not in _IMPERSONAL_KINDS for span in chosen)
    return [span for span in chosen if not _is_spared_place(span, text, options, personal)]


def _kept_ranges(text: str, values: tuple[str, ...]) -> list[tuple[int, int]]:
    """Where the values of the keep list occur (case-insensitive): a part of a kept value ("Jean" of a kept
    "Jean Martin") is kept with it."""
    folded = text.casefold()
    ranges: list[tuple[int, int]] = []
    for value in values:
        needle = value.strip().casefold()
        start = folded.find(needle) if needle and len(folded) == len(text) else -1
        while start != -1:
            ranges.append((start, start + len(needle)))
            start = folded.find(needle, start + 1)
    return ranges


def _inside(span: Span, ranges: list[tuple[int, int]]) -> bool:
    return any(start <= span.start and span.end <= end for start, end in ranges)


def _is_spared_place(span: Span, text: str, options: RedactOptions, personal: bool) -> bool:
    """A place in a message about nobody ("que visiter à Florence ?", "cosa vedere a Matera?", "the history
    of Bavaria"), below `strict`: a place tells something about a person only when the message names one, or
    its sentence speaks of someone ("je déménage à Lyon", "are you still in Berlin?", "er wohnt in Bayern")."""
    if span.kind != "location" or span.source == "forced" or not options.spares_famous() or personal:
        return False
    return not places.tied_to_someone(text, span.start, span.end, options.lang)


def _admits(span: Span, text: str, options: RedactOptions, active: frozenset[str], keep: set[str]) -> bool:
    value = span.value.strip()
    if not value:
        return False
    if fold(value) in keep:
        return False
    if span.source == "forced":
        return True
    if category_of(span.kind) not in active:
        return False
    if span.kind in WORDLIKE_KINDS and lexicon.is_non_pii_term(value, category_of(span.kind)) and not (
            _names_a_trade(span) or _labelled_account(span) or _placed_function_word(span)
            or _subject_of_a_contraction(span, text)):
        return False
    if span.kind in NOTORIETY_KINDS and _is_spared_famous(span, text, options):
        return False
    if span.kind == "person" and _is_spared_public_figure(span, text, options):
        return False
    if span.kind == "person" and options.spares_famous() and offered_as_a_name(text, span.start, span.end):
        return False
    return not (span.kind in ("ipv4", "ipv6") and _is_infrastructure_address(value))


def _is_spared_famous(span: Span, text: str, options: RedactOptions) -> bool:
    spare = options.spares_famous()
    category = category_of(span.kind)
    if _is_first_name_read_as_a_person(span):
        return False
    # A tie to the writer only ever un-spares a value: the context is read (a costly scan) for
    # the few values that are notorious at all.
    if not lexicon.is_notorious(span.value, category, commercial=spare, people=spare):
        return False
    tied = lexicon.ties_to_writer(text, span.start, span.end) or (
        category == "name" and known_to_the_writer(text, span.start))
    return lexicon.is_notorious(span.value, category, commercial=spare, people=spare, tied_to_writer=tied)


def _labelled_account(span: Span) -> bool:
    """A user name its label gives, in a user name's shape ("DB_USER=shop_admin", "user: app_facturation"): an
    account's login, a credential's half, however generic its words."""
    return span.kind == "username" and span.source == "context" and any(ch in span.value for ch in "._-")


def _placed_function_word(span: Span) -> bool:
    """A town named like a function word of another language ("vivo a Como", "in Bra"): the place detector
    took it only after a word that introduces a place (places.py), which the stopword test cannot see."""
    return (span.kind == "location" and span.source in _RULE_SOURCES and span.value[:1].isupper()
            and lexicon.is_stopword(span.value) and not lexicon.is_generic_term(span.value))


def _subject_of_a_contraction(span: Span, text: str) -> bool:
    """A capitalised name before a contracted verb ("Will's going", "Mo's bringing"): lone_names.py took it for
    the person it is, although the word alone is an everyday one."""
    return (span.kind == "person" and span.source in _RULE_SOURCES and span.value[:1].isupper()
            and contracted_verb_follows(text, span.end))


def _names_a_trade(span: Span) -> bool:
    """A business named in Title Case by its trade and everyday words ("Clinique du Parc", "Boulangerie du
    Centre", "Garage de la Gare"): its name, although each word is generic; in lower case it is a description."""
    words = span.value.split()
    capitals = [w for w in words if w[:1].isupper()]
    return (span.kind == "org" and len(capitals) >= 2 and lexicon.is_trade_word(words[0]) and words[0][0].isupper()
            and all(w[:1].isupper() or lexicon.is_stopword(w) for w in words))


def _is_first_name_read_as_a_person(span: Span) -> bool:
    """A first name that is also a country ("my son Jordan", "ma fille India"), which the rules took for a person
    from the words around it (a cue before it, a verb after it): the country exemption is for the country."""
    return (span.kind == "person" and span.source in _RULE_SOURCES and lexicon.is_country(span.value)
            and lexicon.is_first_name(span.value))


def _is_spared_public_figure(span: Span, text: str, options: RedactOptions) -> bool:
    """A full name presented as a public figure ("in the style of Emily Dickinson"), below `strict`, when the
    text does not tie it to the writer."""
    if not options.spares_famous() or len(span.value.split()) < 2:
        return False
    return (introduced_as_public_figure(text, span.start, span.end)
            and not lexicon.ties_to_writer(text, span.start, span.end))


def _is_infrastructure_address(value: str) -> bool:
    """Loopback, unspecified and multicast addresses say nothing about anyone."""
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified or address.is_multicast


def resolve_overlaps(spans: list[Span]) -> list[Span]:
    """Non-overlapping spans, sorted by start: the longest wins, then the most trusted source,
    then the higher score, then the earlier start (deterministic for equal inputs)."""
    ranked = sorted(
        spans, key=lambda s: (-s.length, -_SOURCE_RANK.get(s.source, 0), -s.score, s.start, s.kind)
    )
    starts: list[int] = []  # chosen spans, kept sorted by start: no two overlap
    chosen: list[Span] = []
    for span in ranked:
        i = bisect.bisect_left(starts, span.start)
        if i < len(chosen) and chosen[i].start < span.end:
            continue
        if i > 0 and chosen[i - 1].end > span.start:
            continue
        starts.insert(i, span.start)
        chosen.insert(i, span)
    return chosen
