"""User operations on the memory, each journaled: creation and naming, edits, review (confirm,
reject, the inbox), deletion with undo, restore, merge, refusals, suggestions, profile, page
search (catalogue 11.4) and bad input."""

from __future__ import annotations

import pytest

from openmasq.memory import ops
from openmasq.memory.compaction import split_sentences
from openmasq.memory.keys import mentions
from openmasq.memory.merge import merge_extraction
from openmasq.memory.model import (
    MAX_ALIASES,
    MAX_FACTS_CHARS,
    MAX_NAME_CHARS,
    MAX_PROFILE_CHARS,
    Card,
    MemoryStore,
    ResolvedExtraction,
    ResolvedFact,
    Sentence,
    Superseded,
)
from openmasq.memory.normalise import normalise


def new(data: MemoryStore, card_id: str, entity: str, facts: str = "", now: int = 1, **kwargs: object) -> Card:
    card = ops.create_card(data, card_id=card_id, entity=entity, facts=facts, now=now, **kwargs)  # type: ignore[arg-type]
    assert card is not None
    return card


def machine_card(card_id: str, entity: str, facts: str, *, updated_at: int = 10) -> Card:
    live = [Sentence(p, updated_at, "auto-silent") for p in split_sentences(facts)]
    return Card(card_id, entity, "organisation", live, status="proposed", source="auto", created_at=updated_at,
                updated_at=updated_at)


def silent(data: MemoryStore, entity: str, fact: str, now: int) -> None:
    merge_extraction(data, ResolvedExtraction((ResolvedFact(f"x{now}", entity, "organisation", fact),)),
                     now=now, origin="auto-silent")


# --- catalogue 11.4 -------------------------------------------------------------------------------

def test_an_empty_entity_makes_no_card_and_long_facts_are_cut():
    data = MemoryStore()
    assert ops.create_card(data, card_id="a", entity="   ", now=1) is None
    card = new(data, "b", "Karl Studio", "Mot. " * 1000)
    assert len(card.facts) <= MAX_FACTS_CHARS
    assert (card.status, card.source, card.reviewed_at) == ("confirmed", "user", 1)


def test_facts_typed_one_per_line_are_one_sentence_each():
    card = new(MemoryStore(), "a", "Marie Dupont", "Travaille chez Karl Studio SAS\n\nAime le jazz.  Joue du piano\n")
    assert [s.text for s in card.sentences] == ["Travaille chez Karl Studio SAS", "Aime le jazz.", "Joue du piano"]


def test_normalisation_folds_accents_and_separators():
    assert normalise("Évreux-Ville") == "evreux ville"


def test_a_sentence_period_is_not_an_email_dot_and_the_text_mentions_the_card():
    assert normalise("écris à augustin.vaudel@karl-studio.fr.") == "ecris a augustin.vaudel@karl studio.fr"
    card = Card("k", "Karl Studio", "organisation")
    assert mentions(normalise("le devis de Karl Studio."), card)


def test_mentions_are_whole_keys():
    card = Card("k", "Karl Studio", "organisation")
    assert mentions(normalise("chez karl-studio hier"), card)
    assert not mentions(normalise("le karlstudioblog"), card)


def test_the_inbox_holds_machine_cards_and_user_cards_the_machine_changed():
    data = MemoryStore()
    data.cards.append(machine_card("auto", "Norvik", "Fournisseur."))
    new(data, "plain", "Karl Studio", "Agence.")
    touched = new(data, "touched", "Ondine", "Refonte.")
    touched.history.insert(0, Superseded(Sentence("Deadline septembre.", 1), 20, "replaced"))
    touched.updated_at = 20  # a machine update: updated_at moves, reviewed_at does not
    assert sorted(ops.review_inbox_ids(data)) == ["auto", "touched"]


