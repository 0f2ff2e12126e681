"""The CouchDB-protocol server the sync tests start (sync-server/server.mjs) behaves as CouchDB does
for one database per user: its member reads and writes, a wrong password and another user are
refused, nobody anonymous gets in."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from openmasq.testing.syncserver import SyncServer, running_sync_server


@pytest.fixture
def server() -> Iterator[SyncServer]:
    with running_sync_server() as running:
        yield running


def test_a_users_database_is_open_to_that_user_only_and_refuses_a_wrong_password(server: SyncServer) -> None:
    alice = server.add_user("alice", "alice-pw")
    server.add_user("bob", "bob-pw")
    written = httpx.put(f"{alice}/doc1", json={"v": 1, "c": "AAAA"}, auth=("alice", "alice-pw"))
    assert written.status_code == 201
    assert httpx.get(f"{alice}/doc1", auth=("alice", "alice-pw")).json()["c"] == "AAAA"
    assert httpx.get(f"{alice}/doc1", auth=("alice", "wrong")).status_code == 401
    assert httpx.get(f"{alice}/doc1", auth=("bob", "bob-pw")).status_code in (401, 403)
    assert httpx.get(f"{alice}/doc1").status_code in (401, 403)
    assert [d["_id"] for d in server.documents("openmasq-alice")] == ["doc1"]
