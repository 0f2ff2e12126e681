"""Clusters for the Memory page's graph (reference 8): strong semantic edges from given similarities,
mention links and union-find clusters; the page lays the graph out itself (d3-force)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .model import Card, Category, MemoryStore
from .select import MemoryIndex

# Calibrated on the reference's corpus: true pairs >= ~0.926, generic-vocabulary bridges
# 0.910-0.914; two different people with template-like facts measured 0.945.
CLUSTER_MIN_SIM = 0.92
PERSON_PAIR_MIN_SIM = 0.95
Bars = tuple[float, float]  # (any pair, two people)
REFERENCE_BARS: Bars = (CLUSTER_MIN_SIM, PERSON_PAIR_MIN_SIM)

TONE_OF: dict[Category, str] = {"personne": "violet", "organisation": "sky", "projet": "lime", "autre": "amber"}

Edge = tuple[str, str, float]


def card_embed_text(card: Card) -> str:
    """The text embedded for a card: "Entity (alias1, alias2). Facts", trimmed."""
    aliases = [alias.strip() for alias in card.aliases if alias.strip()]
    head = f"{card.entity.strip()} ({', '.join(aliases)})" if aliases else card.entity.strip()
    return f"{head}. {card.facts.strip()}".strip()


def graph_cards(store: MemoryStore) -> list[Card]:
    """The cards the Memory page draws: every card but rejected ones."""
    return [card for card in store.cards if card.status != "rejected"]


# --- edges and clusters -------------------------------------------------------------------------

def strong_edges(cards: Sequence[Card], edges: Iterable[Edge], *, bars: Bars = REFERENCE_BARS) -> list[Edge]:
    """Similarity edges above the bar (0.95 when both cards are people), each pair once with its
    best cosine, strongest first; unknown ids and self-pairs dropped. `bars` (any pair, two people):
    the semantic tier passes the ones calibrated for its model (memory/semantic.py)."""
    by_id = {card.id: card for card in cards}
    order = {card.id: i for i, card in enumerate(cards)}
    best: dict[tuple[str, str], float] = {}
    for a, b, similarity in edges:
        if a == b or a not in by_id or b not in by_id or not math.isfinite(similarity):
            continue
        pair = (a, b) if order[a] < order[b] else (b, a)
        best[pair] = max(similarity, best.get(pair, -math.inf))
    kept = [(a, b, sim) for (a, b), sim in best.items() if sim >= edge_bar(by_id[a], by_id[b], bars)]
    return sorted(kept, key=lambda e: (-e[2], order[e[0]], order[e[1]]))


def edge_bar(a: Card, b: Card, bars: Bars = REFERENCE_BARS) -> float:
    """The similarity a semantic edge needs to count: stricter between two people."""
    both_people = a.category == "personne" and b.category == "personne"
    return bars[1] if both_people else bars[0]


def mention_links(cards: Sequence[Card]) -> list[tuple[str, str]]:
    """Pairs of cards where one names the other in its facts or aliases (CJK-aware)."""
    return list(MemoryIndex(cards).link_pairs)


@dataclass(frozen=True)
class Cluster:
    id: str  # cl-0, cl-1, ... largest first
    members: tuple[str, ...]  # card ids, in card order
    label: str  # the card id naming the cluster
    tone: str


def build_clusters(
    cards: Sequence[Card], edges: Iterable[Edge], *, links: Iterable[tuple[str, str]] | None = None,
    bars: Bars = REFERENCE_BARS,
) -> list[Cluster]:
    """Union-find over strong edges and mention links (mentions ignore thresholds: a manager's
    card naming an employee groups them); groups of 2 or more, largest first."""
    order = {card.id: i for i, card in enumerate(cards)}
    by_id = {card.id: card for card in cards}
    strong = strong_edges(cards, edges, bars=bars)
    mentions = mention_links(cards) if links is None else [p for p in links if p[0] in order and p[1] in order]
    parent = {card.id: card.id for card in cards}
    for a, b, _ in strong:
        _union(parent, a, b, order)
    for a, b in mentions:
        _union(parent, a, b, order)
    groups: dict[str, list[str]] = {}
    for card in cards:
        groups.setdefault(_root(parent, card.id), []).append(card.id)
    degree: dict[str, int] = {}
    for a, b, _ in strong:
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
    found = [members for members in groups.values() if len(members) >= 2]
    found.sort(key=lambda members: (-len(members), order[members[0]]))
    return [
        Cluster(f"cl-{i}", tuple(members), _label(members, degree, by_id, order), _tone(members, by_id))
        for i, members in enumerate(found)
    ]


def _root(parent: dict[str, str], node: str) -> str:
    while parent[node] != node:
        parent[node] = parent[parent[node]]
        node = parent[node]
    return node


def _union(parent: dict[str, str], a: str, b: str, order: Mapping[str, int]) -> None:
    ra, rb = _root(parent, a), _root(parent, b)
    if ra != rb:
        # The earlier card stays the root: the result does not depend on edge order.
        first, second = (ra, rb) if order[ra] < order[rb] else (rb, ra)
        parent[second] = first


def _label(members: list[str], degree: Mapping[str, int], by_id: Mapping[str, Card], order: Mapping[str, int]) -> str:
    """The most connected member (strong edges), then the most recently updated, then the first."""
    return min(members, key=lambda cid: (-degree.get(cid, 0), -by_id[cid].updated_at, order[cid]))


def _tone(members: list[str], by_id: Mapping[str, Card]) -> str:
    """The dominant category's tone; a tie goes to the category counted first in member order."""
    counts: dict[Category, int] = {}
    for card_id in members:
        category = by_id[card_id].category
        counts[category] = counts.get(category, 0) + 1
    top = max(counts.values())
    return TONE_OF[next(category for category, count in counts.items() if count == top)]
