"""What memory goes into a send (reference 6): tiers, one hop of cross-links, an exact budget,
trust and scope rules, the dated block in French or English, diagnostics, and forced values.

Matching goes through a `MemoryIndex` (normalised key/token -> card ids), so a send costs time
in the length of the message, not in the number of cards. Build it once per store
(`MemoryIndex.build(store)`) and pass it to `select_memory(..., index=...)`; the shell caches it
until the store changes. Without one, each call builds its own."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property, lru_cache
from typing import Literal

from ..patterns import deferred
from ..redact import Forced, lexicon
from .compaction import normalise_fast
from .keys import card_keys, card_tokens, denied_homograph_tokens
from .model import MAX_PROFILE_CHARS, Card, Category, MemoryStore, ProposedInjection
from .normalise import is_cjk_text

DEFAULT_BUDGET = 4000  # characters of the whole block, header and newlines included
MAX_LINKED = 3  # neighbours of the named cards considered per send (reference 6.3)

TIER_MENTION = 3  # the typed text names the card (entity or alias)
TIER_CONVERSATION = 2  # a key sits inside one of the conversation's known real values
TIER_TOKEN = 1  # the typed text holds one of the card's distinctive name words
TIER_LINKED = 0.5  # linked to a card named in the typed text

SkipReason = Literal["budget", "homograph", "proposed-needs-mention", "proposed-never", "out-of-scope"]
ForcedKind = Literal["person", "org", "email", "project", "note"]

# Our forced kinds -> the redaction engine's kinds. Projects and notes get a codename-shaped
# fake ("Orion" -> "Kestrion", "Projet Merlebleu" -> "Projet Valdoris"), where the reference
# gave them company-shaped ones (reference 12 item 14). This table is the one place to change.
REDACT_KIND_OF: dict[str, str] = {
    "person": "person", "org": "org", "email": "email", "project": "project", "note": "project",
}

_FORCED_KIND_OF_CATEGORY: dict[Category, ForcedKind] = {
    "personne": "person", "organisation": "org", "projet": "project", "autre": "note",
}
_LABELS: dict[str, dict[Category, str]] = {
    "fr": {"personne": "personne", "organisation": "organisation", "projet": "projet", "autre": "autre"},
    "en": {"personne": "person", "organisation": "organisation", "projet": "project", "autre": "other"},
}
_HEADERS = {
    "fr": "Mémoire de l'utilisateur (contexte durable, à utiliser sans le réciter tel quel) :",
    "en": "User memory (durable context, to use without reciting it verbatim):",
}
_UNCONFIRMED = {"fr": "non confirmé", "en": "unconfirmed"}


# --- data ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Skip:
    """A card that was not injected, and why (shown under the message; ordinary silence is not)."""

    id: str
    reason: SkipReason


@dataclass(frozen=True)
class ForcedValue:
    """A memory surface the redaction pass must mask in this send, whatever its detectors say."""

    value: str
    kind: ForcedKind


@dataclass
class Selection:
    block: str = ""  # REAL values: must be pseudonymised with `forced` before it leaves
    used_ids: list[str] = field(default_factory=list)  # "profile" first when injected
    skipped: list[Skip] = field(default_factory=list)
    forced: list[ForcedValue] = field(default_factory=list)
    cards: list[Card] = field(default_factory=list)  # injected cards, in block order


# --- the index ----------------------------------------------------------------------------------

class PhraseIndex:
    """Normalised phrases (card keys or tokens) -> card ids, found in a normalised text by
    looking up its words (whole-word phrases) and its character pairs (CJK phrases), with the
    same rules as `normalise.key_in_text`."""

    def __init__(self) -> None:
        self.ids: dict[str, list[str]] = {}
        self._by_first_word: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        self._by_pair: dict[str, list[str]] = {}  # first two characters -> CJK phrases

    def add(self, phrase: str, card_id: str) -> None:
        cjk = not phrase.isascii() and is_cjk_text(phrase)
        if len(phrase) < (2 if cjk else 3):
            return
        ids = self.ids.get(phrase)
        if ids is None:
            ids = self.ids[phrase] = []
            if cjk:
                self._by_pair.setdefault(phrase[:2], []).append(phrase)
            else:
                first, *rest = phrase.split(" ")
                self._by_first_word.setdefault(first, []).append((tuple(rest), phrase))
        if card_id not in ids:
            ids.append(card_id)

    def find(self, norm_text: str) -> set[str]:
        """The indexed phrases that occur in a normalised text."""
        found: set[str] = set()
        text_words = norm_text.split(" ")
        for i, word in enumerate(text_words):
            for tail, phrase in self._by_first_word.get(word, ()):
                if not tail or tuple(text_words[i + 1 : i + 1 + len(tail)]) == tail:
                    found.add(phrase)
        if self._by_pair:
            for i in range(len(norm_text) - 1):
                for phrase in self._by_pair.get(norm_text[i : i + 2], ()):
                    if norm_text.startswith(phrase, i):
                        found.add(phrase)
        return found

    def card_ids(self, norm_text: str) -> set[str]:
        return {card_id for phrase in self.find(norm_text) for card_id in self.ids[phrase]}


class MemoryIndex:
    """Every card's keys, tokens and denied homograph tokens, indexed; mention links and search
    words are computed on first use. A snapshot of its store at one revision: `for_store`
    rebuilds it once the store has changed (status and scope are read live from the cards)."""

    def __init__(self, cards: Sequence[Card], source: MemoryStore | None = None) -> None:
        self.source = source
        self.revision = source.revision if source is not None else None
        self.size = len(cards)
        self.cards: dict[str, Card] = {}
        self.order: dict[str, int] = {}
        self.keys = PhraseIndex()
        self.tokens = PhraseIndex()
        self.denied = PhraseIndex()
        # Structures other modules derive from this snapshot once (the search words, ...).
        self.derived: dict[str, object] = {}
        for position, card in enumerate(cards):
            if card.id in self.cards:
                continue  # a duplicated id keeps its first card, as `MemoryStore.card` does
            self.cards[card.id] = card
            self.order[card.id] = position
            for key in card_keys(card):
                self.keys.add(key, card.id)
            for token in card_tokens(card):
                self.tokens.add(token, card.id)
            for token in denied_homograph_tokens(card):
                self.denied.add(token, card.id)

    @classmethod
    def build(cls, store: MemoryStore) -> MemoryIndex:
        return cls(store.cards, source=store)

    def is_current(self, store: MemoryStore) -> bool:
        """Built from this very store object at its present revision (and card count: a change
        made by hand without `MemoryStore.touch` that adds or removes cards is caught too)."""
        return self.source is store and self.revision == store.revision and self.size == len(store.cards)

    @classmethod
    def for_store(cls, store: MemoryStore, index: MemoryIndex | None) -> MemoryIndex:
        """`index` when it is current for this store, else a new one."""
        if index is not None and index.is_current(store):
            return index
        return cls.build(store)

    @cached_property
    def link_pairs(self) -> list[tuple[str, str]]:
        """Undirected mention links (reference 6.3, CJK-aware): A's facts or an alias of A name a
        key of B. Each pair once, earlier card first, in card order."""
        pairs: set[tuple[str, str]] = set()
        for card_id, card in self.cards.items():
            pieces = [normalise_fast(card.facts), *(normalise_fast(alias) for alias in card.aliases)]
            for piece in pieces:
                for other in self.keys.card_ids(piece):
                    if other != card_id:
                        pairs.add(self._ordered(card_id, other))
        return sorted(pairs, key=lambda pair: (self.order[pair[0]], self.order[pair[1]]))

    @cached_property
    def links(self) -> dict[str, list[str]]:
        """card id -> linked card ids, in card order."""
        out: dict[str, list[str]] = {}
        for a, b in self.link_pairs:
            out.setdefault(a, []).append(b)
            out.setdefault(b, []).append(a)
        for neighbours in out.values():
            neighbours.sort(key=self.order.__getitem__)
        return out

    def _ordered(self, a: str, b: str) -> tuple[str, str]:
        return (a, b) if self.order[a] < self.order[b] else (b, a)


# --- eligibility --------------------------------------------------------------------------------

def in_scope(card: Card, scope: str | None) -> bool:
    """Global cards everywhere; a space's cards only in that space's conversations (a
    conversation outside any space sees global cards only)."""
    return card.scope is None or card.scope == scope


def trust_refusal(card: Card, tier: float, policy: ProposedInjection) -> SkipReason | None:
    """Why a card matched at `tier` may not be injected under the proposed-card policy."""
    if card.status != "proposed" or policy == "all":
        return None
    if policy == "never":
        return "proposed-never"
    return None if tier == TIER_MENTION else "proposed-needs-mention"


# --- formatting ---------------------------------------------------------------------------------

def ui_lang(lang: str) -> str:
    """"en" for an English UI, else French (the product's language)."""
    return "en" if lang.lower().startswith("en") else "fr"


def block_header(lang: str) -> str:
    return _HEADERS[ui_lang(lang)]


def category_label(category: Category, lang: str) -> str:
    return _LABELS[ui_lang(lang)][category]


def noted_phrase(ms: int, tz_offset_minutes: int, lang: str) -> str:
    """"noté le 03/05/2026" / "noted on 2026-05-03", the day in the given UTC offset."""
    if not -1440 < tz_offset_minutes < 1440:
        raise ValueError(f"a UTC offset is less than a day, not {tz_offset_minutes} minutes")
    return _noted_on_day((ms + tz_offset_minutes * 60_000) // 86_400_000, ui_lang(lang))


@lru_cache(maxsize=4096)
def _noted_on_day(days_since_epoch: int, lang: str) -> str:
    # A day number, not a datetime per line: a send formats hundreds of candidate lines.
    day = date.fromordinal(_EPOCH_ORDINAL + days_since_epoch)
    return f"noted on {day:%Y-%m-%d}" if lang == "en" else f"noté le {day:%d/%m/%Y}"


_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def card_summary(card: Card, lang: str, tz_offset_minutes: int) -> str:
    """`Entity (label[, unconfirmed]) : facts (noted ...)`, on one line, dated by the newest
    live sentence."""
    label = category_label(card.category, lang)
    if card.status == "proposed":
        label = f"{label}, {_UNCONFIRMED[ui_lang(lang)]}"
    entity = _one_line(card.entity)
    facts = _one_line(card.facts)
    noted = noted_phrase(card.newest_noted_at, tz_offset_minutes, lang)
    body = f" : {facts}" if facts else ""
    return f"{entity} ({label}){body} ({noted})"


def _one_line(text: str) -> str:
    """A newline inside a card would break the one-line-per-card block (and its budget)."""
    return " ".join(text.split())


def _profile_text(profile: str) -> str:
    """The store clamps the profile; clamping again here keeps a profile written by any other
    path from starving the cards (reference 12 item 4)."""
    return profile.strip()[:MAX_PROFILE_CHARS].rstrip()


# --- selection ----------------------------------------------------------------------------------

def select_memory(
    store: MemoryStore,
    typed_text: str,
    conv_values: Iterable[str],
    *,
    scope: str | None,
    now: int,
    tz_offset_minutes: int,
    lang: str = "fr",
    memory_off: bool = False,
    budget: int | None = None,
    index: MemoryIndex | None = None,
    spare_famous: bool = False,
) -> Selection:
    """The memory block of one send, in REAL values, with the values to force-redact in it.

    `now` is accepted for the flow's sake; today's rules need no clock (a line is dated by its
    newest sentence). `spare_famous` is `RedactOptions.spares_famous()`: notorious names are then
    not forced (reference 6.7)."""
    if memory_off:
        return Selection()
    profile = _profile_text(store.profile)
    if not profile and not store.cards:
        return Selection()
    index = MemoryIndex.for_store(store, index)
    limit = store.settings.budget_chars if budget is None else budget
    policy = store.settings.proposed_injection
    typed = normalise_fast(typed_text)

    tiers = _direct_tiers(index, typed, conv_values)
    direct, skipped = _admit_direct(index, tiers, scope, policy)
    neighbours = _linked_neighbours(index, direct, tiers, scope, policy)

    lang = ui_lang(lang)
    lines = [block_header(lang)] + ([profile] if profile else [])
    chosen, dropped = _fill_budget(lines, direct, neighbours, limit, lang, tz_offset_minutes)
    skipped.extend(Skip(card.id, "budget") for card in direct if card.id in dropped)
    handled = {card.id for card in chosen} | dropped | {skip.id for skip in skipped}
    skipped.extend(_homograph_skips(index, typed, handled, scope, policy))
    if not profile and not chosen:
        return Selection(skipped=skipped)
    block = "\n".join(lines)
    return Selection(
        block=block,
        used_ids=(["profile"] if profile else []) + [card.id for card in chosen],
        skipped=skipped,
        forced=forced_for_text(block, index, chosen, spare_famous=spare_famous),
        cards=chosen,
    )


def _fill_budget(
    lines: list[str], direct: list[Card], neighbours: list[Card], limit: int, lang: str, tz_offset_minutes: int
) -> tuple[list[Card], set[str]]:
    """Append card lines to `lines` while the whole block (every character, newlines included)
    stays within `limit`: direct hits first, then neighbours. A card that does not fit is
    dropped and the next, smaller ones are still tried. Returns the chosen cards and the ids
    dropped."""
    used = sum(len(line) for line in lines) + len(lines) - 1
    chosen: list[Card] = []
    dropped: set[str] = set()
    for card in [*direct, *neighbours]:
        line = "- " + card_summary(card, lang, tz_offset_minutes)
        if used + 1 + len(line) > limit:
            dropped.add(card.id)
            continue
        used += 1 + len(line)
        lines.append(line)
        chosen.append(card)
    return chosen, dropped


def _direct_tiers(index: MemoryIndex, typed: str, conv_values: Iterable[str]) -> dict[str, int]:
    """card id -> its best tier: named in the typed text, inside a conversation value, or by a
    distinctive word of the typed text (a lone word in a conversation value does not count)."""
    tiers: dict[str, int] = {}
    for card_id in index.keys.card_ids(typed):
        tiers[card_id] = TIER_MENTION
    for value in conv_values:
        # Each value on its own, so a key never straddles two values.
        for card_id in index.keys.card_ids(normalise_fast(value)):
            tiers.setdefault(card_id, TIER_CONVERSATION)
    for card_id in index.tokens.card_ids(typed):
        tiers.setdefault(card_id, TIER_TOKEN)
    return tiers


def _admit_direct(
    index: MemoryIndex, tiers: dict[str, int], scope: str | None, policy: ProposedInjection
) -> tuple[list[Card], list[Skip]]:
    """Direct hits allowed by status, scope and trust, best tier then most recent first; and the
    diagnostics of those refused."""
    ranked = sorted(tiers, key=lambda cid: (-tiers[cid], -index.cards[cid].updated_at, index.order[cid]))
    admitted: list[Card] = []
    skipped: list[Skip] = []
    for card_id in ranked:
        card = index.cards[card_id]
        if card.status == "rejected":
            continue  # a rejected card is not memory any more: never injected, never diagnosed
        if not in_scope(card, scope):
            skipped.append(Skip(card_id, "out-of-scope"))
            continue
        refusal = trust_refusal(card, tiers[card_id], policy)
        if refusal is not None:
            skipped.append(Skip(card_id, refusal))
            continue
        admitted.append(card)
    return admitted, skipped


def _linked_neighbours(
    index: MemoryIndex, direct: list[Card], tiers: dict[str, int], scope: str | None, policy: ProposedInjection
) -> list[Card]:
    """One hop from the cards named in the typed text (never from weaker hits, never two hops):
    at most `MAX_LINKED`, most recent first. A neighbour is not mentioned, so a proposed one
    needs the "all" policy."""
    taken = {card.id for card in direct} | set(tiers)
    found: dict[str, Card] = {}
    for seed in direct:
        if tiers[seed.id] != TIER_MENTION:
            continue
        for other_id in index.links.get(seed.id, ()):
            card = index.cards[other_id]
            if other_id in taken or other_id in found:
                continue
            if card.status == "rejected" or not in_scope(card, scope):
                continue
            if trust_refusal(card, TIER_LINKED, policy) is None:
                found[other_id] = card
    ranked = sorted(found.values(), key=lambda c: (-c.updated_at, index.order[c.id]))
    return ranked[:MAX_LINKED]


def _homograph_skips(
    index: MemoryIndex, typed: str, handled: set[str], scope: str | None, policy: ProposedInjection
) -> list[Skip]:
    """A readable card whose name word was typed but is refused as a token because it is an
    everyday word ("appelle pierre demain" -> Pierre Marché). Cards already injected, skipped or
    dropped by the budget (neighbours included: reference 12 item 19) get no second reason."""
    out: list[Skip] = []
    for card_id in sorted(index.denied.card_ids(typed), key=index.order.__getitem__):
        card = index.cards[card_id]
        if card_id in handled or card.status == "rejected" or not in_scope(card, scope):
            continue
        if trust_refusal(card, TIER_MENTION, policy) is None:
            out.append(Skip(card_id, "homograph"))
    return out


# --- forced redaction (reference 6.7) ------------------------------------------------------------

def forced_for_text(
    text: str, index: MemoryIndex, selected: Sequence[Card], *, spare_famous: bool = False
) -> list[ForcedValue]:
    """Every surface of the selected cards, plus every surface of ANY card named in `text` (the
    profile can name an organisation whose card was not selected), minus lexicon words, short
    values and sentence fragments; notorious names too when `spare_famous`. Deduplicated
    case-insensitively, in card order."""
    candidates: list[ForcedValue] = []
    for card in selected:
        candidates.extend(_surfaces(card))
    found = index.keys.find(normalise_fast(text))
    named = {card_id for phrase in found for card_id in index.keys.ids[phrase]}
    for card_id in sorted(named, key=index.order.__getitem__):
        candidates.extend(v for v in _surfaces(index.cards[card_id]) if normalise_fast(v.value) in found)
    forced: list[ForcedValue] = []
    seen: set[str] = set()
    for value in candidates:
        folded = value.value.strip().casefold()
        if folded not in seen and is_forceable(value):
            seen.add(folded)
            forced.append(ForcedValue(value.value.strip(), value.kind))
    return filter_notorious(forced, commercial=spare_famous, people=spare_famous)


def _surfaces(card: Card) -> list[ForcedValue]:
    """The entity with its category's kind; each alias as an e-mail or with the card's kind."""
    kind = _FORCED_KIND_OF_CATEGORY[card.category]
    out = [ForcedValue(card.entity, kind)]
    out.extend(ForcedValue(alias, "email" if "@" in alias else kind) for alias in card.aliases)
    return out


def is_forceable(value: ForcedValue) -> bool:
    """Forcing a word redacts it across the whole conversation: never a lexicon word ("dossiers",
    "notes", "frais"), never under 3 characters, never a corrupted sentence-fragment card."""
    text = value.value.strip()
    if len(text) < 3:
        return False
    if value.kind == "email":
        return True
    category = "name" if value.kind == "person" else "company"
    return not lexicon.is_non_pii_term(text, category) and is_nominal_name(text)


_SENTENCE_VERBS = deferred(
    r"(?<!\w)(?:est|sont|était|étaient|sera|seront|a|ont|avait|avaient|fait|font|peut|peuvent|doit|"
    r"doivent|is|are|was|were|has|have)(?!\w)"
)


def is_nominal_name(value: str) -> bool:
    """A name, not a sentence: at most 6 words, no sentence punctuation, no lower-case
    conjugated verb (case-sensitive on purpose: "Plan A" and "Grand Est" are names). The verb
    test is Unicode-aware, so "était" counts (reference 12 item 1); an initial ("J. Dupont") or
    an abbreviation ("Karl Studio S.A.", "Acme Inc.") is not a sentence end."""
    text = value.strip()
    words = text.split()
    if not words or len(words) > 6 or text.endswith(("…", ";", ":", "!", "?")):
        return False
    if any(_ends_sentence(word) for word in words):
        return False
    return _SENTENCE_VERBS.search(text) is None


def _ends_sentence(word: str) -> bool:
    if word.endswith(("!", "?", ";", "…")):
        return True
    if not word.endswith("."):
        return False
    bare = word.rstrip(".")
    is_abbreviation = "." in bare or len(bare) <= 2 or lexicon.is_legal_form(word) or lexicon.is_honorific(word)
    return not is_abbreviation


def filter_notorious(forced: Sequence[ForcedValue], *, commercial: bool, people: bool) -> list[ForcedValue]:
    """Drop person and organisation-like values the notoriety policy ships in clear (a forced
    "google" alias would rewrite Google Drive across the prompt); e-mails always stay."""
    out: list[ForcedValue] = []
    for value in forced:
        if value.kind != "email":
            category = "name" if value.kind == "person" else "company"
            if lexicon.is_notorious(value.value, category, commercial=commercial, people=people):
                continue
        out.append(value)
    return out


def to_redact_forced(forced: Iterable[ForcedValue], kind_of: dict[str, str] | None = None) -> tuple[Forced, ...]:
    """The engine's `Forced` values, kinds mapped through `kind_of` (default `REDACT_KIND_OF`)."""
    table = REDACT_KIND_OF if kind_of is None else kind_of
    return tuple(Forced(value.value, table[value.kind]) for value in forced)