def test_a_reviewed_card_leaves_the_inbox_and_a_later_machine_update_brings_it_back():
    data = MemoryStore(cards=[machine_card("k", "Karl Studio", "Agence.")])
    ops.confirm_card(data, "k", now=20)
    card = data.cards[0]
    assert (card.status, card.reviewed_at, card.updated_at) == ("confirmed", 20, 20)
    assert not ops.in_review_inbox(card)
    silent(data, "Karl Studio", "Paie à 30 jours.", now=30)
    assert ops.in_review_inbox(card)


def test_page_search_matches_entity_aliases_and_facts():
    data = MemoryStore()
    new(data, "a", "Karl Studio", "Agence.")
    new(data, "b", "Augustin Vaudel", "Directeur.", aliases=["augustin@karl-studio.fr"])
    new(data, "c", "Norvik", "Siège à Évreux.")
    assert ops.matching_card_ids(data, "") is None and ops.matching_card_ids(data, "   ") is None
    assert sorted(ops.matching_card_ids(data, "karl") or []) == ["a", "b"]
    assert ops.matching_card_ids(data, "EVREUX") == ["c"]
    assert ops.matching_card_ids(data, "zzz") == []


@pytest.mark.parametrize(
    "text, title",
    [
        ("Toujours relancer les prospects sous quarante-huit heures ouvrées.", "Toujours relancer les prospects sous…"),
        ("Réponses courtes", "Réponses courtes"),
        ("  Réponses \n\t courtes  ", "Réponses courtes"),
        ("Anticonstitutionnellementanticonstitutionnellementanticonstitutionnellement x",
         "Anticonstitutionnellementanticonstitutionnellementanticonsti…"),
    ],
)
def test_note_titles(text: str, title: str):
    assert ops.note_title(text) == title
    assert len(ops.note_title(text)) <= 61


def test_blank_cards_are_numbered():
    data = MemoryStore()
    names = [ops.create_blank_card(data, card_id=f"b{i}", now=i).entity for i in range(3)]
    assert names == ["Nouvelle fiche", "Nouvelle fiche 2", "Nouvelle fiche 3"]


def test_an_alias_occupying_the_name_moves_the_number_on():
    data = MemoryStore()
    new(data, "a", "Brouillon", aliases=["nouvelle-fiche"])
    assert ops.new_card_entity(data) == "Nouvelle fiche 2"


def test_a_note_is_titled_from_the_selection():
    data = MemoryStore()
    note = ops.create_note(data, card_id="n", text="Toujours relancer les prospects sous 48 heures.", now=3)
    assert note is not None
    assert (note.entity, note.category, note.facts) == ("Toujours relancer les prospects sous…", "autre",
                                                        "Toujours relancer les prospects sous 48 heures.")


# --- edits ----------------------------------------------------------------------------------------

def test_edits_confirm_a_proposed_card_and_are_journaled():
    data = MemoryStore(cards=[machine_card("k", "Karl Studio", "Agence.")])
    ops.rename_card(data, "k", "Karl Studio Lyon", now=2)
    ops.set_aliases(data, "k", ["KS", " ", "ks", "Karl Studio Lyon"], now=3)
    ops.set_category(data, "k", "projet", now=4)
    ops.set_scope(data, "k", "travail", now=5)
    card = data.cards[0]
    assert (card.entity, card.aliases, card.category, card.scope) == ("Karl Studio Lyon", ["KS"], "projet", "travail")
    assert (card.status, card.reviewed_at, card.updated_at) == ("confirmed", 5, 5)
    assert [(e.action, e.detail) for e in data.journal] == [
        ("edit", "entité"), ("edit", "alias"), ("edit", "catégorie"), ("edit", "espace")]
    assert ops.rename_card(data, "k", "  ", now=6).entity == "Karl Studio Lyon"
    assert ops.set_category(data, "k", "planète", now=7).category == "autre"


def test_adding_a_sentence_merges_it_and_the_users_wording_wins_a_restatement():
    data = MemoryStore()
    new(data, "k", "Ondine", "Refonte du site, livraison en juin. PDG de Walmart depuis janvier.")
    ops.add_sentence(data, "k", "Est PDG de Walmart depuis janvier.", now=2)
    card = data.cards[0]
    assert card.facts == "Refonte du site, livraison en juin. Est PDG de Walmart depuis janvier."
    assert [h.sentence.text for h in card.history] == ["PDG de Walmart depuis janvier."]
    assert data.journal[-1].action == "replace"


