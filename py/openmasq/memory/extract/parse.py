"""Read the extractor's reply (reference 3.5): find the JSON object, validate each fact, then cap.
`None` means "illegible"; an object without a valid fact is "nothing durable" (12 item 0)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ...patterns import deferred
from ..model import MAX_FACTS_CHARS, MAX_PROFILE_CHARS, Category, category_of
from ..normalise import normalise

MAX_NAME_CHARS = 120  # an entity or alias longer than this is a sentence, not a name
MAX_NAME_WORDS = 6
# Conjugated verbs that make a would-be name a sentence. Lower case on purpose: "Plan A" and
# "Grand Est" stay names. Word boundaries are Unicode-aware, so "était" and "étaient" count
# (the reference's ASCII \b never matched them: reference 12 item 1, fixed).
_SENTENCE_VERBS = deferred(
    r"(?<![^\W_])(?:est|sont|était|étaient|sera|seront|a|ont|avait|avaient|fait|font|peut|peuvent"
    r"|doit|doivent|is|are|was|were|has|have)(?![^\W_])"
)
_THINK_TAG = deferred(r"<\s{0,3}(/?)\s{0,3}think\s{0,3}>", re.IGNORECASE)
_SENTENCE_END = deferred(r"[.;!?]\s")


@dataclass(frozen=True)
class ParsedFact:
    """One fact as the model wrote it (in fakes), validated but not yet resolved."""

    entity: str
    fact: str
    category: Category = "autre"
    alias: str | None = None


@dataclass(frozen=True)
class ParsedExtraction:
    facts: tuple[ParsedFact, ...] = ()
    profile: str | None = None
    rows: int = 0  # how many rows the model offered before validation (the sweep's "full" test)


def strip_think(reply: str) -> str:
    """The reply without <think>...</think> blocks; an unpaired tag is removed alone."""
    pieces: list[str] = []
    cursor = 0
    open_at: int | None = None
    for tag in _THINK_TAG.finditer(reply):
        closing = tag.group(1) == "/"
        if not closing and open_at is None:
            pieces.append(reply[cursor : tag.start()])
            open_at = tag.end()
        elif closing and open_at is not None:
            open_at = None
            cursor = tag.end()
        elif closing:
            pieces.append(reply[cursor : tag.start()])
            cursor = tag.end()
    if open_at is not None:
        pieces.append(reply[open_at:])  # an unclosed block: drop the tag, keep what follows
    else:
        pieces.append(reply[cursor:])
    return "".join(pieces)


def balanced_objects(text: str) -> list[tuple[int, int]]:
    """(start, end) of every balanced {...} not nested in another balanced one, in order.
    Strings are honoured inside objects (a brace in a string does not count); an object left
    open does not hide the complete ones inside it. One linear pass."""
    stack: list[int] = []
    closed: list[tuple[int, int]] = []
    in_string = False
    escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"' and stack:
            in_string = True
        elif ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            closed.append((stack.pop(), i + 1))
    # Objects close inner-first: walking back by end, keep those that end before the last kept start.
    outer: list[tuple[int, int]] = []
    for start, end in reversed(closed):
        if not outer or end <= outer[-1][0]:
            outer.append((start, end))
    outer.reverse()
    return outer


# json.loads recurses once per nesting level: in Pyodide a deep "[[[[..." from a model
# overflows the WebAssembly stack and kills the worker instead of raising RecursionError.
# No extraction object nests beyond a handful of levels.
MAX_NESTING = 64


def nesting_depth(candidate: str) -> int:
    """The deepest [ / { nesting outside JSON strings (linear, no recursion)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in candidate:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(0, depth - 1)
    return deepest


def _load_object(candidate: str) -> dict[str, object] | None:
    if nesting_depth(candidate) > MAX_NESTING:
        return None
    try:
        value = json.loads(candidate)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def find_extraction_object(reply: str) -> dict[str, object] | None:
    """The last object holding a "faits" array; else the last object that parses at all."""
    text = strip_think(reply)
    fallback: dict[str, object] | None = None
    for start, end in reversed(balanced_objects(text)):
        obj = _load_object(text[start:end])
        if obj is None:
            continue
        if isinstance(obj.get("faits"), list):
            return obj
        if fallback is None:
            fallback = obj
    return fallback


def is_nominal_entity_name(name: str) -> bool:
    """A name, not a sentence: no end punctuation, no inner sentence break, at most six words,
    no lower-case conjugated verb, not absurdly long."""
    stripped = name.strip()
    if not stripped or len(stripped) > MAX_NAME_CHARS:
        return False
    if stripped.endswith((".", "…", ";", ":", "!", "?")) or _SENTENCE_END.search(stripped):
        return False
    if len(stripped.split()) > MAX_NAME_WORDS:
        return False
    return _SENTENCE_VERBS.search(stripped) is None


def _valid_fact(row: object) -> ParsedFact | None:
    if not isinstance(row, dict):
        return None
    entity, fact = row.get("entite"), row.get("fait")
    if not isinstance(entity, str) or not isinstance(fact, str):
        return None
    entity, fact = entity.strip(), fact.strip()[:MAX_FACTS_CHARS].strip()
    if not entity or not fact or not is_nominal_entity_name(entity):
        return None
    cat = row.get("cat")
    category = category_of(cat) if isinstance(cat, str) else "autre"
    return ParsedFact(entity, fact, category, _valid_alias(row.get("alias"), entity))


def _valid_alias(alias: object, entity: str) -> str | None:
    if not isinstance(alias, str):
        return None
    alias = alias.strip()
    if not alias or not is_nominal_entity_name(alias) or normalise(alias) == normalise(entity):
        return None
    return alias


def parse_extraction(reply: str, limit: int) -> ParsedExtraction | None:
    """The validated facts (at most `limit`, counted AFTER validation: reference 12 item 6)
    and the profile, or None when the reply holds no JSON object."""
    obj = find_extraction_object(reply)
    if obj is None:
        return None
    rows = obj.get("faits")
    facts: list[ParsedFact] = []
    offered = 0
    if isinstance(rows, list):
        offered = len(rows)
        for row in rows:
            parsed = _valid_fact(row)
            if parsed is not None:
                facts.append(parsed)
                if len(facts) >= limit:
                    break
    profile = obj.get("profil")
    kept_profile = profile.strip()[: MAX_PROFILE_CHARS * 2] if isinstance(profile, str) else ""
    return ParsedExtraction(tuple(facts), kept_profile or None, offered)
