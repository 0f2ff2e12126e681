"""The memory as a versioned JSON document: round trip, one test per migration, unknown versions
refused with nothing changed, import that merges, cleans up and reports, and bad input."""

from __future__ import annotations

import json

import pytest

from openmasq.memory import ops
from openmasq.memory.model import (
    MAX_ALIASES,
    MAX_FACTS_CHARS,
    MAX_NAME_CHARS,
    STORE_VERSION,
    Card,
    Evidence,
    MemoryStore,
    Refusal,
    Sentence,
    Superseded,
)
from openmasq.memory.serialise import (
    MIGRATIONS,
    StoreFormatError,
    StoreVersionError,
    import_json,
    migrate_v0_to_v1,
    store_from_json,
    store_to_dict,
    store_to_json,
)


def rich_store() -> MemoryStore:
    data = MemoryStore(profile="Développeur senior.")
    ops.create_card(data, card_id="k", entity="Karl Studio", category="organisation", facts="Agence. Deadline juin.",
                    aliases=["KS"], now=1)
    data.cards.insert(0, Card(
        "n", "Norvik", "projet", [Sentence("Refonte.", 5, "auto-silent", Evidence("c1", ("m1", "m2")))],
        history=[Superseded(Sentence("Deadline mai.", 2, "auto-explicit", Evidence("c0")), 4, "replaced")],
        status="proposed", scope="travail", source="auto", created_at=5, updated_at=6, reviewed_at=None))
    ops.delete_card(data, "k", now=7)
    ops.dismiss_suggestion(data, "x", "y", now=8)
    data.journal_compacted = {"create": 12}
    data.settings.auto_extract = True
    return data


def test_a_store_survives_a_json_round_trip():
    data = rich_store()
    text = store_to_json(data)
    assert json.loads(text)["version"] == STORE_VERSION
    assert store_from_json(text) == data


def test_there_is_one_migration_per_version_step():
    assert len(MIGRATIONS) == STORE_VERSION


REFERENCE_DOC = {  # the reference app's MemoryData: no version, facts as one text
    "profile": "Préfère des réponses courtes.",
    "cards": [
        {"id": "a", "entity": "Ondine", "cat": "projet", "facts": "Refonte du site. Deadline le 15 novembre.",
         "factsLog": [{"at": 50, "prev": "Deadline fin septembre."}], "source": "auto",
         "createdAt": 10, "updatedAt": 60},
        {"id": "b", "entity": "Karl Studio", "aliases": ["KS"], "cat": "entreprise", "facts": "Agence.",
         "createdAt": 5, "updatedAt": 8},
        {"id": "c", "entity": "Norvik", "cat": "organisation", "facts": "Fournisseur.", "source": "auto",
         "reviewedAt": 30, "createdAt": 20, "updatedAt": 30},
    ],
}


def test_migration_0_to_1_turns_the_reference_memory_into_sentences_history_and_statuses():
    migrated = migrate_v0_to_v1(json.loads(json.dumps(REFERENCE_DOC)))
    assert migrated["version"] == 1
    data = store_from_json(json.dumps(REFERENCE_DOC))
    ondine, karl, norvik = data.cards
    assert [s.text for s in ondine.sentences] == ["Refonte du site.", "Deadline le 15 novembre."]
    assert ondine.sentences[0].origin == "auto-silent" and ondine.sentences[0].noted_at == 60
    assert [(h.sentence.text, h.superseded_at, h.reason) for h in ondine.history] == [
        ("Deadline fin septembre.", 50, "replaced")]
    assert (ondine.status, ondine.source, ondine.scope, ondine.reviewed_at) == ("proposed", "auto", None, None)
    assert (karl.category, karl.status, karl.source, karl.reviewed_at, karl.aliases) == (
        "autre", "confirmed", "user", 8, ["KS"])
    assert (norvik.status, norvik.reviewed_at) == ("confirmed", 30)
    assert data.profile == "Préfère des réponses courtes."
    assert data.refusals == [] and data.journal == []


@pytest.mark.parametrize("version, message", [(99, "newer than this app"), ("1", "invalid"), (-1, "invalid"),
                                              (True, "invalid")])
def test_an_unknown_schema_version_is_a_clear_error_and_the_store_is_untouched(version: object, message: str):
    data = rich_store()
    before = store_to_dict(data)
    document = json.dumps({"version": version, "cards": []})
    with pytest.raises(StoreVersionError, match=message):
        import_json(data, document, now=100)
    with pytest.raises(StoreVersionError):
        store_from_json(document)
    assert store_to_dict(data) == before


