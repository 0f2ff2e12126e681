"""`memory_search`, the recall the model pulls (reference 7): the tool definition, whole-word
lexical scoring that tolerates plural and gender endings, a semantic top-up given from outside,
the result framing, and the result's re-redaction through the conversation's vault."""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from ..redact import RedactOptions, Vault, lexicon, pseudonymise
from .compaction import normalise_fast
from .model import Card, MemoryStore, ProposedInjection
from .normalise import is_cjk_text
from .select import (
    ForcedValue,
    MemoryIndex,
    card_summary,
    forced_for_text,
    in_scope,
    to_redact_forced,
    ui_lang,
)

TOOL_NAME = "memory_search"
SEARCH_MAX = 4
# Below the 0.92 clustering bar because queries are shorter than cards; unrelated e5 texts sit
# around 0.85 (reference 7, measured on the reference's calibration corpus).
SEARCH_MIN_SIM = 0.88

Semantic = Callable[[str, int], list[tuple[str, float]]]

_DESCRIPTIONS = {
    "fr": (
        "Cherche dans la mémoire durable de l'utilisateur (personnes, organisations, projets, notes). "
        "Utilise-la quand l'utilisateur parle de quelqu'un ou de quelque chose comme si tu le connaissais "
        "déjà. Écris les noms exactement comme ils apparaissent dans la conversation. Cet outil ne fait que "
        "lire : ce n'est pas à toi d'écrire en mémoire, l'application s'en charge quand l'utilisateur dit "
        "« retiens… ». Ne dis jamais que tu ne peux pas mémoriser, et n'affirme jamais avoir enregistré "
        "quelque chose (« c'est noté », « je retiens », « c'est enregistré ») : reformule plutôt ce que "
        "l'utilisateur veut garder ; l'application affiche le résultat réel sous ta réponse."
    ),
    "en": (
        "Searches the user's durable memory (people, organisations, projects, notes). Use it when the "
        "user talks about someone or something as if you already knew them. Write names exactly as they "
        "appear in the conversation. This tool only reads: writing to memory is not your job, the app does "
        "it when the user says \"remember…\". Never say you cannot remember things, and never claim you "
        "have saved something (\"noted\", \"I'll remember that\", \"saved\"): restate what the user wants "
        "kept instead; the app shows the real outcome under your reply."
    ),
}
_QUERY_DESCRIPTIONS = {
    "fr": "Noms, sujets ou mots-clés à chercher, tels qu'ils apparaissent dans la conversation.",
    "en": "Names, topics or keywords to look for, as they appear in the conversation.",
}
_FOUND = {"fr": "Souvenirs correspondants :", "en": "Matching memories:"}
_NOTHING = {
    "fr": "Aucun souvenir correspondant dans la mémoire de l'utilisateur.",
    "en": "No matching memory in the user's memory.",
}
_MASKED = {
    "fr": "(résultat masqué : redaction indisponible)",
    "en": "(result hidden: redaction unavailable)",
}


# --- the tool -----------------------------------------------------------------------------------

def memory_search_tool(lang: str = "fr") -> dict[str, Any]:
    """The tool as a provider-neutral definition: name, description, JSON-schema parameters."""
    lang = ui_lang(lang)
    return {
        "name": TOOL_NAME,
        "description": _DESCRIPTIONS[lang],
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string", "description": _QUERY_DESCRIPTIONS[lang]}},
            "required": ["query"],
            "additionalProperties": False,
        },
    }


def search_tool_offered(store: MemoryStore, *, scope: str | None, memory_off: bool = False) -> bool:
    """Offer the tool only when the conversation reads memory and there is a card it may find."""
    if memory_off:
        return False
    policy = store.settings.proposed_injection
    return any(searchable(card, scope, policy) for card in store.cards)


