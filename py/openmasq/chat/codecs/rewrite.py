"""What a stream rewriter needs from the outside: a feeder per text stream (a content block, a
tool call's arguments) that holds back what may still change and releases the rest."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol


class Feeder(Protocol):
    """StreamRestorer's shape: feed a chunk, get what is certain; flush at the end."""

    def feed(self, chunk: str) -> str: ...

    def flush(self) -> str: ...


FeederFactory = Callable[[], Feeder]


def whole(factory: FeederFactory, text: str) -> str:
    """A text that arrives in one piece (a citation, an annotation's title), through a feeder of its own."""
    feeder = factory()
    return feeder.feed(text) + feeder.flush()


class PassThrough:
    """A feeder that changes nothing (no vault, or a test)."""

    def feed(self, chunk: str) -> str:
        return chunk

    def flush(self) -> str:
        return ""


def dump(doc: Any) -> str:
    """Compact JSON as the providers send it (non-ASCII kept as is)."""
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def load_object(data: str) -> dict[str, Any] | None:
    """A stream event's JSON object, or None when it is not one."""
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None