def test_editing_a_sentence_keeps_the_old_wording_restorable():
    data = MemoryStore()
    new(data, "k", "Ondine", "Deadline fin septembre. Budget 40 k€.")
    ops.edit_sentence(data, "k", 0, "Deadline le 15 novembre.", now=2)
    card = data.cards[0]
    assert card.facts == "Deadline le 15 novembre. Budget 40 k€."
    assert [(h.sentence.text, h.reason) for h in card.history] == [("Deadline fin septembre.", "replaced")]
    ops.restore(data, "k", 0, now=3)
    assert card.facts == "Deadline fin septembre. Budget 40 k€."
    assert [(h.sentence.text, h.reason) for h in card.history] == [("Deadline le 15 novembre.", "restored-over")]
    assert [e.action for e in data.journal][-2:] == ["replace", "restore"]
    with pytest.raises(IndexError):
        ops.restore(data, "k", 5, now=4)
    with pytest.raises(IndexError):
        ops.edit_sentence(data, "k", 9, "x", now=4)


def test_removing_a_sentence_refuses_it_and_silent_extraction_does_not_write_it_back():
    data = MemoryStore()
    new(data, "k", "Karl Studio", "Agence. Paie toujours en retard.")
    ops.remove_sentence(data, "k", 1, now=2)
    assert data.cards[0].facts == "Agence."
    assert [e.action for e in data.journal][-2:] == ["remove", "refuse"]
    silent(data, "Karl Studio", "Karl Studio paie toujours en retard.", now=3)
    assert data.cards[0].facts == "Agence."
    ops.add_sentence(data, "k", "Paie toujours en retard.", now=4)  # the user writes it again: lifted
    assert data.refusals == [] and data.cards[0].facts == "Agence. Paie toujours en retard."


def test_an_emptied_sentence_is_removed():
    data = MemoryStore()
    new(data, "k", "Karl Studio", "Agence. Cliente.")
    ops.edit_sentence(data, "k", 1, "   ", now=2)
    assert data.cards[0].facts == "Agence."


def test_an_unknown_card_is_an_error():
    with pytest.raises(ops.UnknownCard):
        ops.confirm_card(MemoryStore(), "ghost", now=1)


# --- review ---------------------------------------------------------------------------------------

def test_rejecting_refuses_the_entity_and_confirming_takes_it_back():
    data = MemoryStore(cards=[machine_card("k", "Karl Studio", "Agence.")])
    ops.reject_card(data, "k", now=2)
    assert data.cards[0].status == "rejected" and not ops.in_review_inbox(data.cards[0])
    assert [(r.entity_key, r.reason) for r in data.refusals] == [("karl studio", "rejected")]
    silent(data, "Karl Studio", "Paie à 30 jours.", now=3)
    assert data.cards[0].facts == "Agence." and len(data.cards) == 1
    ops.confirm_card(data, "k", now=4)
    assert data.cards[0].status == "confirmed" and data.refusals == []
    assert [e.action for e in data.journal] == ["reject", "refuse", "confirm", "lift"]


# --- deletion and undo (the refusal is recorded at deletion and lifted by the undo) ---------------

def test_delete_then_undo_puts_the_card_back_verbatim_and_lifts_the_refusal():
    data = MemoryStore()
    new(data, "a", "Karl Studio", "Agence.")
    new(data, "b", "Norvik", "Fournisseur.")
    original = data.card("a")
    undo = ops.delete_card(data, "a", now=10)
    assert [c.id for c in data.cards] == ["b"] and len(data.refusals) == 1
    silent(data, "Karl Studio", "Agence de design.", now=12)  # during the 6 seconds: refused
    assert [c.id for c in data.cards] == ["b"]
    assert ops.undo_delete(data, undo, now=15)
    assert [c.id for c in data.cards] == ["b", "a"] and data.card("a") == original
    assert data.refusals == []
    assert [e.action for e in data.journal][-4:] == ["delete", "refuse", "undo", "lift"]