def search_query_of(arguments: str | dict[str, Any]) -> str:
    """The query of a tool call's arguments (a JSON text or an object); "" when absent."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return ""
    if not isinstance(arguments, dict):
        return ""
    query = arguments.get("query")
    return query.strip() if isinstance(query, str) else ""


def searchable(card: Card, scope: str | None, policy: ProposedInjection) -> bool:
    """Never a rejected card or another space's card. A search names what it looks for, like a
    direct mention, so proposed cards are found (and marked) unless the policy is "never"."""
    if card.status == "rejected" or not in_scope(card, scope):
        return False
    return not (card.status == "proposed" and policy == "never")


# --- inflection-tolerant words ------------------------------------------------------------------

_FEMININE_ENDINGS = (
    ("ienne", "ien"), ("euse", "eur"), ("rice", "eur"), ("enne", "en"), ("elle", "el"),
    ("ette", "et"), ("ive", "if"), ("ere", "er"),
)


def stem(word: str) -> str:
    """A normalised word with its French/English plural and gender endings folded, so
    "contrats" meets "contrat" and "cliente" meets "client" while "clientele" stays apart.
    Words with digits, dots or "@" (e-mails, references) and short words are kept whole."""
    if len(word) <= 3 or not word.isalpha():
        return word
    folded = _masculine(_singular(word))
    return folded if len(folded) >= 3 else word


def _singular(word: str) -> str:
    if word.endswith("eaux"):
        return word[:-1]  # bureaux -> bureau
    if word.endswith("aux"):
        return word[:-3] + "al"  # journaux -> journal
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"  # companies -> company
    if word.endswith(("sses", "xes", "zes", "ches", "shes")):
        return word[:-2]  # boxes -> box, matches -> match
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _masculine(word: str) -> str:
    for ending, replacement in _FEMININE_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 2:
            return word[: -len(ending)] + replacement
    # A mute final e (cliente, associee, employee): strip every trailing e, so the accented
    # and plain spellings ("associée", "associé") meet.
    return word.rstrip("e")


def query_words(query: str) -> list[str]:
    """The distinct words of a query worth looking for: no stopword, at least 3 characters
    (2 for CJK, which is not split into words)."""
    out: list[str] = []
    for word in normalise_fast(query).split():
        if len(word) < (2 if is_cjk_text(word) else 3) or lexicon.is_stopword(word):
            continue
        if word not in out:
            out.append(word)
    return out


class SearchIndex:
    """Stemmed words of every card's entity, aliases and facts -> card ids, built once per
    `MemoryIndex` (cached on it)."""

    def __init__(self, index: MemoryIndex) -> None:
        self.words: dict[str, set[str]] = {}
        self.haystacks: dict[str, str] = {}
        for card_id, card in index.cards.items():
            haystack = normalise_fast(" ".join([card.entity, *card.aliases, card.facts]))
            self.haystacks[card_id] = haystack
            for word in haystack.split():
                self.words.setdefault(stem(word), set()).add(card_id)

    @staticmethod
    def of(index: MemoryIndex) -> SearchIndex:
        cached = index.derived.get("search")
        if not isinstance(cached, SearchIndex):
            cached = SearchIndex(index)
            index.derived["search"] = cached
        return cached

    def cards_with(self, word: str, index: MemoryIndex) -> set[str]:
        """Cards holding the word as a whole word up to inflection; a CJK word (unsegmented text)
        as a substring of the card, or holding one of the card's CJK keys."""
        if not is_cjk_text(word):
            return set(self.words.get(stem(word), ()))
        hits = {card_id for card_id, haystack in self.haystacks.items() if word in haystack}
        return hits | index.keys.card_ids(word)


# --- search -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SearchHit:
    card: Card
    score: float  # lexical: query words found; semantic: cosine
    via: Literal["lexical", "semantic"]


@dataclass
class SearchResult:
    hits: list[SearchHit] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    text: str = ""  # framed, in REAL values: pass it through `search_result_for_model`
    forced: list[ForcedValue] = field(default_factory=list)


