"""Write the substitutes into the text, and prove afterwards that no real value is left.

One function serves the send and the replay of history (reference 9.11, 9.13): the spans of
this pass, then every real value of the vault (exact spelling), then its spelling variants
(case, accents, separators), then in token mode a known person's surname alone."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from ..patterns import deferred
from . import fakes
from .allocate import suffixed_marker
from .kinds import category_of
from .text import FoldedText, find_exact, fold, folded_text, glued_inside_word
from .vault import Vault

_PERSON_MARKER = deferred(r"^\[(?:PERSON|person|Person)(\d+)\]$")
_PERSON_MARKER_SPELLING = deferred(r"^\[(?:PERSON|person|Person)(\d+)[a-z]?\]$")


class RedactionError(RuntimeError):
    """Redaction could not guarantee that no real value leaves: nothing must be sent."""


@dataclass(frozen=True)
class Replacement:
    """One substitution made in the text: `text[start:end]` (real) became `substitute`."""

    start: int
    end: int
    value: str
    kind: str
    substitute: str
    source: str

    def to_json(self) -> dict[str, object]:
        return {
            "start": self.start, "end": self.end, "value": self.value, "kind": self.kind,
            "substitute": self.substitute, "source": self.source,
        }


def counts_as_occurrence(real: str, surface: str) -> bool:
    """Whether a tolerant match of `real` is really that value: a single word matches only when
    the occurrence carries a capital ("Marie" never swallows "se marie"), short or digit-bearing
    values only in their exact spelling."""
    if surface == real:
        return True
    words = real.split()
    if len(words) == 1:
        if len(real) < 4 or has_digit(real):
            return False
        return any(ch.isupper() for ch in surface)
    return not has_digit(real) or fold(surface) == fold(real)


@lru_cache(maxsize=65536)
def has_digit(value: str) -> bool:
    """Whether any character is a digit (str.isdigit: superscripts and circled digits too). Each
    vault value is asked once per message of every request, the whole history re-sent."""
    return any(map(str.isdigit, value))


def substitution_table(vault: Vault, excluded: frozenset[str]) -> dict[str, tuple[str, str]]:
    """real -> (substitute, kind) for every vault value that this pass substitutes."""
    table: dict[str, tuple[str, str]] = {}
    for sub, real in vault.entries.items():
        kind = vault.kinds.get(sub, "")
        if kind and category_of(kind) in excluded:
            continue
        if real in table and sub in vault.aliases:
            continue
        table[real] = (sub, kind)
    return table


def apply(
    text: str,
    planned: Iterable[Replacement],
    vault: Vault,
    *,
    excluded_categories: frozenset[str] = frozenset(),
    keep: frozenset[str] = frozenset(),
) -> tuple[str, list[Replacement]]:
    """The text with planned replacements and every known real value substituted."""
    chosen = _Chosen()
    for rep in sorted(planned, key=lambda r: r.start):
        chosen.add(rep)
    table = substitution_table(vault, excluded_categories)
    if keep:  # values the user keeps in clear (usually none: then no value needs folding)
        table = {real: entry for real, entry in table.items() if fold(real) not in keep}
    _add_exact_occurrences(text, table, chosen)
    for rep in _variant_occurrences(folded_text(text), table, vault):
        if chosen.add(rep) and rep.substitute not in vault.entries:
            # Recorded only once accepted: an entry for a rejected occurrence would later
            # restore text that was never a substitute.
            vault.record(rep.substitute, rep.value, rep.kind, alias=True)
    if vault.mode == "token":
        for rep in _surname_occurrences(text, vault, excluded_categories):
            if chosen.add(rep) and rep.substitute not in vault.entries:
                vault.record(rep.substitute, rep.value, rep.kind, alias=True)
    return _write(text, chosen.items), chosen.items


class _Chosen:
    """Non-overlapping replacements, first come first kept."""

    def __init__(self) -> None:
        self.items: list[Replacement] = []
        self._starts: list[int] = []

    def add(self, rep: Replacement) -> bool:
        if not self.is_free(rep.start, rep.end):
            return False
        i = bisect.bisect_left(self._starts, rep.start)
        self._starts.insert(i, rep.start)
        self.items.insert(i, rep)
        return True

    def is_free(self, start: int, end: int) -> bool:
        """Whether text[start:end] overlaps no replacement kept so far."""
        i = bisect.bisect_left(self._starts, start)
        if i < len(self.items) and self.items[i].start < end:
            return False
        return not (i > 0 and self.items[i - 1].end > start)


def _add_exact_occurrences(text: str, table: dict[str, tuple[str, str]], chosen: _Chosen) -> None:
    """Every vault value in its exact spelling, longest first, where nothing is replaced yet.
    find_exact's scan with the occupancy test first: nearly every occurrence is a span this pass
    planned already, and is then passed over before its word boundaries are read."""
    for real in sorted(table, key=lambda v: (-len(v), v)):
        sub, kind = table[real]
        if not real:  # degenerate (no pass records one): exactly what find_exact makes of it
            for start, end in find_exact(text, real):
                chosen.add(Replacement(start, end, real, kind, sub, "vault"))
            continue
        pos = text.find(real)
        while pos != -1:
            end = pos + len(real)
            if chosen.is_free(pos, end) and not glued_inside_word(text, pos, end):
                chosen.add(Replacement(pos, end, real, kind, sub, "vault"))
            pos = text.find(real, pos + 1)


def _variant_occurrences(folded: FoldedText, table: dict[str, tuple[str, str]], vault: Vault) -> list[Replacement]:
    by_fold: dict[str, str] = {}
    for real in sorted(table, key=lambda v: (-len(v), v)):
        if len(real) >= 4 and not has_digit(real):
            by_fold.setdefault(fold(real), real)
    out: list[Replacement] = []
    for real in by_fold.values():
        sub, kind = table[real]
        for start, end in folded.find_all(real):
            surface = folded.text[start:end]
            if surface == real or not counts_as_occurrence(real, surface):
                continue
            out.append(Replacement(start, end, surface, kind, _variant_substitute(surface, real, sub, kind, vault),
                                   "variant"))
    return out


def _variant_substitute(surface: str, real: str, sub: str, kind: str, vault: Vault) -> str:
    """"DUPONT" where the vault knows "Dupont" -> "LEFÈVRE" (recorded by the caller once the
    occurrence is accepted, so it restores exactly); the plain substitute when that spelling
    already stands for another value."""
    if sub.startswith("["):
        return sub
    cased = fakes.match_case(surface, _with_separators_of(surface, sub))
    owner = vault.entries.get(cased)
    if owner is None or owner == surface:
        return cased
    return sub


def _with_separators_of(surface: str, sub: str) -> str:
    """A slug spelling ("norvik-group" inside an e-mail domain) gets a slug fake: a space
    would break the address."""
    if " " in surface or " " not in sub:
        return sub
    separator = next((ch for ch in surface if ch in "-_."), "")
    return separator.join(sub.split())


def _surname_occurrences(text: str, vault: Vault, excluded: frozenset[str]) -> list[Replacement]:
    """Token mode: "Morvan" alone, capitalised, after "[PERSON1]" = "Léa Morvan" -> "[PERSON1b]" = "Morvan",
    a spelling of the same person's marker (the reference gives "[PERSON1]" itself, which restores as the
    full name: the reply would then read "Léa Morvan" where the user wrote "Morvan")."""
    if "name" in excluded:
        return []
    numbers: dict[str, str] = {}
    for sub, real in vault.entries.items():
        marker = _PERSON_MARKER.match(sub)
        if marker:
            for word in real.split():
                if len(word) >= 4 and word.isalpha():
                    numbers.setdefault(word.casefold(), marker.group(1))
    if not numbers:
        return []
    pattern = re.compile(r"(?<![\[\w])(" + "|".join(re.escape(w) for w in sorted(numbers, key=len, reverse=True))
                         + r")(?!\w)", re.IGNORECASE)
    spelt = {(real, found.group(1)): sub for sub, real in vault.entries.items()
             if (found := _PERSON_MARKER_SPELLING.match(sub))}
    taken = set(vault.entries)
    out: list[Replacement] = []
    for m in pattern.finditer(text):
        surface = m.group()
        if surface.istitle() or (surface.isupper() and len(surface) > 1):
            key = (surface, numbers[surface.casefold()])
            if key not in spelt:
                spelt[key] = _new_spelling_marker(surface, key[1], taken, text.casefold())
                taken.add(spelt[key])
            out.append(Replacement(m.start(), m.end(), surface, "person", spelt[key], "surname"))
    return out


def _new_spelling_marker(surface: str, number: str, taken: set[str], text_lower: str) -> str:
    """A new marker of person `number` spelt `surface` (recorded by the caller once the occurrence is kept);
    the canonical marker when every letter is taken."""
    return suffixed_marker("PERSON", number, surface, taken, text_lower) or f"[PERSON{number}]"


def _write(text: str, reps: list[Replacement]) -> str:
    pieces: list[str] = []
    cursor = 0
    for rep in reps:
        pieces.append(text[cursor : rep.start])
        pieces.append(rep.substitute)
        cursor = rep.end
    pieces.append(text[cursor:])
    return "".join(pieces)


def inserted_regions(reps: list[Replacement]) -> list[tuple[int, int]]:
    """Where each substitute landed in the output text."""
    regions = []
    shift = 0
    for rep in reps:
        start = rep.start + shift
        regions.append((start, start + len(rep.substitute)))
        shift += len(rep.substitute) - (rep.end - rep.start)
    return regions


def check_nothing_left(output: str, reps: list[Replacement], reals: Iterable[str]) -> None:
    """Postcondition: no real value (nor a spelling variant of it) remains outside the
    substitutes just written. Raises RedactionError otherwise (fail closed)."""
    values = {r for r in reals if r.strip()}
    if not values:
        return
    regions = inserted_regions(reps)
    starts = [s for s, _ in regions]
    folded = FoldedText(output)
    for real in values:
        for start, end in occurrences(folded, real):
            if not _inside(start, end, regions, starts):
                raise RedactionError(f"redaction postcondition failed: a real value is still present at offset {start}")


def occurrences(folded: FoldedText, real: str) -> list[tuple[int, int]]:
    """Where `real` is in `folded.text`, in its exact spelling or a variant the send counts as that value."""
    found = find_exact(folded.text, real)
    if len(real) >= 4 and not has_digit(real):
        found += [(s, e) for s, e in folded.find_all(real) if counts_as_occurrence(real, folded.text[s:e])]
    return found


def value_occurs(text: str, real: str) -> bool:
    """Whether check_nothing_left would find `real` in `text` (outside any substitute)."""
    return bool(real.strip()) and bool(occurrences(FoldedText(text), real))


def _inside(start: int, end: int, regions: list[tuple[int, int]], starts: list[int]) -> bool:
    i = bisect.bisect_right(starts, start) - 1
    return i >= 0 and regions[i][0] <= start and end <= regions[i][1]
