"""The worker's App on CPython: the real codecs and flows over an in-memory record store and a
scripted egress (the port protocol of docs/web.md), asserting on what left and what was saved."""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest

from openmasq.memory.model import Card, Sentence
from openmasq.redact import caches
from openmasq.redact.caches import memo_caches
from openmasq.testing import appears_in, in_fresh_loop
from openmasq.testing.upstream import anthropic_stream, openai_stream
from openmasq.worker import App, AppError, Chunk, EgressMessage, End, Failure, Head, MemoryRecords
from openmasq.worker.local import LOCAL_MEMORY_CHARS, LOCAL_PROMPT_TOKENS, LOCAL_REPLY_TOKENS

NAME = "Claire Vasseur"
EMAIL = "claire.vasseur@ateliers-brunet.fr"
TEXT = f"Peux-tu écrire à {NAME} ({EMAIL}) pour la réunion de jeudi ?"
REALS = (NAME, "Vasseur", EMAIL)
KEY = "sk-test-0123456789abcdef"
SSE = {"content-type": "text/event-stream"}
T = TypeVar("T")


# --- the host: a manual clock and timers --------------------------------------------------------


@dataclass
class ManualTimer:
    due: int
    callback: Callable[[], Any]
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


@dataclass
class ManualHost:
    """Time moves only when the test says so; notices to the page are kept."""

    clock: int = 1_767_225_600_000
    timers: list[ManualTimer] = field(default_factory=list)
    notices: list[dict[str, Any]] = field(default_factory=list)
    rng: random.Random = field(default_factory=lambda: random.Random(5))

    def now(self) -> int:
        return self.clock

    def call_later(self, delay_ms: int, callback: Callable[[], Any]) -> ManualTimer:
        timer = ManualTimer(self.clock + delay_ms, callback)
        self.timers.append(timer)
        return timer

    def random_bytes(self, count: int) -> bytes:
        return bytes(self.rng.getrandbits(8) for _ in range(count))

    def notify(self, notice: dict[str, Any]) -> None:
        self.notices.append(notice)

    def advance(self, ms: int) -> None:
        """Moves the clock, firing the timers that fall due on the way, in order."""
        end = self.clock + ms
        while True:
            due = sorted((t for t in self.timers if not t.cancelled and t.due <= end), key=lambda t: t.due)
            if not due:
                break
            timer = due[0]
            self.timers.remove(timer)
            self.clock = max(self.clock, timer.due)
            timer.callback()
        self.clock = end


# --- the egress: scripted answers, every spec kept -----------------------------------------------

Answer = list[EgressMessage] | Callable[[dict[str, Any]], list[EgressMessage]]


@dataclass
class Sent:
    route: str
    spec: dict[str, Any]
    saved_before: dict[str, str]  # the records as they were when the request left

    @property
    def body(self) -> dict[str, Any]:
        return json.loads(self.spec["body"]) if self.spec.get("body") else {}


class ScriptedStream:
    def __init__(self, messages: list[EgressMessage], hold_after: int | None, host: ManualHost,
                 tick_ms: int) -> None:
        self.messages = list(messages)
        self.hold_after = hold_after  # after this many messages, wait (a stream that stalls)
        self.given = 0
        self.aborted = False
        self.resume = asyncio.Event()
        self.host = host
        self.tick_ms = tick_ms

    async def next(self) -> EgressMessage:
        if self.hold_after is not None and self.given >= self.hold_after and not self.aborted:
            await self.resume.wait()
        if self.aborted:
            return Failure("aborted", "aborted")
        self.given += 1
        self.host.clock += self.tick_ms  # each message takes a moment: partial saves happen
        return self.messages.pop(0) if self.messages else End()

    def abort(self) -> None:
        self.aborted = True
        self.resume.set()


