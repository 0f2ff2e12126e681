"""The App's side of the on-device models (issue 7): NER spans of the user's text before a send (through
redact/ner_merge.py, the decision CPython makes), the memory cards' embedding index kept in step after each
memory change, and the neighbours and search top-up the semantic tier (memory/semantic.py) reads.

The models and the index run in JavaScript (ml-worker.js, embed-index.js); in Pyodide they arrive as the JS
module `openmasq_ml`. Anywhere else (host tests, CPython) `Models` is any object with the same coroutines.
NER runs here in two halves: the text is featurised and the scores decoded in Python (openmasq.ner.features,
decode: the code CPython runs too), only the network runs in ml-worker.js. When the model fails to load or
crashes, the send FAILS CLOSED: nothing is sent, and the page is told why (`NerUnavailable`)."""

from __future__ import annotations

import json
from array import array
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..memory.cluster import Edge, card_embed_text
from ..memory.dedupe import is_blank
from ..memory.model import MemoryStore
from ..memory.semantic import Neighbour, similarity_edges
from ..ner import decode, features
from ..redact.ner_merge import model_spans
from ..redact.spans import Span


class Models(Protocol):
    """What the App needs from the models' side (JS in Pyodide)."""

    async def ner(self, text: str) -> list[Span]: ...  # raw model spans: code-point offsets, model labels

    async def index_sync(self, cards: list[tuple[str, str]], rebuild: bool = False) -> dict[str, Any]: ...

    async def index_search(self, query: str, k: int) -> list[Neighbour]: ...


@dataclass
class MlState:
    """What the last calls to the models said, for the diagnostics and the semantic tier."""

    ner_status: str = "not tried"  # "ok", "unavailable: <why>"
    ner_spans: int = 0  # model spans given to the last redaction
    index_status: str = "not built"
    neighbours: dict[str, list[Neighbour]] = field(default_factory=dict)
    last_sync: dict[str, Any] = field(default_factory=dict)
    owner: Any = None  # the account the neighbours belong to
    syncing: bool = False
    again: bool = False
    rebuild: bool = False

    def view(self) -> dict[str, Any]:
        return {"ner": self.ner_status, "ner_spans": self.ner_spans, "index": self.index_status,
                "indexed": len(self.neighbours), "last_sync": {k: v for k, v in self.last_sync.items()
                                                                if k != "neighbours"}}


class JsModels:
    """`openmasq_ml` (embed-index.js pythonModule) as `Models`."""

    def __init__(self, js: Any) -> None:
        self.js = js

    async def ner(self, text: str) -> list[Span]:
        feats = features.featurise(text)
        if not feats.offsets:
            return []
        from pyodide.ffi import to_js  # type: ignore[import-not-found]  # only in Pyodide, like openmasq_ml

        ids = to_js(array("i", feats.ids).tobytes())
        flags = to_js(array("b", feats.flags).tobytes())
        result = await self.js.tag(ids, flags, feats.windows, feats.length)
        scores = array("f")
        scores.frombytes(bytes(result.to_bytes()))
        return decode.spans(text, feats, scores)

    async def index_sync(self, cards: list[tuple[str, str]], rebuild: bool = False) -> dict[str, Any]:
        payload = json.dumps([{"id": cid, "text": text} for cid, text in cards], ensure_ascii=False)
        result: dict[str, Any] = json.loads(str(await self.js.indexSync(payload, rebuild)))
        return result

    async def index_search(self, query: str, k: int) -> list[Neighbour]:
        return [(str(cid), float(sim)) for cid, sim in json.loads(str(await self.js.indexSearch(query, k)))]


def js_models() -> Models | None:
    """The JS models in Pyodide (py-worker registers `openmasq_ml`), None elsewhere."""
    try:
        import openmasq_ml  # type: ignore[import-not-found]
    except ImportError:
        return None
    return JsModels(openmasq_ml)


# --- NER before a send -------------------------------------------------------------------------------


# What embed-index.js says when no ml-worker port was ever given to the worker.
NOT_CONNECTED = "no ml-worker connected"


class NerUnavailable(Exception):
    """The NER model could not run on a text about to be sent: the send must not go (fail closed)."""


async def text_spans(models: Models | None, state: MlState, text: str, lang: str) -> tuple[Span, ...]:
    """The model's spans for the user's text, as the engine takes them (kinds kept for `lang`).

    Raises NerUnavailable when the model fails to load or to run: the rules alone leak more names and places
    than the rules with the model (models/ner/TRAINING.md), so the send stops rather than quietly going out
    with less. Without any ml-worker at all (CPython shells and host tests: no browser), the rules decide."""
    if models is None:
        state.ner_status, state.ner_spans = "unavailable: no ml-worker", 0
        return ()
    try:
        raw = await models.ner(text)
        spans = tuple(model_spans(text, raw, lang))
    except Exception as error:
        if NOT_CONNECTED in str(error):
            # A worker set up without an ml-worker port (the storage and worker tests drive py-worker alone; the
            # page always connects one): no model was ever there, as in a CPython shell. A model that fails to
            # load or to run is another error, and stops the send.
            state.ner_status, state.ner_spans = "unavailable: no ml-worker", 0
            return ()
        state.ner_status, state.ner_spans = f"unavailable: {type(error).__name__}: {error}", 0
        raise NerUnavailable(f"{type(error).__name__}: {error}") from error
    state.ner_status, state.ner_spans = "ok", len(spans)
    return spans


