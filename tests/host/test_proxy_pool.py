"""The proxy's detection pool: half of each text's detection in a forked helper gives exactly
the spans of a detection in one piece, fakes computed ahead there give exactly the substitutes
of a pass alone, restorers built there restore as those built here, and a helper that fails
or dies costs speed, never a detection nor a restored value."""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import random
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from test_proxy_upstream import Received, RunningProxy, ScriptedUpstream, last_user_text, openai_completion

from openmasq.chat.codecs import TextDelta, openai
from openmasq.proxy import pool as pool_module
from openmasq.proxy.masking import built_restorers
from openmasq.proxy.pool import MIN_OFFLOAD_CHARS, DetectionPool
from openmasq.redact import RedactOptions, Restorer, Span, Vault, pseudonymise
from openmasq.redact.detect import detect_names_and_orgs
from openmasq.redact.evaluate import joined_messages, parse_jsonl
from openmasq.redact.pseudonymise import detect_spans

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"
LONG = ("Bonjour, je transmets le dossier de Marie Dupont (marie.dupont@karl-studio.fr, 06 12 34 56 78) à "
        "Karl Studio SAS et à Brightwave Ltd. Jean-Pierre Morvan signera pour la société Verlac Conseil ; "
        "M. Lefèvre relira le contrat avec Maître Anne Koval. ") * 4


def corpus_texts(count: int) -> list[str]:
    texts = [r.text for lang in ("fr", "en") for r in parse_jsonl((CORPUS / f"{lang}.jsonl").read_text("utf-8"))]
    rng = random.Random(5)
    return [joined_messages(texts, rng, 2048) for _ in range(count)]


@pytest.fixture
def pool() -> Iterator[DetectionPool]:
    made = DetectionPool(1)
    try:
        yield made
    finally:
        made.close()


def spans_alike(a: list[Span], b: list[Span]) -> bool:
    return [s.to_json() for s in a] == [s.to_json() for s in b]


def test_the_pool_finds_exactly_the_spans_of_a_detection_in_one_piece(pool):
    texts = [*corpus_texts(60), LONG, LONG.replace("Dupont", "Du\u200bpont"), LONG[:MIN_OFFLOAD_CHARS - 1]]
    for options in (RedactOptions(), RedactOptions(known_names=("Marie Dupont",)), RedactOptions(level="strict"),
                    RedactOptions(categories=(("name", False), ("company", False), ("username", False)))):
        for text in texts:
            assert spans_alike(pool.detect_spans(text, options), detect_spans(text, options))
    assert pool.workers == 1


def test_a_long_text_is_half_detected_by_the_helper(pool, monkeypatch):
    here: list[str] = []
    original = pool_module.detect_spans

    def watched(text, options, *, offload=None):
        here.append("offload" if offload is not None else "here")
        return original(text, options, offload=offload)

    monkeypatch.setattr(pool_module, "detect_spans", watched)
    pool.detect_spans(LONG, RedactOptions())
    pool.detect_spans("Bonjour Marie.", RedactOptions())
    assert here == ["offload", "here"]  # a short text is not worth the round trip


