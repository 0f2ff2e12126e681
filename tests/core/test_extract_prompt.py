"""The prompt contract (reference 3.4, 11.13 cap cases): caps 6/25, the exclusion clause only
when given, the explicit clause, French and English, clauses numbered in order (item 17)."""

from __future__ import annotations

import re

import pytest

from openmasq.memory.extract.prompt import (
    MAX_EXCLUDED_NAMES,
    corrective_messages,
    fact_limit,
    join_turns,
    label_turn,
    system_prompt,
)


def test_limits_are_six_silent_and_twenty_five_explicit_and_the_prompt_says_so():
    assert (fact_limit(False), fact_limit(True)) == (6, 25)
    assert "Maximum 6 faits" in system_prompt(explicit=False)
    assert "Maximum 25 faits" in system_prompt(explicit=True)
    assert "Maximum 25 facts" in system_prompt(explicit=True, language="en")


def test_the_exclusion_clause_appears_only_when_names_are_given():
    assert "DÉJÀ EN MÉMOIRE" not in system_prompt(explicit=False)
    prompt = system_prompt(explicit=False, exclude=["Apple", "Walmart"])
    assert re.search(r"DÉJÀ EN MÉMOIRE : Apple, Walmart\.", prompt)
    assert "ALREADY IN MEMORY: Apple, Walmart." in system_prompt(explicit=False, exclude=["Apple", "Walmart"],
                                                                language="en")


def test_the_exclusion_clause_keeps_the_first_sixty_names_on_one_line_each():
    names = [f"Nom{i}\nsuite" for i in range(80)]
    prompt = system_prompt(explicit=True, exclude=names)
    assert "Nom59 suite" in prompt and "Nom60 suite" not in prompt
    assert MAX_EXCLUDED_NAMES == 60


def test_the_explicit_clause_appears_only_in_explicit_mode():
    assert "demandé explicitement de retenir" in system_prompt(explicit=True)
    assert "demandé explicitement" not in system_prompt(explicit=False)
    assert "explicitly asked to remember" in system_prompt(explicit=True, language="en")


@pytest.mark.parametrize("language", ["fr", "en"])
def test_clauses_are_numbered_in_the_order_they_appear(language: str):
    prompt = system_prompt(explicit=True, exclude=["Apple"], language=language)  # type: ignore[arg-type]
    numbers = [int(n) for n in re.findall(r"^(\d+)\. ", prompt, flags=re.MULTILINE)]
    assert numbers == list(range(1, 10))
    clauses = dict(re.findall(r"^(\d+)\. (.*)$", prompt, flags=re.MULTILINE))
    assert "Apple" in clauses["8"]
    assert "explicitement de retenir" in clauses["9"] or "explicitly asked" in clauses["9"]


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_schema_keys_stay_french_in_both_languages(language: str):
    prompt = system_prompt(explicit=False, language=language)  # type: ignore[arg-type]
    for key in ('"profil"', '"faits"', '"entite"', '"alias"', '"cat"', '"fait"', '"personne"', '"organisation"'):
        assert key in prompt
    assert '{"profil": null, "faits": []}' in prompt


def test_the_contract_rules_are_all_there_in_french():
    prompt = system_prompt(explicit=False)
    for phrase in ("DURABLES", "EXACTEMENT", "une phrase courte", "se décrit explicitement", "mots de passe",
                   "DIFFÉRENTES", "UNIQUEMENT"):
        assert phrase in prompt


def test_wire_turns_are_labelled_in_the_ui_language_and_separated_by_blank_lines():
    turns = [label_turn("user", "bonjour"), label_turn("assistant", "salut")]
    assert join_turns(turns) == "Utilisateur : bonjour\n\nAssistant : salut"
    assert label_turn("user", "hi", "en") == "User: hi"


def test_the_corrective_retry_carries_the_last_four_thousand_characters_of_the_reply():
    reply = "a" * 10 + "b" * 4000
    messages = corrective_messages("WIRE", reply)
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[0]["content"] == "WIRE"
    assert messages[1]["content"] == "b" * 4000
    assert "UNIQUEMENT l'objet JSON" in messages[2]["content"]
    assert "ONLY" in corrective_messages("W", "x", "en")[2]["content"]