class ScriptedEgress:
    def __init__(self, host: ManualHost, records: MemoryRecords) -> None:
        self.host = host
        self.records = records
        self.answers: list[Answer] = []
        self.sent: list[Sent] = []
        self.streams: list[ScriptedStream] = []
        self.is_online = True
        self.hold_after: int | None = None
        self.tick_ms = 400

    def then(self, *answers: Answer) -> ScriptedEgress:
        self.answers.extend(answers)
        return self

    def open(self, route: str, spec: dict[str, Any]) -> ScriptedStream:
        self.sent.append(Sent(route, spec, dict(self.records.data)))
        answer = self.answers.pop(0) if self.answers else openai_ok(["D'accord."])
        messages = answer(spec) if callable(answer) else answer
        stream = ScriptedStream(messages, self.hold_after, self.host, self.tick_ms)
        self.streams.append(stream)
        return stream

    def online(self) -> bool:
        return self.is_online

    def wire(self) -> str:
        return "\n".join(json.dumps(s.spec, ensure_ascii=False) for s in self.sent)


def openai_ok(pieces: list[str]) -> list[EgressMessage]:
    return [Head(200, SSE), *(Chunk(b) for b in openai_stream(pieces)), End()]


def user_wire(spec: dict[str, Any]) -> str:
    body = json.loads(spec["body"])
    return next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")


def echo(prefix: str) -> Callable[[dict[str, Any]], list[EgressMessage]]:
    """A model that quotes the user's message as it received it (with the fakes)."""
    return lambda spec: openai_ok([prefix, user_wire(spec)[:30], user_wire(spec)[30:]])


# --- the rig --------------------------------------------------------------------------------------


@dataclass
class Rig:
    host: ManualHost
    records: MemoryRecords
    egress: ScriptedEgress
    app: App
    events: list[dict[str, Any]] = field(default_factory=list)

    def on_event(self, event: dict[str, Any]) -> None:
        self.events.append(event)

    async def reopen(self, records: MemoryRecords | None = None) -> App:
        """A fresh worker on the same (or a snapshot of the) stored records."""
        app = App(self.egress, self.host)
        await app.open(records or self.records)
        return app


def rig() -> Rig:
    host = ManualHost()
    records = MemoryRecords()
    egress = ScriptedEgress(host, records)
    return Rig(host, records, egress, App(egress, host))


def run(test: Callable[[Rig], Coroutine[Any, Any, None]]) -> None:
    async def main() -> None:
        r = rig()
        await r.app.open(r.records)
        await test(r)

    in_fresh_loop(main())


async def with_remote(r: Rig, kind: str = "compatible", base_url: str = "http://127.0.0.1:9/v1") -> str:
    provider = await r.app.save_provider({"kind": kind, "label": "Test", "base_url": base_url, "api_key": KEY,
                                          "model": "scripted-model"})
    await r.app.update_settings({"default_provider": provider["id"]})
    return str(provider["id"])


def leaked(text: str) -> list[str]:
    return [value for value in REALS if appears_in(value, text)]


def stored(r: Rig, key: str) -> dict[str, Any]:
    return json.loads(r.records.data[key])


def stored_messages(records: MemoryRecords, conv_id: str) -> list[dict[str, Any]]:
    return json.loads(records.data[f"conv:{conv_id}"])["conversation"]["messages"]


# --- records --------------------------------------------------------------------------------------


def test_a_new_account_is_written_as_one_record_per_part() -> None:
    async def body(r: Rig) -> None:
        assert sorted(r.records.data) == ["memory", "providers", "settings"]
        conv = await r.app.create_conversation({"title": "Projet"})
        assert sorted(r.records.data) == ["conv:" + conv["id"], "memory", "providers", "settings"]
        assert stored(r, "conv:" + conv["id"])["conversation"]["title"] == "Projet"

    run(body)


