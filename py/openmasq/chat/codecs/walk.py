"""Walk the text a provider body carries: rewrite every string leaf of a JSON value, or of a
JSON document kept as text (tool-call arguments)."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from typing import Any

TextMap = Callable[[str], str]


class ShapeError(ValueError):
    """A body whose shape the codec does not know: its text cannot be accounted for."""


# Fields that name a structure, not content: left as they are inside blocks of unknown types.
STRUCTURAL_KEYS = frozenset({"type", "media_type", "cache_control"})
# Strings the provider minted and checks when they come back (a web search result's encrypted
# page, a citation's encrypted index, a thinking block's signature, an uploaded file's id): sent
# back as they came, wherever they are. They say nothing the provider did not write itself, and
# rewriting one (they look like secrets to the engine) makes the provider refuse the next turn.
PROVIDER_TOKENS = frozenset({"encrypted_content", "encrypted_index", "signature", "file_id"})
_KEPT = STRUCTURAL_KEYS | PROVIDER_TOKENS


def map_leaves(value: Any, text: TextMap, keep: frozenset[str] = frozenset()) -> Any:
    """A copy of a JSON value with every string value (not the object keys) rewritten, except
    the names under fields named in `keep`, at any depth: a string or a list of strings. An
    object under such a key is walked like any other (a schema property may be called "type")."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, list):
        return [map_leaves(item, text, keep) for item in value]
    if isinstance(value, dict):
        return {key: item if key in keep and _is_names(item) else map_leaves(item, text, keep)
                for key, item in value.items()}
    return value


def _is_names(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, list) and all(isinstance(item, str) for item in value))


def map_rest(holder: dict[str, Any], text: TextMap, done: Collection[str]) -> dict[str, Any]:
    """Rewrite, in place, every field of `holder` that its codec did not handle (`done`): a
    field the codec does not know is content until shown otherwise (fail closed). Returns holder."""
    for key, value in holder.items():
        if key not in done:
            holder[key] = _map_field(key, value, text)
    return holder


def _map_field(key: str, value: Any, text: TextMap, keep: frozenset[str] = _KEPT) -> Any:
    return value if key in keep and _is_names(value) else map_leaves(value, text, keep)


# The objects of a declaration (a tool, a response schema) whose own "name" is an identifier.
_DECLARED = frozenset({"function", "custom", "json_schema"})
# In a declaration's JSON schema, the words that name keys, types and formats rather than say
# anything: left as they are ("required" lists property names, which are keys).
_SCHEMA_NAMES = STRUCTURAL_KEYS | {"required", "$ref", "$schema", "format"}


def map_declaration(value: object, what: str, text: TextMap) -> dict[str, Any]:
    """A copy of a tool or schema declaration with its descriptions, schema texts, enums and
    examples rewritten, and its name left alone: a name is what the client and the model call
    it by (in a tool call, a tool_choice), and the answer's calls are matched on it."""
    out = dict(expect_dict(value, what))
    for key, item in out.items():
        if key in _DECLARED and isinstance(item, dict):
            out[key] = map_declaration(item, what, text)
        elif not (key == "name" and isinstance(item, str)):
            out[key] = _map_field(key, item, text, _SCHEMA_NAMES)
    return out


def map_json_text(document: str, text: TextMap) -> str:
    """Rewrite the string leaves of a JSON text; text that is not JSON is rewritten whole, so
    invalid arguments are still covered."""
    try:
        value = json.loads(document)
    except ValueError:
        return text(document)
    return json.dumps(map_leaves(value, text), ensure_ascii=False)


def map_optional(holder: dict[str, Any], key: str, text: TextMap) -> None:
    """Rewrite holder[key] in place when it is a string; absent or null is fine, anything else
    is a shape this codec does not know."""
    value = holder.get(key)
    if value is None:
        return
    if not isinstance(value, str):
        raise ShapeError(f"field {key!r} is a {type(value).__name__}, expected a string")
    holder[key] = text(value)


def expect_dict(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ShapeError(f"{what} is a {type(value).__name__}, expected an object")
    return value


def expect_list(value: object, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise ShapeError(f"{what} is a {type(value).__name__}, expected a list")
    return value


def as_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_str(value: object) -> str:
    return value if isinstance(value, str) else ""
