"""Schema migrations of the state document: `MIGRATIONS[n]` turns a version n+1 document into
version n+2. Each one is a pure function on a deep copy; the caller's document is never touched."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

Doc = dict[str, Any]
FIRST_VERSION = 1


class StateVersionError(ValueError):
    """A document from an unknown (newer, or never existing) schema version: nothing was changed."""


def v1_to_v2(doc: Doc) -> Doc:
    """Version 1 used the reference app's names: `redactWireTokens` (a boolean) for the mode of
    new conversations and `modelContent` for what a message sent. Version 2 says `mode` and `wire`."""
    settings = doc.setdefault("settings", {})
    if isinstance(settings, dict) and "redactWireTokens" in settings:
        settings["mode"] = "token" if settings.pop("redactWireTokens") else "fake"
    for conv in doc.get("conversations", []):
        for message in conv.get("messages", []) if isinstance(conv, dict) else []:
            if isinstance(message, dict) and "modelContent" in message:
                message.setdefault("wire", message.pop("modelContent"))
    doc["version"] = 2
    return doc


def v2_to_v3(doc: Doc) -> Doc:
    """Version 3 keeps the other versions of a turn (an edited message, a regenerated reply) in each
    conversation's `branches` and `forks` (chat/branches.py); a version 2 conversation is one branch.
    The number itself is the point: a version 2 build refuses a version 3 record and leaves it
    untouched, instead of loading its active path and saving it back without its other versions."""
    for conv in doc.get("conversations", []):
        if isinstance(conv, dict):
            conv.setdefault("branches", [])
            conv.setdefault("forks", {})
    doc["version"] = 3
    return doc


def v3_to_v4(doc: Doc) -> Doc:
    """Version 4 keeps the files sent with a user turn in its message's `attachments` (their real
    text, encrypted with the rest; issue 20). Nothing to change in a version 3 document: the number
    is the point again, so that a version 3 build refuses the record instead of saving it back
    without the attachments."""
    doc["version"] = 4
    return doc


def v4_to_v5(doc: Doc) -> Doc:
    """Version 5 keeps instructions (issue 18): a conversation's `system_prompt` and `persona`, and the
    account's `personas` (chat/instructions.py). A version 4 document has none; the number makes a version 4
    build refuse a record that has them instead of saving it back without them."""
    doc.setdefault("personas", [])
    doc["version"] = 5
    return doc


def v5_to_v6(doc: Doc) -> Doc:
    """Version 6 keys the user's prices by provider and model (issue 18: one model id, two providers, two
    prices) and records the provider of each reply (a message's `provider`). The prices' object of model id
    -> price becomes the list of {provider, model, input, output}, each for any provider (provider "")."""
    settings = doc.get("settings")
    prices = settings.get("prices") if isinstance(settings, dict) else None
    if isinstance(settings, dict) and isinstance(prices, dict):
        settings["prices"] = [{"provider": "", "model": model, **price} if isinstance(price, dict) else price
                              for model, price in prices.items()]
    doc["version"] = 6
    return doc


MIGRATIONS: list[Callable[[Doc], Doc]] = [v1_to_v2, v2_to_v3, v3_to_v4, v4_to_v5, v5_to_v6]
LATEST_VERSION = FIRST_VERSION + len(MIGRATIONS)


def version_of(doc: Doc) -> int:
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise StateVersionError(f"the state document has no valid version ({version!r})")
    if not FIRST_VERSION <= version <= LATEST_VERSION:
        raise StateVersionError(
            f"state document version {version} is not one this build reads ({FIRST_VERSION}..{LATEST_VERSION}); "
            "nothing was changed")
    return version


def migrate(doc: Doc) -> Doc:
    """The document at the latest version; a new object, `doc` is left as it was."""
    version = version_of(doc)
    if version == LATEST_VERSION:
        return doc
    out = copy.deepcopy(doc)
    for step in MIGRATIONS[version - FIRST_VERSION:]:
        out = step(out)
    return out