def test_settings_survive_a_reload_and_unknown_ones_are_refused() -> None:
    async def body(r: Rig) -> None:
        await r.app.update_settings({"theme": "dark", "autolock_minutes": 5, "lang": "en", "auto_extract": True})
        with pytest.raises(AppError) as refused:
            await r.app.update_settings({"colour": "red"})
        assert refused.value.name == "BadRequest"
        settings = await (await r.reopen()).get_settings()
        assert (settings["theme"], settings["autolock_minutes"], settings["lang"], settings["auto_extract"]) == (
            "dark", 5, "en", True)

    run(body)


def test_a_record_that_does_not_load_is_reported_and_never_overwritten() -> None:
    async def body(r: Rig) -> None:
        r.records.data["providers"] = "{not json"
        app = await r.reopen()
        with pytest.raises(AppError) as refused:
            await app.save_provider({"kind": "compatible", "base_url": "http://127.0.0.1:1/v1", "model": "m"})
        assert refused.value.name == "Unreadable"
        assert r.records.data["providers"] == "{not json"

    run(body)


# --- providers ------------------------------------------------------------------------------------


def test_the_api_key_is_kept_in_the_providers_record_and_never_returned() -> None:
    async def body(r: Rig) -> None:
        provider_id = await with_remote(r)
        listed = await r.app.list_providers()
        assert KEY not in json.dumps(listed)
        assert [p["has_key"] for p in listed if p["id"] == provider_id] == [True]
        assert [key for key, text in r.records.data.items() if KEY in text] == ["providers"]
        # Saving without a key keeps the stored one (the page never has it to resend).
        await r.app.save_provider({"id": provider_id, "label": "Renamed"})
        assert KEY in r.records.data["providers"]

    run(body)


def test_the_bundled_local_model_is_the_default_provider() -> None:
    async def body(r: Rig) -> None:
        providers = await r.app.list_providers()
        assert providers[0]["kind"] == "local" and providers[0]["local"]
        assert (await r.app.get_settings())["default_provider"] == providers[0]["id"]

    run(body)


def test_listing_models_goes_through_the_egress_with_the_key() -> None:
    async def body(r: Rig) -> None:
        listing = json.dumps({"data": [{"id": "b-model"}, {"id": "a-model"}]}).encode()
        r.egress.then([Head(200, {"content-type": "application/json"}), Chunk(listing), End()])
        provider_id = await with_remote(r)
        assert await r.app.list_models(provider_id) == {"ok": True, "models": ["a-model", "b-model"], "names": {}}
        sent = r.egress.sent[-1]
        assert (sent.route, sent.spec["method"], sent.spec["url"]) == ("net", "GET", "http://127.0.0.1:9/v1/models")
        assert sent.spec["headers"]["authorization"] == f"Bearer {KEY}"

    run(body)


def test_a_refused_key_is_reported_as_auth() -> None:
    async def body(r: Rig) -> None:
        refusal = json.dumps({"error": {"message": "bad key", "code": "invalid_api_key"}}).encode()
        r.egress.then([Head(401, {"content-type": "application/json"}), Chunk(refusal), End()])
        answer = await r.app.test_provider({"kind": "openai", "api_key": "sk-wrong", "model": "gpt"})
        assert answer["ok"] is False and answer["error"]["kind"] == "auth"
        assert r.egress.sent[-1].spec["url"] == "https://api.openai.com/v1/models"

    run(body)


def test_egress_origins_are_the_providers_origins() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r, base_url="http://127.0.0.1:9/v1")
        await r.app.save_provider({"kind": "anthropic", "api_key": "k", "model": "claude"})
        assert await r.app.egress_origins() == ["http://127.0.0.1:9", "https://api.anthropic.com"]

    run(body)


# --- sending --------------------------------------------------------------------------------------