@pytest.mark.parametrize("text", ["not json", "[]", '{"version": 1, "cards": {}}', '{"cards": 3}'])
def test_a_malformed_document_is_refused_and_the_store_is_untouched(text: str):
    data = rich_store()
    before = store_to_dict(data)
    with pytest.raises(StoreFormatError):
        import_json(data, text, now=100)
    assert store_to_dict(data) == before


def test_a_strict_load_refuses_a_malformed_card_and_an_import_skips_and_lists_it():
    document = json.dumps({"version": 1, "cards": [{"id": "a", "entity": "Karl Studio"}, {"id": "b", "entity": " "},
                                                   "nonsense", {"id": "a", "entity": "Twice"}]})
    with pytest.raises(StoreFormatError, match="card 1"):
        store_from_json(document)
    data = MemoryStore()
    report = import_json(data, document, now=5)
    assert report.added == ["a"]
    assert len(report.skipped) == 3


def test_an_import_adds_merges_skips_refused_and_reports():
    here = MemoryStore(profile="Développeur senior.")
    ops.create_card(here, card_id="k", entity="Karl Studio", facts="Agence.", category="organisation", now=1)
    ops.create_card(here, card_id="gone", entity="Norvik", facts="Fournisseur.", now=2)
    ops.delete_card(here, "gone", now=3)
    same = store_from_json(store_to_json(here))

    there = MemoryStore(profile="Aime le vélo.")
    ops.create_card(there, card_id="k", entity="Karl Studio", facts="Agence. Paie à 30 jours.", category="organisation",
                    now=1)
    ops.create_card(there, card_id="gone", entity="Norvik", facts="Fournisseur.", now=2)
    ops.create_card(there, card_id="o", entity="Ondine", facts="Refonte.", category="projet", now=4)
    ops.create_card(there, card_id="dup", entity="Ondine", facts="Livraison en juin.", category="projet", now=5)
    there.refusals.append(Refusal("walmart", None, 6, label="Walmart"))
    there.dismissed_suggestions.add("p+q")

    report = import_json(here, store_to_json(there), now=10)
    assert report.from_version == STORE_VERSION
    assert report.merged == ["k"] and report.refused == ["Norvik"]
    assert sorted(report.added) == ["dup", "o"]
    assert report.profile_changed and here.profile == "Développeur senior. Aime le vélo."
    assert report.refusals_added == 1 and "p+q" in here.dismissed_suggestions
    assert report.clean is not None and report.clean.merged == 1  # the two Ondine cards
    assert here.card("k").facts == "Agence. Paie à 30 jours."  # type: ignore[union-attr]
    assert any(e.action == "import" and e.origin == "import" for e in here.journal)

    again = import_json(same, store_to_json(same), now=11)
    assert again.unchanged == ["k"] and again.added == [] and again.merged == []


def test_journals_are_united_in_time_order_without_repeats():
    here = rich_store()
    copy = store_from_json(store_to_json(here))
    import_json(here, store_to_json(copy), now=50)
    assert [e.at for e in here.journal] == sorted(e.at for e in here.journal)
    assert sum(1 for e in here.journal if e.action == "delete") == 1
    assert here.journal_compacted == {"create": 12}


def test_huge_fields_are_sanitised_on_import():
    document = json.dumps({"version": 1, "profile": "p" * 1_000_000, "cards": [{
        "id": "a", "entity": "E" * 1_000_000, "aliases": [f"alias {i}" for i in range(100)],
        "sentences": [{"text": "x" * 1_000_000, "noted_at": 1}, {"text": "Deuxième.", "noted_at": 2}],
        "history": [{"sentence": {"text": f"h{i}"}, "superseded_at": i} for i in range(100)],
    }]})
    data = store_from_json(document)
    [card] = data.cards
    assert len(card.entity) == MAX_NAME_CHARS and len(card.aliases) == MAX_ALIASES
    assert len(card.facts) <= MAX_FACTS_CHARS and len(card.history) == 20
    assert card.history[0].reason == "evicted"  # what the cap pushed out is kept restorable
    assert len(data.profile) == 1200


def test_ten_thousand_cards_round_trip():
    data = MemoryStore(cards=[Card(f"c{i}", f"Entité {i}", "autre", [Sentence(f"Fait {i}.", i)])
                              for i in range(10_000)])
    assert store_from_json(store_to_json(data)) == data