def test_an_undo_after_six_seconds_is_refused_and_the_refusal_stays():
    data = MemoryStore()
    new(data, "a", "Karl Studio", "Agence.")
    undo = ops.delete_card(data, "a", now=10)
    assert not ops.undo_delete(data, undo, now=10 + ops.UNDO_WINDOW_MS + 1)
    assert data.cards == [] and len(data.refusals) == 1


# --- merge, suggestions, refusals, profile --------------------------------------------------------

def test_the_user_merge_keeps_the_longer_card_whatever_the_order():
    data = MemoryStore()
    new(data, "short", "Ninon", "Cliente.")
    new(data, "long", "Ninon Verdolini", "Cliente principale depuis 2019.")
    data.dismissed_suggestions.add("long+short")
    kept = ops.merge_two_cards(data, "short", "long", now=9)
    assert kept.id == "long" and [c.id for c in data.cards] == ["long"]
    assert kept.aliases == ["Ninon"] and kept.reviewed_at == 9
    assert data.dismissed_suggestions == set()
    assert data.journal[-1].action == "merge"


def test_dismissing_a_suggestion_persists_once():
    data = MemoryStore()
    ops.dismiss_suggestion(data, "b", "a", now=1)
    ops.dismiss_suggestion(data, "a", "b", now=2)
    assert data.dismissed_suggestions == {"a+b"}
    assert [e.action for e in data.journal] == ["dismiss"]


def test_lifting_a_refusal_by_hand():
    data = MemoryStore()
    new(data, "a", "Karl Studio", "Agence.")
    ops.delete_card(data, "a", now=2)
    [refusal] = data.refusals
    assert ops.lift_refusal(data, refusal, now=3)
    assert not ops.lift_refusal(data, refusal, now=4)


def test_creating_a_card_by_hand_lifts_its_refusal():
    data = MemoryStore()
    new(data, "a", "Karl Studio", "Agence.")
    ops.delete_card(data, "a", now=2)
    new(data, "b", "Karl Studio", "Agence revenue.", now=3)
    assert data.refusals == []


def test_the_profile_edit_is_clamped_and_journaled():
    data = MemoryStore()
    assert ops.set_profile(data, "  " + "x" * 5000, now=1) == "x" * MAX_PROFILE_CHARS
    assert data.journal[-1].action == "profile"
    ops.set_profile(data, data.profile, now=2)
    assert len(data.journal) == 1


# --- bad input ------------------------------------------------------------------------------------

def test_megabyte_fields_are_cut():
    data = MemoryStore()
    card = new(data, "a", "K" * 1_000_000, "phrase " * 200_000, aliases=["A" * 1_000_000] * 50)
    assert len(card.entity) == MAX_NAME_CHARS
    assert len(card.facts) <= MAX_FACTS_CHARS
    assert len(card.aliases) == 1 and len(card.aliases[0]) == MAX_NAME_CHARS
    ops.add_sentence(data, "a", "x " * 500_000, now=2)
    assert len(card.facts) <= MAX_FACTS_CHARS
    assert len(ops.note_title("y" * 1_000_000)) == 61


def test_aliases_are_bounded_at_six():
    data = MemoryStore()
    card = new(data, "a", "Karl Studio", aliases=[f"K{i}" for i in range(20)])
    assert len(card.aliases) == MAX_ALIASES


def test_ten_thousand_cards_and_a_new_blank_one():
    data = MemoryStore()
    for i in range(10_000):
        data.cards.append(Card(f"c{i}", f"Nouvelle fiche {i + 2}" if i < 50 else f"Fiche {i}", "autre"))
    data.cards.append(Card("x", "Nouvelle fiche", "autre"))
    assert ops.new_card_entity(data) == "Nouvelle fiche 52"
