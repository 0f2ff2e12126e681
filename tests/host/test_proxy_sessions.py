"""Vaults per conversation: a session header keeps one vault across requests (evicted after an
hour of silence, on an injected clock), no header means one vault per request, concurrent
requests of one session never lose an entry, 100 concurrent sessions never mix, and a session's
restorers are built again only when its vault changed."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from test_proxy import EMAIL, assert_only_fakes_went_upstream, chat, fake_name, openai_body, stream, text_of
from test_proxy_upstream import Reply, RunningProxy, ScriptedUpstream, last_user_text, openai_completion

from openmasq.proxy import masking
from openmasq.proxy.sessions import IDLE_SECONDS, TRIM_EVERY, SessionError, SessionStore
from openmasq.redact import RedactOptions, SpanCache, Vault
from openmasq.redact.pseudonymise import detect_spans
from openmasq.testing import in_fresh_loop

FIRSTS = ["Marie", "Jean", "Claire", "Paul", "Sophie", "Luc", "Camille", "Louis", "Julie", "Thomas"]
LASTS = ["Dupont", "Martin", "Bernard", "Durand", "Lefebvre", "Moreau", "Laurent", "Simon", "Michel", "Garcia"]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def upstream() -> Iterator[ScriptedUpstream]:
    with ScriptedUpstream() as up:
        yield up


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def proxy(upstream: ScriptedUpstream, clock: Clock) -> Iterator[RunningProxy]:
    with RunningProxy(upstream.base_url, clock=clock) as running:
        yield running


def session(name: str) -> dict[str, str]:
    return {"X-OpenMasq-Session": name}


def replying(text: str) -> Reply:
    return openai_completion(text)


# --- one conversation ---------------------------------------------------------------------------


def test_a_session_keeps_its_fakes_and_restores_them_in_later_replies(proxy, upstream):
    chat(proxy, openai_body(), **session("conv-1"))
    fake = fake_name(upstream.received[0])
    chat(proxy, openai_body({"role": "user", "content": "Il faut rappeler Marie Dupont."}), **session("conv-1"))
    assert fake in upstream.received[1].json()["messages"][0]["content"]  # the same fake, request after request
    # A later reply naming the fake, to a message without any personal data, is still restored.
    upstream.script = lambda r: replying(f"{fake} a confirmé.")
    reply = chat(proxy, openai_body({"role": "user", "content": "Des nouvelles ?"}), **session("conv-1"))
    assert reply.json()["choices"][0]["message"]["content"] == "Marie Dupont a confirmé."


def test_without_a_session_header_each_request_has_its_own_vault(proxy, upstream):
    chat(proxy, openai_body())
    fake = fake_name(upstream.received[0])
    upstream.script = lambda r: replying(f"{fake} a confirmé.")
    reply = chat(proxy, openai_body({"role": "user", "content": "Des nouvelles ?"}))
    assert reply.json()["choices"][0]["message"]["content"] == f"{fake} a confirmé."
    assert len(proxy.proxy.sessions) == 0


def test_a_session_detects_a_re_sent_history_once_and_masks_it_as_before(proxy, upstream, clock):
    first = {"role": "user", "content": "Écris à Marie Dupont (marie.dupont@karl-studio.fr) de Karl Studio SAS."}
    chat(proxy, openai_body(first), **session("conv"))
    masked_first = upstream.received[0].json()["messages"][0]["content"]
    cache = proxy.proxy.sessions.get("conv").spans
    assert len(cache) == 1
    reply = {"role": "assistant", "content": "C'est fait pour Marie Dupont."}
    chat(proxy, openai_body(first, reply, {"role": "user", "content": "Merci, et rappelle Jean Martin."}),
         **session("conv"))
    assert upstream.received[1].json()["messages"][0]["content"] == masked_first  # from the cache, same fakes
    assert len(cache) == 3  # the re-sent turn was not stored again
    clock.now += IDLE_SECONDS + 1
    chat(proxy, openai_body({"role": "user", "content": "Bonjour"}), **session("other"))
    assert "conv" not in proxy.proxy.sessions  # its detections went with it
    assert len(proxy.proxy.sessions.get("conv").spans) == 0


def test_requests_without_a_session_share_their_detections_but_keep_no_vault(proxy, upstream):
    first = {"role": "user", "content": "Écris à Marie Dupont (marie.dupont@karl-studio.fr) de Karl Studio SAS."}
    chat(proxy, openai_body(first))
    shared = proxy.proxy.sessions.shared_spans
    assert len(shared) == 1
    reply = {"role": "assistant", "content": "C'est fait pour Marie Dupont."}
    chat(proxy, openai_body(first, reply, {"role": "user", "content": "Merci, et rappelle Jean Martin."}))
    assert len(shared) == 3  # the re-sent first turn was detected once
    assert len(proxy.proxy.sessions) == 0  # and no vault was kept
    assert_only_fakes_went_upstream(upstream, ("Marie Dupont", "marie.dupont@karl-studio.fr", "Karl Studio",
                                               "Jean Martin"))


def test_a_session_is_evicted_after_an_hour_of_silence_and_not_before(proxy, upstream, clock):
    chat(proxy, openai_body(), **session("old"))
    clock.now += IDLE_SECONDS - 1
    chat(proxy, openai_body({"role": "user", "content": "Bonjour"}), **session("other"))
    assert "old" in proxy.proxy.sessions
    clock.now += IDLE_SECONDS - 1  # "old" silent for 2 h - 2 s, "other" for 1 h - 1 s
    chat(proxy, openai_body({"role": "user", "content": "Bonjour"}), **session("third"))
    assert "old" not in proxy.proxy.sessions
    assert "other" in proxy.proxy.sessions


def test_an_evicted_session_starts_a_new_vault(proxy, upstream, clock):
    chat(proxy, openai_body(), **session("conv"))
    fake = fake_name(upstream.received[0])
    clock.now += IDLE_SECONDS + 1
    upstream.script = lambda r: replying(f"{fake} a confirmé.")
    reply = chat(proxy, openai_body({"role": "user", "content": "Des nouvelles ?"}), **session("conv"))
    assert reply.json()["choices"][0]["message"]["content"] == f"{fake} a confirmé."


def test_an_unusable_session_header_is_refused(proxy, upstream):
    response = chat(proxy, openai_body(), **session("x" * 500))
    assert response.status_code == 400
    assert upstream.received == []


# --- the store itself ---------------------------------------------------------------------------


def test_the_store_evicts_the_least_recently_used_session_when_full():
    clock = Clock()
    store = SessionStore(clock=clock, max_sessions=3)
    for name in ("a", "b", "c"):
        store.get(name)
        clock.now += 1
    store.get("a")  # a is now the most recent
    store.get("d")
    assert ("a" in store, "b" in store, "c" in store, "d" in store) == (True, False, True, True)


def test_the_store_keeps_a_session_whose_redaction_is_running():
    async def scenario() -> bool:
        clock = Clock()
        store = SessionStore(clock=clock)
        busy = store.get("busy")
        async with busy.lock:
            clock.now += IDLE_SECONDS * 2
            store.get("other")
            return "busy" in store

    assert in_fresh_loop(scenario())


def test_the_store_hands_out_one_vault_holder_per_id_and_none_is_kept_without_id():
    store = SessionStore()
    assert store.get("a") is store.get("a")
    assert store.get(None) is not store.get(None)
    assert len(store) == 1


def test_past_the_global_budget_the_least_recently_used_sessions_lose_their_detection_cache_not_their_vault():
    clock = Clock()
    store = SessionStore(clock=clock, max_cached_chars=2_500)
    text = "Écris à Marie Dupont, marie.dupont@example.fr, au sujet du contrat. " * 15  # ~1,000 chars
    vaults = {}
    for name in ("old", "mid", "new"):
        session = store.get(name)
        session.spans.spans(text + name, RedactOptions())
        vaults[name] = session.vault
        clock.now += 1
    assert store.cached_chars() > 2_500
    store.trim_detection_caches()
    caches = {name: len(store.get(name).spans) for name in ("old", "mid", "new")}
    assert caches == {"old": 0, "mid": 1, "new": 1}
    assert store.cached_chars() <= 2_500
    assert all(store.get(name).vault is vaults[name] for name in vaults)


def test_the_store_trims_the_detection_caches_by_itself_as_requests_come():
    store = SessionStore(max_cached_chars=0)
    store.get("a").spans.spans("Marie Dupont viendra demain.", RedactOptions())
    for _ in range(TRIM_EVERY):
        store.get("b")
    assert store.cached_chars() == 0


@pytest.mark.parametrize("bad", ["", "x" * 201, "tab\there"])
def test_the_store_refuses_unusable_ids(bad):
    with pytest.raises(SessionError):
        SessionStore().get(bad)


# --- concurrency --------------------------------------------------------------------------------


def person(i: int) -> tuple[str, str]:
    first, last = FIRSTS[i // 10], LASTS[i % 10]
    return f"{first} {last}", f"{first.lower()}.{last.lower()}.{i}@exemple-{i}.fr"


async def post_all(url: str, requests: list[tuple[dict[str, str], dict[str, object]]]) -> list[httpx.Response]:
    limits = httpx.Limits(max_connections=100)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        return await asyncio.gather(*(client.post(url, json=body, headers=headers) for headers, body in requests))


def test_100_concurrent_sessions_never_mix_their_vaults(proxy, upstream):
    texts = [f"Écris à {name} ({email}) demain." for name, email in map(person, range(100))]
    # X-Test-Owner passes through to the upstream: it tells which session a body came from.
    requests = [({**session(f"s{i}"), "X-Test-Owner": str(i)}, openai_body({"role": "user", "content": text}))
                for i, text in enumerate(texts)]
    responses = in_fresh_loop(post_all(f"{proxy.base_url}/chat/completions", requests))
    for i, response in enumerate(responses):
        assert response.json()["choices"][0]["message"]["content"] == f"Reçu : {texts[i]}"
    assert len(proxy.proxy.sessions) == 100
    assert len(upstream.received) == 100
    for received in upstream.received:
        owner = int(received.headers["x-test-owner"])
        wire = received.text().lower()
        vault = proxy.proxy.sessions.get(f"s{owner}").vault
        fakes = {sub.lower() for sub in vault.entries}
        for i in range(100):
            for real in person(i):
                # Whole words only: "Thomas Martin" (real in one session) is not leaked by the
                # fake "Thomas Martineau" of another. And another session's real name may come
                # out of this one's name pools as a fake (about 1 in 2,000 draws): then it is in
                # this session's vault as a substitute.
                sent = re.search(rf"(?<!\w){re.escape(real.lower())}(?!\w)", wire) is not None
                assert not sent or (i != owner and real.lower() in fakes), (
                    f"session {owner} sent {real!r}, real in session {i}")

    # Session s0's fake, answered to session s1, stays a fake: s1's vault does not know it.
    by_owner = {int(r.headers["x-test-owner"]): r for r in upstream.received}
    match = EMAIL.search(last_user_text(by_owner[0]))
    assert match is not None
    upstream.script = lambda r: replying(f"Voir {match.group()}.")
    reply = chat(proxy, openai_body({"role": "user", "content": "Et alors ?"}), **session("s1"))
    assert reply.json()["choices"][0]["message"]["content"] == f"Voir {match.group()}."
    # ...while s0 itself gets its real address back.
    reply = chat(proxy, openai_body({"role": "user", "content": "Et alors ?"}), **session("s0"))
    assert reply.json()["choices"][0]["message"]["content"] == f"Voir {person(0)[1]}."


def test_concurrent_requests_of_one_session_never_lose_a_vault_entry(proxy, upstream):
    emails = [person(i)[1] for i in range(20)]
    requests = [(session("shared"), openai_body({"role": "user", "content": f"Écris à {e}."})) for e in emails]
    responses = in_fresh_loop(post_all(f"{proxy.base_url}/chat/completions", requests))
    assert all(r.status_code == 200 for r in responses)
    seen = {m.group() for r in upstream.received for m in EMAIL.finditer(r.text())}
    assert len(seen) == 20
    # Every fake the upstream saw is still in the session's vault: a reply naming all of them
    # comes back with all twenty real addresses.
    upstream.script = lambda r: replying(" ".join(sorted(seen)))
    reply = chat(proxy, openai_body({"role": "user", "content": "Liste."}), **session("shared"))
    restored = reply.json()["choices"][0]["message"]["content"].split(" ")
    assert sorted(restored) == sorted(emails)


# --- restorers kept per vault state ----------------------------------------------------------------


class CountingRestorer(masking.Restorer):
    built = 0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        type(self).built += 1
        super().__init__(*args, **kwargs)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> type[CountingRestorer]:
    CountingRestorer.built = 0
    monkeypatch.setattr(masking, "Restorer", CountingRestorer)
    return CountingRestorer


@pytest.mark.parametrize("streamed", [False, True])
def test_a_session_builds_its_restorers_again_only_when_a_request_added_values(proxy, upstream, counted, streamed):
    def send(text: str) -> str:
        body = openai_body({"role": "user", "content": text})
        if not streamed:
            return str(chat(proxy, body, **session("kept")).json()["choices"][0]["message"]["content"])
        return text_of(stream(proxy, body, **session("kept")))

    assert send("Écris à Marie Dupont.") == "Reçu : Écris à Marie Dupont."
    first = counted.built
    assert first >= 1
    assert send("Écris à Marie Dupont.") == "Reçu : Écris à Marie Dupont."  # nothing new: reused
    assert counted.built == first
    assert send(f"Et à {EMAIL_OF_JEAN}.") == f"Reçu : Et à {EMAIL_OF_JEAN}."  # a new value: rebuilt
    assert counted.built > first


EMAIL_OF_JEAN = "jean.martin@vexalis.fr"


def test_restorers_serve_a_vault_only_with_the_same_substitutes_and_kinds():
    vault = Vault.new()
    vault.record("Claire Lefèvre", "Marie Dupont", "person")
    restorers = masking.Restorers(vault)
    assert restorers.serves(vault.copy())
    grown = vault.copy()
    grown.record("Lefèvre", "Dupont", "person", alias=True)
    assert not restorers.serves(grown)
    rekinded = vault.copy()
    rekinded.kinds["Claire Lefèvre"] = "org"
    assert not restorers.serves(rekinded)
    assert restorers.text().restore("Voir Claire Lefèvre.") == "Voir Marie Dupont."


def test_a_span_cache_shared_by_threads_gives_each_its_spans_and_stores_each_text_once():
    texts = [f"Écris à Marie Dupont, dossier {n}, tél. 06 12 34 56 {n:02d}." for n in range(12)]
    cache = SpanCache()
    got: dict[int, list] = {}

    def detect(i: int) -> None:
        got[i] = cache.spans(texts[i % len(texts)], RedactOptions())

    threads = [threading.Thread(target=detect, args=(i,)) for i in range(48)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(cache) == len(texts)
    assert cache.chars == sum(len(t) for t in texts)
    assert all(got[i] == detect_spans(texts[i % len(texts)], RedactOptions()) for i in range(48))
