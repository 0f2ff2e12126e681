"""The merge rules of multi-device sync, one test per rule (openmasq.sync.merge): every result is
checked both ways round (ours/theirs swapped), since that symmetry is what makes devices converge."""

from __future__ import annotations

import json
from typing import Any

from memory_cards import T0, card

from openmasq.chat.conversation import Conversation, Message, conversation_from_dict, conversation_to_dict
from openmasq.memory.model import JournalEntry, Refusal, Sentence, Superseded
from openmasq.memory.serialise import card_from_dict, card_to_dict, store_from_json, store_to_dict
from openmasq.redact import Vault
from openmasq.store import StateDocument, document_from_json, document_to_json
from openmasq.store.document import Provider
from openmasq.sync import (
    canonical,
    join_records,
    merge_card,
    merge_conversation,
    merge_journal,
    merge_memory_meta,
    merge_record,
    merge_refusals,
    split_document,
)

Doc = dict[str, Any]


def both_ways(merge: Any, base: Any, ours: Any, theirs: Any) -> Any:
    """Merge in both orders, assert they agree, return the result."""
    one, other = merge(base, ours, theirs), merge(base, theirs, ours)
    assert canonical(one) == canonical(other)
    return one


def base_card() -> Doc:
    c = card("c1", "Karl Studio", facts="Agence de design à Lyon.")
    return card_to_dict(c)


def edited(doc: Doc, at: int, **fields: Any) -> Doc:
    out = json.loads(json.dumps(doc))
    out.update(fields)
    out["updated_at"] = at
    return out


def sentence(text: str, at: int) -> Doc:
    return {"text": text, "noted_at": at, "origin": "user"}


def test_card_fields_changed_on_different_sides_are_both_kept() -> None:
    base = base_card()
    ours = edited(base, T0 + 10, entity="Karl Studio SAS")
    theirs = edited(base, T0 + 20, status="rejected", reviewed_at=T0 + 20)
    merged = both_ways(merge_card, base, ours, theirs)
    assert (merged["entity"], merged["status"], merged["reviewed_at"]) == ("Karl Studio SAS", "rejected", T0 + 20)
    assert merged["updated_at"] == T0 + 20


def test_card_field_changed_on_both_sides_takes_the_later_edit() -> None:
    base = base_card()
    ours = edited(base, T0 + 30, category="projet")
    theirs = edited(base, T0 + 20, category="personne")
    assert both_ways(merge_card, base, ours, theirs)["category"] == "projet"


def test_card_field_changed_on_both_sides_at_the_same_instant_is_decided_by_the_values_alone() -> None:
    base = base_card()
    ours = edited(base, T0 + 5, scope="space-a")
    theirs = edited(base, T0 + 5, scope="space-b")
    merged = both_ways(merge_card, base, ours, theirs)
    assert merged["scope"] in ("space-a", "space-b")


def test_card_sentences_added_on_both_sides_are_all_kept_and_one_removed_on_one_side_goes() -> None:
    base = base_card()
    base["sentences"].append(sentence("Contact : Marie Dupont.", T0))
    ours = edited(base, T0 + 10, sentences=[*base["sentences"], sentence("Client depuis 2021.", T0 + 10)])
    theirs = edited(base, T0 + 20, sentences=[base["sentences"][0], sentence("Paie à 30 jours.", T0 + 20)])
    texts = [s["text"] for s in both_ways(merge_card, base, ours, theirs)["sentences"]]
    assert sorted(texts) == sorted(["Agence de design à Lyon.", "Client depuis 2021.", "Paie à 30 jours."])


def test_card_aliases_are_merged_as_sets() -> None:
    base = edited(base_card(), T0, aliases=["Karl"])
    ours = edited(base, T0 + 1, aliases=["Karl", "KS"])
    theirs = edited(base, T0 + 2, aliases=[])
    assert both_ways(merge_card, base, ours, theirs)["aliases"] == ["KS"]


def test_card_edited_on_one_side_and_deleted_on_the_other_is_kept_with_the_edit() -> None:
    base = base_card()
    ours = edited(base, T0 + 10, entity="Karl Studio SAS")
    assert both_ways(merge_card, base, ours, None) == ours


def test_card_deleted_on_one_side_and_untouched_on_the_other_is_deleted() -> None:
    base = base_card()
    assert both_ways(merge_card, base, json.loads(json.dumps(base)), None) is None


def test_card_history_entries_are_kept_from_both_sides_most_recent_first() -> None:
    base = base_card()
    gone_a = {"sentence": sentence("Ancienne adresse : Villeurbanne.", T0), "superseded_at": T0 + 10,
              "reason": "replaced"}
    gone_b = {"sentence": sentence("Agence de design à Lyon.", T0), "superseded_at": T0 + 20, "reason": "replaced"}
    ours = edited(base, T0 + 10, history=[gone_a])
    theirs = edited(base, T0 + 20, history=[gone_b], sentences=[sentence("Agence à Paris.", T0 + 20)])
    history = both_ways(merge_card, base, ours, theirs)["history"]
    assert history == [gone_b, gone_a]


