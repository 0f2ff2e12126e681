"""memory/semantic.py without a model: neighbour lists to edges, the distinct-identity rule (people only), the
e5 bars reaching dedupe, clustering and memory_search."""

from __future__ import annotations

import math

from memory_cards import card, store

from openmasq.memory.search import search_memory
from openmasq.memory.semantic import (
    CLUSTER_MIN_SIM,
    MERGE_MIN_SIM,
    PERSON_CLUSTER_MIN_SIM,
    SEARCH_MIN_SIM,
    SemanticSearch,
    cluster_edges,
    different_people,
    semantic_clusters,
    semantic_merge_suggestions,
    similarity_edges,
)

MARIE = card("m", "Marie Dupont", "personne", "Ingénieure chez Airbus.")
JULIEN = card("j", "Julien Moreau", "personne", "Ingénieur chez Airbus.")
MARIE_AGAIN = card("m2", "Marie", "personne", "Travaille chez Airbus.")
EXTENSION = card("e1", "Extension de la maison", "projet", "Vingt mètres carrés côté jardin.")
AGRANDISSEMENT = card("e2", "Agrandissement maison", "projet", "Vingt mètres carrés sur le jardin.")


def test_edges_keep_each_pair_once_with_its_best_cosine() -> None:
    edges = similarity_edges({"a": [("b", 0.91), ("a", 1.0)], "b": [("a", 0.93), ("c", float("nan"))]})
    assert edges == [("a", "b", 0.93)]


def test_the_identity_rule_is_for_people_only() -> None:
    assert different_people(MARIE, JULIEN)
    assert not different_people(MARIE, MARIE_AGAIN)
    assert not different_people(EXTENSION, AGRANDISSEMENT)  # no shared name token, still one project


def test_merge_suggestions_use_the_e5_bar_and_never_join_different_people() -> None:
    memory = store(MARIE, JULIEN, EXTENSION, AGRANDISSEMENT)
    near = {"m": [("j", 0.99)], "e1": [("e2", MERGE_MIN_SIM)]}
    [suggestion] = semantic_merge_suggestions(memory, near)
    assert {suggestion.keep_id, suggestion.drop_id} == {"e1", "e2"} and suggestion.reason == "semantic"
    assert semantic_merge_suggestions(memory, {"e1": [("e2", MERGE_MIN_SIM - 0.001)]}) == []


def test_clusters_use_a_stricter_bar_between_two_people() -> None:
    cards = [MARIE, JULIEN, EXTENSION, AGRANDISSEMENT]
    between = (CLUSTER_MIN_SIM + PERSON_CLUSTER_MIN_SIM) / 2
    near = {"m": [("j", between)], "e1": [("e2", between)]}
    assert [(a, b) for a, b, _ in cluster_edges(cards, near)] == [("e1", "e2")]
    assert [c.members for c in semantic_clusters(cards, near, links=())] == [("e1", "e2")]


def test_search_top_up_applies_the_e5_bar() -> None:
    memory = store(card("k", "Karl Studio", "organisation", "Agence de design."), policy="all")
    below, above = SEARCH_MIN_SIM - 0.005, SEARCH_MIN_SIM + 0.005
    assert below > 0.85 and above < 0.88  # between the reference's 0.88 and e5's own bar

    def found(similarity: float) -> list[str]:
        top_up = SemanticSearch(lambda query, k: [("k", similarity)])
        result = search_memory(memory, "graphisme", scope=None, tz_offset_minutes=0, semantic=top_up)
        return [hit.card.id for hit in result.hits]

    assert found(above) == ["k"]
    assert found(below) == []
    assert not math.isnan(SEARCH_MIN_SIM)
