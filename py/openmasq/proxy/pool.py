"""A pass's work on a second core (CPython shell). Forked helper processes run one half of each
text's detection, person and organisation names (detect.detect_names_and_orgs), while the
request's thread runs the other half (rules, user names); detect.gather puts the halves
together in the order it always does, so the spans are those of a detection in one piece.
Then, while the thread allocates the names' fakes, a helper computes the first candidates of
the other fakes (allocate.prefetch_candidates), which the thread accepts or rejects in order
as it would its own: the same substitutes, sooner. Once the request is redacted, a helper
builds the restorers of its answer while the upstream works (masking.built_restorers), off
the server's interpreter lock, which a thread building them would hold while the server
reads the answer.

A helper that fails, stops or does not answer is retired and its half runs in the request's
thread instead: only speed is lost, never a detection. No helper is forked again: the pool is
made before the server starts its threads, and forking a process with threads is unsafe."""

from __future__ import annotations

import itertools
import logging
import multiprocessing
import os
import queue
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from ..redact import RedactOptions, Span
from ..redact.allocate import Prefetched, prefetch_candidates
from ..redact.detect import NamesAndOrgs, detect_names_and_orgs
from ..redact.pseudonymise import detect_spans, prepare_pass
from .masking import built_restorers

log = logging.getLogger("openmasq.proxy")

# Below this, a text is detected in one piece: the round trip to a helper (~0.1-0.2 ms) would
# cost about what the half it moves does.
MIN_OFFLOAD_CHARS = 512
# A helper that has not answered by then is retired (a half takes milliseconds, even for 5 MB).
REPLY_TIMEOUT = 60.0
MAX_AUTO_WORKERS = 2


def auto_workers() -> int:
    """One helper per core beyond the server's own, at most MAX_AUTO_WORKERS (none on one core)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(0, min(MAX_AUTO_WORKERS, cores - 1))


@dataclass
class _Helper:
    process: BaseProcess
    conn: Connection


class Job:
    """A job a helper is working on: call it for the result, which waits for the helper at
    most `timeout` seconds (None: the helper failed, and was retired; the caller then does
    the work itself). `fileno` becomes readable when the result is there."""

    def __init__(self, pool: DetectionPool, helper: _Helper, job_id: int,
                 meanwhile: Callable[[], None] | None = None) -> None:
        self._pool = pool
        self._helper = helper
        self._job_id = job_id
        self._meanwhile = meanwhile

    def fileno(self) -> int:
        return self._helper.conn.fileno()

    def __call__(self, timeout: float = REPLY_TIMEOUT) -> Any:
        return self._pool._collect(self._helper, self._job_id, self._meanwhile, timeout)


class DetectionPool:
    """`detect_spans` is detect_spans with its names half on an idle helper when there is one.
    Make the pool once the engine is loaded (the helpers share its lexicons, copy-on-write)."""

    def __init__(self, workers: int) -> None:
        context = multiprocessing.get_context("fork")
        self._idle: queue.SimpleQueue[_Helper] = queue.SimpleQueue()
        self._helpers: list[_Helper] = []
        self._lock = threading.Lock()  # requests run in threads: two may retire helpers at once
        self._job_ids = itertools.count()
        for _ in range(workers):
            ours, theirs = context.Pipe()
            inherited = [helper.conn for helper in self._helpers] + [ours]
            process = context.Process(target=_serve, args=(theirs, inherited), name="openmasq-detect", daemon=True)
            process.start()
            theirs.close()
            helper = _Helper(process, ours)
            self._helpers.append(helper)
            self._idle.put(helper)

    @property
    def workers(self) -> int:
        """Helpers still in service."""
        return len(self._helpers)

    def detect_spans(self, text: str, options: RedactOptions) -> list[Span]:
        """detect_spans, its names half on a helper (a short text is detected here in one piece)."""
        offload = self._detect_names_and_orgs if len(text) >= MIN_OFFLOAD_CHARS else None
        return detect_spans(text, options, offload=offload)

    def prefetch(self, key: str, wanted: list[tuple[str, str]]) -> Callable[[], Prefetched | None]:
        """allocate's Prefetch: candidate fakes computed on a helper while the pass allocates names."""
        return self._start("fakes", (key, wanted)) or _nothing

    def restorers(self, entries: dict[str, str], kinds: dict[str, str], *, args: bool) -> Job | None:
        """masking.built_restorers on a helper; None when every helper is busy."""
        return self._start("restorers", (entries, kinds, args))

    def close(self) -> None:
        for helper in list(self._helpers):
            self._retire(helper, None)

    def _detect_names_and_orgs(self, view: str, known_names: tuple[str, ...]) -> Callable[[], NamesAndOrgs | None]:
        # Meanwhile, the pass's folds of the text, which it needs once the spans are known.
        return self._start("names", (view, known_names), meanwhile=lambda: prepare_pass(view)) or _nothing

    def _start(self, job: str, args: tuple[Any, ...], meanwhile: Callable[[], None] | None = None) -> Job | None:
        """Send a job to an idle helper; None when every helper is busy or this one failed (the
        caller then does the work itself)."""
        try:
            helper = self._idle.get_nowait()
        except queue.Empty:  # every helper busy with another request: this one works alone
            return None
        job_id = next(self._job_ids)
        try:
            helper.conn.send((job_id, job, args))
        except (OSError, ValueError) as error:
            self._retire(helper, type(error).__name__)
            return None
        return Job(self, helper, job_id, meanwhile)

    def _collect(self, helper: _Helper, job_id: int, meanwhile: Callable[[], None] | None, timeout: float) -> Any:
        try:
            if meanwhile is not None and not helper.conn.poll(0):
                meanwhile()
        finally:  # the reply is read whatever happens meanwhile: never left for the next job
            result = self._reply(helper, job_id, timeout)
        return result

    def _reply(self, helper: _Helper, job_id: int, timeout: float) -> Any:
        try:
            if not helper.conn.poll(timeout):
                raise TimeoutError
            answered, status, result = helper.conn.recv()
            if answered != job_id:  # defence in depth: a reply is never taken for another job's
                raise ValueError("a reply to another job")
        except (OSError, EOFError, TimeoutError, ValueError) as error:
            self._retire(helper, type(error).__name__)
            return None
        self._idle.put(helper)
        # An exception there is raised here again when the caller does the work itself.
        return result if status == "ok" else None

    def _retire(self, helper: _Helper, reason: str | None) -> None:
        with self._lock:
            if helper not in self._helpers:
                return
            self._helpers.remove(helper)
        if reason is not None:
            log.warning("a detection helper stopped (%s): its work now runs in the request's thread", reason)
        helper.conn.close()
        helper.process.join(timeout=0.5)
        if helper.process.is_alive():
            helper.process.kill()
            helper.process.join(timeout=5)


def _nothing() -> None:
    return None


# What a helper does: detection's names half, candidate fakes and restorers (pure functions).
_JOBS: dict[str, Callable[..., object]] = {"names": detect_names_and_orgs, "fakes": prefetch_candidates,
                                           "restorers": built_restorers}


def _serve(conn: Connection, inherited: list[Connection]) -> None:
    """A helper's loop: (id, job, arguments) in, (id, "ok", result) or (id, "error", type) out,
    until the server's end closes."""
    for other in inherited:  # the server's ends, copied by the fork: only the server holds them
        other.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server, which closes our pipe
    while True:
        try:
            job_id, job, args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            reply: tuple[int, str, object] = (job_id, "ok", _JOBS[job](*args))
        except Exception as error:  # the caller does the work again and raises it there
            reply = (job_id, "error", type(error).__name__)
        conn.send(reply)
