"""Walk the text a provider body carries: rewrite every string leaf of a JSON value, or of a
JSON document kept as text (tool-call arguments)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection
from typing import Any, Protocol, runtime_checkable

TextMap = Callable[[str], str]


@runtime_checkable
class JointTextMap(Protocol):
    """A TextMap that can also rewrite consecutive texts as the one text a model reads (redact/parts.py)."""

    def __call__(self, value: str) -> str: ...

    def joint(self, values: list[str]) -> list[str]: ...


def map_text_run(values: list[str], text: TextMap) -> list[str]:
    """Consecutive texts of one message rewritten together when `text` can (a value may cross from one to
    the next), else one by one."""
    if len(values) > 1 and isinstance(text, JointTextMap):
        return text.joint(values)
    return [text(value) for value in values]


def map_text_blocks(blocks: list[Any], text: TextMap, map_block: Callable[[Any], Any]) -> list[Any]:
    """A content list whose runs of consecutive text blocks ({"type": "text", "text": ...}) are rewritten
    together (map_text_run), their other fields and every other block by `map_block`."""
    out: list[Any] = []
    i = 0
    while i < len(blocks):
        j = i
        while j < len(blocks) and _is_text_block(blocks[j]):
            j += 1
        if j == i:
            out.append(map_block(blocks[i]))
            i += 1
            continue
        run = blocks[i:j]
        rewritten = map_text_run([block["text"] for block in run], text)
        out += [map_rest({**block, "text": new}, text, done={"text"})
                for block, new in zip(run, rewritten, strict=True)]
        i = j
    return out


def _is_text_block(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)


class ShapeError(ValueError):
    """A body whose shape the codec does not know: its text cannot be accounted for."""


# Fields that name a structure, not content ("text", "image/png", "ephemeral"): left as they
# are in content of unknown shape when they read as a name.
STRUCTURAL_KEYS = frozenset({"type", "media_type", "cache_control"})
# Names a client gives parts of its own request that the provider matches against each other:
# an MCP server's name is a setting (anthropic._SETTINGS), and the blocks that use it say it too.
NAME_KEYS = frozenset({"server_name", "mcp_server_name", "toolset_name"})
# Strings the provider minted and checks when they come back (a thinking block's signature, an
# uploaded file's id, and every "encrypted_*" field: a web search result's page, a citation's
# index, a code run's output): sent back as they came when they read as such a token. They say
# nothing the provider did not write itself, and rewriting one (they look like secrets to the
# engine) makes the provider refuse the next turn.
PROVIDER_TOKENS = frozenset({"signature", "file_id"})
# Objects whose "data" is the provider's opaque bytes (a redacted thinking block, OpenRouter's
# encrypted reasoning) or a file's base64 (a document a server tool fetched).
_OPAQUE_TYPES = frozenset({"redacted_thinking", "reasoning.encrypted", "base64"})
# Payloads (a tool call's input): data all the way down, nothing kept, keys rewritten too
# ({"marie@example.fr": 17} is as personal as its values).
DATA_KEYS = frozenset({"input", "arguments"})

_NAME = re.compile(r"[A-Za-z0-9_.:/+-]{1,64}")
_TOKEN = re.compile(r"[A-Za-z0-9+/=_.-]{16,}")
# An id the provider gave: a message, a tool call (its own or a server tool's), an audio answer,
# a reasoning item, a file, a container.
_PROVIDER_ID = re.compile(
    r"(?:msg|toolu|srvtoolu|mcptoolu|call|audio|rs|file|chatcmpl|resp|fc|ws|req|cntr|container)[_-][A-Za-z0-9_-]{6,}")
# Media inlined as a data URL, whole: bytes, not text (the engine would take the base64 for a secret).
_DATA_URL = re.compile(r"data:[\w.+-]+/[\w.+-]+(?:;[\w.+-]+=[\w.+-]+)*;base64,[A-Za-z0-9+/=]*")


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


def map_data(value: Any, text: TextMap) -> Any:
    """A copy of a payload (a tool call's input) with every string rewritten, the object keys
    too; only inlined media (a data URL) is left as it is."""
    if isinstance(value, str):
        return _map_string(value, text)
    if isinstance(value, list):
        return [map_data(item, text) for item in value]
    if isinstance(value, dict):
        return {text(key): map_data(item, text) for key, item in value.items()}
    return value


def map_content(value: Any, text: TextMap) -> Any:
    """A copy of a JSON value of a shape the codec does not know, every string rewritten (fail
    closed) bar what names a structure, what the provider minted, and inlined media; each only
    where its field says so and its value reads as one (a "type" that says a sentence is content)."""
    if isinstance(value, str):
        return _map_string(value, text)
    if isinstance(value, list):
        return [map_content(item, text) for item in value]
    if isinstance(value, dict):
        opaque = value.get("type") in _OPAQUE_TYPES
        return {key: item if _kept(key, item, opaque) else _map_field(key, item, text) for key, item in value.items()}
    return value


def _map_string(value: str, text: TextMap) -> str:
    return value if _DATA_URL.fullmatch(value) else text(value)


def map_rest(holder: dict[str, Any], text: TextMap, done: Collection[str]) -> dict[str, Any]:
    """Rewrite, in place, every field of `holder` that its codec did not handle (`done`): a
    field the codec does not know is content until shown otherwise (fail closed). Returns holder."""
    opaque = holder.get("type") in _OPAQUE_TYPES
    for key, value in holder.items():
        if key not in done and not _kept(key, value, opaque):
            holder[key] = _map_field(key, value, text)
    return holder


def _map_field(key: str, value: Any, text: TextMap) -> Any:
    return map_data(value, text) if key in DATA_KEYS else map_content(value, text)


def _kept(key: str, value: Any, opaque: bool) -> bool:
    """Whether a field of content is left as it is: see STRUCTURAL_KEYS, NAME_KEYS, PROVIDER_TOKENS."""
    if key in STRUCTURAL_KEYS:
        return _reads_as_names(value)
    if not isinstance(value, str):
        return False
    if key in NAME_KEYS or (opaque and key == "data"):
        return True
    if key in PROVIDER_TOKENS or key.startswith("encrypted_"):
        return _TOKEN.fullmatch(value) is not None
    if key == "id" or key.endswith("_id"):
        return _PROVIDER_ID.fullmatch(value) is not None
    return False


def _reads_as_names(value: Any) -> bool:
    if isinstance(value, list):
        return all(isinstance(item, str) and _NAME.fullmatch(item) for item in value)
    return isinstance(value, str) and _NAME.fullmatch(value) is not None


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
        elif not ((key == "name" or key in NAME_KEYS) and isinstance(item, str)):
            out[key] = item if key in _SCHEMA_NAMES and _is_names(item) else map_leaves(item, text, _SCHEMA_NAMES)
    return out


def map_json_text(document: str, text: TextMap) -> str:
    """Rewrite the string leaves of a JSON text; text that is not JSON is rewritten whole, so
    invalid arguments are still covered."""
    try:
        value = json.loads(document)
    except ValueError:
        return text(document)
    return json.dumps(map_data(value, text), ensure_ascii=False)


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