def test_a_send_saves_the_user_turn_before_the_request_and_sends_no_real_value() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        r.egress.then(echo("Bien reçu : "))
        result = await r.app.send(conv["id"], TEXT, r.on_event)
        assert result == {"status": "done"}
        sent = r.egress.sent[0]
        assert (sent.route, sent.spec["url"]) == ("net", "http://127.0.0.1:9/v1/chat/completions")
        assert sent.spec["headers"]["authorization"] == f"Bearer {KEY}"
        assert leaked(r.egress.wire()) == []
        saved_first = json.loads(sent.saved_before["conv:" + conv["id"]])["conversation"]["messages"]
        assert [(m["role"], m["content"]) for m in saved_first] == [("user", TEXT)]
        kinds = [e["type"] for e in r.events]
        assert kinds[0] == "saved" and kinds[-1] == "done" and "delta" in kinds
        restored = "".join(e["text"] for e in r.events if e["type"] == "delta")
        assert NAME in restored  # the model's fake came back as the real name
        reply = stored_messages(r.records, conv["id"])[-1]
        assert reply["role"] == "assistant" and NAME in reply["content"] and "pending" not in reply

    run(body)


def test_the_page_sees_spans_and_the_exact_wire_text() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        await r.app.send(conv["id"], TEXT, r.on_event)
        user = (await r.app.get_conversation(conv["id"]))["message_list"][0]
        assert {TEXT[s["start"]:s["end"]] for s in user["spans"]} >= {NAME, EMAIL}
        assert user["wire"] == user_wire(r.egress.sent[0].spec)
        assert leaked(user["wire"]) == []

    run(body)


def test_anthropic_requests_and_streams_use_the_messages_format() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r, kind="anthropic", base_url="https://api.anthropic.com/v1")
        conv = await r.app.create_conversation()
        r.egress.then([Head(200, SSE), *(Chunk(b) for b in anthropic_stream(["Très ", "bien."])), End()])
        await r.app.send(conv["id"], "Bonjour", r.on_event)
        spec = r.egress.sent[0].spec
        assert spec["url"] == "https://api.anthropic.com/v1/messages"
        assert spec["headers"]["x-api-key"] == KEY
        assert spec["headers"]["anthropic-dangerous-direct-browser-access"] == "true"
        assert r.events[-1]["message"]["text"] == "Très bien."

    run(body)


def test_the_local_model_is_reached_over_the_llm_port() -> None:
    async def body(r: Rig) -> None:
        conv = await r.app.create_conversation()
        r.egress.is_online = False  # the bundled model answers offline
        r.egress.then(openai_ok(["Salut"]))
        assert (await r.app.send(conv["id"], "Bonjour", r.on_event))["status"] == "done"
        sent = r.egress.sent[0]
        assert sent.route == "llm"
        assert sent.body["model"] == "SmolLM2-135M-Instruct" and sent.body["stream"] is True

    run(body)


def fact_card(index: int, entity: str, facts: str) -> Card:
    return Card(id=f"c{index}", entity=entity, category="personne", sentences=[Sentence(facts, 0)],
                status="confirmed")


def request_chars(sent: Sent) -> int:
    return sum(len(m["content"]) for m in sent.body["messages"])


