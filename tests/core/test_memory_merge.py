"""Merging an extraction into the store (reference 3.9): keys within a category, organisation
cores, restatements that are no update, refusals, scopes, provenance and the profile clamp."""

from __future__ import annotations

from openmasq.memory.compaction import split_sentences
from openmasq.memory.merge import merge_extraction
from openmasq.memory.model import (
    MAX_PROFILE_CHARS,
    Card,
    Category,
    Evidence,
    MemoryStore,
    Refusal,
    ResolvedExtraction,
    ResolvedFact,
    Sentence,
)
from openmasq.memory.ops import in_review_inbox

EVIDENCE = Evidence("conv-7", ("m1", "m2"))


def card(card_id: str, entity: str, facts: str = "", *, category: Category = "organisation",
         aliases: tuple[str, ...] = (), scope: str | None = None, status: str = "confirmed",
         source: str = "user") -> Card:
    return Card(card_id, entity, category, [Sentence(p, 1, "user") for p in split_sentences(facts)],
                aliases=list(aliases), scope=scope, status=status, source=source,  # type: ignore[arg-type]
                created_at=1, updated_at=1, reviewed_at=1)


def fact(entity: str, text: str, *, fact_id: str = "new-1", category: Category = "organisation",
         alias: str | None = None, note: bool = False) -> ResolvedFact:
    return ResolvedFact(fact_id, entity, category, text, alias, note)


def merge(store: MemoryStore, *facts: ResolvedFact, profile: str | None = None, origin: str = "auto-silent",
          scope: str | None = None, now: int = 1234):  # type: ignore[no-untyped-def]
    return merge_extraction(store, ResolvedExtraction(tuple(facts), profile), now=now, origin=origin,  # type: ignore[arg-type]
                            evidence=EVIDENCE, scope=scope)


def test_an_unknown_entity_becomes_a_proposed_machine_card_with_provenance():
    data = MemoryStore(cards=[card("old", "Karl Studio", "Agence.")])
    outcome = merge(data, fact("Norvik Group", "Fournisseur de papier.", alias="Norvik", fact_id="n1"), scope="travail")
    assert outcome.created_ids == ["n1"] and outcome.updated_ids == []
    new = data.cards[0]
    assert (new.id, new.status, new.source, new.scope, new.created_at, new.updated_at) == (
        "n1", "proposed", "auto", "travail", 1234, 1234)
    assert new.aliases == ["Norvik"]
    assert new.sentences == [Sentence("Fournisseur de papier.", 1234, "auto-silent", EVIDENCE)]
    assert in_review_inbox(new)
    [entry] = data.journal
    assert (entry.action, entry.origin, entry.card_id, entry.after) == ("create", "auto-silent", "n1",
                                                                        "Fournisseur de papier.")
    assert entry.detail == "conversation conv-7 · messages m1,m2"


def test_a_second_fact_of_the_same_run_joins_the_card_the_first_created():
    data = MemoryStore()
    outcome = merge(data, fact("Norvik", "Fournisseur.", fact_id="n1"), fact("Norvik", "Siège à Nantes.", fact_id="n2"))
    assert outcome.created_ids == ["n1"]
    assert data.cards[0].facts == "Fournisseur. Siège à Nantes."


def test_the_exact_key_merge_is_category_aware():  # reference section 12 item 13
    data = MemoryStore(cards=[card("p", "Ondine", "Refonte du site.", category="projet")])
    outcome = merge(data, fact("Ondine", "Société de conseil à Brest.", fact_id="o1"))
    assert outcome.created_ids == ["o1"]
    assert data.card("p") is not None and data.card("p").facts == "Refonte du site."  # type: ignore[union-attr]


def test_an_organisation_core_joins_the_card_and_the_spelling_becomes_an_alias():
    data = MemoryStore(cards=[card("t", "Atelier Torbel", "Menuiserie.")])
    outcome = merge(data, fact("Atelier Torbel SARL", "Devis signé en mars."))
    assert outcome.updated_ids == ["t"]
    assert data.cards[0].aliases == ["Atelier Torbel SARL"]
    assert data.cards[0].facts == "Menuiserie. Devis signé en mars."


