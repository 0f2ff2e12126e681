"""memory_search: the tool, whole-word inflection-tolerant scoring, the semantic top-up, the
framing, trust and scope, and the fail-closed re-redaction (reference 7, 11.7; section 12 item 10)."""

from __future__ import annotations

import json

import pytest
from memory_cards import T0, card, store

from openmasq.memory import search as search_module
from openmasq.memory.model import MemoryStore
from openmasq.memory.search import (
    SEARCH_MIN_SIM,
    SearchResult,
    memory_search_tool,
    search_memory,
    search_query_of,
    search_result_for_model,
    search_tool_offered,
    stem,
)
from openmasq.memory.select import ForcedValue, MemoryIndex
from openmasq.redact import RedactionError, Vault

DAY = 86_400_000
KEY = "00" * 32




def search(memory: MemoryStore, query: str, **kwargs: object) -> SearchResult:
    options: dict[str, object] = {"scope": None, "tz_offset_minutes": 0}
    options.update(kwargs)
    return search_memory(memory, query, **options)  # type: ignore[arg-type]


def found(result: SearchResult) -> list[str]:
    return [hit.card.entity for hit in result.hits]


KARL = card("ks", "Karl Studio", "organisation", "Agence de design à Lyon.", at=T0 + DAY)
AUGUSTIN = card("av", "Augustin Vaudel", "personne", "Directeur artistique de l'agence.")
MERLEBLEU = card("mb", "Projet Merlebleu", "projet", "Refonte du site vitrine, maquettes validées.")
BASE = store(KARL, AUGUSTIN, MERLEBLEU)


def semantic_of(*pairs: tuple[str, float]):  # type: ignore[no-untyped-def]
    def semantic(query: str, k: int) -> list[tuple[str, float]]:
        return list(pairs)[:k]

    return semantic


# --- 11.7 -----------------------------------------------------------------------------------------

def test_semantic_hits_top_up_above_the_bar_only():
    result = search(BASE, "graphisme", semantic=semantic_of(("ks", 0.93), ("av", 0.85)))
    assert found(result) == ["Karl Studio"]
    assert result.hits[0].via == "semantic"


def test_without_an_index_or_with_a_failing_one_the_lexical_result_stands():
    def broken(query: str, k: int) -> list[tuple[str, float]]:
        raise RuntimeError("index unavailable")

    assert found(search(BASE, "refonte du site")) == ["Projet Merlebleu"]
    assert found(search(BASE, "refonte du site", semantic=broken)) == ["Projet Merlebleu"]


def test_a_lexical_hit_is_not_repeated_by_its_semantic_echo():
    result = search(BASE, "karl studio", semantic=semantic_of(("ks", 0.97)))
    assert result.text.count("Karl Studio (organisation)") == 1


def test_fact_words_find_a_card_and_at_most_four_lines_come_back():
    assert found(search(BASE, "maquettes du site")) == ["Projet Merlebleu"]
    many = store(*(card(f"c{i}", f"Agence {name}", facts="Maquettes.") for i, name in enumerate("ABCDEF")))
    result = search(many, "maquettes")
    assert len(result.lines) == 4
    assert len(result.text.splitlines()) == 5


def test_no_hit_and_an_empty_store_return_the_nothing_found_text():
    for memory in (BASE, store()):
        result = search(memory, "planning de la chorale")
        assert result.lines == [] and result.hits == []
        assert result.text == "Aucun souvenir correspondant dans la mémoire de l'utilisateur."


def test_stopwords_alone_find_nothing():
    memory = store(card("x", "Les Plans", "projet", "Pour le weekend."))
    assert search(memory, "les pour le").lines == []


# --- section 12 item 10: whole words, inflection-tolerant ----------------------------------------

@pytest.mark.parametrize(
    "query, fact, hit",
    [
        ("contrat", "Trois contrats signés.", True),
        ("contrats", "Le contrat est signé.", True),
        ("client", "Deux clientes fidèles.", True),
        ("clientes", "Un client fidèle.", True),
        ("client", "Une clientèle exigeante.", False),
        ("clientèle", "Un client fidèle.", False),
        ("directrice", "Le directeur général.", True),
        ("associé", "Associée depuis 2020.", True),
        ("bureaux", "Le bureau de Nantes.", True),
        ("journal", "Plusieurs journaux locaux.", True),
        ("companies", "A holding company.", True),
        ("art", "Le dossier Bakartis.", False),
        ("studio", "Studios de Lyon.", True),
        ("plan", "Planning serré.", False),
    ],
)
def test_fix10_words_match_whole_and_up_to_plural_and_gender(query, fact, hit):
    memory = store(card("x", "Zorvex", "organisation", fact))
    assert bool(search(memory, query).lines) is hit


@pytest.mark.parametrize(
    "word, expected",
    [("contrats", "contrat"), ("clientes", "client"), ("vendeuse", "vendeur"), ("parisienne", "parisien"),
     ("professionnelle", "professionnel"), ("active", "actif"), ("bureaux", "bureau"), ("boxes", "box"),
     ("vaudel@karl", "vaudel@karl"), ("2021", "2021"), ("bus", "bus"), ("business", "business")],
)
def test_stem_folds_plural_and_gender_endings(word, expected):
    assert stem(word) == expected


def test_more_query_words_found_rank_first_then_the_most_recent():
    memory = store(
        card("a", "Alpha", facts="Maquettes du site.", at=T0),
        card("b", "Beta", facts="Maquettes.", at=T0 + DAY),
        card("c", "Gamma", facts="Maquettes.", at=T0 + 2 * DAY),
    )
    assert found(search(memory, "maquettes site")) == ["Alpha", "Gamma", "Beta"]