def test_the_local_model_gets_a_short_prompt_a_reply_cap_and_a_small_memory_block() -> None:
    async def body(r: Rig) -> None:
        memory = r.app.opened.document.memory
        long_facts = "Elle suit le dossier de rénovation de la médiathèque depuis le printemps. " * 4
        memory.cards.extend(fact_card(i, f"Personne{i} Martin", long_facts) for i in range(12))
        memory.touch()
        conv = await r.app.create_conversation({"provider_id": "local"})
        paragraph = "Voici le compte rendu détaillé de la réunion de chantier de ce matin, point par point. " * 20
        for turn in range(4):
            await r.app.send(conv["id"], f"Partie {turn} : {paragraph}", r.on_event)
        named = " ".join(f"Personne{i} Martin" for i in range(12))
        await r.app.send(conv["id"], f"Que sais-tu de {named} ?", r.on_event)
        last = r.egress.sent[-1]
        assert last.route == "llm" and last.body["max_tokens"] == LOCAL_REPLY_TOKENS
        system = next(m["content"] for m in last.body["messages"] if m["role"] == "system")
        assert 0 < len(system) <= LOCAL_MEMORY_CHARS  # cards named, within the smaller budget
        assert memory.settings.budget_chars == 4000  # the account's own budget is untouched
        # SmolLM2 reads about 3 characters per token: the whole prompt stays within its budget, the
        # oldest turns dropped (the first part is gone, the message itself is whole).
        assert request_chars(last) / 3 <= LOCAL_PROMPT_TOKENS
        assert not any("Partie 0" in m["content"] for m in last.body["messages"])
        assert last.body["messages"][-1]["content"].startswith("Que sais-tu de")
        # A conversation that names no card gets no memory block at all.
        other = await r.app.create_conversation({"provider_id": "local"})
        await r.app.send(other["id"], "Quelle est la capitale de la France ?", r.on_event)
        assert [m["role"] for m in r.egress.sent[-1].body["messages"]] == ["user"]

    run(body)


def test_a_remote_send_keeps_the_memory_index_until_the_memory_changes() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        memory = r.app.opened.document.memory
        memory.cards.append(fact_card(1, NAME, "Elle habite à Lyon."))
        memory.touch()
        conv = await r.app.create_conversation()
        await r.app.send(conv["id"], f"Un mot pour {NAME}.", r.on_event)
        first = r.app.opened.index
        await r.app.send(conv["id"], f"Un autre pour {NAME}.", r.on_event)
        assert first is not None and r.app.opened.index is first
        memory.cards.append(fact_card(2, "Paul Girard", "Il habite à Nantes."))
        memory.touch()
        await r.app.send(conv["id"], "Et Paul Girard ?", r.on_event)
        assert r.app.opened.index is not first and r.app.opened.index.size == 2
        system = r.egress.sent[-1].body["messages"][0]["content"]
        assert "Il habite à" in system and "Nantes" not in system  # the new card was injected, its town faked

    run(body)


def test_a_send_reports_how_long_the_worker_took_before_handing_the_request_over() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        assert await r.app.send_timings(conv["id"]) == {}
        await r.app.send(conv["id"], TEXT, r.on_event)
        timings = await r.app.send_timings(conv["id"])
        assert set(timings) == {"prepare_ms", "save_ms"}
        assert 0 <= timings["save_ms"] <= timings["prepare_ms"]

    run(body)


@pytest.mark.parametrize(("answer", "kind"), [
    ([Head(429, {"retry-after": "7", "content-type": "application/json"}),
      Chunk(b'{"error":{"message":"slow down","type":"rate_limit_error"}}'), End()], "rate_limit"),
    ([Head(500, {}), Chunk(b"oops"), End()], "server"),
    ([Head(200, {"content-type": "text/html"}), Chunk(b"<html>login</html>"), End()], "html"),
    ([Head(200, SSE), Chunk(openai_stream(["Déb"])[1]), Failure("timeout", "idle")], "timeout"),
    ([Failure("blocked", "csp")], "blocked"),
])
def test_provider_failures_reach_the_page_as_error_kinds(answer: list[EgressMessage], kind: str) -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        r.egress.then(answer)
        result = await r.app.send(conv["id"], "Bonjour", r.on_event)
        assert result == {"status": "interrupted", "kind": kind}
        error = r.events[-1]
        assert error["type"] == "error" and error["kind"] == kind and error["message"]
        if kind == "rate_limit":
            assert (error["retry_after"], error["provider_message"]) == (7, "slow down")
        if kind == "server":
            assert error["provider_message"] == "oops"
        reply = stored_messages(r.records, conv["id"])[-1]
        assert reply["interrupted"] is True and reply["error"] == kind

    run(body)


