"""Memo tables for the pure text functions cleanup calls on every sentence of the store: plain
dicts, emptied when full, because a bounded `functools.lru_cache` costs more per miss than the work."""

from __future__ import annotations

from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

# A first cleanup of 10,000 cards misses once per distinct text (about 40,000): measured on
# CPython 3.11, a bounded lru_cache added about 3 us per miss (a linked node per entry, tracked by
# the garbage collector), a dict entry well under 1 us. Hits cost the same.


class Memo(dict[K, V], Generic[K, V]):
    """Results of one pure function by argument. Emptied whole when it reaches `maxsize` (cleanup
    rereads the whole store, so least-recently-used eviction would thrash anyway). Has the
    `cache_clear` and `cache_parameters` of an lru_cache, so tools that empty caches find it."""

    def __init__(self, maxsize: int) -> None:
        super().__init__()
        self.maxsize = maxsize

    def remember(self, key: K, value: V) -> V:
        if len(self) >= self.maxsize:
            self.clear()
        self[key] = value
        return value

    def cache_clear(self) -> None:
        self.clear()

    def cache_parameters(self) -> dict[str, object]:
        return {"maxsize": self.maxsize, "typed": False}
