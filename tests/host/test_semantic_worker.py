"""The App's hooks for the on-device models (worker/embeddings.py) with the real CPython models standing in for
ml-worker: the model's spans join the typed text's redaction (names the rules miss stop leaking), a failing model
stops the send (fail closed: nothing sent, the page told why), no ml-worker at all (a CPython shell) leaves the
rules alone and says so, and the embedding index follows the memory."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_worker_app import SSE, Rig, echo, in_fresh_loop, openai_ok, rig, with_remote

from openmasq.memory.model import Card, Sentence
from openmasq.memory.semantic import dot
from openmasq.redact.spans import Span
from openmasq.testing.upstream import openai_stream
from openmasq.worker import AppError, Chunk, End, Head
from openmasq.worker import records as rec
from openmasq.worker.embeddings import MlState, neighbours_of
from openmasq.worker.memory_api import memory_api

embed = pytest.importorskip("openmasq.embed")
ner = pytest.importorskip("openmasq.ner.runtime")

LOWERCASE = "hier j'ai parlé avec marie dupont de la réunion de jeudi"  # the rules miss lowercase names


class CPythonModels:
    """ml-worker's answers computed by the CPython models on the same files (parity: e2e/test_ml_parity.py)."""

    def __init__(self) -> None:
        try:
            self.recogniser = ner.Tagger()
            self.embedder = embed.Embedder()
        except (ner.ModelNotFound, embed.ModelNotBuilt) as missing:
            pytest.skip(str(missing))
        self.vectors: dict[str, tuple[str, list[float]]] = {}
        self.embedded: list[str] = []

    async def ner(self, text: str) -> list[Span]:
        return self.recogniser.spans(text)

    async def index_sync(self, cards: list[tuple[str, str]], rebuild: bool = False) -> dict[str, Any]:
        wanted = dict(cards)
        if rebuild:
            self.vectors.clear()
        for gone in [cid for cid in self.vectors if cid not in wanted]:
            del self.vectors[gone]
        todo = [(cid, text) for cid, text in cards if self.vectors.get(cid, ("",))[0] != text]
        for (cid, text), vector in zip(todo, self.embedder.embed([t for _, t in todo]), strict=True):
            self.vectors[cid] = (text, vector)
        self.embedded.extend(cid for cid, _ in todo)
        neighbours = {cid: sorted(((o, dot(v, w)) for o, (_, w) in self.vectors.items() if o != cid),
                                  key=lambda p: -p[1])[:3] for cid, (_, v) in self.vectors.items()}
        return {"embedded": len(todo), "neighbours": neighbours}

    async def index_search(self, query: str, k: int) -> list[tuple[str, float]]:
        [qv] = self.embedder.embed([query], "query")
        return sorted(((cid, dot(qv, v)) for cid, (_, v) in self.vectors.items()), key=lambda p: -p[1])[:k]


class BrokenModels(CPythonModels):
    async def ner(self, text: str) -> list[Span]:
        raise RuntimeError("the model file is corrupt")


MODELS = {"cpython": CPythonModels, "broken": BrokenModels, "none": lambda: None}


def run_with(models: str, test: Any) -> None:
    async def main() -> None:
        r = rig()
        r.app.models = MODELS[models]()
        r.app.ml_state = MlState()
        await r.app.open(r.records)
        await test(r)

    in_fresh_loop(main())


def notices(r: Rig) -> list[dict[str, Any]]:
    return [n for n in r.host.notices if n.get("type") == "ml"]


def test_the_model_runs_before_the_send_and_its_kept_spans_join_the_redaction() -> None:
    async def body(r: Rig) -> None:
        conv = await r.app.create_conversation({})
        r.egress.then(echo("Reçu : "))
        await r.app.send(conv["id"], LOWERCASE, r.on_event)
        wire = r.egress.wire()
        assert "marie dupont" not in wire.lower()
        # The model ran; what it gives goes through ner_merge's per-language table (none kept for "auto").
        assert r.app.ml_state.ner_status == "ok"
        raw = await r.app.models.ner(LOWERCASE)
        assert ("marie dupont", "per") in [(s.value, s.kind) for s in raw]
        user = r.app.opened.document.conversation(conv["id"]).messages[0]
        assert ("marie dupont", "person") in user.redacted_spans  # the extraction gate reads these kinds
        assert notices(r) == []

    run_with("cpython", body)


def test_a_failing_model_stops_the_send_and_nothing_leaves() -> None:
    async def body(r: Rig) -> None:
        conv = await r.app.create_conversation({})
        r.egress.then(echo("Reçu : "))
        with pytest.raises(AppError) as refused:
            await r.app.send(conv["id"], LOWERCASE + " (claire.vasseur@example.fr)", r.on_event)
        assert refused.value.name == "NerUnavailable"
        assert "Nothing was sent" in refused.value.message and "the model file is corrupt" in refused.value.message
        assert r.egress.wire() == ""  # fail closed: not even the rules' version went
        [notice] = notices(r)
        assert notice["ner"].startswith("unavailable")

    run_with("broken", body)


