"""A child process's readiness read from its own output: the line it prints once it serves (redis-server's
"Ready to accept connections", uvicorn's "Uvicorn running on"), not a poll with sleeps. The rest of the
output is drained as it comes (a child blocked on a full pipe would hang the test) and kept for errors."""

from __future__ import annotations

import subprocess
import threading


class ChildOutput:
    """Reads `process.stdout` line by line on a thread; `wait_for(marker)` returns once a line holds it."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        if process.stdout is None:
            raise ValueError("the child's stdout must be a pipe (stdout=subprocess.PIPE)")
        self.process = process
        self.lines: list[str] = []
        self.ended = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(process.stdout,), daemon=True)
        self._thread.start()

    def _read(self, stream: object) -> None:
        for raw in iter(stream.readline, b""):  # type: ignore[attr-defined]
            with self._changed:
                self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self.ended = True
            self._changed.notify_all()

    def _holds(self, marker: str, count: int) -> bool:
        return sum(marker in line for line in self.lines) >= count

    def wait_for(self, marker: str, timeout_s: float = 60, count: int = 1) -> None:
        """Returns when `count` lines hold `marker`; raises with the output if the child ends first.
        `timeout_s` bounds a child that hangs: it fails the test, it does not pace it."""
        with self._changed:
            self._changed.wait_for(lambda: self._holds(marker, count) or self.ended, timeout=timeout_s)
            if self._holds(marker, count):
                return
            state = "exited" if self.ended else f"printed no {marker!r} in {timeout_s:.0f} s"
            raise RuntimeError(f"the child process {state}: " + " | ".join(self.lines[-20:]))
