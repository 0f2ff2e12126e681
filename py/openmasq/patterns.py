"""Module-level regular expressions compiled on first use rather than at import.

`re.compile` runs in Python (its parser and compiler are pure Python): the engine's ~200
module-level patterns took about half of the app's boot imports in Pyodide (measured: 0.54 s of
1.03 s under the profiler). A `deferred` pattern compiles when first used, or when the host has
time for it (`compile_pending`: the app's worker after its boot, the proxy before serving), and
then puts the compiled pattern in place of itself in its module, so later calls pay nothing."""

from __future__ import annotations

import re
import sys
from typing import Any, cast

_pending: list[_Deferred] = []


class _Deferred:
    __slots__ = ("_compiled", "_flags", "_module", "_source")

    def __init__(self, source: str, flags: int, module: dict[str, Any]) -> None:
        self._source = source
        self._flags = flags
        self._module = module
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
            for name, value in list(self._module.items()):  # LOAD_GLOBAL finds the real one from now on
                if value is self:
                    self._module[name] = self._compiled
        return self._compiled

    # The calls the engine makes, without a lookup through __getattr__.
    def search(self, *args: Any) -> Any:
        return (self._compiled or self.compiled()).search(*args)

    def match(self, *args: Any) -> Any:
        return (self._compiled or self.compiled()).match(*args)

    def fullmatch(self, *args: Any) -> Any:
        return (self._compiled or self.compiled()).fullmatch(*args)

    def finditer(self, *args: Any) -> Any:
        return (self._compiled or self.compiled()).finditer(*args)

    def findall(self, *args: Any) -> Any:
        return (self._compiled or self.compiled()).findall(*args)

    def sub(self, *args: Any, **kwargs: Any) -> Any:
        return (self._compiled or self.compiled()).sub(*args, **kwargs)

    def split(self, *args: Any, **kwargs: Any) -> Any:
        return (self._compiled or self.compiled()).split(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.compiled(), name)


def deferred(source: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(source, flags)` when first used; for module-level patterns only (it replaces
    itself among its module's globals)."""
    pattern = _Deferred(source, flags, sys._getframe(1).f_globals)
    _pending.append(pattern)
    return cast("re.Pattern[str]", pattern)


def compile_pending(limit: int | None = None) -> int:
    """Compiles up to `limit` deferred patterns not used yet (all when None); returns how many
    are left, so a host can spread the work over idle moments."""
    while _pending and (limit is None or limit > 0):
        pattern = _pending.pop()
        if pattern._compiled is None:  # else already used
            pattern.compiled()
            limit = None if limit is None else limit - 1
    return len(_pending)