def test_a_project_and_a_company_with_the_same_core_stay_two_cards():
    data = MemoryStore(cards=[card("p", "Ondine", "Refonte.", category="projet")])
    assert merge(data, fact("Ondine SARL", "Cliente.", fact_id="o1")).created_ids == ["o1"]


def test_an_alias_of_a_card_finds_it():
    data = MemoryStore(cards=[card("k", "Karl Studio", "Agence.", aliases=("KS",))])
    assert merge(data, fact("KS", "Paie à 30 jours.")).updated_ids == ["k"]


def test_a_known_fact_is_no_update():  # reference section 12 item 13a
    data = MemoryStore(cards=[card("k", "Karl Studio", "Agence de design à Lyon.")])
    outcome = merge(data, fact("Karl Studio", "agence de design"))
    assert outcome.updated_ids == [] and data.cards[0].updated_at == 1 and data.journal == []


def test_a_restatement_that_keeps_the_richer_old_wording_is_no_update():  # reference section 12 item 13a
    data = MemoryStore(cards=[card("k", "Walmart", "Est le PDG de Walmart à Bentonville depuis janvier 2026.")])
    outcome = merge(data, fact("Walmart", "PDG de Walmart depuis janvier 2026."))
    assert data.cards[0].facts == "Est le PDG de Walmart à Bentonville depuis janvier 2026."
    assert outcome.updated_ids == []
    assert data.cards[0].updated_at == 1
    assert not in_review_inbox(data.cards[0])


def test_a_richer_restatement_is_an_update():
    data = MemoryStore(cards=[card("k", "Walmart", "PDG de Walmart.")])
    assert merge(data, fact("Walmart", "Est le PDG de Walmart depuis janvier 2026.")).updated_ids == ["k"]


def test_an_attribute_update_is_recorded_in_the_history_and_reported():
    data = MemoryStore(cards=[card("k", "Ondine", "Deadline septembre.", category="projet")])
    outcome = merge(data, fact("Ondine", "Deadline le 15 novembre.", category="projet"))
    assert outcome.created_ids == [] and outcome.updated_ids == ["k"]
    c = data.cards[0]
    assert c.facts == "Deadline le 15 novembre."
    assert [(h.superseded_at, h.sentence.text, h.reason) for h in c.history] == [
        (1234, "Deadline septembre.", "replaced")]
    assert data.journal[-1].action == "replace"
    assert data.journal[-1].before == "Deadline septembre."


def test_a_machine_change_to_a_reviewed_card_puts_it_back_in_the_inbox():
    data = MemoryStore(cards=[card("k", "Karl Studio", "Agence.")])
    assert not in_review_inbox(data.cards[0])
    merge(data, fact("Karl Studio", "Paie à 30 jours."))
    assert in_review_inbox(data.cards[0]) and data.cards[0].status == "confirmed"


def test_aliases_stop_at_six():
    data = MemoryStore(cards=[card("k", "Karl Studio", "Agence.", aliases=("A1", "A2", "A3", "A4", "A5", "A6"))])
    merge(data, fact("Karl Studio", "Agence.", alias="KS"))
    assert len(data.cards[0].aliases) == 6 and data.journal == []


def test_a_note_already_said_elsewhere_is_skipped():
    data = MemoryStore(profile="Préfère les devis en PDF.", cards=[card("k", "Karl Studio", "Relance le lundi.")])
    outcome = merge(data, fact("Relances", "relance le lundi", category="autre", note=True, fact_id="x1"),
                    fact("Format", "Préfère les devis en PDF.", category="autre", note=True, fact_id="x2"),
                    origin="auto-explicit")
    assert outcome.created_ids == [] and len(data.cards) == 1


def test_empty_entities_and_facts_are_ignored():
    data = MemoryStore()
    assert merge(data, fact("  ", "Quelque chose."), fact("Norvik", "   ")).created_ids == []


def test_a_reused_pre_minted_id_does_not_collide():
    data = MemoryStore(cards=[card("n1", "Karl Studio", "Agence.")])
    outcome = merge(data, fact("Norvik", "Fournisseur.", fact_id="n1"))
    assert outcome.created_ids == ["n1-bis"]
    assert len({c.id for c in data.cards}) == 2


# --- the profile (reference section 12 item 4) ----------------------------------------------------

