"""The memory's records: cards made of dated sentences with evidence, their superseded
history, status and scope; refusals; the journal; and the store that holds them.

Times are integers in milliseconds since the epoch, always passed in (`now`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Category = Literal["personne", "organisation", "projet", "autre"]
Status = Literal["proposed", "confirmed", "rejected"]
Origin = Literal["user", "auto-silent", "auto-explicit"]
SupersededReason = Literal["replaced", "evicted", "merged", "restored-over"]
ProposedInjection = Literal["all", "mention", "never"]

CATEGORIES: tuple[Category, ...] = ("personne", "organisation", "projet", "autre")
MAX_FACTS_CHARS = 600  # live sentences of one card, joined by single spaces
MAX_PROFILE_CHARS = 1200
MAX_ALIASES = 6
MAX_HISTORY = 20  # superseded sentences kept per card
MAX_NAME_CHARS = 200  # an entity or alias longer than this is cut (bad input, not a name)
STORE_VERSION = 1


def category_of(value: str) -> Category:
    """Unknown categories become `autre` (reference 1.1)."""
    for category in CATEGORIES:
        if value == category:
            return category
    return "autre"


@dataclass(frozen=True)
class Evidence:
    """Where a sentence was learnt: a conversation and the messages it was extracted from."""

    conversation_id: str
    message_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Sentence:
    text: str
    noted_at: int
    origin: Origin = "user"
    evidence: Evidence | None = None


@dataclass(frozen=True)
class Superseded:
    """A sentence that left the live facts, kept so it can be restored."""

    sentence: Sentence
    superseded_at: int
    reason: SupersededReason


@dataclass
class Card:
    id: str
    entity: str
    category: Category
    sentences: list[Sentence] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    history: list[Superseded] = field(default_factory=list)  # most recent first, <= MAX_HISTORY
    status: Status = "proposed"
    scope: str | None = None  # None: global; else the id of a space
    source: Literal["auto", "user"] = "auto"
    created_at: int = 0
    updated_at: int = 0
    reviewed_at: int | None = None
    # Set by cleanup when folding left the live sentences as they are: a digest of them (see
    # `compaction.compact_mark`). Saved with the card, so a reloaded store skips folding what did
    # not change; any change to the sentences makes it stale by itself. A cache, not content:
    # left out of equality and repr.
    compact_mark: str | None = field(default=None, compare=False, repr=False)

    @property
    def facts(self) -> str:
        """The live sentences as one text, as the model and the reference read them."""
        return " ".join(s.text for s in self.sentences)

    @property
    def newest_noted_at(self) -> int:
        return max((s.noted_at for s in self.sentences), default=self.updated_at)


@dataclass(frozen=True)
class Refusal:
    """A value-keyed tombstone: silent extraction never recreates the entity (fact is None)
    or the single fact (normalised sentence) it names. Lifted by an explicit ask or by hand."""

    entity_key: str
    fact_key: str | None
    created_at: int
    reason: str = "deleted"  # deleted | rejected
    surfaces: tuple[str, ...] = ()  # the card's other normalised keys (aliases), refused with it
    label: str = ""  # what the user saw (entity, or the sentence), for the refusals list


@dataclass(frozen=True)
class JournalEntry:
    """One memory mutation, append-only."""

    at: int
    action: str  # create, add, replace, restore, merge, confirm, reject, delete, undo, refuse, lift, cleanup, edit
    origin: str  # user, auto-silent, auto-explicit, cleanup, import
    card_id: str | None = None
    entity: str | None = None
    before: str | None = None
    after: str | None = None
    detail: str | None = None


@dataclass
class MemorySettings:
    proposed_injection: ProposedInjection = "mention"
    auto_extract: bool = False  # silent extraction is off by default (reference 1.2)
    proposal_seen: bool = False
    budget_chars: int = 4000


@dataclass
class MemoryStore:
    """Everything the Mémoire holds for one account, in REAL values (encrypted at rest by the shell)."""

    profile: str = ""
    cards: list[Card] = field(default_factory=list)  # newest created first
    refusals: list[Refusal] = field(default_factory=list)
    journal: list[JournalEntry] = field(default_factory=list)
    journal_compacted: dict[str, int] = field(default_factory=dict)  # action -> count of dropped entries
    dismissed_suggestions: set[str] = field(default_factory=set)  # pair keys "idA+idB" (sorted)
    settings: MemorySettings = field(default_factory=MemorySettings)
    version: int = STORE_VERSION
    # Counts mutations in this process (every journaled change bumps it, see `journal.append`), so
    # an index built at an older revision is known stale. Not saved, not content.
    revision: int = field(default=0, compare=False, repr=False)

    def touch(self) -> None:
        """Record a change made by hand (outside the journaled operations): indexes built before
        it are then rebuilt."""
        self.revision += 1

    def card(self, card_id: str) -> Card | None:
        for card in self.cards:
            if card.id == card_id:
                return card
        return None


@dataclass(frozen=True)
class ResolvedFact:
    """One extracted fact after un-redaction and the anchor check, ready to merge."""

    id: str  # pre-minted, so "which cards did this run create" is deterministic
    entity: str
    category: Category
    fact: str
    alias: str | None = None
    note: bool = False  # explicit mode: a titled note whose entity is not in the real text


@dataclass(frozen=True)
class ResolvedExtraction:
    facts: tuple[ResolvedFact, ...] = ()
    profile: str | None = None
