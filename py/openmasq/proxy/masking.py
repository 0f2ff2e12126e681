"""The proxy's decisions, pure: redact a client's request body through a conversation's vault,
and restore the upstream's answer (whole or streamed) with the vault that request used."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..chat.codecs import anthropic, openai
from ..chat.codecs.rewrite import Feeder
from ..redact import RedactOptions, Restorer, StreamRestorer, Vault, pseudonymise, restore_args

APIS = ("openai", "anthropic")
StreamRewriter = openai.StreamRewriter | anthropic.StreamRewriter


@dataclass(frozen=True)
class Masked:
    body: dict[str, Any]
    vault: Vault  # the conversation's vault after this request: the caller keeps it
    replaced: int  # how many values were substituted (a count, never the values)


class _Redactor:
    """Redacts the texts of one body in order, each pass building on the vault of the last,
    so a value seen in the system prompt gets the same fake in every message."""

    def __init__(self, vault: Vault, options: RedactOptions) -> None:
        self.vault = vault
        self.options = options
        self.replaced = 0

    def text(self, value: str) -> str:
        if not value.strip():
            return value
        # Assistant turns come back restored, so they hold real values too: they go through the
        # same pass as user text (its vault step is the replay of reference 9.13).
        result = pseudonymise(value, self.vault, self.options)
        self.vault = result.vault
        self.replaced += len(result.replacements)
        return result.text


def redact_body(api: str, body: object, vault: Vault, options: RedactOptions) -> Masked:
    """Every text the client sends, redacted; raises (RedactionError, ShapeError, …) rather
    than return a body with something unaccounted for. `vault` is not modified."""
    redactor = _Redactor(vault, options)
    mapped = _codec(api).map_request_texts(body, redactor.text)
    return Masked(mapped, redactor.vault, redactor.replaced)


def warm_restorers(vault: Vault, *, args: bool) -> Restorer:
    """Compile this vault state's restorers ahead of the answer, while the model thinks: the
    compile grows with the vault (about 3 ms an entry here) and re's cache keeps the patterns,
    so the StreamRestorers built for each content block later reuse them. Returns the text one."""
    restorer = Restorer(vault)
    if args:
        Restorer(vault, args=True)
    return restorer


def may_call_tools(body: object) -> bool:
    """Whether the request offers tools, so that the answer may carry tool-call arguments."""
    return isinstance(body, dict) and bool(body.get("tools") or body.get("functions"))


def restore_body(api: str, doc: object, vault: Vault, restorer: Restorer | None = None) -> dict[str, Any]:
    """A complete answer with real values back in its text and tool-call arguments."""
    restorer = restorer or Restorer(vault)
    if api == "openai":
        return openai.map_response_texts(doc, restorer.restore, lambda arguments: restore_args(arguments, vault))
    # Anthropic's tool inputs are already objects: each string is restored as restore_args would.
    return anthropic.map_response_texts(doc, restorer.restore, restorer.restore)


def restore_raw(text: str, vault: Vault) -> str:
    """An answer of a shape the codec does not know: restored as JSON text, so that what is put
    back is escaped where it lands and the document stays well-formed."""
    return Restorer(vault, args=True).restore(text)


def stream_rewriter(api: str, vault: Vault) -> StreamRewriter:
    def text() -> Feeder:
        return StreamRestorer(vault)

    def args() -> Feeder:
        return StreamRestorer(vault, args=True)

    return openai.StreamRewriter(text, args) if api == "openai" else anthropic.StreamRewriter(text, args)


def error_body(api: str, kind: str, message: str) -> dict[str, Any]:
    return openai.error_body(kind, message) if api == "openai" else anthropic.error_body(kind, message)


def _codec(api: str) -> Any:
    if api not in APIS:
        raise ValueError(f"unknown API {api!r}")
    return openai if api == "openai" else anthropic
