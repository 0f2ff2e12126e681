"""Refusals: value-keyed tombstones of deleted or rejected cards and removed facts, matched by
key, alias and organisation core, listed and lifted, every change journaled."""

from __future__ import annotations

import pytest

from openmasq.memory.model import Card, MemoryStore, Refusal, Sentence
from openmasq.memory.refusals import (
    add_refusal,
    card_refusal,
    entity_refusals,
    fact_refusal,
    fact_refusals,
    is_entity_refused,
    lift_for_card,
    list_refusals,
    org_core,
    remove_refusals,
)

KARL = Card("k", "Karl Studio", "organisation", [Sentence("Agence.", 1)], aliases=["KS", "karl@studio.fr"])


def test_a_card_refusal_holds_every_key_of_the_card():
    refusal = card_refusal(KARL, now=7, reason="rejected")
    assert refusal == Refusal("karl studio", None, 7, "rejected", ("ks", "karl@studio.fr"), "Karl Studio")


def test_a_fact_refusal_holds_the_normalised_sentence():
    refusal = fact_refusal(KARL, "Paie toujours en retard !", now=7)
    assert refusal is not None
    assert (refusal.entity_key, refusal.fact_key, refusal.label) == (
        "karl studio", "paie toujours en retard", "Paie toujours en retard !")
    assert fact_refusal(KARL, "  ...  ", now=7) is None


@pytest.mark.parametrize(
    "entity, refused",
    [("Karl Studio", True), ("KARL-STUDIO", True), ("Karl Studio SARL", True), ("KS", True),
     ("karl@studio.fr", True), ("Karl", False), ("Karl Studios", False), ("Norvik", False)],
)
def test_an_entity_refusal_matches_keys_aliases_and_organisation_cores(entity: str, refused: bool):
    data = MemoryStore()
    add_refusal(data, card_refusal(KARL, now=1, reason="deleted"), now=1, origin="user")  # type: ignore[arg-type]
    assert is_entity_refused(data, entity) is refused


def test_a_fact_refusal_matches_the_same_fact_or_a_restatement_only():
    data = MemoryStore(refusals=[Refusal("karl studio", "paie toujours en retard", 1)])
    assert fact_refusals(data, ["karl studio"], "Paie toujours en retard.")
    assert fact_refusals(data, ["ks", "karl studio"], "Karl Studio paie toujours en retard.")
    assert not fact_refusals(data, ["karl studio"], "Paie à 30 jours.")
    assert not fact_refusals(data, ["norvik"], "Paie toujours en retard.")
    assert not entity_refusals(data, ["karl studio"])  # a fact refusal does not refuse the entity


def test_organisation_cores():
    assert org_core("atelier torbel sarl") == "atelier torbel"
    assert org_core("sa") == ""


def test_adding_the_same_refusal_twice_keeps_one_and_journals_once():
    data = MemoryStore()
    refusal = card_refusal(KARL, now=1, reason="deleted")
    assert refusal is not None
    assert add_refusal(data, refusal, now=1, origin="user")
    assert not add_refusal(data, refusal, now=2, origin="user")
    assert len(data.refusals) == 1
    assert [e.action for e in data.journal] == ["refuse"]


def test_refusals_are_listed_newest_first_and_lifted_with_a_journal_entry():
    data = MemoryStore()
    old, new = Refusal("a", None, 1, label="A"), Refusal("b", None, 2, label="B")
    add_refusal(data, old, now=1, origin="user")
    add_refusal(data, new, now=2, origin="user")
    assert list_refusals(data) == [new, old]
    assert remove_refusals(data, [old], now=3, origin="user") == [old]
    assert data.refusals == [new]
    assert (data.journal[-1].action, data.journal[-1].before) == ("lift", "A")
    assert remove_refusals(data, [old], now=4, origin="user") == []


def test_lifting_for_a_card_removes_only_its_entity_refusals():
    data = MemoryStore(refusals=[Refusal("karl studio", None, 1), Refusal("karl studio", "agence", 1),
                                 Refusal("norvik", None, 1)])
    lifted = lift_for_card(data, KARL, now=5, origin="user")
    assert [r.entity_key for r in lifted] == ["karl studio"]
    assert [(r.entity_key, r.fact_key) for r in data.refusals] == [("karl studio", "agence"), ("norvik", None)]
