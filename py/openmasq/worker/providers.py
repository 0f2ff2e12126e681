"""Providers as the page sees them (kind openai | anthropic | compatible | local), the requests
their codecs build, which port carries them, and the bundled local model as the default."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ..chat.codecs import ChatRequest, HttpRequest, StreamEvent
from ..chat.codecs import anthropic as anthropic_codec
from ..chat.codecs import ollama as ollama_codec
from ..chat.codecs import openai as openai_codec
from ..chat.codecs.models import ModelPage
from ..contract import DEFAULT_BASE_URLS, PROVIDER_KINDS
from ..store import Provider
from .bridge import Route

KINDS = PROVIDER_KINDS  # openai, anthropic, compatible, local (the page reads them from the contract)
LOCAL_ID = "local"
LOCAL_MODEL = "SmolLM2-135M-Instruct"
LOCAL_LABEL = "SmolLM2 135M — small model, runs on this device"
# llm-worker ignores the URL (it answers every request on its port); a non-network scheme makes
# sure such a spec can never be mistaken for a provider address by net-worker.
LOCAL_BASE_URL = "llm://local/v1"
# A reply stream may pause while the model thinks; the egress gives up after this much silence.
CHAT_IDLE_TIMEOUT_MS = 120_000
LIST_TIMEOUT_MS = 20_000


class Decoder(Protocol):
    """A codec's stream decoder: bytes in, neutral events out; never raises."""

    def feed(self, chunk: bytes | str) -> list[StreamEvent]: ...

    def close(self) -> list[StreamEvent]: ...


class ProviderError(ValueError):
    """A provider description the app cannot use."""


@dataclass(frozen=True)
class Target:
    """Where one provider's requests go and how they are written and read."""

    kind: str
    base_url: str
    api_key: str
    model: str
    context_tokens: int | None = None

    @property
    def route(self) -> Route:
        return "llm" if self.kind == "local" else "net"

    @property
    def api(self) -> str:
        return "anthropic" if self.kind == "anthropic" else "openai"

    def chat_request(self, request: ChatRequest) -> HttpRequest:
        if self.api == "anthropic":
            return anthropic_codec.build_request(request, self.base_url, self.api_key, browser=True)
        field = "max_completion_tokens" if self.kind == "openai" else "max_tokens"
        return openai_codec.build_request(request, self.base_url, self.api_key, max_tokens_field=field,
                                          stream_usage=self.kind != "local")

    def models_request(self, after: str | None = None) -> HttpRequest:
        """The model list, or its page after the model `after` (Anthropic pages its list)."""
        if self.api == "anthropic":
            return anthropic_codec.build_models_request(self.base_url, self.api_key, after=after, browser=True)
        return openai_codec.build_models_request(self.base_url, self.api_key)

    @property
    def may_be_ollama(self) -> bool:
        """An OpenAI-compatible server that may answer Ollama's own list when /models is missing."""
        return self.kind == "compatible"

    def ollama_tags_request(self) -> HttpRequest:
        return ollama_codec.build_tags_request(self.base_url)

    def parse_models(self, doc: object) -> ModelPage:
        if self.api == "anthropic":
            return anthropic_codec.parse_models(doc)
        return openai_codec.parse_models(doc)

    def decoder(self) -> Decoder:
        return anthropic_codec.StreamDecoder() if self.api == "anthropic" else openai_codec.StreamDecoder()


def local_provider() -> Provider:
    return Provider(id=LOCAL_ID, preset="local", base_url=LOCAL_BASE_URL, api="openai", label=LOCAL_LABEL,
                    model=LOCAL_MODEL)


def kind_of(provider: Provider) -> str:
    return provider.preset if provider.preset in KINDS else "compatible"


def target_of(provider: Provider) -> Target:
    return Target(kind_of(provider), provider.base_url, provider.api_key, provider.model, provider.context_tokens)


def page_view(provider: Provider) -> dict[str, Any]:
    """What the page may see: never the key, only whether there is one."""
    return {"id": provider.id, "kind": kind_of(provider), "label": provider.label, "base_url": provider.base_url,
            "model": provider.model, "has_key": bool(provider.api_key), "context_tokens": provider.context_tokens,
            "local": kind_of(provider) == "local"}


def spec_of(http: HttpRequest, timeout_ms: int) -> dict[str, Any]:
    """The egress message body of the port protocol (docs/web.md, "The worker protocol") (the JS side adds the id)."""
    body = http.content()
    return {"url": http.url, "method": http.method, "headers": dict(http.headers),
            "body": body.decode("utf-8") if body else None, "timeout_ms": timeout_ms}


def provider_from_page(patch: dict[str, Any], existing: Provider | None, new_id: str) -> Provider:
    """A provider saved from the page. An omitted or empty `api_key` keeps the stored one (the
    page never has it back to resend); `clear_key: true` removes it."""
    kind = str(patch.get("kind") or (kind_of(existing) if existing else ""))
    if kind not in KINDS or kind == "local":
        raise ProviderError(f"unknown provider kind {kind!r} (openai, anthropic or compatible)")
    base_url = str(patch.get("base_url") or (existing.base_url if existing else "") or DEFAULT_BASE_URLS.get(kind, ""))
    if not base_url.startswith(("https://", "http://")):
        raise ProviderError("the base URL must start with https:// (or http:// for a server on this machine)")
    key = existing.api_key if existing else ""
    if patch.get("clear_key"):
        key = ""
    elif isinstance(patch.get("api_key"), str) and patch["api_key"].strip():
        key = patch["api_key"].strip()
    context = patch.get("context_tokens", existing.context_tokens if existing else None)
    return Provider(
        id=existing.id if existing else new_id, preset=kind, base_url=base_url.rstrip("/"),
        api="anthropic" if kind == "anthropic" else "openai",
        label=str(patch.get("label") or (existing.label if existing else "") or kind),
        api_key=key, model=str(patch.get("model") if patch.get("model") is not None else
                               (existing.model if existing else "")),
        context_tokens=context if isinstance(context, int) and not isinstance(context, bool) else None,
    )


def origin_of(url: str) -> str | None:
    """scheme://host[:port] of a provider URL: what net-worker's connect-src must allow."""
    if "://" not in url:
        return None
    scheme, rest = url.split("://", 1)
    host = rest.split("/", 1)[0]
    return f"{scheme}://{host}" if scheme in ("http", "https") and host else None
