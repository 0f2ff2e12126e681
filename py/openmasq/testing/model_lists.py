"""Scripts for ScriptedUpstream that serve the model lists as the real servers do (issue 18): OpenAI's
`GET /v1/models` behind a Bearer key, Anthropic's paginated `GET /v1/models` behind `x-api-key` and
`anthropic-version`, Ollama's `GET /api/tags` (and its OpenAI-compatible `/v1/models`, or not, as
servers before 0.2), and a server that refuses to list. Chat requests (POST) are echoed."""

from __future__ import annotations

import json
from collections.abc import Sequence
from urllib.parse import parse_qs, urlsplit

from .upstream import Received, Reply, Script, echo_script, json_reply

ANTHROPIC_DEFAULT_LIMIT = 20  # what Anthropic's API documents when no limit is given
ANTHROPIC_MAX_LIMIT = 1000


def _path_and_query(received: Received) -> tuple[str, dict[str, str]]:
    parts = urlsplit(received.path)
    return parts.path, {k: v[-1] for k, v in parse_qs(parts.query).items()}


def _not_found() -> Reply:
    return json_reply({"error": {"message": "not found", "type": "invalid_request_error"}}, 404)


def openai_models(models: Sequence[str], key: str | None = None) -> Script:
    """GET /v1/models as OpenAI answers it; 401 without `Authorization: Bearer <key>` when a key is set."""
    def script(received: Received) -> Reply:
        if received.method != "GET":
            return echo_script(received)
        path, _ = _path_and_query(received)
        if path != "/v1/models":
            return _not_found()
        if key is not None and received.headers.get("authorization") != f"Bearer {key}":
            return json_reply({"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error",
                                         "code": "invalid_api_key"}}, 401)
        return json_reply({"object": "list", "data": [
            {"id": m, "object": "model", "created": 1_700_000_000 + i, "owned_by": "system"}
            for i, m in enumerate(models)]})
    return script


def anthropic_models(models: Sequence[tuple[str, str]], key: str) -> Script:
    """GET /v1/models?limit=&after_id= as Anthropic answers it: (id, display_name) pages with has_more,
    first_id and last_id, newest first as given; 401 without the key, 400 without anthropic-version."""
    def script(received: Received) -> Reply:
        if received.method != "GET":
            return echo_script(received)
        path, query = _path_and_query(received)
        if path != "/v1/models":
            return _not_found()
        if received.headers.get("x-api-key") != key:
            return json_reply({"type": "error", "error": {"type": "authentication_error",
                                                          "message": "invalid x-api-key"}}, 401)
        if not received.headers.get("anthropic-version"):
            return json_reply({"type": "error", "error": {"type": "invalid_request_error",
                                                          "message": "anthropic-version: header is required"}}, 400)
        limit = min(max(int(query.get("limit", ANTHROPIC_DEFAULT_LIMIT)), 1), ANTHROPIC_MAX_LIMIT)
        ids = [m for m, _ in models]
        start = ids.index(query["after_id"]) + 1 if query.get("after_id") in ids else 0
        page = list(models[start:start + limit])
        return json_reply({
            "data": [{"type": "model", "id": m, "display_name": name, "created_at": "2025-05-22T00:00:00Z"}
                     for m, name in page],
            "has_more": start + limit < len(models),
            "first_id": page[0][0] if page else None, "last_id": page[-1][0] if page else None,
        })
    return script


def ollama(models: Sequence[str], openai_list: bool = True) -> Script:
    """An Ollama server: GET /api/tags always; GET /v1/models only when `openai_list` (0.2 and later)."""
    def script(received: Received) -> Reply:
        if received.method != "GET":
            return echo_script(received)
        path, _ = _path_and_query(received)
        if path == "/api/tags":
            return json_reply({"models": [
                {"name": m, "model": m, "modified_at": "2026-11-02T10:00:00.000000Z", "size": 2_019_393_189,
                 "digest": f"{i:064x}", "details": {"format": "gguf", "family": "llama", "parameter_size": "3.2B",
                                                   "quantization_level": "Q4_K_M"}}
                for i, m in enumerate(models)]})
        if path == "/v1/models" and openai_list:
            return json_reply({"object": "list", "data": [
                {"id": m, "object": "model", "created": 1_762_077_600, "owned_by": "library"} for m in models]})
        return Reply(404, {"content-type": "text/plain"}, b"404 page not found")
    return script


def no_listing(status: int = 403) -> Script:
    """A gateway that answers chats but refuses to list its models (a key restricted to completions)."""
    def script(received: Received) -> Reply:
        if received.method != "GET":
            return echo_script(received)
        body = {"error": {"message": "listing models is not allowed for this key", "type": "permission_error"}}
        return Reply(status, {"content-type": "application/json"}, json.dumps(body).encode())
    return script