def test_without_any_ml_worker_the_send_goes_on_with_the_rules_and_says_so() -> None:
    async def body(r: Rig) -> None:
        conv = await r.app.create_conversation({})
        r.egress.then(echo("Reçu : "))
        result = await r.app.send(conv["id"], LOWERCASE + " (claire.vasseur@example.fr)", r.on_event)
        assert result["status"] == "done"
        wire = r.egress.wire()
        assert "claire.vasseur@example.fr" not in wire  # the rules still ran
        [notice] = notices(r)
        assert notice["ner"] == "unavailable: no ml-worker"

    run_with("none", body)


def test_the_index_follows_memory_changes_and_forgets_deleted_cards() -> None:
    async def body(r: Rig) -> None:
        models = r.app.models
        store = r.app.opened.document.memory
        store.cards = [
            Card("a", "Marie Dupont", "personne", [Sentence("Ingénieure chez Airbus.", 0)], status="confirmed"),
            Card("b", "Airbus", "organisation", [Sentence("Avionneur ; site de Toulouse.", 0)], status="confirmed"),
            Card("c", "Vélo", "autre", [Sentence("Va au travail à vélo.", 0)], status="confirmed"),
        ]
        await r.app._save(rec.MEMORY)
        await r.app.wait_idle()
        assert sorted(neighbours_of(r.app)) == ["a", "b", "c"]
        assert sorted(models.embedded) == ["a", "b", "c"]
        store.cards[2].sentences = [Sentence("Va au travail à pied désormais.", 1)]
        store.cards.pop(1)
        await r.app._save(rec.MEMORY)
        await r.app.wait_idle()
        assert models.embedded[3:] == ["c"]  # only the changed text is embedded again
        assert sorted(neighbours_of(r.app)) == ["a", "c"]
        assert all(other != "b" for near in neighbours_of(r.app).values() for other, _ in near)
        assert all(not key.startswith("embeddings:") for key in r.records.data)  # the JS side stores vectors
        json.dumps(r.app.ml_state.view())

    run_with("cpython", body)


def test_the_diagnostic_export_lists_the_index_links_against_the_e5_bars() -> None:
    async def body(r: Rig) -> None:
        api = memory_api(r.app)
        before = (await api.export_memory_text())["text"]
        assert "index sémantique absent" in before  # no index yet: not the same as no link
        store = r.app.opened.document.memory
        store.cards = [
            Card("a", "Marie Dupont", "personne", [Sentence("Ingénieure chez Airbus.", 0)], status="confirmed"),
            Card("b", "Airbus", "organisation", [Sentence("Avionneur ; site de Toulouse.", 0)], status="confirmed"),
        ]
        await r.app._save(rec.MEMORY)
        await r.app.wait_idle()
        text = (await api.export_memory_text())["text"]
        assert "1 bruts" in text and "cluster 0.910 · paire de personnes 0.955 · doublon 0.930" in text
        assert "seuil 0.910" in text

    run_with("cpython", body)


def test_memory_search_in_a_send_is_topped_up_by_the_embedding_index() -> None:
    """The model asks memory_search for words no card contains; the index (e5 on CPython here, ml-worker in the
    browser) finds the card by meaning, and what goes back on the wire is its fake, never its real values."""
    async def body(r: Rig) -> None:
        await with_remote(r)
        store = r.app.opened.document.memory
        store.cards = [
            Card("a", "Marie Dupont", "personne", [Sentence("Pilote d'essai chez Airbus à Toulouse.", 0)],
                 status="confirmed"),
            Card("b", "Vélo", "autre", [Sentence("Va au travail à vélo.", 0)], status="confirmed"),
        ]
        await r.app._save(rec.MEMORY)
        await r.app.wait_idle()
        conv = await r.app.create_conversation({})
        arguments = json.dumps({"query": "vols de test d'avions"})  # no word of the card: only e5 finds it
        call = [Head(200, SSE), *(Chunk(b) for b in openai_stream([], [("c1", "memory_search", [arguments])])), End()]
        r.egress.then(call, openai_ok(["Je vois."]))
        result = await r.app.send(conv["id"], "Qui connais-je dans l'aéronautique ?", r.on_event)
        assert result["status"] == "done"
        tool_result = next(m for m in json.loads(r.egress.sent[1].spec["body"])["messages"] if m["role"] == "tool")
        assert "Toulouse" in tool_result["content"] or "Pilote" in tool_result["content"]
        assert "Marie" not in r.egress.wire() and "Dupont" not in r.egress.wire()
        assert "vélo" not in tool_result["content"].lower()

    run_with("cpython", body)