def test_a_merged_card_still_loads_as_a_card() -> None:
    c = card("c1", "Karl Studio", facts="Agence de design à Lyon.", aliases=("Karl",))
    c.history = [Superseded(Sentence("Ancienne.", T0), T0 + 1, "replaced")]
    base = card_to_dict(c)
    ours = edited(base, T0 + 10, status="confirmed", reviewed_at=T0 + 10)
    theirs = edited(base, T0 + 20, sentences=[*base["sentences"], sentence("Nouveau client.", T0 + 20)])
    loaded = card_from_dict(merge_card(base, ours, theirs))
    assert loaded.status == "confirmed" and loaded.facts == "Agence de design à Lyon. Nouveau client."


def refusal(entity: str, at: int, fact: str | None = None) -> Doc:
    return store_to_dict(_store_with(refusals=[Refusal(entity, fact, at, label=entity)]))["refusals"][0]


def _store_with(**fields: Any) -> Any:
    store = store_from_json(json.dumps({"version": 1, "cards": []}))
    for name, value in fields.items():
        setattr(store, name, value)
    return store


def test_refusals_made_on_either_side_are_a_union() -> None:
    base = [refusal("globex", T0)]
    ours = [*base, refusal("initech", T0 + 1)]
    theirs = [*base, refusal("marie dupont", T0 + 2)]
    merged = both_ways(merge_refusals, base, ours, theirs)
    assert sorted(r["entity_key"] for r in merged) == ["globex", "initech", "marie dupont"]


def test_a_refusal_lifted_on_one_side_is_lifted_unless_the_other_refused_it_anew() -> None:
    base = [refusal("globex", T0)]
    assert both_ways(merge_refusals, base, [], list(base)) == []
    again = [refusal("globex", T0)]
    again[0]["reason"] = "rejected"
    assert [r["reason"] for r in both_ways(merge_refusals, base, [], again)] == ["rejected"]


def test_the_same_refusal_made_on_both_sides_keeps_the_earlier_date() -> None:
    merged = both_ways(merge_refusals, None, [refusal("globex", T0 + 5)], [refusal("globex", T0 + 1)])
    assert [r["created_at"] for r in merged] == [T0 + 1]


def entry(at: int, action: str, entity: str) -> Doc:
    return {"at": at, "action": action, "origin": "user", "entity": entity}


def test_journal_entries_are_a_union_in_date_order_without_duplicates() -> None:
    shared = entry(T0, "create", "Globex")
    ours = {"entries": [shared, entry(T0 + 20, "edit", "Globex")], "compacted": {"add": 3}}
    theirs = {"entries": [shared, entry(T0 + 10, "confirm", "Globex")], "compacted": {"add": 1, "reject": 2}}
    merged = both_ways(lambda b, o, t: merge_journal(o, t), None, ours, theirs)
    assert [e["action"] for e in merged["entries"]] == ["create", "confirm", "edit"]
    assert merged["compacted"] == {"add": 3, "reject": 2}


def test_memory_meta_merges_profile_as_a_value_and_journal_as_a_union() -> None:
    store = _store_with(profile="Je suis designer.", journal=[JournalEntry(T0, "create", "user", entity="Globex")])
    base = {k: v for k, v in store_to_dict(store).items() if k != "cards"}
    ours = json.loads(json.dumps(base))
    ours["profile"] = "Je suis designer à Lyon."
    ours["journal"]["entries"].append(entry(T0 + 5, "profile", ""))
    theirs = json.loads(json.dumps(base))
    theirs["dismissed_suggestions"] = ["c1+c2"]
    theirs["journal"]["entries"].append(entry(T0 + 7, "dismiss", ""))
    merged = both_ways(merge_memory_meta, base, ours, theirs)
    assert merged["profile"] == "Je suis designer à Lyon."
    assert merged["dismissed_suggestions"] == ["c1+c2"]
    assert len(merged["journal"]["entries"]) == 3


def conversation(*messages: Message, updated: int = T0) -> Doc:
    vault = Vault.new("ab" * 16, "fake")
    return conversation_to_dict(Conversation(id="conv1", vault=vault, title="Contrat", created_at=T0,
                                             updated_at=updated, messages=list(messages)))


def test_conversation_turns_made_on_both_sides_merge_by_id_in_time_order() -> None:
    hello = Message("m1", "user", "Bonjour", at=T0)
    base = conversation(hello)
    ours = conversation(hello, Message("a2", "user", "Écris à Marie", at=T0 + 20), updated=T0 + 20)
    theirs = conversation(hello, Message("b2", "user", "Et Globex ?", at=T0 + 10), updated=T0 + 10)
    merged = both_ways(merge_conversation, base, ours, theirs)
    assert [m["id"] for m in merged["messages"]] == ["m1", "b2", "a2"]
    assert len(conversation_from_dict(merged).messages) == 3


