"""A CouchDB-protocol server on loopback for the sync tests (sync-server/server.mjs: express-pouchdb
in memory), provisioned the way a CouchDB operator does it: one user and one database per person,
the database's members set to that user (docs/sync.md, "Running CouchDB for many users")."""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[3]
SERVER_DIR = REPO / "sync-server"
ADMIN = ("admin", "admin-password")


class SyncServerError(RuntimeError):
    """The server could not be started or provisioned."""


@dataclass
class SyncServer:
    url: str  # http://127.0.0.1:PORT
    process: subprocess.Popen[str]

    def _admin(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, auth=ADMIN, timeout=30)

    def add_user(self, name: str, password: str) -> str:
        """A user and its own database `openmasq-<name>`, readable and writable by it alone;
        returns the database's URL."""
        db = f"openmasq-{name}"
        with self._admin() as admin:
            steps = [
                admin.put(f"/_users/org.couchdb.user:{name}",
                          json={"name": name, "password": password, "roles": [], "type": "user"}),
                admin.put(f"/{db}"),
                admin.put(f"/{db}/_security", json={"admins": {"names": [], "roles": []},
                                                    "members": {"names": [name], "roles": []}}),
            ]
        for response in steps:
            if response.status_code >= 300:
                raise SyncServerError(f"provisioning {db}: {response.status_code} {response.text}")
        return f"{self.url}/{db}"

    def documents(self, db: str) -> list[dict[str, Any]]:
        """Every document the server stores in `db` (as the operator sees them), with every
        revision's body kept (`_conflicts` leaves included)."""
        with self._admin() as admin:
            rows = admin.get(f"/{db}/_all_docs", params={"include_docs": "true", "conflicts": "true"}).json()["rows"]
            docs = [row["doc"] for row in rows]
            for doc in list(docs):
                for rev in doc.get("_conflicts", []):
                    docs.append(admin.get(f"/{db}/{doc['_id']}", params={"rev": rev}).json())
        return docs

    def raw_dump(self, db: str) -> str:
        """What the server holds for `db`, as one text: every document and the changes feed."""
        with self._admin() as admin:
            changes = admin.get(f"/{db}/_changes", params={"include_docs": "true", "style": "all_docs"}).text
        return "\n".join([changes, *(str(d) for d in self.documents(db))])


@contextmanager
def running_sync_server(origins: tuple[str, ...] = ()) -> Iterator[SyncServer]:
    """Start the server on a free loopback port (the port is the kernel's: `--port 0`), wait for its
    `listening` line, stop it after."""
    node = shutil.which("node")
    if node is None or not (SERVER_DIR / "node_modules" / "express-pouchdb").is_dir():
        raise SyncServerError("node or sync-server/node_modules is missing (scripts/lib.sh ensure_sync_server)")
    args = [node, str(SERVER_DIR / "server.mjs"), "--port", "0", "--admin", ":".join(ADMIN)]
    for origin in origins:
        args += ["--origin", origin]
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        if not line.startswith("listening "):
            why = process.stderr.read() if process.stderr else ""
            raise SyncServerError(f"sync server did not start: {line} {why}")
        threading.Thread(target=process.stdout.read, daemon=True).start()  # keep its pipe drained
        yield SyncServer(line.split(" ", 1)[1], process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
