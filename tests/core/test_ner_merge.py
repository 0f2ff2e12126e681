"""How the NER model's spans join the engine (redact/ner_merge.py): labels to kinds, joined names, trimmed
edges, the threshold, famous names, and the per-language table; then through the engine itself."""

from __future__ import annotations

from openmasq.redact import RedactOptions, Vault, pseudonymise
from openmasq.redact.ner_merge import (
    KEPT_KINDS,
    SCORE_THRESHOLD,
    engine_spans,
    kept_kinds,
    model_spans,
)
from openmasq.redact.spans import Span

KEY = bytes(range(32))


def raw(text: str, value: str, label: str, score: float = 0.95) -> Span:
    """A span as the model gives it: its own label as kind, source "ner"."""
    start = text.index(value)
    return Span(start, start + len(value), value, label, "ner", score)


def values(spans: list[Span]) -> list[tuple[str, str]]:
    return [(s.value, s.kind) for s in spans]


def test_a_given_name_and_a_surname_side_by_side_become_one_person():
    text = "Rédige un mail pour Marie Dupont avant lundi."
    spans = engine_spans(text, [raw(text, "Marie", "given_name"), raw(text, "Dupont", "surname")])
    assert values(spans) == [("Marie Dupont", "person")]
    assert (spans[0].start, spans[0].end, spans[0].source) == (20, 32, "ner")


def test_a_hyphenated_first_name_is_one_person():
    text = "Appelle Jean-Pierre demain."
    spans = engine_spans(text, [raw(text, "Jean", "given_name"), raw(text, "Pierre", "given_name")])
    assert values(spans) == [("Jean-Pierre", "person")]


def test_names_on_two_lines_stay_two_people():
    text = "Bonjour Marie\nDupont a appelé."
    spans = engine_spans(text, [raw(text, "Marie", "given_name"), raw(text, "Dupont", "surname")])
    assert values(spans) == [("Marie", "person"), ("Dupont", "person")]


def test_a_city_that_swallowed_the_next_word_is_trimmed_back():
    text = "Elle est arrivée à Lyon hier soir."
    assert values(engine_spans(text, [raw(text, "Lyon hier", "city")])) == [("Lyon", "location")]


def test_in_an_all_lowercase_text_a_span_keeps_its_words():
    # Without capitals anywhere there is nothing to judge the edges by: the model's span stands.
    text = "appelle marie dupont demain"
    spans = engine_spans(text, [raw(text, "marie", "given_name"), raw(text, "dupont", "surname")])
    assert values(spans) == [("marie dupont", "person")]


def test_a_lowercase_word_taken_for_a_name_in_a_cased_text_is_dropped():
    text = "Give me a recipe for banana bread."
    assert engine_spans(text, [raw(text, "banana", "given_name")]) == []


def test_a_name_below_the_threshold_is_dropped_unless_a_sure_part_carries_it():
    text = "Write to Nadia Kowalski today."
    low = SCORE_THRESHOLD - 0.01
    assert engine_spans(text, [raw(text, "Nadia", "given_name", low)]) == []
    assert engine_spans(text, [raw(text, "Nadia", "given_name", SCORE_THRESHOLD)]) != []
    joined = engine_spans(text, [raw(text, "Nadia", "given_name"), raw(text, "Kowalski", "surname", low)])
    assert values(joined) == [("Nadia Kowalski", "person")]


def test_a_name_stops_at_a_line_break():
    text = "Écris à Zoë Lefèvre\r\nMerci"
    start = text.index("Lefèvre")
    found = [raw(text, "Zoë", "given_name"), Span(start, len(text), text[start:], "surname", "ner", 0.9)]
    assert values(engine_spans(text, found)) == [("Zoë Lefèvre", "person")]


