"""The memory cards' embedding index (web/worker/embed-index.js) in Chromium with the real ml-worker and the
real encrypted storage (storage.js): text-hash diff, batches of 16, prune on delete, reload from storage,
rebuild, and top-3 neighbours equal to a brute-force search."""

from __future__ import annotations

from typing import Any

import pytest
from ml_probe import PROBE_PAGE

CARDS = [{"id": f"c{i:02d}", "text": text} for i, text in enumerate([
    "Marie Dupont. Ingénieure chez Airbus à Toulouse.", "Airbus. Avionneur, site de Toulouse.",
    "Julien Moreau. Ingénieur chez Airbus.", "Vélo. Va au travail à vélo, 8 km par jour.",
    "Chat (Moustache). Douze ans, régime pour les reins.", "Clinique vétérinaire. Suit Moustache.",
    "Emily Carter. The user's manager at Northwind.", "Northwind. Logistics software company in Manchester.",
    "Billing migration. From Oracle to PostgreSQL before Q3.", "Marathon. Training for April, four runs a week.",
    "Allergy. Peanuts; carries an adrenaline pen.", "Car. MOT test due in November.",
    "Garden. Tomatoes and courgettes in an allotment.", "Léa Martin. Sister, architect in Nantes.",
    "Extension de la maison. 20 m² côté jardin.", "Impôts. Déclaration avant le 25 mai.",
    "Priya Patel. Data team at Northwind.", "Tom Hughes. Mechanical engineer in Leeds.",
    "Brightarm Robotics. Start-up in Leeds.", "Sophie Lemoine. Médecin généraliste à Lyon.",
])]

SCRIPT = """
async ([cards]) => {
  const { EmbedIndex, MlClient, EMBED_PREFIX } = await import("../worker/embed-index.js");
  const { Storage } = await import("../worker/storage.js");
  const storage = new Storage();
  await storage.createAccount("index test", "correct horse battery staple");
  const records = storage.records();
  const worker = new Worker(new URL("../worker/ml-worker.js", location.href), { type: "module" });
  const channel = new MessageChannel();
  worker.postMessage({ type: "port", port: channel.port2 }, [channel.port2]);
  const ml = new MlClient();
  ml.attach(channel.port1);
  const calls = [];
  const counting = { embed: (texts, kind) => { calls.push(texts.length); return ml.embed(texts, kind); } };
  const out = {};
  const index = new EmbedIndex(records, counting);
  out.first = await index.sync(cards);
  out.firstCalls = [...calls];
  out.storedKeys = (await records.keys()).filter((k) => k.startsWith(EMBED_PREFIX)).sort();
  out.neighbours = index.neighbours();
  // brute force over the stored vectors
  const vectors = {};
  for (const card of cards) vectors[card.id] = JSON.parse(await records.get(EMBED_PREFIX + card.id)).v;
  out.vectors = vectors;
  calls.length = 0;
  out.again = await index.sync(cards);
  const changed = cards.map((c) => c.id === "c03" ? { id: c.id, text: "Vélo. Va désormais au travail à pied." } : c)
    .filter((c) => c.id !== "c05");
  out.changed = await index.sync(changed);
  out.changedCalls = [...calls];
  out.afterDelete = index.neighbours();
  out.keysAfterDelete = (await records.keys()).filter((k) => k.startsWith(EMBED_PREFIX)).sort();
  calls.length = 0;
  const reloaded = new EmbedIndex(records, counting);
  out.reloaded = await reloaded.sync(changed);
  out.reloadedNeighbours = reloaded.neighbours();
  out.reloadedCalls = [...calls];
  calls.length = 0;
  out.rebuilt = await reloaded.rebuild(changed);
  out.rebuiltCalls = [...calls];
  out.search = await reloaded.search("chat malade des reins", 3);
  // the raw bytes IndexedDB holds for one vector record
  const db = await new Promise((resolve, reject) => {
    const req = indexedDB.open("openmasq-acct-" + storage.current().id);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  const raw = await new Promise((resolve) => {
    const req = db.transaction("records").objectStore("records").get(EMBED_PREFIX + "c00");
    req.onsuccess = () => resolve(req.result);
  });
  out.rawText = new TextDecoder("latin1").decode(raw);
  out.plain = await records.get(EMBED_PREFIX + "c00");
  db.close();
  return out;
}
"""


def b64_vector(text: str) -> list[float]:
    import base64
    import struct

    raw = base64.b64decode(text)
    return list(struct.unpack(f"<{len(raw) // 4}f", raw))


def brute_top3(vectors: dict[str, list[float]]) -> dict[str, list[float]]:
    """The three best cosines per card (ids may swap on near-ties between float32 and float64 sums)."""
    out = {}
    for cid, v in vectors.items():
        sims = sorted((sum(a * b for a, b in zip(v, w, strict=True)) for o, w in vectors.items() if o != cid),
                      reverse=True)
        out[cid] = sims[:3]
    return out


@pytest.fixture
def result(context: Any, site_server: Any) -> dict[str, Any]:
    page = context.new_page()
    page.goto(site_server.url + PROBE_PAGE)
    answer: dict[str, Any] = page.evaluate(SCRIPT, [CARDS])
    return answer


def test_index_embeds_in_batches_of_16_stores_encrypted_and_finds_the_top3(result: dict[str, Any]) -> None:
    assert result["first"]["embedded"] == 20 and result["firstCalls"] == [16, 4]
    assert result["storedKeys"] == sorted(f"embeddings:{c['id']}" for c in CARDS)
    vectors = {cid: b64_vector(v) for cid, v in result["vectors"].items()}
    assert all(len(v) == 384 for v in vectors.values())
    expected = brute_top3(vectors)
    got = result["neighbours"]
    assert sorted(got) == sorted(expected)
    for cid, near in got.items():
        assert [sim for _, sim in near] == pytest.approx(expected[cid], abs=1e-5)
        assert [sim for _, sim in near] == pytest.approx(
            [sum(a * b for a, b in zip(vectors[cid], vectors[o], strict=True)) for o, _ in near], abs=1e-5)
    # Encrypted at rest: the record's bytes hold neither the hash field nor the vector's text.
    assert '"h"' in result["plain"] and '"h"' not in result["rawText"]
    assert result["vectors"]["c00"][:40] not in result["rawText"]


def test_unchanged_texts_are_not_embedded_again_and_a_deleted_card_leaves_no_vector(result: dict[str, Any]) -> None:
    assert result["again"]["embedded"] == 0 and result["again"]["kept"] == 20
    assert (result["changed"]["embedded"], result["changed"]["pruned"]) == (1, 1)
    assert result["changedCalls"] == [1]
    assert "embeddings:c05" not in result["keysAfterDelete"] and len(result["keysAfterDelete"]) == 19
    assert "c05" not in result["afterDelete"]
    assert all(other != "c05" for near in result["afterDelete"].values() for other, _ in near)


def test_a_reloaded_index_reads_its_vectors_and_a_rebuild_embeds_everything(result: dict[str, Any]) -> None:
    assert result["reloaded"]["embedded"] == 0 and result["reloadedCalls"] == []
    assert result["reloadedNeighbours"] == result["afterDelete"]
    assert result["rebuilt"]["embedded"] == 19 and result["rebuiltCalls"] == [16, 3]
    assert result["search"][0][0] in {"c04", "c05"}  # the cat's card (the vet's was deleted)
