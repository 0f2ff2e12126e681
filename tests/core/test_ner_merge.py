"""How the NER model's spans join the engine (redact/ner_merge.py): PER/ORG/LOC to engine kinds, line breaks and
edge punctuation, per-kind thresholds, famous names, and the per-language table; then through the engine itself."""

from __future__ import annotations

from openmasq.redact import RedactOptions, Vault, pseudonymise
from openmasq.redact.ner_merge import (
    KEPT_KINDS,
    LABEL_KINDS,
    SCORE_THRESHOLDS,
    engine_spans,
    kept_kinds,
    model_spans,
)
from openmasq.redact.spans import Span

KEY = bytes(range(32))


def raw(text: str, value: str, label: str, score: float = 0.95) -> Span:
    """A span as the model gives it (ner/decode.py): "per", "org" or "loc" as kind, source "ner"."""
    start = text.index(value)
    return Span(start, start + len(value), value, label, "ner", score)


def values(spans: list[Span]) -> list[tuple[str, str]]:
    return [(s.value, s.kind) for s in spans]


def test_model_labels_become_engine_kinds():
    assert LABEL_KINDS == {"per": "person", "org": "org", "loc": "location"}
    text = "Marie Dupont de Transports Delmas habite à Toulouse."
    found = [raw(text, "Marie Dupont", "per"), raw(text, "Transports Delmas", "org"), raw(text, "Toulouse", "loc")]
    spans = engine_spans(text, found)
    assert values(spans) == [("Marie Dupont", "person"), ("Transports Delmas", "org"), ("Toulouse", "location")]
    assert all(s.source == "ner" for s in spans)
    assert (spans[0].start, spans[0].end) == (0, 12)


def test_an_organisation_cut_in_two_is_one_organisation():
    text = "Ruf die Müller Logistik GmbH in Hamburg an."
    found = [raw(text, "Müller", "org", 0.6), raw(text, "Logistik GmbH", "org"), raw(text, "Hamburg", "loc")]
    assert values(engine_spans(text, found)) == [("Müller Logistik GmbH", "org"), ("Hamburg", "location")]
    assert engine_spans(text, found)[0].score == 0.95


def test_a_name_stops_at_a_line_break():
    text = "Écris à Zoë Lefèvre\r\nMerci"
    start = text.index("Zoë")
    found = [Span(start, len(text), text[start:], "per", "ner", 0.9)]
    assert values(engine_spans(text, found)) == [("Zoë Lefèvre", "person")]


def test_edge_punctuation_is_stripped():
    text = "Bisous à (Zoë) et à bientôt"
    start = text.index("(")
    spans = engine_spans(text, [Span(start, start + 5, text[start : start + 5], "per", "ner", 0.9)])
    assert values(spans) == [("Zoë", "person")]


def test_a_span_below_its_kinds_threshold_is_dropped():
    text = "Appelle Nadia à Lyon."
    low = SCORE_THRESHOLDS["person"] - 0.01
    assert engine_spans(text, [raw(text, "Nadia", "per", low)]) == []
    assert values(engine_spans(text, [raw(text, "Nadia", "per", SCORE_THRESHOLDS["person"])])) == [("Nadia", "person")]
    assert values(engine_spans(text, [raw(text, "Nadia", "per", 0.3)], threshold=0.2)) == [("Nadia", "person")]


def test_a_first_name_inside_a_famous_name_becomes_the_famous_name():
    text = "Est-ce qu'Emmanuel Macron a déjà été ministre ?"
    assert values(engine_spans(text, [raw(text, "Emmanuel", "per")])) == [("Emmanuel Macron", "person")]


def test_a_span_that_runs_past_a_famous_name_is_cut_back_to_it():
    text = "Hat Angela Merkel Physik studiert?"
    assert values(engine_spans(text, [raw(text, "Angela Merkel Physik", "per")])) == [("Angela Merkel", "person")]


def test_a_lone_word_unknown_to_the_name_lists_or_a_place_is_no_person():
    text = "Les nouveautés de Symfony, vues de Sydney, pour Nadia."
    spans = engine_spans(text, [raw(text, "Symfony", "per"), raw(text, "Sydney", "per"), raw(text, "Nadia", "per")])
    assert values(spans) == [("Nadia", "person")]


def test_a_person_span_loses_the_words_at_its_edges_that_belong_to_no_name():
    text = "Perché Dante ha messo Francesca nel secondo cerchio? Surtout Dubois. Der Vorstandsvorsitzende kommt."
    found = [raw(text, "Francesca nel", "per"), raw(text, "Surtout Dubois", "per"),
             raw(text, "Der Vorstandsvorsitzende", "per")]
    assert values(engine_spans(text, found)) == [("Francesca", "person"), ("Dubois", "person")]


