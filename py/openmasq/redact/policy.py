"""Which candidate spans are masked: category switches, the keep list, the generic-term and
notoriety filters, and a deterministic choice among overlapping spans."""

from __future__ import annotations

import bisect
import ipaddress

from . import lexicon
from .kinds import category_of
from .options import RedactOptions
from .spans import Span
from .text import fold

# Kinds whose value is a word-like name: these go through the "never PII on its own" and
# notoriety filters (an e-mail or an IBAN is never a generic term).
WORDLIKE_KINDS = frozenset({"person", "org", "location", "username"})
NOTORIETY_KINDS = WORDLIKE_KINDS | {"domain", "url"}

# Ties in overlap resolution: a forced value beats a checksum-validated rule, which beats
# context and lexicon guesses.
_SOURCE_RANK = {"forced": 3, "rule": 2, "context": 1, "ner": 1, "given": 1, "lexicon": 0}


def admitted(spans: list[Span], text: str, options: RedactOptions) -> list[Span]:
    """The candidates this pass masks, before overlap resolution."""
    active = options.active_categories()
    keep = {fold(value) for value in options.keep if value.strip()}
    return [span for span in spans if _admits(span, text, options, active, keep)]


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
    if span.kind in WORDLIKE_KINDS and lexicon.is_non_pii_term(value, category_of(span.kind)):
        return False
    if span.kind in NOTORIETY_KINDS and _is_spared_famous(span, text, options):
        return False
    return not (span.kind in ("ipv4", "ipv6") and _is_infrastructure_address(value))


def _is_spared_famous(span: Span, text: str, options: RedactOptions) -> bool:
    spare = options.spares_famous()
    category = category_of(span.kind)
    # A tie to the writer only ever un-spares a value: the context is read (a costly scan) for
    # the few values that are notorious at all.
    if not lexicon.is_notorious(span.value, category, commercial=spare, people=spare):
        return False
    tied = lexicon.ties_to_writer(text, span.start, span.end)
    return lexicon.is_notorious(span.value, category, commercial=spare, people=spare, tied_to_writer=tied)


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
