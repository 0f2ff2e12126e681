"""Session vaults in a real Redis (started by the tests on loopback): what reaches Redis is sealed
(no real value, no session id), a vault opens only under its own session and key, its expiry is
the idle timeout, two workers' concurrent updates of one session both land, and every store fault
refuses the request before anything goes upstream; the proxy recovers when Redis returns."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from redis_server import RedisServer
from test_proxy_upstream import RunningProxy, ScriptedUpstream

from openmasq.proxy.app import SESSION_HEADER
from openmasq.proxy.vaultstore import Loaded, RedisVaultStore, VaultKeys, redis_key
from openmasq.redact import Vault
from openmasq.testing import in_fresh_loop

KEYS = VaultKeys.parse("k1 " + "11" * 32)
OTHER_KEYS = VaultKeys.parse("k9 " + "99" * 32)
REALS = ("Marie Dupont", "marie.dupont@karl-studio.fr", "+33 6 12 34 56 78")
FIRST = "Bonjour, je suis Marie Dupont (marie.dupont@karl-studio.fr, +33 6 12 34 56 78)."
SECOND = "Écrivez aussi à jean.martin@brightwave.co.uk, notre conseiller."


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    with RedisServer() as server:
        yield server


@pytest.fixture
def upstream() -> Iterator[ScriptedUpstream]:
    with ScriptedUpstream() as up:
        yield up


def worker(upstream: ScriptedUpstream, server: RedisServer, keys: VaultKeys = KEYS, **config: Any) -> RunningProxy:
    return RunningProxy(upstream.base_url, vault_store=server.url, vault_keys=keys, **config)


def chat(proxy: RunningProxy, text: str, session: str | None = "conv-1",
         history: list[dict[str, str]] | None = None) -> httpx.Response:
    headers = {SESSION_HEADER: session} if session else {}
    messages = [*(history or []), {"role": "user", "content": text}]
    return httpx.post(f"{proxy.base_url}/chat/completions", json={"model": "m", "messages": messages},
                      headers=headers, timeout=60)


def reply_text(response: httpx.Response) -> str:
    assert response.status_code == 200, response.text
    return str(response.json()["choices"][0]["message"]["content"])


def test_a_conversation_served_by_two_workers_keeps_its_fakes_and_redis_holds_no_real_value(upstream, redis_server):
    with worker(upstream, redis_server) as a, worker(upstream, redis_server) as b:
        assert reply_text(chat(a, FIRST)) == "Reçu : " + FIRST
        history = [{"role": "user", "content": FIRST}, {"role": "assistant", "content": "Reçu : " + FIRST}]
        assert reply_text(chat(b, SECOND, history=history)) == "Reçu : " + SECOND
    first_fake = upstream.received[0].json()["messages"][0]["content"]
    assert upstream.received[1].json()["messages"][0]["content"] == first_fake  # worker b: the same fakes
    wire = upstream.wire_text()
    assert not [real for real in (*REALS, "jean.martin@brightwave.co.uk") if real in wire]
    dump = redis_server.dump()
    assert redis_key("conv-1").encode() in dump
    assert b"conv-1" not in dump
    for real in (*REALS, "jean.martin", "karl-studio", "brightwave", "Dupont"):
        assert real.encode() not in dump, real


def test_the_vault_expires_after_the_idle_timeout(upstream, redis_server):
    with worker(upstream, redis_server, idle=120.0) as a:
        reply_text(chat(a, FIRST, session="ttl-conv"))
    ttl_ms = redis_server.client().pttl(redis_key("ttl-conv"))
    assert 0 < ttl_ms <= 120_000


def test_a_vault_copied_under_another_session_or_read_with_another_key_is_refused(upstream, redis_server):
    client = redis_server.client()
    with worker(upstream, redis_server) as a:
        reply_text(chat(a, FIRST, session="owner"))
        client.copy(redis_key("owner"), redis_key("thief"), replace=True)
        sent = len(upstream.received)
        stolen = chat(a, "Qui suis-je ?", session="thief")
    with worker(upstream, redis_server, keys=OTHER_KEYS) as other:
        wrong_key = chat(other, "Rappelle-moi mon adresse.", session="owner")
    for response in (stolen, wrong_key):
        assert response.status_code == 503
        assert response.json()["error"]["type"] == "vault_store_error"
        assert "cannot be opened" in response.json()["error"]["message"]
    assert len(upstream.received) == sent  # nothing went upstream


def test_keys_rotate_a_vault_sealed_with_the_old_key_still_opens():
    rotated = VaultKeys.parse("k2 " + "22" * 32 + "\nk1 " + "11" * 32)
    vault = Vault.new()
    vault.record("Yvonne Peron", "Marie Dupont", "person")
    blob = KEYS.seal("s", vault)
    assert rotated.open("s", blob).entries == vault.entries
    assert rotated.seal("s", vault)[2:4] == b"k2"  # new vaults are sealed with the first key


class RacingStore(RedisVaultStore):
    """A real Redis store whose first load lets `meanwhile` run before returning: another worker
    stores the same session in between, as two workers racing would."""

    def __init__(self, *args: Any, meanwhile: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.meanwhile = meanwhile
        self.loads = 0

    async def load(self, session_id: str) -> Loaded:
        loaded = await super().load(session_id)
        self.loads += 1
        if self.loads == 1:
            await asyncio.to_thread(self.meanwhile)
        return loaded


def test_two_workers_updating_one_session_at_once_both_land_in_the_vault(upstream, redis_server):
    with worker(upstream, redis_server) as a, worker(upstream, redis_server) as b:
        reply_text(chat(a, FIRST, session="race"))  # the session exists: version 1
        racing = RacingStore(redis_server.url, KEYS, idle=3600.0,
                             meanwhile=lambda: reply_text(chat(b, SECOND, session="race")))
        a.proxy.store = racing
        third = "Et copiez sophie.leroy@exemple.org."
        assert reply_text(chat(a, third, session="race")) == "Reçu : " + third
        assert racing.loads == 2  # its first redaction clashed with b's and was done again
        stored = in_fresh_loop(_load(redis_server, "race"))
    reals = set(stored.vault.entries.values()) if stored.vault else set()
    assert {"marie.dupont@karl-studio.fr", "jean.martin@brightwave.co.uk", "sophie.leroy@exemple.org"} <= reals
    assert stored.version == 3
    assert "sophie.leroy" not in upstream.wire_text()


async def _load(server: RedisServer, session: str) -> Loaded:
    store = RedisVaultStore(server.url, KEYS, idle=3600.0)
    try:
        return await store.load(session)
    finally:
        await store.close()


def test_redis_down_refuses_session_requests_without_sending_anything_and_recovers_when_it_returns(upstream):
    with RedisServer() as server, worker(upstream, server) as a:
        reply_text(chat(a, FIRST, session="outage"))
        fake = upstream.received[0].json()["messages"][0]["content"]
        server.stop(save=True)
        sent = len(upstream.received)
        refused = chat(a, FIRST, session="outage")
        assert refused.status_code == 503
        assert refused.json()["error"]["type"] == "vault_store_error"
        assert "unavailable" in refused.json()["error"]["message"]
        health = httpx.get(a.base_url.removesuffix("/v1") + "/health", timeout=10)
        assert health.status_code == 503
        assert len(upstream.received) == sent
        rdb = (server.dir / "dump.rdb").read_bytes()
        assert not [real for real in REALS if real.encode() in rdb]
        server.start()  # the same port and folder: the saved vaults come back
        assert reply_text(chat(a, FIRST, session="outage")) == "Reçu : " + FIRST
        assert upstream.received[-1].json()["messages"][0]["content"] == fake
        metrics = httpx.get(a.base_url.removesuffix("/v1") + "/metrics", timeout=10).text
    assert 'openmasq_refusals_total{worker="0",reason="vault_unavailable"} 1' in metrics
    assert 'openmasq_requests_total{worker="0",api="openai",status="200"} 2' in metrics
    assert not [real for real in (*REALS, "outage", "Dupont") if real in metrics]


def test_the_vault_blob_binds_its_session_id():
    vault = Vault.new()
    vault.record("Yvonne Peron", "Marie Dupont", "person")
    blob = KEYS.seal("alice", vault)
    assert b"Marie" not in blob
    assert json.dumps(KEYS.open("alice", blob).to_json()) == json.dumps(vault.to_json())
    with pytest.raises(Exception, match="cannot be opened"):
        KEYS.open("bob", blob)