def test_a_worker_crash_mid_stream_keeps_the_user_turn_and_the_partial_reply() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        r.egress.hold_after = 4  # head + 3 chunks, then the stream stalls
        r.egress.then(openai_ok(["Première ", "partie, ", "puis la suite."]))
        sending = asyncio.ensure_future(r.app.send(conv["id"], TEXT, r.on_event))
        while not any(e["type"] == "delta" and "partie" in e["text"] for e in r.events):
            await asyncio.sleep(0)
        crashed = MemoryRecords(dict(r.records.data))  # the worker dies here: nothing more is written
        sending.cancel()
        after = await r.reopen(crashed)
        messages = (await after.get_conversation(conv["id"]))["message_list"]
        assert [m["role"] for m in messages] == ["user", "assistant"]
        assert messages[0]["text"] == TEXT
        assert messages[1]["text"].startswith("Première") and messages[1]["interrupted"]
        assert not messages[1]["pending"] and messages[1]["error"] == "interrupted"
        # ... and the recovery itself was written back.
        assert stored_messages(crashed, conv["id"])[-1]["interrupted"] is True

    run(body)


def test_stop_keeps_the_partial_reply_marked_interrupted() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        r.egress.hold_after = 3
        r.egress.then(openai_ok(["Un début ", "de réponse ", "jamais fini."]))
        sending = asyncio.ensure_future(r.app.send(conv["id"], "Raconte", r.on_event))
        while len([e for e in r.events if e["type"] == "delta"]) < 1:
            await asyncio.sleep(0)
        await r.app.stop(conv["id"])
        assert await sending == {"status": "interrupted", "kind": "aborted"}
        assert r.egress.streams[0].aborted
        reply = stored_messages(r.records, conv["id"])[-1]
        assert reply["content"].startswith("Un début") and reply["interrupted"] and reply["error"] == "aborted"

    run(body)


def test_offline_keeps_the_message_as_a_draft_and_sends_nothing() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        r.egress.is_online = False
        assert await r.app.send(conv["id"], TEXT, r.on_event) == {"status": "offline"}
        assert r.egress.sent == []
        assert [e["type"] for e in r.events] == ["saved", "error"] and r.events[-1]["kind"] == "offline"
        draft = stored_messages(r.records, conv["id"])
        assert [(m["role"], m["content"], m["error"]) for m in draft] == [("user", TEXT, "offline")]
        r.egress.is_online = True
        assert (await r.app.retry(conv["id"], r.on_event))["status"] == "done"
        messages = stored_messages(r.records, conv["id"])
        assert [(m["role"], m.get("error")) for m in messages] == [("user", None), ("assistant", None)]
        assert leaked(r.egress.wire()) == []

    run(body)


def test_an_unreachable_provider_turns_the_message_into_a_draft() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        r.egress.then([Failure("network", "Failed to fetch")])
        assert await r.app.send(conv["id"], TEXT, r.on_event) == {"status": "offline"}
        messages = stored_messages(r.records, conv["id"])
        assert len(messages) == 1 and messages[0]["error"] == "offline" and "redactions" not in messages[0]
        view = (await r.app.get_conversation(conv["id"]))["message_list"][0]
        assert view["draft"] is True and view["wire"] is None

    run(body)


def test_a_draft_is_never_replayed_to_the_model() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        r.egress.is_online = False
        await r.app.send(conv["id"], "Brouillon jamais envoyé", r.on_event)
        r.egress.is_online = True
        await r.app.send(conv["id"], "Autre chose", r.on_event)
        assert "Brouillon" not in r.egress.wire()
        texts = [m["content"] for m in stored_messages(r.records, conv["id"])]
        assert texts[0] == "Autre chose"

    run(body)


