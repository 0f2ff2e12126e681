"""Clusters and graph data: strong edges, mention links, union-find clusters, the category and
clustered graphs and their layout (reference 8, 11.9, 11.10; section 12 item 9)."""

from __future__ import annotations

from openmasq.memory.cluster import (
    CLUSTER_MIN_SIM,
    build_clusters,
    card_embed_text,
    graph_cards,
    mention_links,
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


def test_clusters_do_not_depend_on_the_order_of_the_edges():
    cards = [NINON, LAWYERS, KARL, DESIGN, MARIE, JULES]
    edges = [("ks", "dz", 0.95), ("mk", "jb", 0.97), ("dz", "ks", 0.94)]
    assert build_clusters(cards, edges) == build_clusters(cards, list(reversed(edges)))


def test_a_person_pair_below_its_bar_is_neither_clustered_nor_a_strong_edge():
    assert strong_edges([MARIE, JULES], [("mk", "jb", 0.94)]) == []
    assert build_clusters([MARIE, JULES], [("mk", "jb", 0.94)]) == []


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


# --- 11.10: mention links ---------------------------------------------------------------------------

def test_a_card_whose_facts_name_another_card_is_linked_to_it():
    cards = [
        card("a", "Alice Brune", "personne", "Travaille avec Bravo Conseil."),
        card("b", "Bravo Conseil", "organisation", "Cabinet."),
        card("c", "Projet Cèdre", "projet", "Refonte."),
    ]
    assert mention_links(cards) == [("a", "b")]
