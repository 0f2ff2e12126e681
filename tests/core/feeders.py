"""Stream feeders for the codec tests: they hold everything back until flushed, which shows where a
rewriter puts held-back text (and that what arrives whole is not fed through a block's feeder)."""

from __future__ import annotations

from collections.abc import Callable


class Holding:
    """Releases nothing until flushed, then all it held, through `finish` (unchanged by default)."""

    def __init__(self, finish: Callable[[str], str] = str) -> None:
        self.finish = finish
        self.held = ""

    def feed(self, chunk: str) -> str:
        self.held += chunk
        return ""

    def flush(self) -> str:
        out, self.held = self.held, ""
        return self.finish(out) if out else ""


def holding(finish: Callable[[str], str]) -> Callable[[], Holding]:
    """A factory of Holding feeders that rewrite what they release with `finish`."""
    return lambda: Holding(finish)
