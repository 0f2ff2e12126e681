"""Ollama's own model list (`/api/tags`), asked when an OpenAI-compatible base URL has no /models."""

from __future__ import annotations

import pytest

from openmasq.chat.codecs import ollama


@pytest.mark.parametrize(("base_url", "url"), [
    ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/api/tags"),
    ("http://127.0.0.1:11434/v1/", "http://127.0.0.1:11434/api/tags"),
    ("http://localhost:11434", "http://localhost:11434/api/tags"),
    ("https://gpu.example.org/ollama/v1", "https://gpu.example.org/ollama/api/tags"),
])
def test_the_tags_request_goes_to_the_server_root(base_url: str, url: str) -> None:
    request = ollama.build_tags_request(base_url)
    assert (request.method, request.url, request.body) == ("GET", url, None)


def test_tags_give_the_names_chats_take_as_their_model() -> None:
    doc = {"models": [{"name": "llama3.2:latest", "model": "llama3.2:latest", "details": {"family": "llama"}},
                      {"model": "qwen2.5:7b"}, {"name": ""}, "junk"]}
    assert [m.id for m in ollama.parse_tags(doc).models] == ["llama3.2:latest", "qwen2.5:7b"]


@pytest.mark.parametrize("doc", [[], {"models": {}}, {"data": []}, None])
def test_anything_else_is_not_a_model_list(doc: object) -> None:
    with pytest.raises(ValueError):
        ollama.parse_tags(doc)
