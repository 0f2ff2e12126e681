"""What a redaction pass is asked to do: level, mode, categories, keep and force lists, and
spans given from outside (the on-device NER model)."""

from __future__ import annotations

from dataclasses import dataclass

from .kinds import ALWAYS_ON, CATEGORIES, LEVELS, categories_for_level
from .spans import Span
from .vault import MODES

LANGS = ("auto", "fr", "en", "de", "es", "it", "pt", "nl")


class OptionsError(ValueError):
    """Options that do not describe a valid pass."""


@dataclass(frozen=True)
class Forced:
    """A value the user always wants masked (or a memory entity selected for this send)."""

    value: str
    kind: str = ""  # empty: guessed from the value's shape


@dataclass(frozen=True)
class RedactOptions:
    level: str = "renforce"
    mode: str = "fake"
    lang: str = "auto"
    # Per-category overrides on top of the level ({"url": True, "company": False}).
    categories: tuple[tuple[str, bool], ...] = ()
    keep: tuple[str, ...] = ()
    force: tuple[Forced, ...] = ()
    spans: tuple[Span, ...] = ()  # given from outside, offsets on the text being redacted
    known_names: tuple[str, ...] = ()  # full names seen earlier in the conversation
    # Notoriety exemptions (reference 9.8): spared below strict.
    spare_famous: bool | None = None

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise OptionsError(f"unknown level {self.level!r} (expected one of {', '.join(LEVELS)})")
        if self.mode not in MODES:
            raise OptionsError(f"unknown mode {self.mode!r} (expected fake or token)")
        if self.lang not in LANGS:
            raise OptionsError(f"unknown language {self.lang!r} (expected one of {', '.join(LANGS)})")
        for category, _ in self.categories:
            if category not in CATEGORIES:
                raise OptionsError(f"unknown category {category!r}")

    def active_categories(self) -> frozenset[str]:
        active = set(categories_for_level(self.level))
        for category, on in self.categories:
            if on:
                active.add(category)
            else:
                active.discard(category)
        return frozenset(active | ALWAYS_ON)

    def spares_famous(self) -> bool:
        return self.level != "strict" if self.spare_famous is None else self.spare_famous
