"""Resolve collisions in the vault: a real value that equals (or is written inside) a substitute the
conversation already gave another value ("Camille" typed for real after "Camille" became the fake of
"Marie"; a card's fake; "[PERSON1]" in token mode) would make every later request carry that real
value as the old fake, and the send's postcondition would refuse it forever. Instead the old value
is re-faked: its colliding substitutes leave the vault and it gets a new one, which the history,
replayed from the real text on every turn, then carries. Every value masked before stays masked."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .allocate import Context, new_substitute
from .apply import value_occurs
from .spans import Span
from .text import fold
from .vault import Vault

_MARKER_NUMBER = re.compile(r"^\[([A-Za-z_]+?)(\d+)[a-z]?\]$")


# How many times a caller redacts a whole request again after a collision re-faked a value (chat/send.py,
# proxy/masking.py): each round re-fakes only values the last one found colliding, so few are ever needed.
MAX_COLLISION_ROUNDS = 3


def resolve_collisions(spans: Iterable[Span], text: str, vault: Vault, *, lang: str | None = None) -> tuple[str, ...]:
    """Re-fake, in `vault` (the pass's working copy), every value whose substitute a real value of
    `spans` collides with; returns those values, in vault order (empty when nothing collided)."""
    reals = {span.value: span.kind for span in spans if span.value.strip()}
    for word in _name_words(spans):
        reals.setdefault(word, "person")
    if not reals or not vault.entries:
        return ()
    raw = "\n".join(vault.entries)
    folded = "\n".join(map(fold, vault.entries))
    fake_words = set(folded.split())
    suspects = [real for real in reals  # nearly always none
                if real in raw or fold(real) in folded or not fake_words.isdisjoint(fold(real).split())]
    colliding = [real for real in suspects if _colliding_substitutes(real, vault, reals[real])]
    clashes = {sub for real in colliding for sub in _colliding_substitutes(real, vault, reals[real])}
    if not clashes:
        return ()
    before = _masked(vault)
    dropped = {sub: _Dropped(vault.entries[sub], vault.kinds.get(sub, ""), sub in vault.aliases)
               for sub in vault.entries if sub in clashes}
    owners = tuple(dict.fromkeys(d.real for d in dropped.values()))
    _forget(vault, dropped, colliding)
    context = Context.of(text, vault, lang)
    context.real_folds.update(fold(real) for real in reals)
    # The same seed draws the same word again: every word of this text's values is taken.
    context.fake_word_folds.update(word.strip(".,;:!?()") for real in reals for word in fold(real).split())
    for entry in dropped.values():  # primaries first: a person's new fake records its word aliases
        if not entry.alias and vault.substitute_of(entry.real) is None:
            _refake(entry, context)
    for entry in dropped.values():
        if not _covered(entry.real, vault):
            _refake(entry, context)
    if not before <= _masked(vault):  # cannot happen: every dropped value was given a new substitute
        raise RuntimeError("collision resolution lost a masked value")
    return owners


def renamed_substitutes(before: Mapping[str, str], vault: Vault) -> dict[str, str]:
    """Old substitute -> new one, for the values a collision re-faked since `before` (the vault's
    entries then): texts already built with the old substitutes (a tool loop's earlier messages) are
    renamed, or they would carry a substitute that is now someone's real value."""
    gone = {sub: real for sub, real in before.items() if sub not in vault.entries}
    if not gone:
        return {}
    new_of = {real: sub for sub, real in vault.entries.items() if sub not in before}
    return {sub: new_of[real] for sub, real in gone.items() if real in new_of}


def rename_substitutes(text: str, renames: Mapping[str, str]) -> str:
    """`text` with every whole occurrence of an old substitute replaced by its new one, longest first
    (a full name before its first name)."""
    if not renames or not any(sub in text for sub in renames):
        return text
    alternation = "|".join(re.escape(sub) for sub in sorted(renames, key=len, reverse=True))
    return re.sub(rf"(?<!\w)(?:{alternation})(?!\w)", lambda m: renames[m.group()], text)


_NAME_WORD = re.compile(r"[^\W\d_][\w'’-]{2,}")


def _name_words(spans: Iterable[Span]) -> list[str]:
    """The words of the full names of `spans` ("Marchal" of "Hélène Marchal"): another value's fake that holds one
    as a word ("Lucas Marchal") or as a part of an address ("c.marchal@…") would put a real surname on the wire."""
    return [m.group() for span in spans if span.kind == "person" and len(span.value.split()) > 1
            for m in _NAME_WORD.finditer(span.value)]


_ADDRESS_SEPARATORS = re.compile(r"[@._+\-/:]+")


def _address_part(folded_sub: str, folded_name: str) -> bool:
    """A name between the separators of an e-mail address or a link ("marchal" in "c.marchal@exemple.fr")."""
    return ("@" in folded_sub or "/" in folded_sub) and folded_name in _ADDRESS_SEPARATORS.split(folded_sub)


@dataclass(frozen=True)
class _Dropped:
    real: str
    kind: str
    alias: bool


def _colliding_substitutes(real: str, vault: Vault, kind: str = "") -> list[str]:
    """Substitutes of other values in which `real` is found as the send's postcondition finds it, or
    that are found in `real` (the fake word "Lisa" of "Marie" when "Lisa Marcotte" is real: a reply's
    "Lisa" would no longer say whom it means); for a person's name, also an address that holds it as one of
    its parts ("c.marchal@exemple.fr" when "Hélène Marchal" is real)."""
    needle = fold(real)
    out = []
    for sub, owner in vault.entries.items():
        if owner == real:
            continue
        folded = fold(sub)
        holds_real = (real in sub or needle in folded) and (
            value_occurs(sub, real) or (kind == "person" and _address_part(folded, needle)))
        if holds_real or (folded in needle and value_occurs(real, sub)):
            out.append(sub)
    return out


def _forget(vault: Vault, dropped: dict[str, _Dropped], colliding: list[str]) -> None:
    """Remove the colliding substitutes, and what would draw them again: a person word's or an
    organisation core's canonical fake that holds a colliding value, a token-mode person's number."""
    for sub in dropped:
        del vault.entries[sub]
        vault.kinds.pop(sub, None)
        vault.aliases.discard(sub)
    if vault.mode == "token":
        numbers = {m.group(2) for sub in dropped if (m := _MARKER_NUMBER.match(sub))}
        vault.words = {word: n for word, n in vault.words.items() if n not in numbers}
        for sub in [s for s in vault.entries if (m := _MARKER_NUMBER.match(s)) and m.group(2) in numbers]:
            dropped.setdefault(sub, _Dropped(vault.entries[sub], vault.kinds.get(sub, ""), sub in vault.aliases))
            del vault.entries[sub]
            vault.kinds.pop(sub, None)
            vault.aliases.discard(sub)
        return
    # A person's fake is drawn word by word: a word fake that is a word of a colliding value would
    # draw it again ("Lisa Marcotte" for real: "marie" -> "Lisa", "dupont" -> "Marcotte" both go).
    words = {word for real in colliding for word in fold(real).split()}
    vault.words = {word: fake for word, fake in vault.words.items() if fold(fake) not in words}
    vault.org_cores = {core: fake for core, fake in vault.org_cores.items()
                       if not any(value_occurs(fake, real) for real in colliding)}


def _refake(entry: _Dropped, context: Context) -> None:
    real = entry.real
    substitute = new_substitute(Span(0, len(real), real, entry.kind or "person", "vault"), context)
    context.vault.record(substitute, real, entry.kind)
    context.real_folds.add(fold(real))


def _covered(real: str, vault: Vault) -> bool:
    """Still masked by the next pass: an entry holds it, or one of the same spelling folded (the
    variant pass then gives this spelling its own substitute)."""
    if real in vault.entries.values():
        return True
    needle = fold(real)
    return any(fold(owner) == needle for owner in vault.entries.values())


def _masked(vault: Vault) -> set[str]:
    return {fold(real) for real in vault.entries.values()}
