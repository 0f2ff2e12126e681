"""Resolve parsed facts into real values (reference 3.6): un-redact, strip articles, drop secrets,
sentences and unanchored names, refuse unresolved fakes, keep notes, route preferences."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from ...patterns import deferred
from ...redact import lexicon
from ...redact.restore import Restorer
from ...redact.vault import Vault
from ..model import ResolvedExtraction, ResolvedFact
from ..normalise import is_cjk_text, key_in_text, normalise
from ..profile import append_to_profile, is_self_preference
from .parse import ParsedExtraction, ParsedFact

NOTE_MIN_CHARS = 3
NOTE_MAX_CHARS = 60
MAX_ENTITY_WORDS = 5

_IBAN_LIKE = deferred(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,8}")
_VENDOR_KEY = deferred(r"(?<![A-Za-z0-9])(?:sk|pk|rk|ghp|gho|ghs|github_pat|xox[abposr]|AKIA)[-_][A-Za-z0-9_-]{8,}")
_AWS_KEY = deferred(r"(?<![A-Za-z0-9])AKIA[0-9A-Z]{16}(?![A-Za-z0-9])")
_LONG_DIGITS = deferred(r"(?<!\d)(?:\d{13,19}|\d{4}(?:[ -]\d{4}){3}(?:[ -]?\d{1,3})?)(?!\d)")
_LONG_TOKEN = deferred(r"[A-Za-z0-9_-]{24,}")
_LEADING_ARTICLE = deferred(r"^(?:d\s?['’]\s?|l\s?['’]\s?|de la |de |du |des |chez )", re.IGNORECASE)
_SENTENCE_WORDS = deferred(
    r"(?<![^\W_])(?:s['’]appelle|se nomme|qui est|c['’]est|travaille|habite|gère|gere|paie|dirige)(?![^\W_])",
    re.IGNORECASE,
)


def looks_like_secret(text: str) -> bool:
    """An IBAN, a vendor API key, a card-length digit run, or a long random-looking token."""
    if _IBAN_LIKE.search(text) or _VENDOR_KEY.search(text) or _AWS_KEY.search(text) or _LONG_DIGITS.search(text):
        return True
    for token in _LONG_TOKEN.finditer(text):
        value = token.group()
        if any(ch.isdigit() for ch in value) and any(ch.isalpha() for ch in value):
            return True
    return False


def is_sentence_shaped(entity: str) -> bool:
    """A sentence, not an entity: "Atelier Torbel s'appelle Ondine", or anything over 5 words."""
    return bool(_SENTENCE_WORDS.search(entity)) or len(entity.split()) > MAX_ENTITY_WORDS


@dataclass(frozen=True)
class AnchorTexts:
    """Normalised real and wire texts, computed once per resolution."""

    real: str
    wire: str | None
    real_words: frozenset[str]
    wire_words: frozenset[str]

    @staticmethod
    def of(real_text: str, wire_text: str | None) -> AnchorTexts:
        real = normalise(real_text)
        wire = normalise(wire_text) if wire_text is not None else None
        return AnchorTexts(real, wire, frozenset(real.split()), frozenset((wire or "").split()))

    def anchored(self, value: str) -> bool:
        return key_in_text(self.real, normalise(value))

    def wire_only(self, value: str) -> bool:
        """Written in what the model saw but not in the real text: a fake the vault cannot resolve."""
        if self.wire is None:
            return False
        key = normalise(value)
        return key_in_text(self.wire, key) and not key_in_text(self.real, key)

    def holds_unresolved_fake_word(self, value: str) -> bool:
        """A word of the value that only exists on the wire ("Liste de Verdanta Industries")."""
        if self.wire is None or is_cjk_text(value):
            return False
        return any(
            word in self.wire_words and word not in self.real_words and not lexicon.is_stopword(word)
            for word in normalise(value).split()
            if len(word) >= 3
        )


def _strip_article(entity: str, anchors: AnchorTexts) -> str:
    """Without a leading article or elision ("d'Atelier Torbel" -> "Atelier Torbel") when the bare
    form is itself in the real text."""
    bare = _LEADING_ARTICLE.sub("", entity, count=1).strip()
    if bare != entity and len(bare) >= 3 and anchors.anchored(bare):
        return bare
    return entity


def _is_plain_word(value: str) -> bool:
    return lexicon.is_stopword(value) or lexicon.is_generic_term(value)


def _kept_alias(alias: str | None, entity: str, anchors: AnchorTexts) -> str | None:
    if not alias:
        return None
    if looks_like_secret(alias) or _is_plain_word(alias):
        return None
    if len(alias.split()) == 1 and lexicon.is_homograph(alias):
        return None
    if anchors.wire_only(alias) or not anchors.anchored(alias) or normalise(alias) == normalise(entity):
        return None
    return alias


def _resolve_one(
    parsed: ParsedFact, restorer: Restorer, anchors: AnchorTexts, *, allow_notes: bool
) -> ResolvedFact | None:
    """The fact in real values (its id is minted by the caller), or None when it must go."""
    entity = restorer.restore(parsed.entity).strip()
    fact = restorer.restore(parsed.fact).strip()
    alias = restorer.restore(parsed.alias).strip() if parsed.alias else None
    if parsed.category != "personne":
        entity = _strip_article(entity, anchors)
    if not entity or not fact or looks_like_secret(entity) or looks_like_secret(fact):
        return None
    if is_sentence_shaped(entity):
        return None
    if not allow_notes and _is_plain_word(entity):
        return None
    kept_alias = _kept_alias(alias, entity, anchors)
    if anchors.anchored(entity):
        return ResolvedFact("", entity, parsed.category, fact, kept_alias)
    if anchors.wire_only(entity) or anchors.holds_unresolved_fake_word(entity):
        return None  # the pseudonym guard: an unresolved fake is never a note (reference 11.8)
    if allow_notes and NOTE_MIN_CHARS <= len(entity) <= NOTE_MAX_CHARS:
        return ResolvedFact("", entity, "autre", fact, kept_alias, note=True)
    return None  # not in the real text: a hallucination


def sequential_ids(prefix: str = "fact") -> Callable[[], str]:
    """A deterministic id factory for callers that do not mint their own."""
    counter = itertools.count(1)
    return lambda: f"{prefix}-{next(counter)}"


def resolve_extraction(
    parsed: ParsedExtraction,
    vault: Vault,
    real_text: str,
    *,
    allow_notes: bool = False,
    wire_text: str | None = None,
    new_id: Callable[[], str] | None = None,
) -> ResolvedExtraction:
    """Real-valued facts (ids pre-minted, in order) and profile. `real_text` is what the model
    read, in real values; `wire_text` (what it saw) turns on the pseudonym guard."""
    mint = new_id or sequential_ids()
    restorer = Restorer(vault)
    anchors = AnchorTexts.of(real_text, wire_text)
    facts: list[ResolvedFact] = []
    preferences: list[str] = []
    for item in parsed.facts:
        resolved = _resolve_one(item, restorer, anchors, allow_notes=allow_notes)
        if resolved is None:
            continue
        if resolved.note and is_self_preference(resolved.fact):
            preferences.append(resolved.fact)  # "Préfère des réponses courtes" is about the user
            continue
        facts.append(replace(resolved, id=mint()))
    profile = restorer.restore(parsed.profile).strip() if parsed.profile else ""
    if profile and looks_like_secret(profile):
        profile = ""
    # Folded in with the profile's own coverage rule, clamped to 1,200 characters (reference 12 item 4).
    return ResolvedExtraction(tuple(facts), append_to_profile("", [profile, *preferences]) or None)
