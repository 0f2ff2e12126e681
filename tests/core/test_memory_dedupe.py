"""Duplicates: merge suggestions, the card merge and the self-healing cleanup (reference 5,
catalogue 11.2), with scopes, statuses and history."""

from __future__ import annotations

from openmasq.memory.compaction import split_sentences
from openmasq.memory.dedupe import (
    auto_clean,
    distinct_identities,
    keep_and_drop,
    merge_cards,
    merge_suggestions,
    pair_key,
)
from openmasq.memory.model import Card, Category, MemoryStore, Sentence, Superseded


def card(card_id: str, entity: str, facts: str = "", *, category: Category = "personne", aliases: tuple[str, ...] = (),
         source: str = "auto", created_at: int = 1, scope: str | None = None, status: str = "proposed") -> Card:
    return Card(card_id, entity, category, [Sentence(p, created_at) for p in split_sentences(facts)],
                aliases=list(aliases), source=source, created_at=created_at, updated_at=created_at,  # type: ignore[arg-type]
                scope=scope, status=status)  # type: ignore[arg-type]


def store(*cards: Card, profile: str = "") -> MemoryStore:
    return MemoryStore(profile=profile, cards=list(cards))


# --- catalogue 11.2: suggestions ------------------------------------------------------------------

def test_a_first_name_inside_a_full_name_is_a_surface_suggestion_keeping_the_longer_facts():
    a = card("a", "Ninon", "Cliente.")
    b = card("b", "Ninon Verdolini", "Cliente principale depuis 2019.")
    [suggestion] = merge_suggestions(store(a, b))
    assert (suggestion.keep_id, suggestion.drop_id, suggestion.reason) == ("b", "a", "surface")


def test_two_people_sharing_only_a_first_name_are_not_suggested():
    assert merge_suggestions(store(card("a", "Jean Rebour", "Client."), card("b", "Jean Morvan", "Fournisseur."))) == []


def test_two_nameless_notes_are_suggested_above_the_duplicate_threshold_only():
    a = card("a", "Note 1", "Relancer les devis.", category="autre")
    b = card("b", "Note 2", "Relancer tous les devis.", category="autre")
    assert merge_suggestions(store(a, b), [("a", "b", 0.945)]) == []
    [suggestion] = merge_suggestions(store(a, b), [("a", "b", 0.96)])
    assert suggestion.reason == "semantic" and suggestion.similarity == 0.96


def test_distinct_identities_are_never_suggested_even_at_similarity_one():
    a = card("a", "François Rebsamen", "Maire et ancien ministre.")
    b = card("b", "Marc Ferracci", "Maire et ancien ministre.")
    for similarity in (0.96, 0.99, 1.0):
        assert merge_suggestions(store(a, b), [("a", "b", similarity)]) == []


def test_distinct_identities_needs_two_known_and_disjoint_identities():
    assert distinct_identities(card("a", "François Rebsamen"), card("b", "Marc Ferracci"))
    assert not distinct_identities(card("a", "Karl Studio"), card("b", "Karl"))
    assert not distinct_identities(card("a", "A1"), card("b", "Marc Ferracci"))


def test_different_categories_are_never_suggested():
    a = card("a", "Nightingale", "Client.", category="organisation")
    b = card("b", "Nightingale", "Refonte.", category="projet")
    assert merge_suggestions(store(a, b), [("a", "b", 0.99)]) == []


def test_a_pair_with_both_signals_is_suggested_once_as_surface_and_its_key_is_symmetric():
    a = card("a", "Ninon", "Cliente.")
    b = card("b", "Ninon Verdolini", "Cliente principale.")
    [suggestion] = merge_suggestions(store(a, b), [("a", "b", 0.99), ("b", "a", 0.98)])
    assert suggestion.reason == "surface"
    assert pair_key("a", "b") == pair_key("b", "a") == suggestion.key == "a+b"


def test_surface_suggestions_come_first_then_semantic_by_similarity():
    cards = [card("a", "Ninon", "Cliente."), card("b", "Ninon Verdolini", "Cliente principale."),
             card("c", "Note", "Relancer.", category="autre"), card("d", "Rappel", "Relancer vite.", category="autre"),
             card("e", "Memo", "Relancer demain.", category="autre")]
    suggestions = merge_suggestions(store(*cards), [("c", "d", 0.96), ("d", "e", 0.98)])
    assert [(s.reason, s.key) for s in suggestions] == [("surface", "a+b"), ("semantic", "d+e"), ("semantic", "c+d")]


# --- catalogue 11.2: the card merge ---------------------------------------------------------------

def test_merge_cards_appends_facts_and_keeps_the_dropped_surfaces_as_aliases():
    keep = card("k", "Ninon Verdolini", "Cliente principale.", aliases=("Ninon",))
    drop = card("d", "Ninon P.", "Préfère le jeudi.", aliases=("ninon verdolini",))
    merge_cards(keep, drop, now=42)
    assert keep.facts == "Cliente principale. Préfère le jeudi."
    assert keep.aliases == ["Ninon", "Ninon P."]
    assert keep.updated_at == 42


