"""Clusters and graph data: strong edges, mention links, union-find clusters, the category and
clustered graphs and their layout (reference 8, 11.9, 11.10; section 12 item 9)."""

from __future__ import annotations

import copy
import math

import pytest

from openmasq.memory.cluster import (
    CLUSTER_MIN_SIM,
    build_clusters,
    card_embed_text,
    card_node_id,
    category_graph,
    clustered_graph,
    graph_cards,
    mention_links,
    neighbors_of,
    strong_edges,
)
from openmasq.memory.model import Card, Category, MemoryStore, Sentence, Status

T0 = 1_750_000_000_000


def card(
    card_id: str, entity: str, category: Category = "organisation", facts: str = "", *,
    aliases: tuple[str, ...] = (), at: int = T0, status: Status = "confirmed",
) -> Card:
    return Card(
        id=card_id, entity=entity, category=category, sentences=[Sentence(facts, at)] if facts else [],
        aliases=list(aliases), created_at=at, updated_at=at, status=status,
    )


NINON = card("nv", "Ninon Verdolini", "personne", "Cliente.", aliases=("Ninon",))
LAWYERS = card("lx", "Lexa Avocats", "organisation", "Cabinet qui défend Ninon Verdolini.")
KARL = card("ks", "Karl Studio", "organisation", "Agence de design.")
DESIGN = card("dz", "Studio Dizain", "organisation", "Autre agence de design.")
MARIE = card("mk", "Marie Kerner", "personne", "Graphiste.")
JULES = card("jb", "Jules Berthe", "personne", "Graphiste.")


# --- 11.9 -----------------------------------------------------------------------------------------

def test_a_strong_edge_groups_two_cards_and_a_weak_one_does_not():
    assert [c.members for c in build_clusters([KARL, DESIGN], [("ks", "dz", 0.93)])] == [("ks", "dz")]
    assert build_clusters([KARL, DESIGN], [("ks", "dz", 0.88)]) == []
    assert CLUSTER_MIN_SIM > 0.914  # generic-vocabulary bridges measured 0.910-0.914


def test_two_people_need_the_higher_bar_and_a_mention_unites_them_anyway():
    assert build_clusters([MARIE, JULES], [("mk", "jb", 0.945)]) == []
    assert [c.members for c in build_clusters([MARIE, KARL], [("mk", "ks", 0.945)])] == [("mk", "ks")]
    assert [c.members for c in build_clusters([MARIE, JULES], [("mk", "jb", 0.96)])] == [("mk", "jb")]
    boss = card("bs", "Sacha Morel", "personne", "Manager de Jules Berthe.")
    assert [c.members for c in build_clusters([boss, JULES], [])] == [("bs", "jb")]


def test_a_mention_alone_groups_a_person_and_her_lawyers():
    clusters = build_clusters([NINON, LAWYERS, KARL], [])
    assert [c.members for c in clusters] == [("nv", "lx")]


def test_the_label_is_the_most_connected_member_and_a_tone_tie_goes_to_the_first_category():
    hub = card("hb", "Hub Conseil", "projet", "Projet central.")
    edges = [("mk", "hb", 0.96), ("hb", "ks", 0.96)]
    clusters = build_clusters([MARIE, hub, KARL], edges)
    assert len(clusters) == 1
    assert clusters[0].label == "hb"
    assert clusters[0].tone == "violet"  # personne, projet, organisation: 1/1/1, personne seen first
    assert clusters[0].id == "cl-0"


def test_the_clustered_graph_has_a_group_hub_leaves_a_tethered_singleton_and_a_dashed_edge():
    graph = clustered_graph([KARL, DESIGN, MARIE], [("ks", "dz", 0.95)])
    nodes = {node["id"]: node for node in graph["nodes"]}
    assert nodes["cluster:cl-0"]["kind"] == "cluster"
    assert nodes["cluster:cl-0"]["label"] == "Karl Studio"
    assert neighbors_of(graph, "cluster:cl-0") == {"core", card_node_id("ks"), card_node_id("dz")}
    assert neighbors_of(graph, card_node_id("mk")) == {"core"}
    dashed = [e for e in graph["edges"] if e["dashed"]]
    assert dashed == [{"source": "card:ks", "target": "card:dz", "kind": "semantic", "dashed": True}]


def test_graphs_and_clusters_are_deterministic():
    cards = [NINON, LAWYERS, KARL, DESIGN, MARIE, JULES]
    edges = [("ks", "dz", 0.95), ("mk", "jb", 0.97), ("dz", "ks", 0.94)]
    assert clustered_graph(cards, edges, "Profil.") == clustered_graph(cards, list(reversed(edges)), "Profil.")
    assert build_clusters(cards, edges) == build_clusters(cards, list(reversed(edges)))
    assert category_graph(cards, "Profil.") == category_graph(cards, "Profil.")


def test_a_person_pair_below_its_bar_is_neither_clustered_nor_drawn():
    graph = clustered_graph([MARIE, JULES], [("mk", "jb", 0.94)])
    assert not any(node["kind"] == "cluster" for node in graph["nodes"])
    assert not any(edge["kind"] == "semantic" for edge in graph["edges"])


def test_the_embedded_text_of_a_card():
    assert card_embed_text(NINON) == "Ninon Verdolini (Ninon). Cliente."
    assert card_embed_text(card("x", " Karl Studio ", facts="")) == "Karl Studio."


# --- edges, links ---------------------------------------------------------------------------------

