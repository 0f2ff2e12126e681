"""Reading the extractor's reply (reference 3.5, 11.1 cases 5-13, 11.13 cap; 12 items 0, 1, 6),
and a fuzz test: the parser never raises, and its work grows linearly on hostile replies."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scaling import assert_linear

from openmasq.memory.extract.parse import (
    ParsedExtraction,
    balanced_objects,
    is_nominal_entity_name,
    parse_extraction,
    strip_think,
)


def _fact(entity: str, fact: str = "Un fait durable.", **extra: object) -> dict[str, object]:
    return {"entite": entity, "fait": fact, "cat": "organisation", **extra}


def _reply(facts: Sequence[object], profile: object = None) -> str:
    return json.dumps({"profil": profile, "faits": list(facts)}, ensure_ascii=False)


# --- reference 11.1 -------------------------------------------------------------------------


def test_prose_and_a_fenced_object_with_twelve_facts_give_six_and_no_profile():
    facts = [_fact(f"Société {chr(65 + i)}") for i in range(12)]
    reply = "Voici ce que je retiens :\n```json\n" + _reply(facts) + "\n```\nBonne journée."
    parsed = parse_extraction(reply, 6)
    assert parsed is not None
    assert [f.entity for f in parsed.facts] == [f"Société {chr(65 + i)}" for i in range(6)]
    assert parsed.profile is None


def test_no_object_is_illegible_not_empty():
    for reply in ["rien à signaler", "{oops", "<think>je réfléchis {encore}</think>", "", "[1, 2]"]:
        assert parse_extraction(reply, 6) is None, reply


def test_an_object_with_wrong_types_is_an_empty_extraction_not_illegible():
    for reply in ['{"faits":"non"}', '{"faits":[{"entite":3}]}', '{"profil": 4}']:
        parsed = parse_extraction(reply, 6)
        assert parsed == ParsedExtraction(rows=parsed.rows if parsed else 0), reply
        assert parsed is not None and parsed.facts == ()


def test_a_valid_empty_extraction_is_empty_not_none():
    parsed = parse_extraction('{"profil": null, "faits": []}', 6)
    assert parsed == ParsedExtraction()


def test_sentence_fragments_are_not_entities_and_a_sentence_alias_is_dropped():
    reply = _reply([
        _fact("Les deux fichiers sont des bilans prévisionnels"),
        _fact("Le client a signé le devis la semaine dernière."),
        _fact("Karl Studio", alias="elle est basée à Paris"),
        _fact("Plan A"),
        _fact("Grand Est"),
    ])
    parsed = parse_extraction(reply, 25)
    assert parsed is not None
    assert [(f.entity, f.alias) for f in parsed.facts] == [("Karl Studio", None), ("Plan A", None), ("Grand Est", None)]


def test_the_last_conforming_object_wins_over_an_example_in_the_prose():
    reply = ('Le format est {"profil": null, "faits": [{"entite": "Exemple", "fait": "x"}]}. '
             "Voici ma réponse : " + _reply([_fact("Karl Studio")]))
    parsed = parse_extraction(reply, 6)
    assert parsed is not None and [f.entity for f in parsed.facts] == ["Karl Studio"]


def test_json_inside_a_think_block_is_ignored():
    reply = "<think>" + _reply([_fact("Karl Studio")]) + "</think>\n" + '{"profil": null, "faits": []}'
    assert parse_extraction(reply, 6) == ParsedExtraction()


def test_a_brace_inside_a_json_string_does_not_break_balancing():
    reply = "ok " + _reply([_fact("Karl Studio", "Utilise le gabarit {client} } dans ses devis.")])
    parsed = parse_extraction(reply, 6)
    assert parsed is not None and parsed.facts[0].fact == "Utilise le gabarit {client} } dans ses devis."


def test_an_unknown_category_becomes_autre():
    parsed = parse_extraction(_reply([{"entite": "Zeta", "fait": "f", "cat": "zèbre"}]), 6)
    assert parsed is not None and parsed.facts[0].category == "autre"


def test_aliases_kept_absent_or_dropped_when_equal_to_the_entity():
    parsed = parse_extraction(_reply([
        _fact("Ninon Verdolini", alias="Ninon"),
        _fact("Karl Studio", alias=None),
        _fact("Zeta", alias="ZETA"),
    ]), 6)
    assert parsed is not None
    assert [f.alias for f in parsed.facts] == ["Ninon", None, None]


# --- reference 11.13 (cap) and 12 item 6 ------------------------------------------------------


def test_twelve_facts_give_six_silent_and_twelve_explicit():
    reply = _reply([_fact(f"Entreprise {i}") for i in range(12)])
    silent, explicit = parse_extraction(reply, 6), parse_extraction(reply, 25)
    assert silent is not None and len(silent.facts) == 6
    assert explicit is not None and len(explicit.facts) == 12


def test_the_cap_applies_after_validation_so_invalid_rows_do_not_take_slots():
    rows: list[object] = [{"entite": 3}, "junk", _fact("Le client a signé.")]
    rows += [_fact(f"Entreprise {i}") for i in range(8)]
    parsed = parse_extraction(_reply(rows), 6)
    assert parsed is not None
    assert [f.entity for f in parsed.facts] == [f"Entreprise {i}" for i in range(6)]
    assert parsed.rows == 11  # what the model offered: the sweep's "full" test


def test_fact_text_is_cut_to_six_hundred_characters_and_trimmed():
    parsed = parse_extraction(_reply([_fact("  Karl Studio ", "  " + "a" * 700)]), 6)
    assert parsed is not None
    assert parsed.facts[0].entity == "Karl Studio" and len(parsed.facts[0].fact) == 600


def test_the_profile_is_a_trimmed_non_empty_string():
    assert parse_extraction(_reply([], "  Consultant indépendant.  "), 6) == ParsedExtraction(
        profile="Consultant indépendant.")
    assert parse_extraction(_reply([], "   "), 6) == ParsedExtraction()


# --- names (reference 12 item 1: Unicode boundaries) ------------------------------------------


def test_etait_and_etaient_make_a_sentence_with_unicode_boundaries():
    assert not is_nominal_entity_name("Le client était content")
    assert not is_nominal_entity_name("Les devis étaient prêts")
    assert is_nominal_entity_name("Étaix Conseil")  # a name that starts with the same letters


def test_nominal_names_and_sentences():
    assert is_nominal_entity_name("Plan A")
    assert is_nominal_entity_name("Grand Est")
    assert is_nominal_entity_name("张伟")
    assert not is_nominal_entity_name("Karl Studio.")
    assert not is_nominal_entity_name("Bon. Karl Studio")
    assert not is_nominal_entity_name("un deux trois quatre cinq six sept")
    assert not is_nominal_entity_name("The client is happy")
    assert not is_nominal_entity_name("x" * 121)
    assert not is_nominal_entity_name("   ")


# --- the scanners -----------------------------------------------------------------------------


def test_think_blocks_and_stray_tags_are_removed():
    assert strip_think("a<think>b</think>c") == "ac"
    assert strip_think("a</think>c") == "ac"
    assert strip_think("a<THINK>b") == "ab"
    assert strip_think("<think>1</think>x<think>2</think>y") == "xy"


def test_an_unclosed_object_does_not_hide_a_complete_one_inside_it():
    text = '{oops {"faits": []} '
    assert [text[s:e] for s, e in balanced_objects(text)] == ['{"faits": []}']
    assert parse_extraction(text, 6) == ParsedExtraction()


def test_quotes_outside_objects_do_not_start_a_string():
    text = 'il a dit "bonjour {"faits": []}'
    assert parse_extraction(text, 6) == ParsedExtraction()


# --- robustness -------------------------------------------------------------------------------


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(
        st.sampled_from(["entite", "fait", "alias", "cat", "profil", "faits", "x"]), children, max_size=5),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=2000))
def test_the_parser_never_raises_on_arbitrary_text(text: str):
    parse_extraction(text, 6)


@settings(max_examples=300, deadline=None)
@given(_json_values, st.integers(min_value=0, max_value=400), st.text(max_size=50))
def test_the_parser_never_raises_on_truncated_or_wrongly_typed_json(value: object, cut: int, prose: str):
    document = json.dumps({"profil": value, "faits": value if isinstance(value, list) else [value]})
    for reply in (document, document[:cut], prose + document + prose, "<think>" + document, document + "</think>"):
        parsed = parse_extraction(reply, 25)
        assert parsed is None or len(parsed.facts) <= 25


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(['{', '}', '"', '\\', 'x', ' ', '<think>', '</think>', ':', ',', '[', ']']),
                max_size=300))
def test_the_parser_never_raises_on_brace_and_quote_soup(parts: list[str]):
    parse_extraction("".join(parts), 6)


# Replies a parser could choke on, built at a size n (the same shape at every n).
SOUPS = {
    "braces": lambda n: "{" * n,
    "nested lists": lambda n: "[" * (n // 10) + "]" * (n // 10),
    "nested objects": lambda n: '{"a":' * (n // 20) + "1" + "}" * (n // 20),
    "thinking": lambda n: "<think>" * (n // 10),
    "a long number": lambda n: '{"faits": [' + "1" * n + "]}",
    "quotes": lambda n: '"' * n,
    "backslashes": lambda n: "\\" * n,
}


def parse_25(text: str) -> object:
    return parse_extraction(text, 25)


@pytest.mark.parametrize("soup", list(SOUPS.values()), ids=list(SOUPS))
def test_brace_and_quote_soups_are_parsed_in_linear_work(soup: Callable[[int], str]):
    assert_linear(parse_25, soup(100_000), soup(10_000))


def test_ten_thousand_facts_and_megabyte_strings_are_capped():
    cases = [
        _reply([_fact(f"Entreprise {i}") for i in range(10_000)]),
        _reply([_fact("Karl Studio", "x" * 1_000_000)], "p" * 1_000_000),
        _reply([_fact("y" * 1_000_000)]),
        *(soup(1_000_000) for soup in SOUPS.values()),
    ]
    for reply in cases:
        parsed = parse_extraction(reply, 25)
        assert parsed is None or len(parsed.facts) <= 25
    many = parse_extraction(cases[0], 25)
    assert many is not None and len(many.facts) == 25 and many.rows == 10_000
    big = parse_extraction(cases[1], 25)
    assert big is not None and len(big.facts[0].fact) == 600
    assert big.profile is not None and len(big.profile) <= 2400


def test_deeply_nested_model_output_is_illegible_without_recursing():
    from openmasq.memory.extract.parse import MAX_NESTING, nesting_depth, parse_extraction

    deep = '{"faits": ' + "[" * 5000 + "]" * 5000 + "}"
    assert nesting_depth(deep) == 5001
    assert nesting_depth('{"a": "[[[[[[", "b": [1]}') == 2
    assert parse_extraction(deep, 6) is None
    assert MAX_NESTING >= 8