def test_an_initial_and_a_rare_surname_stay_at_the_edges_of_a_person_span():
    text = "Le dossier de J. Martin et de Marie Przybyszewski."
    found = [raw(text, "J. Martin", "per"), raw(text, "Marie Przybyszewski", "per")]
    assert values(engine_spans(text, found)) == [("J. Martin", "person"), ("Marie Przybyszewski", "person")]


def test_a_lone_lower_case_word_no_first_name_list_knows_is_no_person_but_a_lower_case_first_name_is():
    text = "when I run the job, c'est gagné, bind failed, says karim"
    found = [raw(text, "I run", "per"), raw(text, "gagné", "per"), raw(text, "bind", "per"), raw(text, "karim", "per")]
    assert values(engine_spans(text, found)) == [("karim", "person")]


def test_a_famous_brand_or_country_is_no_entity_whatever_its_label():
    text = "Chez Orange, en France, avec Google Drive et Transports Delmas."
    found = [raw(text, "Orange", "per"), raw(text, "France", "loc"), raw(text, "Google Drive", "org"),
             raw(text, "Transports Delmas", "org")]
    assert values(engine_spans(text, found)) == [("Transports Delmas", "org")]


def test_labels_without_an_engine_kind_are_ignored():
    text = "Call Nadia Kowalski."
    assert engine_spans(text, [raw(text, "Nadia", "pet_name")]) == []


def test_only_the_kinds_kept_for_the_language_go_to_the_engine():
    text = "Marie Dupont habite à Toulouse."
    found = [raw(text, "Marie Dupont", "per"), raw(text, "Toulouse", "loc")]
    kept = model_spans(text, found, "fr")
    assert {s.kind for s in kept} <= KEPT_KINDS["fr"]
    assert [s for s in engine_spans(text, found) if s.kind in KEPT_KINDS["fr"]] == kept


def test_an_unknown_language_gets_the_decision_taken_on_every_language():
    assert kept_kinds("auto") == KEPT_KINDS["auto"]
    assert kept_kinds("pt") == KEPT_KINDS["auto"]
    assert {"fr", "en", "de", "es", "it", "auto"} <= set(KEPT_KINDS)


def test_the_engine_replaces_a_model_span_and_marks_it_ner():
    text = "Mateus Oliveira replaces Gulnara Akhmetova as project lead."
    spans = [s for s in engine_spans(text, [raw(text, "Gulnara Akhmetova", "per")]) if s.kind == "person"]
    result = pseudonymise(text, Vault.new(KEY, mode="fake"), RedactOptions(lang="en", spans=tuple(spans)))
    assert "Gulnara" not in result.text and "Akhmetova" not in result.text
    marked = [rep for rep in result.replacements if rep.value == "Gulnara Akhmetova"]
    assert [rep.source for rep in marked] == ["ner"]


def test_a_famous_name_found_by_the_model_is_spared_below_strict_only():
    text = "Est-ce qu'Emmanuel Macron a déjà été ministre ?"
    spans = tuple(engine_spans(text, [raw(text, "Emmanuel", "per")]))
    spared = pseudonymise(text, Vault.new(KEY, mode="fake"), RedactOptions(lang="fr", spans=spans))
    assert spared.text == text
    strict = pseudonymise(text, Vault.new(KEY, mode="fake"), RedactOptions(level="strict", lang="fr", spans=spans))
    assert "Macron" not in strict.text


def test_a_model_organisation_that_names_nothing_is_dropped():
    text = "the parcel for item.Title costs 320 € HT at the hotel, Entwicklung"
    found = [raw(text, "parcel", "org"), raw(text, "item.Title", "org"), raw(text, "HT", "org"),
             raw(text, "hotel", "org"), raw(text, "Entwicklung", "org")]
    assert engine_spans(text, found) == []


def test_a_model_organisation_with_a_name_word_or_an_invented_word_is_kept():
    text = "bei spedition krüger und Edilnord, l'asso Les Amis du Vieux Lavoir"
    found = [raw(text, "spedition krüger", "org"), raw(text, "Edilnord", "org"),
             raw(text, "l'asso Les Amis du Vieux Lavoir", "org")]
    assert values(engine_spans(text, found)) == [
        ("spedition krüger", "org"), ("Edilnord", "org"), ("asso Les Amis du Vieux Lavoir", "org")]


def test_a_model_place_made_of_a_role_and_a_first_name_is_no_place():
    text = "Ansprechpartner Uwe Schwarz, Lager in Bielefeld"
    found = [raw(text, "Ansprechpartner Uwe", "loc"), raw(text, "Bielefeld", "loc")]
    assert values(engine_spans(text, found)) == [("Bielefeld", "location")]