def test_concurrent_texts_share_the_helpers_and_each_gets_its_own_spans(pool):
    texts = corpus_texts(24)
    expected = [detect_spans(text, RedactOptions()) for text in texts]
    got: dict[int, list[Span]] = {}

    def detect(i: int) -> None:
        got[i] = pool.detect_spans(texts[i], RedactOptions())

    threads = [threading.Thread(target=detect, args=(i,)) for i in range(len(texts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(spans_alike(got[i], expected[i]) for i in range(len(texts)))
    assert pool.workers == 1


def test_a_dead_helper_is_retired_and_detection_goes_on_here(pool, caplog):
    expected = detect_spans(LONG, RedactOptions())
    pool._helpers[0].process.kill()
    pool._helpers[0].process.join(timeout=10)
    with caplog.at_level(logging.WARNING, logger="openmasq.proxy"):
        assert spans_alike(pool.detect_spans(LONG, RedactOptions()), expected)
    assert pool.workers == 0
    assert "detection helper stopped" in caplog.text
    assert spans_alike(pool.detect_spans(LONG, RedactOptions()), expected)  # and then without any helper


def test_a_failure_in_the_helper_runs_its_half_here_and_keeps_the_helper(monkeypatch):
    calls = []

    def broken(view, known_names):
        raise MemoryError("the helper's half failed")

    def counted(text, options, *, offload=None):
        calls.append(offload is not None)
        return detect_spans(text, options, offload=offload)

    monkeypatch.setitem(pool_module._JOBS, "names", broken)  # what the forked helper will run
    monkeypatch.setattr(pool_module, "detect_spans", counted)
    failing = DetectionPool(1)
    replies = []
    reply = failing._reply
    monkeypatch.setattr(failing, "_reply",
                        lambda helper, job_id, timeout: replies.append(reply(helper, job_id, timeout)) or replies[-1])
    try:
        assert spans_alike(failing.detect_spans(LONG, RedactOptions()), detect_spans(LONG, RedactOptions()))
        assert calls == [True] and replies == [None]  # sent away, failed there, done here
        assert failing.workers == 1
    finally:
        failing.close()


def test_a_closed_pool_has_no_helper_left_running():
    made = DetectionPool(2)
    processes = [helper.process for helper in made._helpers]
    made.close()
    assert made.workers == 0
    assert all(not process.is_alive() for process in processes)


def test_passes_with_the_pool_give_the_text_and_vault_of_passes_alone(pool):
    texts = [*corpus_texts(40), LONG]
    for options in (RedactOptions(), RedactOptions(mode="token"), RedactOptions(level="strict")):
        helped = Vault.new()
        alone = helped.copy()
        for text in texts:  # one conversation: each pass builds on the vault of the last
            with_pool = pseudonymise(text, helped, options, parallel=pool)
            without = pseudonymise(text, alone, options)
            assert with_pool.text == without.text
            assert with_pool.vault.entries == without.vault.entries
            helped, alone = with_pool.vault, without.vault
    assert pool.workers == 1


def test_a_failure_while_waiting_still_reads_the_helpers_reply_so_the_next_text_gets_its_own(monkeypatch):
    waiting_side_started = multiprocessing.get_context("fork").Event()  # shared with the forked helper

    def slow(view, known_names):
        waiting_side_started.wait(30)  # still at it when the waiting side starts its own work
        return detect_names_and_orgs(view, known_names)

    def failing(view):
        waiting_side_started.set()
        raise RuntimeError("failed while waiting")

    monkeypatch.setitem(pool_module._JOBS, "names", slow)
    slow_pool = DetectionPool(1)
    answered: list[int] = []  # the jobs whose reply was read
    reply = slow_pool._reply
    slow_pool._reply = lambda helper, job_id, timeout: answered.append(job_id) or reply(helper, job_id, timeout)
    try:
        monkeypatch.setattr(pool_module, "prepare_pass", failing)
        with pytest.raises(RuntimeError, match="failed while waiting"):
            slow_pool.detect_spans(LONG, RedactOptions())
        monkeypatch.undo()
        other = " ".join(corpus_texts(6))  # long enough to be sent to the helper too
        assert len(other) >= MIN_OFFLOAD_CHARS
        assert spans_alike(slow_pool.detect_spans(other, RedactOptions()), detect_spans(other, RedactOptions()))
        assert answered == [0, 1]  # the failed text's reply was read, and the next text had the helper
        assert slow_pool.workers == 1
    finally:
        slow_pool.close()


# --- restorers built by a helper --------------------------------------------------------------------


def test_restorers_built_by_a_helper_restore_every_text_as_those_built_here(pool):
    vault = Vault.new()
    texts = [*corpus_texts(12), LONG]
    for text in texts:
        vault = pseudonymise(text, vault, RedactOptions()).vault
    job = pool.restorers(dict(vault.entries), dict(vault.kinds), args=True)
    assert job is not None
    text_restorer, args_restorer = job()
    assert args_restorer is not None
    for text in texts:
        masked = pseudonymise(text, vault, RedactOptions()).text
        escaped = json.dumps(masked)
        assert text_restorer.restore(masked) == Restorer(vault).restore(masked)
        assert args_restorer.restore(escaped) == Restorer(vault, args=True).restore(escaped)
    assert Restorer(vault).restore(pseudonymise(LONG, vault, RedactOptions()).text) == LONG
    assert pool.workers == 1


def test_restorers_of_a_copy_of_the_substitutes_alone_are_those_of_the_vault():
    vault = pseudonymise(LONG, Vault.new(), RedactOptions()).vault
    text, args = built_restorers(dict(vault.entries), dict(vault.kinds), False)
    masked = pseudonymise(LONG, vault, RedactOptions()).text
    assert args is None
    assert text.restore(masked) == LONG


MAIL = "Écris à Marie Dupont (marie.dupont@karl-studio.fr) chez Karl Studio SAS, merci."
EMAIL = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}")


def mail_tool_call(received: Received):
    """The scripted model calls a tool with the fake e-mail it was sent."""
    address = EMAIL.search(last_user_text(received))
    assert address is not None
    return openai_completion("", [("call_1", "send_mail", json.dumps({"to": address.group()}))])


def relay_three_answers(pool: DetectionPool, upstream: ScriptedUpstream) -> None:
    """A whole answer, a streamed one and a tool call's arguments, each restored."""
    body = {"model": "scripted", "messages": [{"role": "user", "content": MAIL}]}
    with RunningProxy(upstream.base_url, pool=pool) as proxy:
        url = f"{proxy.base_url}/chat/completions"
        whole = httpx.post(url, json=body, timeout=60)
        assert whole.json()["choices"][0]["message"]["content"] == f"Reçu : {MAIL}"
        decoder = openai.StreamDecoder()
        with httpx.stream("POST", url, json={**body, "stream": True}, timeout=60) as response:
            events = [event for chunk in response.iter_bytes() for event in decoder.feed(chunk)]
        assert "".join(e.text for e in events + decoder.close() if isinstance(e, TextDelta)) == f"Reçu : {MAIL}"
        upstream.script = mail_tool_call
        tools = [{"type": "function", "function": {"name": "send_mail", "parameters": {"type": "object"}}}]
        called = httpx.post(url, json={**body, "tools": tools}, timeout=60).json()
        arguments = called["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
        assert json.loads(arguments) == {"to": "marie.dupont@karl-studio.fr"}
    wire = upstream.wire_text()
    assert "Marie Dupont" not in wire and "marie.dupont@karl-studio.fr" not in wire


@pytest.fixture
def upstream() -> Iterator[ScriptedUpstream]:
    with ScriptedUpstream() as up:
        yield up


def test_through_the_proxy_a_helper_builds_the_restorers_of_each_answer(pool, upstream, monkeypatch):
    jobs = []
    start = pool.restorers

    def watched(entries, kinds, *, args):
        jobs.append(start(entries, kinds, args=args))
        return jobs[-1]

    monkeypatch.setattr(pool, "restorers", watched)
    relay_three_answers(pool, upstream)
    assert len(jobs) == 3 and all(job is not None for job in jobs)  # each answer's, on the helper
    assert pool.workers == 1


def test_a_helper_that_fails_to_build_restorers_leaves_them_to_the_server_and_stays(upstream, monkeypatch):
    def broken(entries, kinds, args):
        raise MemoryError("the helper could not build them")

    monkeypatch.setitem(pool_module._JOBS, "restorers", broken)  # what the forked helper will run
    failing = DetectionPool(1)
    try:
        relay_three_answers(failing, upstream)
        assert failing.workers == 1
    finally:
        failing.close()


def test_a_helper_that_dies_building_restorers_is_retired_and_every_answer_is_still_restored(upstream, monkeypatch,
                                                                                             caplog):
    def dies(entries, kinds, args):
        os._exit(3)

    monkeypatch.setitem(pool_module._JOBS, "restorers", dies)
    dying = DetectionPool(1)
    try:
        with caplog.at_level(logging.WARNING, logger="openmasq.proxy"):
            relay_three_answers(dying, upstream)
        assert dying.workers == 0
        assert "detection helper stopped" in caplog.text
    finally:
        dying.close()


def test_an_answer_to_a_request_with_nothing_to_redact_needs_no_helper(pool, upstream, monkeypatch):
    jobs = []
    monkeypatch.setattr(pool, "restorers", lambda *args, **kwargs: jobs.append(args))
    body = {"model": "scripted", "messages": [{"role": "user", "content": "Bonjour."}]}
    with RunningProxy(upstream.base_url, pool=pool) as proxy:
        answer = httpx.post(f"{proxy.base_url}/chat/completions", json=body, timeout=60)
    assert answer.json()["choices"][0]["message"]["content"] == "Reçu : Bonjour."
    assert jobs == []
