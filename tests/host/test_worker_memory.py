"""The Mémoire methods of the worker (worker/memory_api.py) on CPython, with the App's rig: the
lifecycle of a card from an explicit ask to its refusal, each change journaled and saved in the
memory record, what leaves on the wire, suggestions, the journal, "remember this" and the exports."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_worker_app import (
    LONG,
    NAME,
    Rig,
    extractor_reply,
    in_fresh_loop,
    leaked,
    openai_ok,
    rig,
    run,
    stored,
    with_remote,
)

from openmasq.worker import AppError, dispatch
from openmasq.worker.memory_api import MEMORY_METHODS, MemoryApi, memory_api

HEADER = "Mémoire de l'utilisateur"


def mem(r: Rig) -> MemoryApi:
    return memory_api(r.app)


def stored_cards(r: Rig) -> list[dict[str, Any]]:
    return list(stored(r, "memory")["memory"]["cards"])


def system_of(r: Rig, index: int = -1) -> str:
    """The system text of a chat request (where the memory block goes)."""
    body = r.egress.sent[index].body
    return "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")


async def explicit_card(r: Rig) -> tuple[str, str]:
    """An explicit ask in a conversation; the extraction runs; returns (conversation id, card id)."""
    await with_remote(r)
    conv = await r.app.create_conversation()
    r.egress.then(openai_ok(["C'est noté."]), extractor_reply)
    await r.app.send(conv["id"], f"Souviens-toi que {NAME} habite à Lyon.", r.on_event)
    r.host.advance(800)
    await r.app.wait_idle()
    cards = await mem(r).list_cards()
    assert [c["entity"] for c in cards] == [NAME]
    return conv["id"], cards[0]["id"]


def test_every_memory_method_names_a_method_of_the_memory_api() -> None:
    api = memory_api(rig().app)
    assert [name for name, method in MEMORY_METHODS.items() if not hasattr(api, method)] == []
    assert not set(MEMORY_METHODS) & set(dispatch.METHODS)


def test_an_explicit_ask_gives_a_proposed_card_in_the_inbox_with_its_evidence() -> None:
    async def body(r: Rig) -> None:
        conv_id, card_id = await explicit_card(r)
        overview = await mem(r).memory_overview()
        assert (overview["proposed"], overview["inbox"], overview["cards"]) == (1, 1, 1)
        inbox = await mem(r).review_inbox()
        assert [c["id"] for c in inbox["cards"]] == [card_id]
        card = await mem(r).get_card(card_id)
        assert card["status"] == "proposed" and card["facts"] == "habite à Lyon"
        sentence = card["sentence_list"][0]
        assert r.host.clock - 5_000 <= sentence["noted_at"] <= r.host.clock  # when the extraction ran
        evidence = sentence["evidence"]
        assert evidence["conversation_id"] == conv_id and evidence["exists"]
        user_message = (await r.app.get_conversation(conv_id))["message_list"][0]
        assert user_message["id"] in evidence["message_ids"]

    run(body)


def test_a_proposed_card_injects_only_on_a_direct_mention_and_on_every_tier_once_confirmed() -> None:
    async def body(r: Rig) -> None:
        conv_id, card_id = await explicit_card(r)
        surname = NAME.split()[1]
        await r.app.send(conv_id, f"Et {surname}, elle vient jeudi ?", r.on_event)
        assert HEADER not in system_of(r)  # a name word only (tier 1): not for a proposed card
        await r.app.send(conv_id, f"Que sais-tu de {NAME} ?", r.on_event)
        assert HEADER in system_of(r) and "habite à" in system_of(r) and "Lyon" not in system_of(r)
        await mem(r).confirm_card(card_id)
        assert (await mem(r).memory_overview())["inbox"] == 0
        await r.app.send(conv_id, f"Et {surname}, elle vient vendredi ?", r.on_event)
        assert HEADER in system_of(r) and "habite à" in system_of(r) and "Lyon" not in system_of(r)
        assert leaked(r.egress.wire()) == []  # the block went out with the conversation's fakes

    run(body)


def test_editing_a_sentence_keeps_the_old_one_in_history_and_restore_brings_it_back() -> None:
    async def body(r: Rig) -> None:
        _, card_id = await explicit_card(r)
        edited = await mem(r).edit_sentence(card_id, 0, "habite à Marseille")
        assert edited["facts"] == "habite à Marseille" and edited["status"] == "confirmed"
        assert [(h["text"], h["reason"]) for h in edited["history_list"]] == [("habite à Lyon", "replaced")]
        assert stored_cards(r)[0]["sentences"][0]["text"] == "habite à Marseille"  # saved at once
        restored = await mem(r).restore_sentence(card_id, 0)
        assert "habite à Lyon" in restored["facts"] and restored["history_list"] == []
        actions = [e["action"] for e in (await mem(r).list_journal({"card_id": card_id}))["entries"]]
        assert actions[:2] == ["restore", "replace"]

    run(body)


def test_an_attribute_update_moves_the_old_sentence_to_history_and_a_restore_swaps_them_back() -> None:
    async def body(r: Rig) -> None:
        card = await mem(r).create_card({"entity": "Hugo Lambert", "category": "personne",
                                         "facts": "Son poste : comptable."})
        updated = await mem(r).add_sentence(card["id"], "Son poste : directeur financier.")
        assert "directeur financier" in updated["facts"] and "comptable" not in updated["facts"]
        assert [h["text"] for h in updated["history_list"]] == ["Son poste : comptable."]
        restored = await mem(r).restore_sentence(card["id"], 0)  # the restore is symmetric
        assert "comptable" in restored["facts"] and "directeur" not in restored["facts"]
        assert [h["text"] for h in restored["history_list"]] == ["Son poste : directeur financier."]

    run(body)


def test_delete_can_be_undone_within_six_seconds_and_then_sticks_as_a_refusal() -> None:
    async def body(r: Rig) -> None:
        _, card_id = await explicit_card(r)
        deleted = await mem(r).delete_card(card_id)
        assert deleted["undo_until"] == r.host.clock + 6000
        assert await mem(r).list_cards() == [] and len(await mem(r).list_refusals()) == 1
        r.host.advance(5000)
        back = await mem(r).undo_delete_card(card_id)
        assert back["id"] == card_id and await mem(r).list_refusals() == []
        await mem(r).delete_card(card_id)
        r.host.advance(6001)
        with pytest.raises(AppError) as late:
            await mem(r).undo_delete_card(card_id)
        assert late.value.name == "Expired"
        refusals = await mem(r).list_refusals()
        assert [(x["kind"], x["label"], x["reason"]) for x in refusals] == [("entity", NAME, "deleted")]
        reloaded = memory_api(await r.reopen())
        assert await reloaded.list_cards() == [] and len(await reloaded.list_refusals()) == 1

    run(body)


def test_a_deleted_card_is_not_recreated_by_silent_extraction_until_the_refusal_is_lifted() -> None:
    async def body(r: Rig) -> None:
        conv_id, card_id = await explicit_card(r)
        await mem(r).delete_card(card_id)
        r.host.advance(6001)
        await r.app.update_settings({"auto_extract": True, "autolock_minutes": 0})
        await r.app.send(conv_id, LONG, r.on_event)
        r.egress.then(extractor_reply)
        sent_before = len(r.egress.sent)
        r.host.advance(120_000)
        await r.app.wait_idle()
        assert len(r.egress.sent) == sent_before + 1  # the silent run did happen
        assert await mem(r).list_cards() == []
        refusal = (await mem(r).list_refusals())[0]
        assert await mem(r).lift_refusal(refusal["entity_key"], refusal["fact_key"]) is True
        assert await mem(r).list_refusals() == []
        lifts = (await mem(r).list_journal({"action": "lift"}))["entries"]
        assert len(lifts) == 1 and lifts[0]["origin"] == "user"

    run(body)


def test_reject_records_a_refusal_and_hides_the_card() -> None:
    async def body(r: Rig) -> None:
        _, card_id = await explicit_card(r)
        rejected = await mem(r).reject_card(card_id)
        assert rejected["status"] == "rejected"
        assert await mem(r).list_cards() == []
        assert [c["id"] for c in await mem(r).list_cards({"status": "any"})] == [card_id]
        assert (await mem(r).list_refusals())[0]["reason"] == "rejected"
        assert (await mem(r).review_inbox())["cards"] == []

    run(body)


def test_suggestions_can_be_merged_or_dismissed_and_a_dismissal_persists() -> None:
    async def body(r: Rig) -> None:
        api = mem(r)
        a = await api.create_card({"entity": "Ninon", "category": "personne", "facts": "Aime le jazz."})
        b = await api.create_card({"entity": "Ninon Verdolini", "category": "personne", "facts": "Vit à Nantes."})
        c = await api.create_card({"entity": "Atelier Torbel", "category": "organisation", "facts": "Menuiserie."})
        d = await api.create_card({"entity": "Torbel", "category": "organisation", "facts": "Basée à Rennes."})
        suggestions = (await api.review_inbox())["suggestions"]
        assert {frozenset((s["keep"]["id"], s["drop"]["id"])) for s in suggestions} == {
            frozenset((a["id"], b["id"])), frozenset((c["id"], d["id"]))}
        await api.dismiss_suggestion(c["id"], d["id"])
        kept = await api.merge_cards(a["id"], b["id"])
        assert "Aime le jazz." in kept["facts"] and "Vit à Nantes." in kept["facts"]
        assert len(await api.list_cards({"category": "personne"})) == 1
        reloaded = memory_api(await r.reopen())
        assert (await reloaded.review_inbox())["suggestions"] == []
        assert (await reloaded.memory_overview())["suggestions"] == 0

    run(body)


def test_list_filters_by_text_category_status_scope_and_recent_change() -> None:
    async def body(r: Rig) -> None:
        api = mem(r)
        await r.app.update_settings({"autolock_minutes": 0})
        await api.create_card({"entity": "Élodie Garnier", "category": "personne", "facts": "Pédiatre."})
        r.host.advance(10 * 86_400_000)
        await api.create_card({"entity": "Projet Héron", "category": "projet", "scope": "Travail"})
        assert [c["entity"] for c in await api.list_cards("elodie")] == ["Élodie Garnier"]
        assert [c["entity"] for c in await api.list_cards({"text": "pediatre"})] == ["Élodie Garnier"]
        assert [c["entity"] for c in await api.list_cards({"category": "projet"})] == ["Projet Héron"]
        assert [c["entity"] for c in await api.list_cards({"scope": "Travail"})] == ["Projet Héron"]
        assert [c["entity"] for c in await api.list_cards({"scope": "global"})] == ["Élodie Garnier"]
        assert [c["entity"] for c in await api.list_cards({"recent_days": 7})] == ["Projet Héron"]
        assert await api.list_cards({"status": "proposed"}) == []
        assert "Travail" in (await api.memory_overview())["scopes"]

    run(body)


def test_card_fields_are_edited_and_journaled_one_by_one() -> None:
    async def body(r: Rig) -> None:
        api = mem(r)
        card = await api.create_card({"entity": "Marc", "category": "autre"})
        updated = await api.update_card(card["id"], {"entity": "Marc Petit", "aliases": ["Marco", " "],
                                                     "category": "personne", "scope": "Famille"})
        assert (updated["entity"], updated["aliases"], updated["category"], updated["scope"]) == (
            "Marc Petit", ["Marco"], "personne", "Famille")
        details = [e["detail"] for e in (await api.list_journal({"card_id": card["id"], "action": "edit"}))["entries"]]
        assert sorted(details) == ["alias", "catégorie", "entité", "espace"]
        with pytest.raises(AppError) as refused:
            await api.update_card(card["id"], {"colour": "red"})
        assert refused.value.name == "BadRequest"
        with pytest.raises(AppError) as missing:
            await api.get_card("nope")
        assert missing.value.name == "NotFound"

    run(body)


def test_the_journal_pages_and_filters_by_text() -> None:
    async def body(r: Rig) -> None:
        api = mem(r)
        for i in range(5):
            await api.create_card({"entity": f"Personne {i}", "facts": f"Fait {i}."})
        journal = await api.list_journal({"limit": 2})
        assert journal["total"] == 5 and [e["entity"] for e in journal["entries"]] == ["Personne 4", "Personne 3"]
        assert [e["entity"] for e in (await api.list_journal({"limit": 2, "offset": 4}))["entries"]] == ["Personne 0"]
        assert [e["entity"] for e in (await api.list_journal({"text": "fait 2"}))["entries"]] == ["Personne 2"]
        assert journal["counts"] == {"create": 5}

    run(body)


def test_the_profile_is_clamped_saved_and_journaled() -> None:
    async def body(r: Rig) -> None:
        api = mem(r)
        assert await api.set_profile("  Préfère des réponses courtes.  ") == "Préfère des réponses courtes."
        assert len(await api.set_profile("x" * 2000)) == 1200
        assert await memory_api(await r.reopen()).get_profile() == "x" * 1200
        assert (await api.list_journal({"action": "profile"}))["total"] == 2

    run(body)


def test_the_automatic_extraction_proposal_is_shown_once() -> None:
    async def body(r: Rig) -> None:
        assert (await mem(r).memory_overview())["proposal_seen"] is False
        await mem(r).mark_memory_proposal_seen()
        assert (await memory_api(await r.reopen()).memory_overview())["proposal_seen"] is True

    run(body)


def test_remember_text_runs_an_explicit_extraction_on_the_redacted_selection() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        await r.app.send(conv["id"], "Bonjour", r.on_event)
        message_id = (await r.app.get_conversation(conv["id"]))["message_list"][-1]["id"]
        r.egress.then(extractor_reply)
        result = await mem(r).remember_text(f"{NAME} habite à Lyon", conv["id"], message_id)
        assert result["status"] == "noted" and len(result["created"]) == 1
        extraction = r.egress.sent[-1]
        assert extraction.body["temperature"] == 0 and leaked(r.egress.wire()) == []
        card = await mem(r).get_card(result["created"][0])
        assert (card["entity"], card["status"], card["facts"]) == (NAME, "proposed", "habite à Lyon")
        assert card["sentence_list"][0]["evidence"]["message_id"] == message_id
        assert any(n.get("source") == "remember" for n in r.host.notices)

    run(body)


def test_remember_text_offline_keeps_the_selection_as_a_note() -> None:
    async def body(r: Rig) -> None:
        await with_remote(r)
        conv = await r.app.create_conversation()
        r.egress.is_online = False
        result = await mem(r).remember_text("Le code du portail change en mars.", conv["id"])
        assert result["status"] == "note" and r.egress.sent == []
        card = await mem(r).get_card(result["created"][0])
        assert (card["entity"], card["status"], card["source"]) == ("Le code du portail change…", "confirmed", "user")

    run(body)


def test_exports_and_an_import_that_merges_and_refuses_unknown_versions() -> None:
    async def body(r: Rig) -> None:
        api = mem(r)
        await api.create_card({"entity": "Élodie Garnier", "category": "personne", "facts": "Pédiatre."})
        text = await api.export_memory_text()
        assert text["name"].endswith(".txt") and "Élodie Garnier" in text["text"]
        exported = await api.export_memory_json()
        assert exported["name"].endswith(".json") and json.loads(exported["text"])["cards"]
        other = memory_api(await r.reopen(type(r.records)()))
        report = await other.import_memory_json(exported["text"])
        assert report["added"] == 1
        assert [c["entity"] for c in await other.list_cards()] == ["Élodie Garnier"]
        doc = json.loads(exported["text"])
        doc["version"] = 99
        with pytest.raises(AppError) as refused:
            await other.import_memory_json(json.dumps(doc))
        assert refused.value.name == "UnknownVersion"
        assert len(await other.list_cards()) == 1

    run(body)


def test_memory_methods_go_through_dispatch_and_a_locked_app_answers_locked() -> None:
    async def body(r: Rig) -> None:
        created = json.loads(await dispatch.call(r.app, "createCard", json.dumps([{"entity": "Inès"}])))["ok"]
        listed = json.loads(await dispatch.call(r.app, "listCards", json.dumps([{"text": "ines"}])))["ok"]
        assert [c["id"] for c in listed] == [created["id"]]
        missing = json.loads(await dispatch.call(r.app, "getCard", json.dumps(["nope"])))
        assert missing["error"]["name"] == "NotFound"

    run(body)

    async def locked() -> Any:
        return json.loads(await dispatch.call(rig().app, "listCards", "[]"))

    assert in_fresh_loop(locked())["error"]["name"] == "Locked"


def test_the_graph_links_cards_that_name_each_other() -> None:
    async def body(r: Rig) -> None:
        api = mem(r)
        a = await api.create_card({"entity": "Atelier Torbel", "category": "organisation", "facts": "Menuiserie."})
        b = await api.create_card({"entity": "Hugo Lambert", "category": "personne",
                                   "facts": "Travaille chez Atelier Torbel."})
        graph = await api.memory_graph()
        assert {n["id"] for n in graph["nodes"]} == {a["id"], b["id"]}
        assert [{x["source"], x["target"]} for x in graph["links"]] == [{a["id"], b["id"]}]
        assert graph["clusters"][0]["members"] and len(graph["clusters"]) == 1

    run(body)