def test_a_house_number_and_a_street_become_one_address_and_a_postcode_alone_is_dropped():
    text = "Schreib an Bahnhofstraße 14, 80335 München."
    spans = engine_spans(text, [
        raw(text, "Bahnhofstraße", "street_name"), raw(text, "14", "building_number"),
        raw(text, "80335", "zip_code"), raw(text, "München", "city"),
    ])
    assert values(spans) == [("Bahnhofstraße 14", "address"), ("München", "location")]


def test_an_unknown_token_labelled_with_its_neighbour_is_cut_off():
    text = "Bisous à Zoë 😀 et à bientôt"
    start = text.index("Zoë")
    spans = engine_spans(text, [Span(start, start + 5, text[start : start + 5], "given_name", "ner", 0.9)])
    assert values(spans) == [("Zoë", "person")]


def test_a_first_name_inside_a_famous_name_becomes_the_famous_name():
    text = "Est-ce qu'Emmanuel Macron a déjà été ministre ?"
    assert values(engine_spans(text, [raw(text, "Emmanuel", "given_name")])) == [("Emmanuel Macron", "person")]


def test_a_span_that_runs_past_a_famous_name_is_cut_back_to_it():
    text = "Hat Angela Merkel Physik studiert?"
    spans = engine_spans(text, [raw(text, "Angela", "given_name"), raw(text, "Merkel Physik", "surname")])
    assert values(spans) == [("Angela Merkel", "person")]


def test_a_lone_word_unknown_to_the_name_lists_or_a_place_is_no_person():
    text = "Les nouveautés de Symfony, vues de Sydney, pour Nadia."
    spans = engine_spans(text, [
        raw(text, "Symfony", "surname"), raw(text, "Sydney", "given_name"), raw(text, "Nadia", "given_name"),
    ])
    assert values(spans) == [("Nadia", "person")]


def test_labels_without_an_engine_kind_are_ignored():
    text = "Call Nadia Kowalski."
    assert engine_spans(text, [raw(text, "Nadia", "pet_name")]) == []


def test_only_the_kinds_kept_for_the_language_go_to_the_engine():
    text = "Marie Dupont habite à Toulouse."
    found = [raw(text, "Marie", "given_name"), raw(text, "Dupont", "surname"), raw(text, "Toulouse", "city")]
    assert values(model_spans(text, found, "fr")) == [("Marie Dupont", "person")]
    assert model_spans(text, found, "es") == []  # the rules alone leak nothing there: the model is not kept


def test_an_unknown_language_gets_the_decision_taken_on_every_language():
    assert kept_kinds("auto") == KEPT_KINDS["auto"]
    assert kept_kinds("pt") == KEPT_KINDS["auto"]
    assert {"fr", "en", "de", "es", "it", "auto"} <= set(KEPT_KINDS)


def test_the_engine_replaces_a_model_span_and_marks_it_ner():
    text = "Mateus Oliveira replaces Gulnara Akhmetova as project lead."
    spans = model_spans(text, [raw(text, "Gulnara", "given_name"), raw(text, "Akhmetova", "surname")], "en")
    result = pseudonymise(text, Vault.new(KEY, mode="fake"), RedactOptions(lang="en", spans=tuple(spans)))
    assert "Gulnara" not in result.text and "Akhmetova" not in result.text
    marked = [rep for rep in result.replacements if rep.value == "Gulnara Akhmetova"]
    assert [rep.source for rep in marked] == ["ner"]


def test_a_famous_name_found_by_the_model_is_spared_below_strict_only():
    text = "Est-ce qu'Emmanuel Macron a déjà été ministre ?"
    spans = tuple(model_spans(text, [raw(text, "Emmanuel", "given_name")], "fr"))
    spared = pseudonymise(text, Vault.new(KEY, mode="fake"), RedactOptions(lang="fr", spans=spans))
    assert spared.text == text
    strict = pseudonymise(text, Vault.new(KEY, mode="fake"), RedactOptions(level="strict", lang="fr", spans=spans))
    assert "Macron" not in strict.text