def test_a_reply_finished_on_one_side_wins_over_the_same_turn_still_pending() -> None:
    question = Message("m1", "user", "Bonjour", at=T0)
    base = conversation(question, Message("r1", "assistant", "", at=T0 + 1, pending=True))
    done = conversation(question, Message("r1", "assistant", "Bonjour !", at=T0 + 1), updated=T0 + 2)
    stale = conversation(question, Message("r1", "assistant", "Bon", at=T0 + 1, pending=True), updated=T0 + 3)
    reply = both_ways(merge_conversation, base, done, stale)["messages"][1]
    assert reply["content"] == "Bonjour !" and "pending" not in reply


def test_a_turn_deleted_on_one_side_goes_when_the_other_left_it_alone() -> None:
    hello, extra = Message("m1", "user", "Bonjour", at=T0), Message("m2", "user", "Oups", at=T0 + 1)
    base = conversation(hello, extra)
    merged = both_ways(merge_conversation, base, conversation(hello, updated=T0 + 5), base)
    assert [m["id"] for m in merged["messages"]] == ["m1"]


def test_conversation_vault_entries_from_both_sides_are_a_union() -> None:
    base = conversation()
    ours, theirs = json.loads(json.dumps(base)), json.loads(json.dumps(base))
    ours["vault"]["entries"] = [["Lucie Garnier", "Marie Dupont", "person", False]]
    theirs["vault"]["entries"] = [["Ostrel", "Globex", "org", False]]
    theirs["vault"]["counters"] = {"PERSON": 2}
    merged = both_ways(merge_conversation, base, ours, theirs)
    vault = conversation_from_dict(merged).vault
    assert vault.entries == {"Lucie Garnier": "Marie Dupont", "Ostrel": "Globex"}
    assert vault.counters == {"PERSON": 2}


def test_conversation_deleted_on_one_side_and_continued_on_the_other_is_kept() -> None:
    hello = Message("m1", "user", "Bonjour", at=T0)
    base = conversation(hello)
    continued = conversation(hello, Message("m2", "user", "Suite", at=T0 + 9), updated=T0 + 9)
    assert both_ways(merge_conversation, base, continued, None) == continued
    assert both_ways(merge_conversation, base, json.loads(json.dumps(base)), None) is None


def test_a_state_document_split_into_records_and_joined_back_is_the_same_document() -> None:
    doc = StateDocument(providers=[Provider("p1", "openai", "https://api.example/v1", api_key="sk-secret")])
    doc.conversations.append(conversation_from_dict(conversation(Message("m1", "user", "Bonjour", at=T0))))
    doc.memory.cards.append(card("c1", "Globex", facts="Client."))
    doc.memory.profile = "Designer."
    text = document_to_json(doc)
    records = split_document(json.loads(text), with_api_keys=True)
    assert sorted(records) == ["account", "card:c1", "conversation:conv1", "memory"]
    joined = join_records(records, version=json.loads(text)["version"], local_api_keys={})
    assert document_from_json(json.dumps(joined)) == document_from_json(text)


def test_api_keys_are_left_out_of_the_records_unless_the_user_opts_in() -> None:
    doc = StateDocument(providers=[Provider("p1", "openai", "https://api.example/v1", api_key="sk-secret")])
    plain = json.loads(document_to_json(doc))
    assert "sk-secret" not in canonical(split_document(plain, with_api_keys=False))
    assert "sk-secret" in canonical(split_document(plain, with_api_keys=True))
    joined = join_records(split_document(plain, with_api_keys=False), version=plain["version"],
                          local_api_keys={"p1": "sk-local"})
    assert joined["providers"][0]["api_key"] == "sk-local"


def test_account_settings_merge_field_by_field_and_providers_by_id() -> None:
    base = {"settings": {"level": "renforce", "coffre": ["Projet X"]}, "providers": [], "spaces": [], "personas": []}
    ours = json.loads(json.dumps(base))
    ours["settings"]["level"] = "strict"
    ours["providers"] = [{"id": "p1", "base_url": "http://a"}]
    theirs = json.loads(json.dumps(base))
    theirs["settings"]["coffre"] = ["Projet X", "Globex"]
    theirs["providers"] = [{"id": "p2", "base_url": "http://b"}]
    merged = both_ways(lambda b, o, t: merge_record("account", b, o, t), base, ours, theirs)
    assert merged["settings"] == {"level": "strict", "coffre": ["Projet X", "Globex"]}
    assert {p["id"] for p in merged["providers"]} == {"p1", "p2"}