def test_strong_edges_keep_each_pair_once_with_its_best_cosine_and_drop_unknown_ids():
    edges = [
        ("ks", "dz", 0.93), ("dz", "ks", 0.96), ("ks", "gone", 0.99), ("ks", "ks", 1.0), ("mk", "ks", float("nan")),
    ]
    assert strong_edges([KARL, DESIGN, MARIE], edges) == [("ks", "dz", 0.96)]


def test_fix9_cjk_cards_are_linked_by_mention():
    zhang = card("zw", "张伟", "personne", "王芳的同事。")
    wang = card("wf", "王芳", "personne", "设计师。")
    assert mention_links([zhang, wang]) == [("zw", "wf")]
    assert [c.members for c in build_clusters([zhang, wang], [])] == [("zw", "wf")]


def test_rejected_cards_are_not_drawn():
    memory = MemoryStore(cards=[KARL, card("r", "Rejeté", status="rejected")])
    assert [c.id for c in graph_cards(memory)] == ["ks"]


# --- 11.10: category graph ------------------------------------------------------------------------

GRAPH_CARDS = [
    card("a", "Alice Brune", "personne", "Travaille avec Bravo Conseil."),
    card("b", "Bravo Conseil", "organisation", "Cabinet."),
    card("c", "Projet Cèdre", "projet", "Refonte."),
]


def test_the_category_graph_has_a_core_hubs_for_non_empty_categories_and_leaves():
    graph = category_graph(GRAPH_CARDS, "Je suis designer.")
    kinds = [node["kind"] for node in graph["nodes"]]
    assert kinds.count("core") == 1
    hubs = [node["id"] for node in graph["nodes"] if node["kind"] in ("hub", "profile")]
    assert hubs == ["profile", "hub:personne", "hub:organisation", "hub:projet"]
    assert kinds.count("card") == 3


def test_cross_links_join_leaves_and_define_the_neighbourhood():
    assert mention_links(GRAPH_CARDS) == [("a", "b")]
    graph = category_graph(GRAPH_CARDS)
    assert neighbors_of(graph, "card:a") == {"hub:personne", "card:b"}
    assert {"source": "card:a", "target": "card:b", "kind": "mention", "dashed": False} in graph["edges"]


def test_an_empty_memory_is_the_core_alone():
    graph = category_graph([], "")
    assert [node["id"] for node in graph["nodes"]] == ["core"]
    assert graph["edges"] == []


# --- 11.10: layout (the force relaxation itself runs in the page) ------------------------------

MANY = [card(f"p{i}", f"Personne Zorva{chr(97 + i)}", "personne") for i in range(26)] + [
    card(f"o{i}", f"Société Zorvo{chr(97 + i)}", "organisation") for i in range(3)
] + [card("j", "Projet Zorvj", "projet")]


@pytest.mark.parametrize("build", [lambda: category_graph(MANY, "Profil."), lambda: clustered_graph(MANY, [])])
def test_the_layout_is_finite_and_deterministic_with_the_core_at_the_origin(build):
    graph = build()
    assert graph == build()
    for node in graph["nodes"]:
        assert math.isfinite(node["x"]) and math.isfinite(node["y"])
    core = graph["nodes"][0]
    assert (core["id"], core["x"], core["y"]) == ("core", 0.0, 0.0)


def test_each_leaf_is_nearer_its_own_hub_than_any_other_hub_or_the_core():
    graph = category_graph(MANY, "Profil.")
    position = {node["id"]: (node["x"], node["y"]) for node in graph["nodes"]}
    hubs = [node["id"] for node in graph["nodes"] if node["kind"] in ("hub", "profile")] + ["core"]
    for edge in graph["edges"]:
        if edge["kind"] != "member":
            continue
        leaf = position[edge["target"]]
        own = math.dist(leaf, position[edge["source"]])
        assert all(own < math.dist(leaf, position[hub]) for hub in hubs if hub != edge["source"])


def test_building_a_graph_mutates_neither_the_cards_nor_the_previous_positions():
    cards = copy.deepcopy(GRAPH_CARDS)
    previous = {"card:a": (5.0, 6.0), "core": (9.0, 9.0)}
    kept = dict(previous)
    clustered_graph(cards, [("a", "c", 0.99)], "Profil.", previous=previous)
    category_graph(cards, "Profil.", previous=previous)
    assert cards == GRAPH_CARDS
    assert previous == kept


def test_previous_positions_seed_the_nodes_and_only_the_core_stays_pinned():
    previous = {"card:a": (5.0, 6.0), "core": (9.0, 9.0), "hub:projet": (1.0, 2.0)}
    nodes = {node["id"]: node for node in category_graph(GRAPH_CARDS, previous=previous)["nodes"]}
    assert (nodes["card:a"]["x"], nodes["card:a"]["y"]) == (5.0, 6.0)
    assert (nodes["hub:projet"]["x"], nodes["hub:projet"]["y"]) == (1.0, 2.0)
    assert (nodes["core"]["x"], nodes["core"]["y"]) == (0.0, 0.0)
    fresh = {node["id"]: node for node in category_graph(GRAPH_CARDS)["nodes"]}
    assert nodes["card:b"] == fresh["card:b"]


def test_leaves_carry_what_the_page_needs():
    proposed = card("p", "Zorvex", "projet", status="proposed")
    leaf = next(n for n in category_graph([proposed])["nodes"] if n["kind"] == "card")
    assert leaf == {
        "id": "card:p", "kind": "card", "label": "Zorvex", "tone": "lime", "x": leaf["x"], "y": leaf["y"],
        "card_id": "p", "category": "projet", "status": "proposed", "scope": None,
    }
