"""The proxy's decisions, pure: redact a client's request body through a conversation's vault,
and restore the upstream's answer (whole or streamed) with the vault that request used."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from ..attach import attachment_part, redact_file_name
from ..chat.codecs import anthropic, openai
from ..chat.codecs.rewrite import Feeder
from ..redact import (
    Forced,
    Redaction,
    RedactionError,
    RedactOptions,
    Restorer,
    SpanCache,
    StreamRestorer,
    Vault,
    pseudonymise,
    restore_args,
)
from ..redact.collisions import MAX_COLLISION_ROUNDS
from ..redact.lexicon import is_common_word
from ..redact.parts import pseudonymise_parts
from ..redact.pseudonymise import Parallel, SpanSource
from .documents import AttachmentText, FileName, open_documents

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

    def __init__(self, vault: Vault, options: RedactOptions, cache: SpanCache | None,
                 parallel: Parallel | None, model: SpanSource | None) -> None:
        self.vault = vault
        self.options = options
        self.cache = cache
        self.parallel = parallel
        self.model = model
        self.replaced = 0
        self.refaked = False  # a collision re-faked a value that an earlier text of the body may carry

    def __call__(self, value: str) -> str:
        if isinstance(value, AttachmentText):
            return self._attachment(value)
        if not value.strip():
            return value
        if isinstance(value, ParticipantName):
            return self._participant(value)
        if isinstance(value, FileName):
            return self._file_name(value)
        # Assistant turns come back restored, so they hold real values too: they go through the
        # same pass as user text (its vault step is the replay of reference 9.13).
        result = pseudonymise(value, self.vault, self.options, cache=self.cache, parallel=self.parallel,
                              model=self.model)
        self._took(result)
        return result.text

    def _took(self, result: Redaction) -> None:
        self.vault = result.vault
        self.replaced += len(result.replacements)
        self.refaked = self.refaked or bool(result.refaked)

    def _participant(self, name: ParticipantName) -> str:
        """A message's `name` that reads as a person's ('Marie_Dupont', 'jdupont') is that person's
        name, masked whatever the detectors make of an identifier; a role label made of everyday
        words ('example_user', 'assistant') goes through the usual pass."""
        words = name.words()
        if not words or all(is_common_word(word) for word in words.split()):
            return self(str(name))
        options = replace(self.options, force=(*self.options.force, Forced(words, "person")))
        result = pseudonymise(words, self.vault, options, cache=None, parallel=self.parallel, model=self.model)
        self._took(result)
        return result.text

    def _attachment(self, document: AttachmentText) -> str:
        """A document read from the body (documents.py): its text redacted like any text, then its name
        as a file name, with what the text taught the vault."""
        body = pseudonymise(document.body, self.vault, self.options, cache=self.cache, parallel=self.parallel,
                            model=self.model) if document.body.strip() else None
        if body is not None:
            self._took(body)
        return attachment_part(self._file_name(FileName(document.name)), body.text if body else document.body)

    def _file_name(self, name: FileName) -> str:
        faked, result = redact_file_name(str(name), self.vault, self.options, model=self.model)
        self._took(result)
        return faked

    def joint(self, values: list[str]) -> list[str]:
        """Consecutive text parts of one message, redacted as the one text the model reads (walk.JointTextMap);
        a document among them is redacted on its own, the texts around it as runs."""
        if any(isinstance(value, AttachmentText) for value in values):
            out: list[str] = []
            run: list[str] = []
            for value in [*values, None]:
                if value is None or isinstance(value, AttachmentText):
                    out += self._run(run)
                    run = []
                    if value is not None:
                        out.append(self(value))
                else:
                    run.append(value)
            return out
        return self._run(values)

    def _run(self, values: list[str]) -> list[str]:
        if len(values) < 2:
            return [self(value) for value in values]
        if not "".join(values).strip():
            return values
        parts, result = pseudonymise_parts(values, self.vault, self.options, cache=self.cache, parallel=self.parallel,
                                           model=self.model)
        self._took(result)
        return parts


class ParticipantName(str):
    """An OpenAI message's `name` (a participant name, [A-Za-z0-9_-]{1,64}), marked so that the
    redactor knows what it is when the codec hands it over."""

    def words(self) -> str:
        """'Marie_Dupont', 'marie-dupont', 'MarieDupont' -> 'Marie Dupont'."""
        spaced = _CAMEL.sub(" ", str(self))
        return " ".join(word for word in re.split(r"[\s_.\-]+", spaced) if word)


_CAMEL = re.compile(r"(?<=[a-zà-ÿ])(?=[A-ZÀ-Þ])")


def _mark_participant_names(body: object) -> object:
    """A copy of an OpenAI body whose messages' names are ParticipantName (the rest shared)."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return body
    messages = [
        {**m, "name": ParticipantName(m["name"])} if isinstance(m, dict) and isinstance(m.get("name"), str) else m
        for m in body["messages"]
    ]
    return {**body, "messages": messages}