def test_merge_cards_does_not_repeat_contained_facts_nor_exceed_six_aliases():
    keep = card("k", "Karl Studio", "Agence de design à Lyon. Cliente.", category="organisation",
                aliases=("KS", "Karl", "K. Studio", "Karl Studios", "karl@studio.fr", "Karlstudio"))
    drop = card("d", "Karl Studio SAS", "Cliente.", category="organisation")
    merge_cards(keep, drop, now=5)
    assert keep.facts == "Agence de design à Lyon. Cliente."
    assert len(keep.aliases) == 6


def test_a_merge_that_overflows_moves_the_oldest_sentences_to_history_as_merged():
    keep = card("k", "Karl Studio", " ".join(f"Fait ancien {i} " + "x" * 100 + "." for i in range(4)), created_at=1)
    drop = card("d", "Karl Studio SAS", "Fait récent " + "y" * 200 + ".", created_at=2)
    drop.history = [Superseded(Sentence("Vieux fait.", 0), 3, "replaced")]
    merged_out = merge_cards(keep, drop, now=9)
    assert len(keep.facts) <= 600
    assert [h.reason for h in keep.history[: len(merged_out)]] == ["merged"] * len(merged_out)
    assert merged_out and merged_out[0].sentence.text.startswith("Fait ancien 0")
    assert "Vieux fait." in [h.sentence.text for h in keep.history]


def test_a_merge_with_a_confirmed_user_card_stays_confirmed_and_user_authored():
    keep = card("k", "Ninon Verdolini", "Cliente principale, grande fidélité.")
    drop = card("d", "Ninon", "Cliente.", source="user", status="confirmed")
    merge_cards(keep, drop, now=3)
    assert (keep.status, keep.source) == ("confirmed", "user")


def test_keep_rule_is_longer_facts_then_older():
    a, b = card("a", "X", "court.", created_at=5), card("b", "X", "plus long.", created_at=9)
    assert keep_and_drop(a, b) == (b, a)
    c, d = card("c", "X", "même.", created_at=5), card("d", "X", "même.", created_at=2)
    assert keep_and_drop(c, d) == (d, c)


# --- catalogue 11.2: the cleanup ------------------------------------------------------------------

def test_two_machine_preference_notes_move_to_the_profile():
    data = store(
        card("n1", "Langue", "Préfère des réponses courtes en français.", category="autre"),
        card("n2", "Style", "Préfère des réponses courtes.", category="autre"),
        profile="Développeur senior.",
    )
    result = auto_clean(data, 10)
    assert result.migrated == 2 and result.changed
    assert data.cards == []
    assert data.profile == "Développeur senior. Préfère des réponses courtes en français."


def test_four_one_word_apart_reformulations_fold_and_a_second_run_is_unchanged():
    data = store(card("c", "Atelier Lucane", "Camille Salvi dirige l'Atelier Lucane. Camille Salvi a fondé l'Atelier "
                      "Lucane. Camille Salvi pilote l'Atelier Lucane. Camille Salvi gère l'Atelier Lucane.",
                      category="organisation"))
    first = auto_clean(data, 10)
    assert first.changed and data.cards[0].facts.count("Camille Salvi") == 1
    assert data.cards[0].updated_at == 10
    second = auto_clean(data, 11)
    assert not second.changed and second.store is data


def test_a_machine_card_with_two_distinct_facts_is_unchanged():
    data = store(card("c", "Karl Studio", "Agence de design. Basée à Lyon.", category="organisation"))
    assert not auto_clean(data, 10).changed
    assert data.cards[0].facts == "Agence de design. Basée à Lyon."


def test_a_user_card_holding_a_preference_is_untouched():
    data = store(card("c", "Style", "Préfère des réponses courtes.", category="autre", source="user",
                      status="confirmed"))
    assert not auto_clean(data, 10).changed
    assert len(data.cards) == 1


def test_two_cards_of_one_organisation_merge_with_both_facts_and_the_alias():
    data = store(card("a", "Norvik Studio", "Client depuis 2021.", category="organisation", aliases=("NS",)),
                 card("b", "Norvik Studio", "Siège à Nantes.", category="organisation", created_at=0))
    result = auto_clean(data, 10)
    assert result.merged == 1 and len(data.cards) == 1
    assert "2021" in data.cards[0].facts and "Nantes" in data.cards[0].facts
    assert "NS" in data.cards[0].aliases


def test_identical_facts_merge_notes_but_never_people():
    people = store(card("a", "Jean Rebour", "Client fidèle."), card("b", "Marc Ferracci", "Client fidèle."))
    assert not auto_clean(people, 10).changed
    notes = store(card("a", "Note 1", "Relancer les devis.", category="autre"),
                  card("b", "Note 2", "Relancer les devis.", category="autre"))
    assert auto_clean(notes, 10).merged == 1 and len(notes.cards) == 1


