"""`openmasq proxy --workers N` (CPython shell, POSIX): one listening socket, N forked worker
processes serving it, each a whole proxy (its own event loop, HTTP client and Redis connection;
the engine loaded once, before the forks, and shared copy-on-write). Any worker serves any request
of a session because the vaults live in the shared store (Redis), not in a worker.

The supervisor only forks, waits and signals: a worker that dies (killed, crashed) is forked
again with the same index, so a killed worker loses the requests it was serving and nothing else.
SIGTERM or Ctrl-C is passed to every worker, which stops accepting, lets its requests finish for
the configured shutdown timeout and exits; a worker still alive a few seconds after that bound is
killed."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

log = logging.getLogger("openmasq.proxy")

KILL_GRACE = 5  # seconds past the workers' own shutdown bound before they are killed
# A worker that dies this many times without serving is not forked again (a broken setup, not a crash).
MAX_QUICK_DEATHS = 5


@dataclass
class Supervisor:
    count: int
    run_worker: Callable[[int, socket.socket], None]  # in the child: serve until told to stop
    sock: socket.socket
    shutdown_timeout: int
    children: dict[int, int] = field(default_factory=dict)  # pid -> worker index
    stopping: bool = False
    deaths: int = 0

    def run(self) -> int:
        if threading.active_count() > 1:  # forking a process with threads is unsafe
            log.warning("the proxy forks its workers with %d threads running", threading.active_count())
        previous = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        signal.signal(signal.SIGALRM, self._kill_all)
        try:
            for index in range(self.count):
                self._fork(index)
            return self._wait()
        finally:
            signal.alarm(0)
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _fork(self, index: int) -> None:
        pid = os.fork()
        if pid == 0:  # the worker
            code = 0
            try:
                for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM):
                    signal.signal(sig, signal.SIG_DFL)  # uvicorn installs its own
                self.run_worker(index, self.sock)
            except BaseException as error:  # a worker reports and exits: it never returns into the supervisor
                log.error("worker %d stopped: %s", index, type(error).__name__)
                code = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        self.children[pid] = index
        log.info("worker %d started (pid %d)", index, pid)

    def _wait(self) -> int:
        while self.children:
            try:
                pid, status = os.wait()
            except ChildProcessError:
                break
            index = self.children.pop(pid, None)
            if index is None:
                continue
            if self.stopping:
                continue
            self.deaths += 1
            log.warning("worker %d (pid %d) died (%s); starting it again", index, pid, _how(status))
            if self.deaths > MAX_QUICK_DEATHS * self.count:
                log.error("workers keep dying: stopping")
                self._stop(signal.SIGTERM, None)
                continue
            self._fork(index)
        return 0

    def _stop(self, signum: int, frame: object) -> None:
        if self.stopping:
            return
        self.stopping = True
        for pid in list(self.children):
            _signal(pid, signal.SIGTERM)
        signal.alarm(self.shutdown_timeout + KILL_GRACE)

    def _kill_all(self, signum: int, frame: object) -> None:
        for pid in list(self.children):
            _signal(pid, signal.SIGKILL)


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def _how(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def listening_socket(host: str, port: int) -> socket.socket:
    """The socket every worker accepts on, bound before the forks."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock
