"""Walk the text a provider body carries: rewrite every string leaf of a JSON value, or of a
JSON document kept as text (tool-call arguments)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

TextMap = Callable[[str], str]


class ShapeError(ValueError):
    """A body whose shape the codec does not know: its text cannot be accounted for."""


# Fields that name a structure, not content: left as they are inside blocks of unknown types.
STRUCTURAL_KEYS = frozenset({"type", "media_type", "cache_control"})


def map_leaves(value: Any, text: TextMap, keep: frozenset[str] = frozenset()) -> Any:
    """A copy of a JSON value with every string value (not the object keys) rewritten, except
    the values of fields named in `keep`, at any depth."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, list):
        return [map_leaves(item, text, keep) for item in value]
    if isinstance(value, dict):
        return {key: item if key in keep else map_leaves(item, text, keep) for key, item in value.items()}
    return value


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