def search_memory(
    store: MemoryStore,
    query: str,
    *,
    scope: str | None,
    tz_offset_minutes: int,
    lang: str = "fr",
    max_results: int = SEARCH_MAX,
    semantic: Semantic | None = None,
    memory_off: bool = False,
    index: MemoryIndex | None = None,
    spare_famous: bool = False,
) -> SearchResult:
    """Lexical hits first, topped up by semantic hits at cosine >= `SEARCH_MIN_SIM`; the query is
    REAL (the tool loop un-redacts the model's arguments first). The profile is not searched."""
    lang = ui_lang(lang)
    if memory_off or max_results <= 0:
        return SearchResult(text=_NOTHING[lang])
    index = MemoryIndex.for_store(store, index)
    policy = store.settings.proposed_injection
    hits = lexical_hits(index, query, scope=scope, policy=policy, limit=max_results)
    if len(hits) < max_results and semantic is not None:
        hits.extend(_semantic_hits(index, query, semantic, hits, max_results, scope=scope, policy=policy))
    lines = [card_summary(hit.card, lang, tz_offset_minutes) for hit in hits]
    if not lines:
        return SearchResult(text=_NOTHING[lang])
    text = _FOUND[lang] + "\n" + "\n".join(lines)
    forced = forced_for_text(text, index, [hit.card for hit in hits], spare_famous=spare_famous)
    return SearchResult(hits=hits, lines=lines, text=text, forced=forced)


def lexical_hits(
    index: MemoryIndex, query: str, *, scope: str | None, policy: ProposedInjection, limit: int = SEARCH_MAX
) -> list[SearchHit]:
    """The `limit` cards holding the most query words (whole words, up to inflection); ties go to
    the most recently updated."""
    words = SearchIndex.of(index)
    scores: dict[str, int] = {}
    for word in query_words(query):
        for card_id in words.cards_with(word, index):
            scores[card_id] = scores.get(card_id, 0) + 1
    # A common word can hit most cards: keep the best few without sorting them all.
    ranked = heapq.nsmallest(
        limit,
        (cid for cid in scores if searchable(index.cards[cid], scope, policy)),
        key=lambda cid: (-scores[cid], -index.cards[cid].updated_at, index.order[cid]),
    )
    return [SearchHit(index.cards[cid], float(scores[cid]), "lexical") for cid in ranked]


def _semantic_hits(
    index: MemoryIndex,
    query: str,
    semantic: Semantic,
    lexical: list[SearchHit],
    max_results: int,
    *,
    scope: str | None,
    policy: ProposedInjection,
) -> list[SearchHit]:
    """Nearest cards by cosine, in order, until the list is full or the first one under the bar;
    unknown, unreadable and already-listed cards are passed over. A failing index adds nothing.
    The bar is the index's own `min_similarity` when it states one (calibrated for its model:
    memory/semantic.py), else `SEARCH_MIN_SIM`."""
    bar = float(getattr(semantic, "min_similarity", SEARCH_MIN_SIM))
    try:
        nearest = sorted(semantic(query, max_results), key=lambda pair: -pair[1])
    except Exception:  # the semantic tier is optional: any failure leaves the lexical result
        return []
    taken = {hit.card.id for hit in lexical}
    out: list[SearchHit] = []
    for card_id, similarity in nearest:
        if len(lexical) + len(out) >= max_results or not similarity >= bar:
            break  # (written so that a NaN cosine stops too)
        card = index.cards.get(card_id)
        if card is None or card_id in taken or not searchable(card, scope, policy):
            continue
        taken.add(card_id)
        out.append(SearchHit(card, similarity, "semantic"))
    return out


# --- the result the model sees ------------------------------------------------------------------

def search_result_for_model(
    result_text: str,
    vault: Vault,
    forced: Iterable[ForcedValue],
    *,
    options: RedactOptions | None = None,
    lang: str = "fr",
    kind_of: dict[str, str] | None = None,
) -> str:
    """The tool result re-redacted through the conversation's vault, the memory's surfaces
    forced. Fail closed: if the pass fails, the model gets a masked notice, never real values.
    On success `vault` is updated in place with the pass's new entries (so the reply that
    echoes a new fake restores); on failure it is left untouched."""
    try:
        base = options or RedactOptions(mode=vault.mode or "fake")
        options = replace(base, force=base.force + to_redact_forced(forced, kind_of))
        redaction = pseudonymise(result_text, vault, options)
    except Exception:  # fail closed on any error: nothing memory-related egresses in clear
        return _MASKED[ui_lang(lang)]
    for item in fields(Vault):
        setattr(vault, item.name, getattr(redaction.vault, item.name))
    return redaction.text


def nothing_found(lang: str = "fr") -> str:
    return _NOTHING[ui_lang(lang)]