def redact_body(api: str, body: object, vault: Vault, options: RedactOptions,
                cache: SpanCache | None = None, parallel: Parallel | None = None,
                model: SpanSource | None = None, *, allow_media: bool = False) -> Masked:
    """Every text the client sends, redacted, its inlined documents read into text first
    (documents.py); raises (RedactionError, ShapeError, MediaRefused, DocumentRefused, …) rather
    than return a body with something unaccounted for. `vault` is not modified. `cache`: the
    session's detections of the texts it has sent before (its history comes back every turn);
    `parallel`: the DetectionPool, when the proxy has one (the same result, sooner); `model`:
    the NER model's spans (None: rules only); `allow_media`: images, audio and remote URLs go as
    they came (`--allow-media`) instead of refusing the request."""
    body = open_documents(api, body, allow_media=allow_media)
    if api == "openai":
        body = _mark_participant_names(body)
    start = vault
    for _ in range(MAX_COLLISION_ROUNDS):
        redactor = _Redactor(start, options, cache, parallel, model)
        mapped = _codec(api).map_request_texts(body, redactor)
        if not redactor.refaked:
            return Masked(mapped, redactor.vault, redactor.replaced)
        # A later text re-faked a value an earlier one was written with: the whole body again, on that vault.
        start = redactor.vault
    raise RedactionError("collisions between real values and substitutes did not settle")


class Restorers:
    """The restorers of one vault state (for text, and for JSON-escaped tool arguments), built
    once and shared by every block of every answer while the vault stays as it is: a session
    keeps its last one and rebuilds only when a request added values (`serves`)."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        # A Restorer reads only the substitutes and their kinds (copied: the vault is replaced,
        # never mutated, by the next request, but the copy keeps the check honest).
        self._entries = dict(vault.entries)
        self._kinds = dict(vault.kinds)
        self._text: Restorer | None = None
        self._args: Restorer | None = None

    def substitutes(self) -> tuple[dict[str, str], dict[str, str]]:
        """What `built_restorers` needs to build these elsewhere (a helper process)."""
        return self._entries, self._kinds

    def serves(self, vault: Vault) -> bool:
        """Whether these restorers restore `vault` exactly as ones built for it would."""
        return vault.entries == self._entries and vault.kinds == self._kinds

    def ready(self, *, args: bool) -> bool:
        """Whether what `build(args=...)` builds is there already."""
        return self._text is not None and (self._args is not None or not args)

    def text(self) -> Restorer:
        if self._text is None:
            self._text = Restorer(self.vault)
        return self._text

    def args(self) -> Restorer:
        if self._args is None:
            self._args = Restorer(self.vault, args=True)
        return self._args

    def build(self, *, args: bool) -> Restorers:
        """Build ahead of the answer, while the model thinks (the arguments' one only when the
        request offers tools)."""
        self.text()
        if args:
            self.args()
        return self

    def adopt(self, built: tuple[Restorer, Restorer | None]) -> Restorers:
        """Take what `built_restorers` built for this vault state elsewhere."""
        text, args = built
        if self._text is None:
            self._text = text
        if self._args is None and args is not None:
            self._args = args
        return self


class _Substitutes(NamedTuple):
    entries: dict[str, str]
    kinds: dict[str, str]


def built_restorers(entries: dict[str, str], kinds: dict[str, str], args: bool) -> tuple[Restorer, Restorer | None]:
    """Restorers.build's work from a copy of the substitutes alone (a helper's job)."""
    substitutes = _Substitutes(entries, kinds)
    return Restorer(substitutes), (Restorer(substitutes, args=True) if args else None)


def may_call_tools(body: object) -> bool:
    """Whether the request offers tools, so that the answer may carry tool-call arguments."""
    return isinstance(body, dict) and bool(body.get("tools") or body.get("functions"))


def restore_body(api: str, doc: object, restorers: Restorers) -> dict[str, Any]:
    """A complete answer with real values back in its text and tool-call arguments."""
    text = restorers.text()
    if api == "openai":
        return openai.map_response_texts(doc, text.restore, lambda arguments: restore_args(
            arguments, restorers.vault, text=text, escaped=restorers.args()))
    # Anthropic's tool inputs are already objects: each string is restored as restore_args would.
    return anthropic.map_response_texts(doc, text.restore, text.restore)


def restore_raw(text: str, restorers: Restorers) -> str:
    """An answer of a shape the codec does not know: restored as JSON text, so that what is put
    back is escaped where it lands and the document stays well-formed."""
    return restorers.args().restore(text)


def stream_rewriter(api: str, restorers: Restorers) -> StreamRewriter:
    def text() -> Feeder:
        return StreamRestorer(restorers.vault, restorer=restorers.text())

    def args() -> Feeder:
        return StreamRestorer(restorers.vault, args=True, restorer=restorers.args())

    return openai.StreamRewriter(text, args) if api == "openai" else anthropic.StreamRewriter(text, args)


def error_body(api: str, kind: str, message: str) -> dict[str, Any]:
    return openai.error_body(kind, message) if api == "openai" else anthropic.error_body(kind, message)


def _codec(api: str) -> Any:
    if api not in APIS:
        raise ValueError(f"unknown API {api!r}")
    return openai if api == "openai" else anthropic
