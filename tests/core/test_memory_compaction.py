"""Fact compaction: restatements keep the richer wording, attributes replace, the cap evicts, and
what leaves the live facts moves to a restorable history (reference 4, catalogue 11.3)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openmasq.memory.compaction import (
    _may_fold,
    attribute_words,
    clamp,
    content_words,
    facts_text,
    fold,
    merge_fact,
    normalise_fast,
    recompact,
    restates,
    restore_sentence,
    split_sentences,
)
from openmasq.memory.model import MAX_FACTS_CHARS, MAX_HISTORY, Card, Evidence, Sentence, Superseded
from openmasq.memory.normalise import normalise


def sentences(text: str, noted_at: int = 1) -> list[Sentence]:
    return [Sentence(piece, noted_at) for piece in split_sentences(text)]


def merged_text(existing: str, fact: str, **kwargs: object) -> str:
    result = merge_fact(sentences(existing), Sentence(fact, 2), now=9, **kwargs)  # type: ignore[arg-type]
    return facts_text(result.sentences)


def card(text: str, **kwargs: object) -> Card:
    return Card("c1", "Ondine", "projet", sentences(text), **kwargs)  # type: ignore[arg-type]


# --- catalogue 11.3 -----------------------------------------------------------------------------

def test_a_restatement_keeps_the_richer_wording_once():
    text = merged_text("PDG de Walmart depuis janvier 2026.", "Est PDG de Walmart depuis janvier 2026.")
    assert text == "Est PDG de Walmart depuis janvier 2026."
    assert text.count("Walmart") == 1


def test_a_restatement_with_one_more_word_keeps_the_longer_one():
    text = merged_text(
        "Directeur général selon la mise à jour du 26 février 2026.",
        "Directeur général selon la mise à jour officielle du 26 février 2026.",
    )
    assert text == "Directeur général selon la mise à jour officielle du 26 février 2026."


def test_a_changed_month_is_not_a_restatement_and_both_dates_stay():
    text = merged_text("Livraison prévue (au 26 juillet 2026).", "Livraison prévue au 26 février 2026.")
    assert "juillet" in text and "février" in text


def test_unrelated_facts_are_joined_by_one_space():
    assert merged_text("Responsable du design.", "Basée à Lyon.") == "Responsable du design. Basée à Lyon."


def test_a_restatement_inside_a_three_sentence_card_replaces_only_its_sentence():
    text = merged_text("Cliente fidèle. Responsable du design. Basée à Lyon.", "Responsable du design produit.")
    assert text == "Cliente fidèle. Responsable du design produit. Basée à Lyon."


def test_content_words_drop_glue_and_a_two_word_paraphrase_restates():
    assert content_words("Est le PDG de Walmart") == ("pdg", "walmart")
    assert restates("Est le PDG de Walmart", "PDG Walmart")


def test_an_empty_card_takes_the_fact_and_nothing_restates_emptiness():
    assert merged_text("", "Basée à Lyon.") == "Basée à Lyon."
    assert not restates("", "Basée à Lyon.")


def test_four_variants_of_one_fact_fold_into_one_sentence():
    variants = [
        "Camille Salvi est la fondatrice de l'Atelier Lucane.",
        "Camille Salvi a fondé l'Atelier Lucane.",
        "Camille Salvi dirige l'Atelier Lucane.",
        "Fondatrice de l'Atelier Lucane, Camille Salvi.",
    ]
    live: list[Sentence] = []
    for i, variant in enumerate(variants):
        live = list(merge_fact(live, Sentence(variant, i), now=9).sentences)
    text = facts_text(live)
    assert text.count("Camille Salvi") == 1
    assert text.count("Atelier Lucane") == 1


def test_a_gender_inflection_is_the_same_word():
    assert restates("Associé du cabinet Morvan à Lyon.", "Associée du cabinet Morvan à Lyon.")


def test_a_different_object_is_not_a_restatement():
    assert not restates("Aime le café.", "Aime le thé.")
    assert merged_text("Aime le café.", "Aime le thé.") == "Aime le café. Aime le thé."


def test_a_changed_delivery_month_is_an_update_not_a_restatement():
    assert not restates("Livraison du lot 2 en juillet.", "Livraison du lot 2 en septembre.")


def test_an_attribute_replaces_its_sentence_and_the_old_one_goes_to_history():
    result = merge_fact(sentences("Cliente fidèle. Deadline fin septembre."), Sentence("Deadline le 15 novembre.", 2),
                        now=9)
    assert facts_text(result.sentences) == "Cliente fidèle. Deadline le 15 novembre."
    assert [(s.sentence.text, s.reason, s.superseded_at) for s in result.superseded] == [
        ("Deadline fin septembre.", "replaced", 9)
    ]


def test_a_restatement_logs_nothing():
    result = merge_fact(sentences("Est PDG de Walmart."), Sentence("PDG de Walmart.", 2), now=9)
    assert result.superseded == ()


def test_saturation_evicts_the_oldest_and_keeps_the_new_fact_whole():
    old = [Sentence(f"old{i} " + "x" * 170 + ".", i) for i in range(1, 4)]
    new = "Le nouveau fait " + "y" * 200 + " est arrivé."
    result = merge_fact(old, Sentence(new, 10), now=11)
    text = facts_text(result.sentences)
    assert len(text) <= MAX_FACTS_CHARS
    assert text.endswith("est arrivé.")
    assert text.startswith(("old2", "Le nouveau"))
    assert [(s.sentence.text[:4], s.reason) for s in result.superseded] == [("old1", "evicted")]


def test_restore_is_symmetric():
    c = card("Deadline le 15 novembre.")
    c.history = [Superseded(Sentence("Deadline fin septembre.", 1), 5, "replaced")]
    restore_sentence(c, 0, now=10)
    assert c.facts == "Deadline fin septembre."
    assert [(h.sentence.text, h.reason) for h in c.history] == [("Deadline le 15 novembre.", "restored-over")]
    restore_sentence(c, 0, now=11)
    assert c.facts == "Deadline le 15 novembre."
    assert [h.sentence.text for h in c.history] == ["Deadline fin septembre."]


# --- reference section 12, item 2: the dead glue word ----------------------------------------------

def test_etait_is_a_glue_word_after_accent_folding():
    assert content_words("Était directrice financière de Norvik") == ("directrice", "financiere", "norvik")
    assert restates("Était directrice financière de Norvik.", "Directrice financière de Norvik.")


# --- reference section 12, item 3: whole-word attributes, only the attribute's clause -------------

@pytest.mark.parametrize(
    "text, expected",
    [
        ("Responsable du contrôle qualité.", set()),
        ("A pris la parole au salon.", set()),
        ("Deux postes ouverts.", set()),
        ("Un imposteur a appelé.", set()),
        ("Il faut le contacter lundi.", set()),
        ("Les statuts sont déposés.", set()),
        ("Va adresser le devis.", set()),
        ("Son rôle : cheffe de projet.", {"role"}),
        ("Poste : directrice artistique.", {"poste"}),
        ("Contact : Claire au standard.", {"contact"}),
        ("E-mail : claire@norvik.fr.", {"e mail"}),
        ("Travaille chez Norvik depuis 2024.", {"travaille chez"}),
        ("Date limite : 15 mars.", {"date limite"}),
    ],
)
def test_attribute_words_are_whole_words(text: str, expected: set[str]):
    assert attribute_words(text) == expected


def test_a_word_containing_an_attribute_replaces_nothing():
    text = merged_text("Responsable du contrôle qualité.", "Son rôle : cheffe de projet.")
    assert text == "Responsable du contrôle qualité. Son rôle : cheffe de projet."


def test_only_the_attribute_clause_of_a_sentence_is_replaced():
    c = card("Refonte du site du client, deadline fin septembre.")
    result = merge_fact(c.sentences, Sentence("Deadline le 15 novembre.", 2), now=9)
    assert facts_text(result.sentences) == "Refonte du site du client. Deadline le 15 novembre."
    assert [s.sentence.text for s in result.superseded] == ["Refonte du site du client, deadline fin septembre."]


def test_the_kept_clause_carries_the_old_sentence_provenance():
    evidence = Evidence("conv-1", ("m3",))
    old = Sentence("Refonte du site du client, deadline fin septembre.", 4, "auto-silent", evidence)
    result = merge_fact([old], Sentence("Deadline le 15 novembre.", 8), now=9)
    assert result.sentences[0] == Sentence("Refonte du site du client.", 4, "auto-silent", evidence)


def test_a_clause_holding_a_number_goes_with_the_replaced_attribute():
    assert merged_text("Budget de 40 k€, validé en mars.", "Budget revu à 55 k€.") == "Budget revu à 55 k€."


def test_restoring_a_split_sentence_and_back_is_symmetric():
    c = card("Refonte du site du client, deadline fin septembre.")
    merged = merge_fact(c.sentences, Sentence("Deadline le 15 novembre.", 2), now=9)
    c.sentences, c.history = list(merged.sentences), list(merged.superseded)
    restore_sentence(c, 0, now=10)
    assert c.facts == "Refonte du site du client, deadline fin septembre."
    restore_sentence(c, 0, now=11)
    assert c.facts == "Refonte du site du client. Deadline le 15 novembre."


# --- beyond the reference -------------------------------------------------------------------------

def test_a_negation_is_a_change_and_the_old_sentence_is_kept_in_history():
    result = merge_fact(sentences("Aime le café."), Sentence("N'aime plus le café.", 2), now=9)
    assert facts_text(result.sentences) == "N'aime plus le café."
    assert [s.sentence.text for s in result.superseded] == ["Aime le café."]
    assert not restates("Aime le café.", "N'aime pas le café.")


def test_a_fact_that_says_more_absorbs_the_sentence_it_contains():
    assert merged_text("Refonte du site.", "Refonte du site, livraison le 3 mars 2027.") == (
        "Refonte du site, livraison le 3 mars 2027."
    )


def test_an_identical_fact_changes_nothing():
    result = merge_fact(sentences("Basée à Lyon."), Sentence("Basée à Lyon.", 5), now=9)
    assert not result.changed
    assert result.sentences[0].noted_at == 1  # the first record (and its evidence) stays


@pytest.mark.parametrize(
    "text, pieces",
    [
        ("Cliente fidèle. Deadline fin septembre.", ("Cliente fidèle.", "Deadline fin septembre.")),
        ("M. Dupont est client. Il paie vite!  Oui? Non.", ("M. Dupont est client.", "Il paie vite!", "Oui?", "Non.")),
        ("Voir J. Martin demain.", ("Voir J. Martin demain.",)),
        ("Site: karl-studio.fr. Fin", ("Site: karl-studio.fr.", "Fin")),
        ("   ", ()),
    ],
)
def test_split_sentences(text: str, pieces: tuple[str, ...]):
    assert split_sentences(text) == pieces


def test_clamp_protects_the_new_sentence_and_cuts_a_lone_giant():
    a, b, c = Sentence("a" * 300, 1), Sentence("b" * 300, 2), Sentence("c" * 300, 3)
    kept, evicted = clamp([a, b, c], [c])
    assert kept == [c] and evicted == [a, b]
    kept, evicted = clamp([a, b, Sentence("d" * 200, 4)], [b])
    assert kept == [b, Sentence("d" * 200, 4)] and evicted == [a]
    kept, evicted = clamp([Sentence("z" * 1_000_000, 1)])
    assert len(kept[0].text) == MAX_FACTS_CHARS and evicted == []


def test_a_one_megabyte_fact_is_cut_to_the_cap():
    result = merge_fact([], Sentence("mot " * 250_000, 1), now=2)
    assert len(facts_text(result.sentences)) <= MAX_FACTS_CHARS


def test_restore_of_a_missing_entry_does_nothing():
    c = card("Basée à Lyon.")
    assert restore_sentence(c, 3, now=1) is None
    assert c.facts == "Basée à Lyon."


def test_history_keeps_the_last_twenty():
    c = card("Deadline v0.")
    for i in range(1, 30):
        merged = merge_fact(c.sentences, Sentence(f"Deadline v{i}.", i), now=i)
        c.sentences = list(merged.sentences)
        c.history = [*merged.superseded, *c.history][:MAX_HISTORY]
    assert len(c.history) == MAX_HISTORY
    assert c.history[0].sentence.text == "Deadline v28."


def test_recompaction_folds_a_card_once_and_then_is_stable():
    c = card("Camille Salvi dirige l'Atelier Lucane. Basée à Lyon. Camille Salvi est à la tête de l'Atelier Lucane.")
    assert recompact(c, now=5)
    assert c.facts.count("Atelier Lucane") == 1
    assert not recompact(c, now=6)


def test_fold_of_distinct_facts_changes_nothing():
    assert not fold(sentences("Responsable du design. Basée à Lyon."), now=1).changed


# --- properties -----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "text",
    ["Évreux-Ville", "écris à augustin.vaudel@karl-studio.fr.", "İstanbul ŒUVRE straße", "Москва 2026",
     "a..b .x. y.", "王明是经理", "ﬁn ¹² ½", "Budget 40 k€ « HT » — l’offre", "देवनागरी", "x\u0301\u0327\u0489",
     "a.ᴬ", "ℂ.b ₨"],
)
def test_fast_normalisation_equals_normalisation(text: str):
    assert normalise_fast(text) == normalise(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_fast_normalisation_equals_normalisation_on_any_text(text: str):
    assert normalise_fast(text) == normalise(text)


_VOCABULARY = ["Cliente", "fidèle", "deadline", "fin", "septembre", "budget", "40", "Lyon", "design", "pas",
               "associé", "associée", "responsable", "rôle", "contrôle", "de", "le", "est", "refonte", "site"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_VOCABULARY), min_size=1, max_size=6), min_size=2, max_size=5))
def test_a_card_the_cheap_check_calls_compact_does_not_fold(words: list[list[str]]):
    live = [Sentence(" ".join(w).capitalize() + ".", i) for i, w in enumerate(words)]
    if not _may_fold(live):
        assert not fold(live, now=1).changed