def test_the_extraction_profile_is_appended_and_clamped():
    data = MemoryStore(profile="Développeur senior.")
    outcome = merge(data, profile=" ".join(f"Sujet numéro {i} pour Verdolini{i}." for i in range(200)))
    assert outcome.profile_changed
    assert data.profile.startswith("Développeur senior. Sujet numéro 0")
    assert len(data.profile) <= MAX_PROFILE_CHARS
    assert data.journal[-1].action == "profile"


def test_a_covered_profile_addition_changes_nothing():
    data = MemoryStore(profile="Préfère des réponses courtes.")
    assert not merge(data, profile="L'utilisateur préfère les réponses courtes.").profile_changed


# --- refusals ---------------------------------------------------------------------------------------

def refused(entity_key: str, fact_key: str | None = None, surfaces: tuple[str, ...] = ()) -> Refusal:
    return Refusal(entity_key, fact_key, 5, "deleted", surfaces, entity_key)


def test_silent_extraction_never_recreates_a_refused_entity():
    data = MemoryStore(refusals=[refused("karl studio", surfaces=("ks",))])
    outcome = merge(data, fact("Karl Studio", "Agence."), fact("Karl Studio SAS", "Agence."), fact("KS", "Agence."))
    assert data.cards == [] and outcome.refused == ["Karl Studio", "Karl Studio SAS", "KS"]


def test_silent_extraction_never_rewrites_a_refused_fact_even_rephrased():
    data = MemoryStore(cards=[card("k", "Karl Studio", "Agence.")],
                       refusals=[refused("karl studio", "paie toujours en retard")])
    outcome = merge(data, fact("Karl Studio", "Karl Studio paie toujours en retard."),
                    fact("Karl Studio", "Basée à Lyon."))
    assert data.cards[0].facts == "Agence. Basée à Lyon."
    assert outcome.refused == ["Karl Studio"] and outcome.updated_ids == ["k"]


def test_an_explicit_ask_lifts_the_refusal_journals_it_and_remembers():
    data = MemoryStore(refusals=[refused("karl studio")])
    outcome = merge(data, fact("Karl Studio", "Agence.", fact_id="k1"), origin="auto-explicit")
    assert outcome.created_ids == ["k1"] and outcome.lifted == ["karl studio"]
    assert data.refusals == []
    assert [(e.action, e.origin) for e in data.journal] == [("lift", "auto-explicit"), ("create", "auto-explicit")]


def test_an_explicit_ask_about_a_rejected_card_reopens_it_as_proposed():
    rejected = card("k", "Karl Studio", "Agence.", status="rejected")
    data = MemoryStore(cards=[rejected], refusals=[refused("karl studio")])
    outcome = merge(data, fact("Karl Studio", "Agence."), origin="auto-explicit")
    assert outcome.updated_ids == ["k"] and rejected.status == "proposed"


# --- scopes -----------------------------------------------------------------------------------------

def test_a_space_extraction_merges_into_its_space_or_global_cards_never_another_space():
    data = MemoryStore(cards=[card("g", "Karl Studio", "Agence."), card("perso", "Norvik", "Voisin.", scope="perso")])
    outcome = merge(data, fact("Karl Studio", "Paie à 30 jours."), fact("Norvik", "Fournisseur.", fact_id="n1"),
                    scope="travail")
    assert outcome.updated_ids == ["g"] and outcome.created_ids == ["n1"]
    assert data.card("n1").scope == "travail"  # type: ignore[union-attr]
    assert data.card("perso").facts == "Voisin."  # type: ignore[union-attr]


def test_a_global_extraction_never_touches_a_space_card():
    data = MemoryStore(cards=[card("t", "Norvik", "Fournisseur.", scope="travail")])
    outcome = merge(data, fact("Norvik", "Voisin.", fact_id="n1"))
    assert outcome.created_ids == ["n1"] and data.card("n1").scope is None  # type: ignore[union-attr]


def test_a_space_card_is_preferred_to_a_global_one():
    data = MemoryStore(cards=[card("g", "Norvik", "Agence."), card("t", "Norvik", "Fournisseur.", scope="travail")])
    assert merge(data, fact("Norvik", "Paie à 30 jours."), scope="travail").updated_ids == ["t"]
