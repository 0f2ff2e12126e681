"""Clusters and graph data for the Memory page (reference 8): strong semantic edges from given
similarities, mention links, union-find clusters, and deterministic category and clustered
graphs as plain dicts (the force-directed relaxation is the page's business)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .model import CATEGORIES, Card, Category, MemoryStore
from .select import MemoryIndex

# Calibrated on the reference's corpus: true pairs >= ~0.926, generic-vocabulary bridges
# 0.910-0.914; two different people with template-like facts measured 0.945.
CLUSTER_MIN_SIM = 0.92
PERSON_PAIR_MIN_SIM = 0.95
Bars = tuple[float, float]  # (any pair, two people)
REFERENCE_BARS: Bars = (CLUSTER_MIN_SIM, PERSON_PAIR_MIN_SIM)

TONE_OF: dict[Category, str] = {"personne": "violet", "organisation": "sky", "projet": "lime", "autre": "amber"}

Edge = tuple[str, str, float]
Node = dict[str, Any]
GraphEdge = dict[str, Any]
Graph = dict[str, list[dict[str, Any]]]

CORE_ID = "core"
PROFILE_ID = "profile"
HUB_RING = 160.0  # smallest distance of a hub from the core
LEAF_RING = 50.0  # distance of a hub's first row of leaves
LEAF_ROW_STEP = 28.0
LEAVES_PER_ROW = 12
OUTER_GAP = 90.0  # singletons sit this far beyond the farthest leaf


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


# --- graphs -------------------------------------------------------------------------------------

def category_graph(
    cards: Sequence[Card], profile: str = "", *, previous: Mapping[str, tuple[float, float]] | None = None
) -> Graph:
    """Core, a profile hub when there is a profile, one hub per non-empty category, one leaf per
    card around its hub, mention links between leaves. Empty memory: the core alone."""
    hubs: list[tuple[Node, list[Card]]] = []
    if profile.strip():
        hubs.append((_node(PROFILE_ID, "profile", "profile", "amber"), []))
    for category in CATEGORIES:
        members = [card for card in cards if card.category == category]
        if members:
            hubs.append((_node(f"hub:{category}", "hub", category, TONE_OF[category]), members))
    nodes, edges = _hub_layout(hubs, [], kind_of_hub_edge="tether")
    edges.extend(_link_edges(mention_links(cards), "mention", dashed=False))
    return _with_previous({"nodes": nodes, "edges": edges}, previous)


def clustered_graph(
    cards: Sequence[Card],
    edges: Iterable[Edge],
    profile: str = "",
    *,
    previous: Mapping[str, tuple[float, float]] | None = None,
    bars: Bars = REFERENCE_BARS,
) -> Graph:
    """Core, an optional profile hub, one hub per cluster with its leaves ringed around it,
    singletons on an outer ring tethered to the core; strong semantic edges dashed, mention
    links plain."""
    by_id = {card.id: card for card in cards}
    links = mention_links(cards)
    strong = strong_edges(cards, edges, bars=bars)
    clusters = build_clusters(cards, strong, links=links, bars=bars)
    hubs: list[tuple[Node, list[Card]]] = []
    if profile.strip():
        hubs.append((_node(PROFILE_ID, "profile", "profile", "amber"), []))
    for cluster in clusters:
        hub = _node(f"cluster:{cluster.id}", "cluster", by_id[cluster.label].entity, cluster.tone)
        hubs.append((hub, [by_id[cid] for cid in cluster.members]))
    clustered = {cid for cluster in clusters for cid in cluster.members}
    singletons = [card for card in cards if card.id not in clustered]
    nodes, graph_edges = _hub_layout(hubs, singletons, kind_of_hub_edge="tether")
    graph_edges.extend(_link_edges([(a, b) for a, b, _ in strong], "semantic", dashed=True))
    graph_edges.extend(_link_edges(links, "mention", dashed=False))
    return _with_previous({"nodes": nodes, "edges": graph_edges}, previous)


def neighbors_of(graph: Graph, node_id: str) -> set[str]:
    """The ids of the nodes joined to `node_id` by any edge (for highlighting)."""
    out: set[str] = set()
    for edge in graph["edges"]:
        if edge["source"] == node_id:
            out.add(edge["target"])
        elif edge["target"] == node_id:
            out.add(edge["source"])
    return out


def card_node_id(card_id: str) -> str:
    return f"card:{card_id}"


def _node(node_id: str, kind: str, label: str, tone: str, x: float = 0.0, y: float = 0.0) -> Node:
    return {"id": node_id, "kind": kind, "label": label, "tone": tone, "x": x, "y": y}


def _leaf(card: Card, x: float, y: float) -> Node:
    node = _node(card_node_id(card.id), "card", card.entity, TONE_OF[card.category], x, y)
    node.update({"card_id": card.id, "category": card.category, "status": card.status, "scope": card.scope})
    return node


def _edge(source: str, target: str, kind: str, *, dashed: bool = False) -> GraphEdge:
    return {"source": source, "target": target, "kind": kind, "dashed": dashed}


def _link_edges(pairs: Iterable[tuple[str, str]], kind: str, *, dashed: bool) -> list[GraphEdge]:
    return [_edge(card_node_id(a), card_node_id(b), kind, dashed=dashed) for a, b in pairs]


def _leaf_radius(count: int) -> float:
    rows = max(1, math.ceil(count / LEAVES_PER_ROW))
    return LEAF_RING + LEAF_ROW_STEP * (rows - 1)


def _hub_layout(
    hubs: list[tuple[Node, list[Card]]], singletons: list[Card], *, kind_of_hub_edge: str
) -> tuple[list[Node], list[GraphEdge]]:
    """Hubs evenly on a ring around the core, far enough apart that every leaf is nearer its own
    hub than any other hub or the core; singletons evenly on an outer ring."""
    nodes: list[Node] = [_node(CORE_ID, "core", "memory", "neutral")]
    edges: list[GraphEdge] = []
    widest = max((_leaf_radius(len(members)) for _, members in hubs), default=0.0)
    ring = _hub_ring(len(hubs), widest)
    for i, (hub, members) in enumerate(hubs):
        angle = -math.pi / 2 + 2 * math.pi * i / len(hubs)
        hx, hy = ring * math.cos(angle), ring * math.sin(angle)
        hub.update({"x": _round(hx), "y": _round(hy)})
        nodes.append(hub)
        edges.append(_edge(CORE_ID, hub["id"], kind_of_hub_edge))
        for j, card in enumerate(members):
            row, slot = divmod(j, LEAVES_PER_ROW)
            in_row = min(LEAVES_PER_ROW, len(members) - row * LEAVES_PER_ROW)
            radius = LEAF_RING + LEAF_ROW_STEP * row
            theta = angle + 2 * math.pi * (slot + 0.5 * (row % 2)) / in_row
            nodes.append(_leaf(card, _round(hx + radius * math.cos(theta)), _round(hy + radius * math.sin(theta))))
            edges.append(_edge(hub["id"], card_node_id(card.id), "member"))
    outer = (ring + widest + OUTER_GAP) if hubs else HUB_RING
    for k, card in enumerate(singletons):
        angle = -math.pi / 2 + 2 * math.pi * (k + 0.5) / len(singletons)
        nodes.append(_leaf(card, _round(outer * math.cos(angle)), _round(outer * math.sin(angle))))
        edges.append(_edge(CORE_ID, card_node_id(card.id), "tether"))
    return nodes, edges


def _hub_ring(hub_count: int, widest: float) -> float:
    """Adjacent hubs at least 2.2 leaf radii apart, and the core as far: a leaf (at most `widest`
    from its hub) is then strictly nearer its own hub."""
    ring = max(HUB_RING, 2.2 * widest)
    if hub_count >= 2:
        ring = max(ring, 1.1 * widest / math.sin(math.pi / hub_count))
    return ring


def _round(value: float) -> float:
    return round(value, 2) + 0.0  # + 0.0 turns -0.0 into 0.0


def _with_previous(graph: Graph, previous: Mapping[str, tuple[float, float]] | None) -> Graph:
    """Nodes the page already placed keep their positions (the view does not jump when a card
    is added); the core stays pinned at the origin."""
    if previous:
        for node in graph["nodes"]:
            position = previous.get(node["id"])
            if node["id"] != CORE_ID and position is not None and all(map(math.isfinite, position)):
                node["x"], node["y"] = float(position[0]), float(position[1])
    return graph
