"""Running a coroutine to the end from a synchronous test."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def in_fresh_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    """asyncio.run on a thread of its own: a sync Playwright session started earlier in the same process
    keeps an event loop running on the calling thread, where asyncio.run would refuse to start."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