def test_the_mode_is_pinned_at_the_first_send() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        assert (await r.app.update_conversation(conv["id"], {"mode": "token"}))["mode"] == "token"
        await r.app.send(conv["id"], TEXT, r.on_event)
        with pytest.raises(AppError) as refused:
            await r.app.update_conversation(conv["id"], {"mode": "fake"})
        assert refused.value.name == "Pinned"

    run(body)


def test_a_second_send_while_streaming_is_refused() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        r.egress.hold_after = 2
        first = asyncio.ensure_future(r.app.send(conv["id"], "Un", r.on_event))
        while not r.egress.sent:
            await asyncio.sleep(0)
        with pytest.raises(AppError) as refused:
            await r.app.send(conv["id"], "Deux", r.on_event)
        assert refused.value.name == "Busy"
        await r.app.stop(conv["id"])
        await first

    run(body)


# --- conversations --------------------------------------------------------------------------------


def test_conversations_are_searched_renamed_deleted_and_restored() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        first = await r.app.create_conversation({"title": "Vacances"})
        second = await r.app.create_conversation()
        await r.app.send(second["id"], TEXT, r.on_event)
        assert [c["id"] for c in await r.app.list_conversations("vasseur")] == [second["id"]]
        await r.app.rename_conversation(first["id"], "Congés")
        assert [c["title"] for c in await r.app.list_conversations({"text": "cong"})] == ["Congés"]
        await r.app.delete_conversation(second["id"])
        assert "conv:" + second["id"] not in r.records.data
        assert [c["id"] for c in await r.app.list_conversations()] == [first["id"]]
        await r.app.undo_delete(second["id"])
        assert "conv:" + second["id"] in r.records.data
        reloaded = await r.reopen()
        assert {c["id"] for c in await reloaded.list_conversations()} == {first["id"], second["id"]}

    run(body)


# --- extraction and auto-lock --------------------------------------------------------------------


def extractor_reply(spec: dict[str, Any]) -> list[EgressMessage]:
    """Extraction answers with a fact about the person, named by the fake it was given."""
    body = json.loads(spec["body"])
    wire = body["messages"][-1]["content"]
    found = re.search(r"(\S+ \S+) habite", wire)
    assert found is not None, wire
    fake = found.group(1)
    facts = {"profil": None, "faits": [{"entite": fake, "fait": "habite à Lyon", "cat": "personne", "alias": None}]}
    return openai_ok([json.dumps(facts, ensure_ascii=False)])


def test_an_explicit_ask_runs_extraction_800_ms_later_and_saves_the_card() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        r.egress.then(openai_ok(["C'est noté."]), extractor_reply)
        await r.app.send(conv["id"], f"Souviens-toi que {NAME} habite à Lyon.", r.on_event)
        assert len(r.egress.sent) == 1
        r.host.advance(799)
        await r.app.wait_idle()
        assert len(r.egress.sent) == 1
        r.host.advance(1)
        await r.app.wait_idle()
        assert len(r.egress.sent) == 2
        extraction = r.egress.sent[1]
        assert extraction.route == "net" and extraction.body["temperature"] == 0
        assert leaked(r.egress.wire()) == []
        memory = stored(r, "memory")["memory"]
        assert [c["entity"] for c in memory["cards"]] == [NAME]
        reply = stored_messages(r.records, conv["id"])[-1]
        assert reply["memory_noted"] == 1 and "memory_noted_pending" not in reply
        assert any(n["type"] == "memory" and n.get("status") == "noted" for n in r.host.notices)

    run(body)


# Silent runs skip chatter: 400 characters at least, naming a person (memory/extract/gate.py).
LONG = (f"{NAME} habite à Lyon, dans le quartier de la Croix-Rousse, depuis que son équipe a déménagé. "
        "Elle travaille sur le projet de rénovation de la médiathèque avec deux architectes, et elle "
        "préfère qu'on lui écrive le matin plutôt que l'après-midi, quand elle est sur les chantiers. "
        "Pour la réunion de jeudi, il faudra lui envoyer les plans révisés la veille au soir, avec le "
        "budget mis à jour et la liste des entreprises retenues pour le second œuvre.")