def test_a_chain_of_shared_keys_becomes_one_card_and_is_a_fixpoint():
    data = store(card("a", "Atelier Sud", "Client.", category="organisation"),
                 card("b", "Atelier Sud", "Basé à Arles.", category="organisation", aliases=("AS",)),
                 card("c", "AS", "Paie à 30 jours.", category="organisation"))
    result = auto_clean(data, 10)
    assert result.merged == 2 and len(data.cards) == 1
    assert {"Client.", "Basé à Arles.", "Paie à 30 jours."} <= set(split_sentences(data.cards[0].facts))
    assert not auto_clean(data, 11).changed


def test_blank_placeholders_survive_cleanup():
    data = store(card("a", "Nouvelle fiche", category="autre", source="user"),
                 card("b", "Nouvelle fiche 2", category="autre", source="user"))
    assert not auto_clean(data, 10).changed
    assert len(data.cards) == 2


def test_blank_cards_are_never_suggested():
    placeholders = store(card("a", "Nouvelle fiche", category="autre"), card("b", "Nouvelle fiche 2", category="autre"))
    assert merge_suggestions(placeholders, [("a", "b", 0.99)]) == []
    named = store(card("a", "Ninon Verdolini", "Cliente."), card("b", "Ninon"))
    assert merge_suggestions(named, [("a", "b", 0.99)]) == []


# --- scopes, statuses, dismissals, journal --------------------------------------------------------

def test_cleanup_never_merges_across_scopes():
    data = store(card("a", "Karl Studio", "Client.", category="organisation", scope="travail"),
                 card("b", "Karl Studio", "Voisin.", category="organisation", scope="perso"),
                 card("c", "Karl Studio", "Agence.", category="organisation"))
    assert not auto_clean(data, 10).changed
    assert len(data.cards) == 3


def test_suggestions_stay_within_a_scope():
    data = store(card("a", "Ninon", "Cliente.", scope="travail"), card("b", "Ninon Verdolini", "Amie.", scope="perso"))
    assert merge_suggestions(data, [("a", "b", 0.99)]) == []


def test_rejected_cards_are_neither_merged_nor_suggested_nor_migrated():
    data = store(card("a", "Karl Studio", "Client.", category="organisation", status="rejected"),
                 card("b", "Karl Studio", "Agence.", category="organisation"),
                 card("c", "Style", "Préfère le vouvoiement.", category="autre", status="rejected"))
    assert not auto_clean(data, 10).changed
    assert merge_suggestions(data) == []


def test_a_preference_note_of_a_space_stays_in_its_space():
    data = store(card("n", "Style", "Préfère des réponses courtes.", category="autre", scope="travail"))
    assert auto_clean(data, 10).migrated == 0


def test_dismissed_pairs_are_not_suggested_again():
    data = store(card("a", "Ninon", "Cliente."), card("b", "Ninon Verdolini", "Cliente principale."))
    data.dismissed_suggestions.add(pair_key("b", "a"))
    assert merge_suggestions(data, [("a", "b", 0.99)]) == []


def test_cleanup_journals_each_change_with_its_origin():
    data = store(card("a", "Norvik Studio", "Client.", category="organisation"),
                 card("b", "Norvik Studio", "Siège à Nantes.", category="organisation"))
    auto_clean(data, 10)
    [entry] = data.journal
    assert (entry.action, entry.origin, entry.at, entry.card_id) == ("merge", "cleanup", 10, data.cards[0].id)
    assert entry.before is not None and entry.after is not None


def test_a_merge_survivor_is_recompacted_in_the_same_run():
    data = store(card("a", "Norvik", "Deadline fin septembre.", category="projet"),
                 card("b", "Norvik", "Deadline le 15 novembre pour la refonte.", category="projet", created_at=2))
    result = auto_clean(data, 10)
    assert result.merged == 1
    assert data.cards[0].facts == "Deadline le 15 novembre pour la refonte."
    assert [h.sentence.text for h in data.cards[0].history] == ["Deadline fin septembre."]
    assert not auto_clean(data, 11).changed


def test_a_profile_with_repeats_is_deduplicated_by_the_cleanup():
    data = store(profile="Aime le vélo. L'utilisateur aime le vélo.")
    assert auto_clean(data, 10).changed
    assert data.profile == "Aime le vélo."


def test_ten_thousand_cards_clean_to_a_fixpoint():
    cards = [card(f"c{i}", f"Entreprise {i}", f"Client depuis {i}. Siège à Lyon.", category="organisation",
                  created_at=10_000 - i) for i in range(10_000)]
    cards.append(card("dup", "Entreprise 7", "Fournisseur.", category="organisation", created_at=0))
    data = store(*cards)
    assert auto_clean(data, 20_000).merged == 1
    assert len(data.cards) == 10_000
    assert not auto_clean(data, 20_001).changed