def test_a_cjk_query_finds_a_cjk_card_inside_unsegmented_text():
    memory = store(card("zw", "张伟", "personne", "设计师。"))
    assert found(search(memory, "张伟的电话")) == ["张伟"]


# --- framing, tool, trust and scope -------------------------------------------------------------

def test_lines_are_framed_and_dated():
    result = search(BASE, "karl studio")
    assert result.text == (
        "Souvenirs correspondants :\nKarl Studio (organisation) : Agence de design à Lyon. (noté le 16/06/2025)"
    )
    english = search(BASE, "karl studio", lang="en")
    assert english.text.startswith("Matching memories:\nKarl Studio (organisation) : ")
    assert search(BASE, "chorale", lang="en").text == "No matching memory in the user's memory."


def test_the_tool_definition_names_the_tool_and_states_the_rules():
    tool = memory_search_tool("fr")
    assert tool["name"] == "memory_search"
    assert tool["parameters"]["required"] == ["query"]
    assert tool["parameters"]["properties"]["query"]["type"] == "string"
    for phrase in ("retiens", "c'est noté", "je retiens", "c'est enregistré", "comme ils apparaissent"):
        assert phrase in tool["description"]
    english = memory_search_tool("en")
    assert "remember" in english["description"] and english["description"] != tool["description"]
    json.dumps(tool)


def test_the_tool_is_offered_only_with_readable_memory():
    assert not search_tool_offered(store(), scope=None)
    assert not search_tool_offered(BASE, scope=None, memory_off=True)
    assert search_tool_offered(BASE, scope=None)
    assert not search_tool_offered(store(card("x", "Orbis", scope="b")), scope="a")
    assert not search_tool_offered(store(card("x", "Orbis", status="rejected")), scope=None)


@pytest.mark.parametrize(
    "arguments, query",
    [('{"query": " Karl Studio "}', "Karl Studio"), ({"query": "Vaudel"}, "Vaudel"), ("", ""), ("{oops", ""),
     ('{"query": 3}', ""), ("[1]", "")],
)
def test_the_query_is_read_from_the_tool_arguments(arguments, query):
    assert search_query_of(arguments) == query


def test_proposed_cards_are_found_and_marked_unless_the_policy_is_never():
    proposed = card("ks", "Karl Studio", "organisation", "Agence.", status="proposed")
    line = "Karl Studio (organisation, non confirmé) : Agence. (noté le 15/06/2025)"
    assert search(store(proposed), "karl").lines == [line]
    assert search(store(proposed, policy="never"), "karl").lines == []


def test_rejected_cards_are_never_found():
    rejected = card("ks", "Karl Studio", "organisation", "Agence.", status="rejected")
    assert search(store(rejected), "karl studio", semantic=semantic_of(("ks", 0.99))).lines == []


def test_cards_of_another_space_are_never_found_and_global_ones_are():
    memory = store(card("g", "Karl Studio", facts="Agence."), card("o", "Karl Records", facts="Label.", scope="b"))
    assert found(search(memory, "karl", scope="a")) == ["Karl Studio"]
    assert found(search(memory, "karl", scope="a", semantic=semantic_of(("o", 0.99)))) == ["Karl Studio"]
    assert len(search(memory, "karl", scope="b").lines) == 2


def test_the_semantic_top_up_skips_unknown_ids_and_keeps_hits_at_the_bar_best_first():
    nearest = semantic_of(("gone", 0.99), ("av", SEARCH_MIN_SIM - 0.01), ("mb", SEARCH_MIN_SIM), ("ks", 0.95))
    assert found(search(BASE, "graphisme", semantic=nearest)) == ["Karl Studio", "Projet Merlebleu"]


def test_memory_off_finds_nothing():
    assert search(BASE, "karl studio", memory_off=True).lines == []


def test_a_prebuilt_index_is_used_as_is():
    index = MemoryIndex.build(BASE)
    assert search(BASE, "maquettes", index=index) == search(BASE, "maquettes")


# --- re-redaction ---------------------------------------------------------------------------------

def test_the_result_is_re_redacted_through_the_vault_with_the_memory_surfaces_forced():
    result = search(BASE, "karl studio augustin")
    assert ForcedValue("Karl Studio", "org") in result.forced
    vault = Vault.new(KEY, "fake")
    text = search_result_for_model(result.text, vault, result.forced)
    assert "Karl Studio" not in text and "Augustin Vaudel" not in text
    assert text.startswith("Souvenirs correspondants :")
    assert "Karl Studio" in vault.entries.values() and "Augustin Vaudel" in vault.entries.values()


def test_the_vault_keeps_its_fakes_across_results():
    vault = Vault.new(KEY, "fake")
    first = search_result_for_model("Karl Studio (organisation)", vault, [ForcedValue("Karl Studio", "org")])
    again = search_result_for_model("Karl Studio (organisation)", vault, [ForcedValue("Karl Studio", "org")])
    assert first == again


def test_a_failing_redaction_masks_the_result_and_leaves_the_vault_untouched(monkeypatch):
    def failing(*args: object, **kwargs: object) -> object:
        raise RedactionError("postcondition")

    monkeypatch.setattr(search_module, "pseudonymise", failing)
    vault = Vault.new(KEY, "fake")
    before = vault.to_json()
    assert search_result_for_model("Karl Studio", vault, [ForcedValue("Karl Studio", "org")]) == (
        "(résultat masqué : redaction indisponible)"
    )
    assert search_result_for_model("Karl Studio", vault, [], lang="en") == "(result hidden: redaction unavailable)"
    assert vault.to_json() == before
