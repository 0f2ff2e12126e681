"""A real redis-server (Debian's, installed by scripts/lib.sh ensure_redis) for the proxy's shared-vault
tests: started on 127.0.0.1 on a free port with its data in a temporary folder, stopped (saving its
data, so a restart on the same folder finds the vaults again, as a persistent deployment would) and
started again on demand."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import redis
from child_output import ChildOutput

REDIS_SERVER = "redis-server"
READY = "Ready to accept connections"  # what redis-server logs once it accepts clients


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RedisServer:
    def __init__(self) -> None:
        if shutil.which(REDIS_SERVER) is None:
            raise RuntimeError("redis-server is not installed: scripts/lib.sh ensure_redis installs Debian's")
        self.port = free_port()
        self._dir = tempfile.TemporaryDirectory(prefix="openmasq-redis-")
        self.dir = Path(self._dir.name)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5)

    def start(self) -> None:
        # Snapshots only when asked (SHUTDOWN SAVE below): the tests decide when data is kept.
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.dir), "--save", "",
             "--appendonly", "no", "--protected-mode", "yes", "--daemonize", "no", "--logfile", ""],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # --logfile "": its log on stdout
        ChildOutput(self.process).wait_for(READY, timeout_s=20)

    def stop(self, *, save: bool = True) -> None:
        """SHUTDOWN [SAVE|NOSAVE] and wait for the process to exit."""
        if self.process is None:
            return
        with contextlib.suppress(redis.exceptions.ConnectionError):  # the server closes it as it stops
            self.client().shutdown(save=save, nosave=not save)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=20)
        self.process = None

    def dump(self) -> bytes:
        """Everything Redis holds, as bytes: every key's name and every field and value of it."""
        client = self.client()
        out = []
        for key in client.scan_iter(count=1000):
            out.append(key)
            kind = client.type(key)
            if kind == b"hash":
                for field, value in client.hgetall(key).items():
                    out += [field, value]
            elif kind == b"string":
                out.append(client.get(key) or b"")
        return b"\n".join(out)

    def __enter__(self) -> RedisServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=20)
            self.process = None
        self._dir.cleanup()
