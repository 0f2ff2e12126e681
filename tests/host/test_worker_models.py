"""The model picker's lists and the default provider (issue 18), the worker's App over real HTTP: each test
starts loopback servers that serve the model lists as OpenAI, Anthropic (paginated, behind its headers)
and Ollama (`/api/tags`, with or without `/v1/models`) do, and the egress below is plain http.client.
Also: the provider the user adds and tests becomes the default; a conversation answers with the model
picked for it, and each reply says which model wrote it."""

from __future__ import annotations

import asyncio
import http.client
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from test_worker_app import ManualHost

from openmasq.testing import in_fresh_loop
from openmasq.testing.model_lists import anthropic_models, no_listing, ollama, openai_models
from openmasq.testing.upstream import Script, ScriptedUpstream
from openmasq.worker import App, Chunk, EgressMessage, End, Failure, Head, MemoryRecords


class HttpStream:
    """One request over http.client (in a thread): head, the body in one chunk, end."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.task = asyncio.ensure_future(asyncio.to_thread(self._fetch, spec))
        self.queue: list[EgressMessage] | None = None

    @staticmethod
    def _fetch(spec: dict[str, Any]) -> list[EgressMessage]:
        url = urlsplit(spec["url"])
        connection = http.client.HTTPConnection(url.hostname or "", url.port, timeout=10)
        try:
            path = url.path + (f"?{url.query}" if url.query else "")
            body = spec["body"].encode() if spec.get("body") else None
            connection.request(spec["method"], path, body=body, headers=spec["headers"])
            response = connection.getresponse()
            data = response.read()
            return [Head(response.status, {k.lower(): v for k, v in response.getheaders()}), Chunk(data), End()]
        except OSError as error:
            return [Failure("network", str(error))]
        finally:
            connection.close()

    async def next(self) -> EgressMessage:
        if self.queue is None:
            self.queue = await self.task
        return self.queue.pop(0) if self.queue else End()

    def abort(self) -> None:
        self.task.cancel()


class HttpEgress:
    def __init__(self) -> None:
        self.urls: list[str] = []

    def open(self, route: str, spec: dict[str, Any]) -> HttpStream:
        assert route == "net"
        self.urls.append(spec["url"])
        return HttpStream(spec)

    def online(self) -> bool:
        return True


@contextmanager
def serving(script: Script) -> Iterator[ScriptedUpstream]:
    with ScriptedUpstream(script) as upstream:
        yield upstream


def run(body: Any) -> None:
    async def main() -> None:
        egress = HttpEgress()
        app = App(egress, ManualHost())
        await app.open(MemoryRecords())
        await body(app, egress)

    in_fresh_loop(main())


def drawn(prefix: str, n: int) -> list[str]:
    """Model ids drawn per run: nothing below may depend on particular names."""
    return [f"{prefix}-{secrets.token_hex(3)}-{i}" for i in range(n)]


def test_an_openai_compatible_list_is_read_from_v1_models_with_the_key() -> None:
    key = "sk-" + secrets.token_hex(8)
    models = drawn("gpt", 5)

    async def body(app: App, egress: HttpEgress) -> None:
        with serving(openai_models(models, key)) as up:
            ok = await app.test_provider({"kind": "compatible", "base_url": up.base_url, "api_key": key})
            assert ok == {"ok": True, "models": sorted(models), "names": {}}
            assert up.received[-1].path == "/v1/models"
            refused = await app.test_provider({"kind": "compatible", "base_url": up.base_url, "api_key": "sk-wrong"})
            assert refused["ok"] is False and refused["error"]["kind"] == "auth"

    run(body)


def test_anthropic_s_list_is_read_page_after_page_with_its_headers_and_display_names() -> None:
    key = "sk-ant-" + secrets.token_hex(8)
    models = [(m, f"Claude {m.split('-')[1]}") for m in drawn("claude", 230)]  # three pages of 100

    async def body(app: App, egress: HttpEgress) -> None:
        with serving(anthropic_models(models, key)) as up:
            saved = await app.save_provider({"kind": "anthropic", "label": "A", "base_url": up.base_url,
                                             "api_key": key, "model": models[0][0]})
            listed = await app.list_models(saved["id"])
            assert listed["ok"] is True
            assert listed["models"] == sorted(m for m, _ in models)
            assert listed["names"] == dict(models)
            pages = [r.path for r in up.received]
            assert len(pages) == 3 and "after_id" not in pages[0]
            assert pages[1].endswith(f"after_id={models[99][0]}") and pages[2].endswith(f"after_id={models[199][0]}")
            assert all(r.headers["x-api-key"] == key and r.headers["anthropic-version"] for r in up.received)

    run(body)


def test_ollama_is_listed_from_v1_models_and_an_older_one_from_api_tags() -> None:
    models = [f"llama3.2:{secrets.token_hex(2)}", f"qwen2.5-coder:{secrets.token_hex(2)}"]

    async def body(app: App, egress: HttpEgress) -> None:
        with serving(ollama(models)) as recent:
            answer = await app.test_provider({"kind": "compatible", "base_url": recent.base_url})
            assert answer["models"] == sorted(models)
            assert [r.path for r in recent.received] == ["/v1/models"]
        with serving(ollama(models, openai_list=False)) as older:
            answer = await app.test_provider({"kind": "compatible", "base_url": older.base_url})
            assert answer == {"ok": True, "models": sorted(models), "names": {}}
            assert [r.path for r in older.received] == ["/v1/models", "/api/tags"]

    run(body)


def test_a_server_that_refuses_to_list_says_why_and_a_typed_model_answers() -> None:
    typed = f"house-model-{secrets.token_hex(3)}"

    async def body(app: App, egress: HttpEgress) -> None:
        with serving(no_listing(403)) as up:
            saved = await app.save_provider({"kind": "compatible", "label": "Gateway", "base_url": up.base_url,
                                             "model": "unlisted"})
            listed = await app.list_models(saved["id"])
            assert listed["ok"] is False and listed["error"]["kind"] == "auth"
            assert "not allowed" in listed["error"].get("provider_message", "") + listed["error"]["message"]
            conv = await app.create_conversation({"provider_id": saved["id"]})
            view = await app.update_conversation(conv["id"], {"model": typed})
            assert view["model"] == typed
            events: list[dict[str, Any]] = []
            await app.send(conv["id"], "Bonjour.", events.append)
            chat = [r for r in up.received if r.method == "POST"][-1]
            assert chat.json()["model"] == typed
            reply = (await app.get_conversation(conv["id"]))["message_list"][-1]
            assert reply["role"] == "assistant" and reply["model"] == typed

    run(body)


def test_the_provider_added_and_tested_becomes_the_default() -> None:
    models = drawn("m", 2)

    async def body(app: App, egress: HttpEgress) -> None:
        with serving(openai_models(models)) as first, serving(openai_models(models)) as second:
            assert (await app.get_settings())["default_provider"] == "local"
            spec = {"kind": "compatible", "label": "First", "base_url": first.base_url, "model": models[0]}
            assert (await app.test_provider(spec))["ok"]
            one = await app.save_provider(spec)
            assert one["made_default"] is True
            assert (await app.get_settings())["default_provider"] == one["id"]
            # Saved without a test: not the default yet; its first successful test makes it so.
            two = await app.save_provider({**spec, "label": "Second", "base_url": second.base_url})
            assert two["made_default"] is False
            assert (await app.get_settings())["default_provider"] == one["id"]
            assert (await app.list_models(two["id"]))["made_default"] is True
            assert (await app.get_settings())["default_provider"] == two["id"]
            # Testing an older provider again does not take the default back.
            assert "made_default" not in await app.list_models(one["id"])
            assert (await app.get_settings())["default_provider"] == two["id"]

    run(body)


def test_a_test_with_another_key_than_the_one_saved_does_not_make_it_the_default() -> None:
    key = "sk-" + secrets.token_hex(8)

    async def body(app: App, egress: HttpEgress) -> None:
        with serving(openai_models(["a"])) as up:
            assert (await app.test_provider({"kind": "compatible", "base_url": up.base_url, "api_key": key}))["ok"]
            saved = await app.save_provider({"kind": "compatible", "label": "X", "base_url": up.base_url,
                                             "api_key": key + "x", "model": "a"})
            assert saved["made_default"] is False

    run(body)


def test_changing_a_conversation_s_provider_drops_the_model_picked_for_the_other_one() -> None:
    async def body(app: App, egress: HttpEgress) -> None:
        with serving(openai_models(["a"])) as up:
            saved = await app.save_provider({"kind": "compatible", "label": "X", "base_url": up.base_url, "model": "a"})
            conv = await app.create_conversation()
            view = await app.update_conversation(conv["id"], {"model": "picked", "provider_id": saved["id"]})
            assert (view["provider_id"], view["model"]) == (saved["id"], "picked")  # the order of the patch is not
            view = await app.update_conversation(conv["id"], {"provider_id": "local"})
            assert view["model"] is None
            assert (await app.update_conversation(conv["id"], {"model": "  "}))["model"] is None

    run(body)


def test_the_onboarding_choice_is_kept_with_the_account() -> None:
    async def body(app: App, egress: HttpEgress) -> None:
        assert (await app.get_settings())["onboarded"] is False
        assert (await app.update_settings({"onboarded": True}))["onboarded"] is True

    run(body)


def test_a_reply_keeps_the_name_of_the_model_that_wrote_it_across_a_reload() -> None:
    async def main() -> None:
        records = MemoryRecords()
        egress = HttpEgress()
        app = App(egress, ManualHost())
        await app.open(records)
        with serving(openai_models(["a"])) as up:
            saved = await app.save_provider({"kind": "compatible", "label": "X", "base_url": up.base_url,
                                             "model": "model-one"})
            conv = await app.create_conversation({"provider_id": saved["id"]})
            await app.send(conv["id"], "Bonjour.", lambda e: None)
            await app.update_conversation(conv["id"], {"model": "model-two"})
            await app.send(conv["id"], "Encore.", lambda e: None)
        again = App(egress, ManualHost())
        await again.open(records)
        replies = [m for m in (await again.get_conversation(conv["id"]))["message_list"] if m["role"] == "assistant"]
        assert [m["model"] for m in replies] == ["model-one", "model-two"]

    in_fresh_loop(main())

