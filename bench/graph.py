"""How long the Mémoire graph's force layout takes to settle with 1,000 cards, in Chromium: the
page's own layout module (web/app/components/graph-layout.js, d3-force) run on the graph data the
worker's memoryGraph gives for a synthetic store (mention links from the real engine). Two figures:
the layout alone (ticks run back to back) and the layout as the page runs it (ticks batched per
animation frame, a canvas frame drawn after each batch). Target: settled within 2 s (issue 6).

Run in the dev venv:  /work/devvenv/bin/python bench/graph.py  [--cards 1000] [--runs 5]"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))

from openmasq.memory.cluster import build_clusters, graph_cards, mention_links  # noqa: E402
from openmasq.memory.model import CATEGORIES, Card, MemoryStore, Sentence  # noqa: E402
from openmasq.site.build import BuildOptions, build_site  # noqa: E402
from openmasq.site.serve import BackgroundServer  # noqa: E402

TARGET_MS = 2_000.0
SEED = 20_260_106
NOW = 1_767_225_600_000
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
LINK_SHARE = 0.3  # about one card in three names another one (a colleague, an employer)


def synthetic_store(count: int) -> MemoryStore:
    rng = random.Random(SEED)
    names = [f"Personne{i:04d} Nom{rng.randrange(10_000):04d}" for i in range(count)]
    cards = []
    for i, name in enumerate(names):
        fact = f"Fait numéro {i} sur {name.split()[0]}."
        if rng.random() < LINK_SHARE:
            fact += f" Travaille avec {names[rng.randrange(count)]}."
        cards.append(Card(id=f"c{i:05d}", entity=name, category=CATEGORIES[i % len(CATEGORIES)],
                          sentences=[Sentence(fact, NOW)], status="confirmed", created_at=NOW, updated_at=NOW))
    return MemoryStore(cards=cards)


def graph_of(store: MemoryStore) -> dict[str, Any]:
    """What MemoryApi.memory_graph sends the page (worker/memory_api.py)."""
    cards = graph_cards(store)
    links = mention_links(cards)
    clusters = build_clusters(cards, (), links=links)
    return {"nodes": [{"id": c.id, "entity": c.entity, "category": c.category, "status": c.status} for c in cards],
            "links": [{"source": a, "target": b} for a, b in links],
            "clusters": [{"id": cl.id, "members": list(cl.members), "label": cl.label} for cl in clusters]}


MEASURE = """async ([graph, runs]) => {
    const { layout, settle } = await import("./app/components/graph-layout.js");
    const canvas = document.createElement("canvas");
    canvas.width = 860; canvas.height = 520;
    document.body.append(canvas);
    const ctx = canvas.getContext("2d");
    const at = (v) => v / 3;
    const draw = (nodes, links) => {
        ctx.clearRect(0, 0, canvas.width, canvas.height);
        ctx.beginPath();
        for (const l of links) {
            ctx.moveTo(430 + at(l.source.x), 260 + at(l.source.y));
            ctx.lineTo(430 + at(l.target.x), 260 + at(l.target.y));
        }
        ctx.stroke();
        for (const n of nodes) {
            ctx.beginPath();
            ctx.arc(430 + at(n.x), 260 + at(n.y), 3, 0, 2 * Math.PI);
            ctx.fill();
        }
    };
    const pure = [], animated = [];
    let ticks = 0;
    for (let i = 0; i < runs; i++) {
        let start = performance.now();
        const still = layout(graph, { running: false });
        ticks = settle(still.simulation);
        pure.push(performance.now() - start);
        start = performance.now();
        await new Promise((resolve) => {
            const handle = layout(graph, { onTick: () => draw(handle.nodes, handle.links), onEnd: resolve });
        });
        animated.push(performance.now() - start);
    }
    return { pure, animated, ticks };
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--shot", type=Path, help="save the settled layout as a PNG here")
    args = parser.parse_args()
    graph = graph_of(synthetic_store(args.cards))
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        site = build_site(BuildOptions(out=Path(folder) / "site", repo=ROOT)).out
        server = BackgroundServer(site, port=0).start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
                page = browser.new_page()
                page.goto(server.url + "manifest.webmanifest")  # any same-origin document: no app boot
                result = page.evaluate(MEASURE, [graph, args.runs])
                if args.shot:
                    page.locator("canvas").screenshot(path=str(args.shot))
                browser.close()
        finally:
            server.stop()
    pure, animated = statistics.median(result["pure"]), statistics.median(result["animated"])
    print(f"graph layout, {len(graph['nodes'])} cards, {len(graph['links'])} mention links, "
          f"{len(graph['clusters'])} clusters, {result['ticks']} ticks, median of {args.runs} runs (Chromium)")
    print(f"  layout alone (ticks back to back)      {pure:8.0f} ms")
    print(f"  as the page runs it (frames + canvas)  {animated:8.0f} ms   target <= {TARGET_MS:.0f} ms: "
          f"{'ok' if animated <= TARGET_MS else 'OVER'}")


if __name__ == "__main__":
    main()