# --- the memory index --------------------------------------------------------------------------------


def indexed_cards(store: MemoryStore) -> list[tuple[str, str]]:
    """(card id, embedded text) of every card the semantic tier compares: not rejected, not blank."""
    return [(card.id, card_embed_text(card)) for card in store.cards
            if card.status != "rejected" and not is_blank(card)]


async def sync_index(models: Models | None, state: MlState, store: MemoryStore, *, rebuild: bool = False) -> None:
    """Brings the encrypted index in line with the memory (new and changed cards embedded, deleted ones
    pruned) and keeps the neighbours it answers."""
    if models is None:
        state.index_status = "unavailable: no ml-worker"
        return
    try:
        result = await models.index_sync(indexed_cards(store), rebuild)
    except Exception as error:  # the semantic tier is optional: the memory works without it
        state.index_status = f"unavailable: {type(error).__name__}: {error}"
        return
    state.neighbours = {str(k): [(str(cid), float(sim)) for cid, sim in v]
                        for k, v in dict(result.get("neighbours", {})).items()}
    state.last_sync = result
    state.index_status = "ok"


async def nearest_cards(app: Any, query: str, k: int) -> list[Neighbour] | None:
    """memory_search's semantic top-up: the index's nearest cards to a REAL query (it never leaves the
    device), or None when the index cannot answer (the search stays lexical; the page is told)."""
    state: MlState = app.ml_state
    if app.models is None or not neighbours_of(app):
        return None
    try:
        return [(str(card_id), float(sim)) for card_id, sim in await app.models.index_search(query, k)]
    except Exception as error:  # the semantic tier is optional
        state.index_status = f"unavailable: {type(error).__name__}: {error}"
        app.host.notify({"type": "ml", **state.view()})
        return None


# --- the App's hooks (app.py calls these; `app` is a worker.app.App) ---------------------------------


def attach(app: Any) -> None:
    """Gives the App its models (the JS ones in Pyodide) and their state."""
    app.models = js_models()
    app.ml_state = MlState()


def is_index_record(key: str) -> bool:
    """The index's own records (embed-index.js): not part of the state document."""
    return key.startswith(EMBED_PREFIX)


EMBED_PREFIX = "embeddings:"  # embed-index.js EMBED_PREFIX


def schedule_sync(app: Any, *, rebuild: bool = False) -> None:
    """After a memory change (and at unlock): one index sync at a time; changes made during a sync are
    picked up by one more sync right after it."""
    state: MlState = app.ml_state
    state.again = True
    state.rebuild = state.rebuild or rebuild
    if state.syncing or app.account is None:
        return
    state.syncing = True
    app._spawn(_sync_loop(app, app.account))


async def _sync_loop(app: Any, account: Any) -> None:
    state: MlState = app.ml_state
    try:
        while state.again and app.account is account:
            state.again, rebuild, state.rebuild = False, state.rebuild, False
            await sync_index(app.models, state, account.document.memory, rebuild=rebuild)
            state.owner = account
    finally:
        state.syncing = False
    if app.account is account:
        app.host.notify({"type": "ml", **state.view()})  # the Mémoire page shows what the index covers


def _has_index(app: Any) -> bool:
    """The index was synced for the account unlocked now (not one locked since)."""
    state: MlState = app.ml_state
    return state.owner is not None and state.owner is app.account


def neighbours_of(app: Any) -> dict[str, list[Neighbour]]:
    """The index's top-3 neighbours per card of the unlocked account ({} before the first sync)."""
    return app.ml_state.neighbours if _has_index(app) else {}


def index_edges(app: Any) -> list[Edge] | None:
    """The semantic edges of the unlocked account's index, None while it has no index (the export
    says "absent" rather than "no link")."""
    return similarity_edges(app.ml_state.neighbours) if _has_index(app) else None


async def prepare_send(app: Any, inp: Any, text: str) -> None:
    """Before a send: the model's spans of the typed text, and whether memory_search may ask the embedding index
    (FindNeighbours steps). When the model cannot answer, the send stops here with an AppError the page shows
    (nothing has left the device)."""
    from .app import AppError

    state: MlState = app.ml_state
    try:
        inp.text_spans = await text_spans(app.models, state, text, inp.options.lang)
        if inp.system_prompt.strip():  # the instructions (issue 18) are read by the model too
            found = state.ner_spans
            inp.instruction_spans = await text_spans(app.models, state, inp.system_prompt, inp.options.lang)
            state.ner_spans += found
    except NerUnavailable as error:
        app.host.notify({"type": "ml", **state.view()})
        raise AppError("NerUnavailable", "Nothing was sent: the on-device name detector (NER model) could not "
                       f"run, and the message is not sent with the rules alone ({error}).") from error
    if state.ner_status != "ok":
        app.host.notify({"type": "ml", **state.view()})
    inp.semantic = app.models is not None and bool(neighbours_of(app))
