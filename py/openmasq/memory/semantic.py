"""The semantic tier over multilingual-e5-small: the thresholds calibrated for it, the distinct-identity rule,
and card neighbours (from the embedding index) turned into merge suggestions, cluster edges and the
memory_search top-up. Pure: the vectors and the nearest-neighbour search live in the worker (embed-index.js)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from .cluster import Bars, Cluster, build_clusters, strong_edges
from .dedupe import Edge, MergeSuggestion, distinct_identities, merge_suggestions
from .model import Card, MemoryStore

# The thresholds below were measured with the CPython Embedder (openmasq.embed, the q4 ONNX model the browser
# also runs) on tests/data/calibration/ (34 FR/EN cards: 10 duplicate pairs, 9 pairs of different people with
# template-like facts, 21 related pairs, 521 unrelated pairs, 15 queries); `python bench/models.py calibrate`
# prints the table again. e5 puts unrelated texts high (median about 0.80): every bar is relative to that.
# The reference's bars (0.95, 0.92, 0.88) were set for another model and are not used with e5.

# Merge suggestions: same category, not different people. Duplicates measured 0.942-0.987 (10 of 10; lowest
# "John" vs "John Smith"); the closest other pair of one category 0.905, then 0.901 (a project and its
# architect's plans). In the 0.905-0.942 gap.
MERGE_MIN_SIM = 0.93
# Cluster edges unless both cards are people. Unrelated pairs reach 0.904 (a person and a town hall of her
# town); related pairs spread over 0.827-0.945: 11 of 25 related or duplicate pairs clear 0.91 and no
# unrelated pair does: a wrong edge joins two whole clusters (union-find), a missed one only leaves a card out.
CLUSTER_MIN_SIM = 0.91
# Cluster edges between two people. Different people with template-like facts ("Ingénieur chez Airbus à
# Toulouse...") reach 0.950; the same person noted twice 0.942-0.984 (5 of 6 pairs above 0.955).
PERSON_CLUSTER_MIN_SIM = 0.955
# memory_search top-up (a `query: ` against card passages). Relevant cards 0.847-0.919; irrelevant ones
# reach 0.853 (then 0.849, 0.843), with one at 0.881 (a colleague at the same company, for "essais en vol
# chez Airbus": half relevant). At 0.86: 25 of 29 relevant cards, 1 of 481 irrelevant (that colleague).
SEARCH_MIN_SIM = 0.86
# Neighbours kept per card by the index (issue 7): enough for suggestions and clusters, cheap to store.
NEIGHBOURS = 3

BARS: Bars = (CLUSTER_MIN_SIM, PERSON_CLUSTER_MIN_SIM)

Neighbour = tuple[str, float]
Neighbours = Mapping[str, Sequence[Neighbour]]  # card id -> its nearest cards, (id, cosine)


def different_people(a: Card, b: Card) -> bool:
    """The distinct-identity rule: two people whose names share no distinctive token ("Marie" and "Julien
    Moreau") are never one entity, however alike their facts. Only people: two notes or projects worded
    apart ("Extension de la maison" / "Agrandissement maison", 0.987) are the same thing."""
    return a.category == b.category == "personne" and distinct_identities(a, b)


def similarity_edges(neighbours: Neighbours) -> list[Edge]:
    """Each unordered pair once, with its best finite cosine, from the per-card neighbour lists."""
    best: dict[tuple[str, str], float] = {}
    for card_id, near in neighbours.items():
        for other, similarity in near:
            if other == card_id or not math.isfinite(similarity):
                continue
            pair = (card_id, other) if card_id < other else (other, card_id)
            best[pair] = max(similarity, best.get(pair, -math.inf))
    return [(a, b, sim) for (a, b), sim in sorted(best.items())]


def semantic_merge_suggestions(store: MemoryStore, neighbours: Neighbours) -> list[MergeSuggestion]:
    """Surface suggestions, then embedding pairs at MERGE_MIN_SIM that are not different people."""
    return merge_suggestions(store, similarity_edges(neighbours), min_similarity=MERGE_MIN_SIM,
                             distinct=different_people)


def cluster_edges(cards: Sequence[Card], neighbours: Neighbours) -> list[Edge]:
    """The similarity edges the Memory graph draws and clusters on (the e5 bars)."""
    return strong_edges(cards, similarity_edges(neighbours), bars=BARS)


def semantic_clusters(cards: Sequence[Card], neighbours: Neighbours,
                      links: Iterable[tuple[str, str]] | None = None) -> list[Cluster]:
    return build_clusters(cards, similarity_edges(neighbours), links=links, bars=BARS)


@dataclass(frozen=True)
class SemanticSearch:
    """memory_search's top-up (search.Semantic) over the index's nearest cards for a query; states its bar,
    which search_memory uses instead of the reference's."""

    nearest: Callable[[str, int], list[Neighbour]]
    min_similarity: float = SEARCH_MIN_SIM

    def __call__(self, query: str, k: int) -> list[Neighbour]:
        return [(card_id, sim) for card_id, sim in self.nearest(query, k) if sim >= self.min_similarity]


# --- calibration (bench/models.py calibrate, tests/host/test_semantic_calibration.py) ---------------------


@dataclass
class Calibration:
    """Cosines of the labelled calibration pairs, grouped the way the bars use them."""

    merge_same: list[float] = field(default_factory=list)  # duplicates that may be suggested
    merge_other: list[float] = field(default_factory=list)  # other same-category pairs that may be suggested
    blocked_people: list[float] = field(default_factory=list)  # different people (never suggested)
    cluster_related: list[float] = field(default_factory=list)  # related or duplicate, not both people
    cluster_unrelated: list[float] = field(default_factory=list)
    people_same: list[float] = field(default_factory=list)
    people_other: list[float] = field(default_factory=list)  # different people, related or not
    search_relevant: list[float] = field(default_factory=list)
    search_irrelevant: list[float] = field(default_factory=list)

    def table(self) -> list[tuple[str, float, int, int, float | None, float | None]]:
        """(bar, value, positives at or above, positives, lowest positive, highest negative) per bar."""
        rows = []
        for name, bar, pos, neg in (
            ("MERGE_MIN_SIM", MERGE_MIN_SIM, self.merge_same, self.merge_other),
            ("CLUSTER_MIN_SIM", CLUSTER_MIN_SIM, self.cluster_related, self.cluster_unrelated),
            ("PERSON_CLUSTER_MIN_SIM", PERSON_CLUSTER_MIN_SIM, self.people_same, self.people_other),
            ("SEARCH_MIN_SIM", SEARCH_MIN_SIM, self.search_relevant, self.search_irrelevant),
        ):
            rows.append((name, bar, sum(s >= bar for s in pos), len(pos), min(pos, default=None),
                         max(neg, default=None)))
        return rows

    def false_positives(self, bar_name: str) -> int:
        groups = {"MERGE_MIN_SIM": (MERGE_MIN_SIM, self.merge_other),
                  "CLUSTER_MIN_SIM": (CLUSTER_MIN_SIM, self.cluster_unrelated),
                  "PERSON_CLUSTER_MIN_SIM": (PERSON_CLUSTER_MIN_SIM, self.people_other),
                  "SEARCH_MIN_SIM": (SEARCH_MIN_SIM, self.search_irrelevant)}
        bar, negatives = groups[bar_name]
        return sum(s >= bar for s in negatives)


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def calibrate(cards: Sequence[Card], labels: Mapping[str, Any], vectors: Mapping[str, Sequence[float]],
              query_vectors: Sequence[Sequence[float]]) -> Calibration:
    """Groups every pair of `cards` by its label (`labels`: the "same", "different_people", "related" pair
    lists and the "queries" of tests/data/calibration/pairs.json), with the cosines of normalised vectors."""
    label_of: dict[frozenset[str], str] = {}
    for name in ("same", "different_people", "related"):
        for a, b in labels.get(name, []):
            label_of[frozenset((a, b))] = name
    out = Calibration()
    for a, b in combinations(cards, 2):
        label = label_of.get(frozenset((a.id, b.id)), "unrelated")
        sim = dot(vectors[a.id], vectors[b.id])
        _file_pair(out, a, b, label, sim)
    for query, qv in zip(labels.get("queries", []), query_vectors, strict=True):
        relevant = set(query["relevant"])
        for card in cards:
            (out.search_relevant if card.id in relevant else out.search_irrelevant).append(dot(qv, vectors[card.id]))
    return out


def _file_pair(out: Calibration, a: Card, b: Card, label: str, sim: float) -> None:
    both_people = a.category == b.category == "personne"
    if a.category == b.category:
        if different_people(a, b):
            out.blocked_people.append(sim)
        else:
            (out.merge_same if label == "same" else out.merge_other).append(sim)
    if both_people:
        (out.people_same if label == "same" else out.people_other).append(sim)
    else:
        (out.cluster_related if label in ("same", "related") else out.cluster_unrelated).append(sim)
