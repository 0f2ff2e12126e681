"""Ollama's own model list (`GET /api/tags`): what an Ollama server answers when its OpenAI-compatible
`/v1/models` is not there (servers before 0.2) or not reachable. Chats still go through `/v1`."""

from __future__ import annotations

from .models import HttpRequest, ModelInfo, ModelPage, join_url
from .walk import as_str, expect_dict, expect_list

TAGS_PATH = "api/tags"
# The OpenAI-compatible API lives under /v1 of the server's root; /api/tags under the root itself.
OPENAI_SUFFIX = "/v1"


def root_of(base_url: str) -> str:
    """The server's root for a base URL as users type it for Ollama (`http://host:11434/v1`)."""
    base = base_url.rstrip("/")
    return base[: -len(OPENAI_SUFFIX)] if base.endswith(OPENAI_SUFFIX) else base


def build_tags_request(base_url: str) -> HttpRequest:
    return HttpRequest("GET", join_url(root_of(base_url), TAGS_PATH), (("accept", "application/json"),))


def parse_tags(doc: object) -> ModelPage:
    """{"models": [{"name": "llama3.2:latest", "model": "llama3.2:latest", "details": {...}}]}: the
    name is what /v1/chat/completions takes as its model."""
    data = expect_list(expect_dict(doc, "the model list").get("models"), "the model list's models")
    names = (as_str(item.get("name")) or as_str(item.get("model")) for item in data if isinstance(item, dict))
    return ModelPage(tuple(ModelInfo(name) for name in names if name))