def test_silent_extraction_waits_for_two_idle_minutes_and_needs_auto_extract() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        await r.app.send(conv["id"], f"{NAME} habite à Lyon depuis 2019.", r.on_event)
        r.host.advance(10 * 60_000)
        await r.app.wait_idle()
        assert len(r.egress.sent) == 1  # auto_extract is off by default
        await r.app.update_settings({"auto_extract": True, "autolock_minutes": 0})
        await r.app.send(conv["id"], LONG, r.on_event)
        r.egress.then(extractor_reply)
        r.host.advance(119_000)
        await r.app.wait_idle()
        assert len(r.egress.sent) == 2
        r.host.advance(1_000)
        await r.app.wait_idle()
        assert len(r.egress.sent) == 3 and leaked(r.egress.wire()) == []

    run(body)


def test_the_account_locks_itself_after_the_idle_delay() -> None:
    async def body(r: Rig) -> None:
        await r.app.update_settings({"autolock_minutes": 2})
        r.host.advance(60_000)
        await r.app.activity()
        r.host.advance(90_000)
        assert r.app.account is not None  # activity pushed the delay back
        r.host.advance(30_000)
        assert r.app.account is None
        assert r.host.notices[-1] == {"type": "locked", "reason": "idle"}
        with pytest.raises(AppError) as refused:
            await r.app.list_conversations()
        assert refused.value.name == "Locked"

    run(body)


def test_locking_empties_the_engine_caches_of_the_words_it_read() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        r.egress.then(echo("Bien reçu : "))
        await r.app.send(conv["id"], TEXT, r.on_event)
        def filled() -> dict[str, int]:
            sizes = {name: len(c) if isinstance(c, dict) else c.cache_info().currsize
                     for name, c in memo_caches().items() if name not in caches.KEPT}
            return {name: size for name, size in sizes.items() if size}

        assert "openmasq.redact.text.fold" in filled()
        r.app.close()
        assert filled() == {}
        assert memo_caches()["openmasq.redact.lexicon._data"].cache_info().currsize > 0  # the lexicons stay loaded

    run(body)


def test_a_streaming_reply_holds_the_auto_lock_off() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        await r.app.update_settings({"autolock_minutes": 1})
        conv = await r.app.create_conversation()
        r.egress.hold_after = 2
        sending = asyncio.ensure_future(r.app.send(conv["id"], "Un", r.on_event))
        while not r.egress.sent:
            await asyncio.sleep(0)
        r.host.advance(5 * 60_000)
        assert r.app.account is not None
        r.egress.streams[0].resume.set()
        r.egress.hold_after = None
        r.egress.streams[0].hold_after = None
        await sending

    run(body)



def test_a_record_from_an_older_schema_is_migrated_on_load() -> None:
    async def body(r: Rig) -> None:
        conv = await r.app.create_conversation()
        record = stored(r, "conv:" + conv["id"])
        record["version"] = 1
        record["conversation"]["messages"] = [
            {"id": "m1", "role": "user", "content": "Bonjour", "redactions": 0, "modelContent": "Bonjour (v1)"}]
        r.records.data["conv:" + conv["id"]] = json.dumps(record)
        reloaded = await r.reopen()
        assert (await reloaded.get_conversation(conv["id"]))["message_list"][0]["wire"] == "Bonjour (v1)"

    run(body)


def test_spans_count_positions_as_javascript_does() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        text = f"🙂🙂 Écris à {NAME} demain."
        await r.app.send(conv["id"], text, r.on_event)
        user = (await r.app.get_conversation(conv["id"]))["message_list"][0]
        utf16 = text.encode("utf-16-le")
        named = [utf16[s["start"] * 2:s["end"] * 2].decode("utf-16-le") for s in user["spans"]]
        assert NAME in named

    run(body)
