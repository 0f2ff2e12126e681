"""One text across carriers: consecutive text parts of one message (a client's content parts, a system
prompt's blocks) are read by the model as one text, so they are redacted as one, and the result is written
back part by part. A value that crosses a boundary ("Marie Du" + "pont") is found whole; its fake goes where
the value started, and the later part loses the rest of it (a part left with nothing becomes one space)."""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from .apply import RedactionError, Replacement
from .options import RedactOptions
from .pseudonymise import Parallel, Redaction, SpanCache, SpanSource, pseudonymise
from .vault import Vault


def pseudonymise_parts(texts: Sequence[str], vault: Vault, options: RedactOptions | None = None, *,
                       cache: SpanCache | None = None, parallel: Parallel | None = None,
                       model: SpanSource | None = None) -> tuple[list[str], Redaction]:
    """The redacted parts (as many as given) and the redaction of their joined text."""
    joined = "".join(texts)
    result = pseudonymise(joined, vault, options, cache=cache, parallel=parallel, model=model)
    return split_output(texts, result), result


def split_output(texts: Sequence[str], result: Redaction) -> list[str]:
    """`result.text` cut back into the parts of `texts` (whose join `result` redacted); raises RedactionError
    when the pieces do not make the redacted text (nothing is then sent)."""
    joined = "".join(texts)
    ends = list(_running_ends(texts))
    out = [""] * len(texts)
    cursor = 0
    for replacement in sorted(result.replacements, key=lambda r: r.start):
        _copy(joined, cursor, replacement.start, ends, out)
        out[_part_at(ends, replacement.start)] += replacement.substitute
        cursor = max(cursor, replacement.end)
    _copy(joined, cursor, len(joined), ends, out)
    if "".join(out) != result.text:
        raise RedactionError("the redacted parts do not add up to the redacted text")
    # A part whose whole text went into the previous part's fake stays a part: a space (providers refuse an
    # empty text block).
    return [" " if text and not part else part for text, part in zip(texts, out, strict=True)]


def _running_ends(texts: Sequence[str]) -> list[int]:
    total, ends = 0, []
    for text in texts:
        total += len(text)
        ends.append(total)
    return ends


def _part_at(ends: list[int], position: int) -> int:
    """The part holding the character at `position`."""
    return min(bisect.bisect_right(ends, position), len(ends) - 1)


def _copy(joined: str, start: int, end: int, ends: list[int], out: list[str]) -> None:
    """Original characters [start, end) into the parts they belong to."""
    while start < end:
        part = _part_at(ends, start)
        stop = min(end, ends[part])
        out[part] += joined[start:stop]
        start = stop


__all__ = ["Replacement", "pseudonymise_parts", "split_output"]
