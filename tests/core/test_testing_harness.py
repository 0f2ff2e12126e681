"""The public test harness: the scripted model speaks fakes, the workspace drives both flows and
records every request body, and its leak check catches a real value on the wire."""

from __future__ import annotations

import json

from openmasq.chat.codecs import ChatRequest, Done, ErrorEvent, Message, TextDelta, ToolCallDelta
from openmasq.chat.steps import CallModel
from openmasq.testing import (
    CallTool,
    Fail,
    Say,
    ScriptedModel,
    WireRecord,
    Workspace,
    appears_in,
    facts,
    last_user_text,
)


def request(text: str) -> ChatRequest:
    return ChatRequest("m", (Message("user", text),))


def extraction_call() -> CallModel:
    return CallModel(ChatRequest("m", (), "s", stream=True), purpose="extract")


def test_a_say_turn_streams_in_chunks_and_ends_with_done() -> None:
    events = ScriptedModel(Say("Bonjour Paul", chunk=5)).respond(request("x"))
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Bonjo", "ur Pa", "ul"]
    assert isinstance(events[-1], Done) and events[-1].finish_reason == "stop"


def test_a_turn_can_be_computed_from_the_request() -> None:
    model = ScriptedModel(lambda req: "Tu as dit : " + last_user_text(req))
    events = model.respond(request("coucou"))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Tu as dit : coucou"
    assert model.requests == [request("coucou")]


def test_a_tool_turn_streams_the_call_in_pieces_with_fake_arguments() -> None:
    model = ScriptedModel(CallTool("memory_search", {"query": "Claire"}))
    events = model.respond(request("x"), speak=lambda t: t.replace("Claire", "Lina"))
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    assert deltas[0].name == "memory_search" and len(deltas) == 2
    assert json.loads("".join(d.arguments_fragment for d in deltas)) == {"query": "Lina"}
    assert isinstance(events[-1], Done) and events[-1].finish_reason == "tool_calls"


def test_a_fail_turn_says_its_partial_text_then_errors() -> None:
    events = ScriptedModel(Fail("Je comm", "overloaded")).respond(request("x"))
    assert isinstance(events[-1], ErrorEvent) and events[-1].kind == "overloaded"


def test_an_exhausted_script_says_d_accord_and_extracts_nothing() -> None:
    model = ScriptedModel()
    assert "".join(e.text for e in model.respond(request("x")) if isinstance(e, TextDelta)) == "D'accord."
    reply = model.extract(extraction_call())
    assert reply.text is not None and json.loads(reply.text) == {"profil": None, "faits": []}


def test_extractor_replies_are_spoken_as_fakes() -> None:
    model = ScriptedModel().extractor(facts(("Claire Fontaine", "Designer.", "personne")))
    reply = model.extract(extraction_call(), speak=lambda t: t.replace("Claire Fontaine", "Lina Roy"))
    assert reply.text is not None and json.loads(reply.text)["faits"][0]["entite"] == "Lina Roy"


def test_the_workspace_records_every_request_and_persists_before_it() -> None:
    ws = Workspace(ScriptedModel(Say("Bonjour Claire Fontaine !")))
    conv = ws.conversation()
    turn = ws.send(conv, "Je suis Claire Fontaine.")
    assert turn.persisted_before_request and len(ws.saved) == 1 and "Claire Fontaine" in ws.saved[0]
    assert [r.kind for r in ws.wire] == ["chat"]
    assert turn.reply == turn.displayed == "Bonjour Claire Fontaine !"
    assert ws.real_values() >= {"Claire Fontaine"} and ws.leaked() == []


def test_the_leak_check_finds_a_real_value_on_the_wire() -> None:
    ws = Workspace()
    ws.note("Claire Fontaine", "Designer.")
    ws.wire.append(WireRecord("chat", "c", '{"content": "voir claire fontaine"}'))
    assert ws.leaked() == ["Claire Fontaine"]


def test_single_words_count_on_their_case_and_names_ignore_it() -> None:
    assert not appears_in("Pierre", "le marché est en pierre claire")
    assert appears_in("Pierre Marché", "PIERRE MARCHÉ")
    assert not appears_in("Karl", "Karlsson")


def test_an_explicit_ask_runs_the_extraction_and_pins_its_feedback() -> None:
    model = ScriptedModel(Say("Entendu.")).extractor(facts(("Claire Fontaine", "Claire aime le thé.", "personne")))
    ws = Workspace(model)
    conv = ws.conversation()
    turn = ws.send(conv, "Retiens que Claire Fontaine aime le thé.")
    assert turn.extraction is not None and turn.extraction.status == "noted"
    assert ws.card("Claire Fontaine") is not None
    assert conv.messages[-1].memory_noted == 1 and [r.kind for r in ws.wire] == ["chat", "extract"]
    assert conv.memory_watermark == 2 and ws.leaked() == []


def test_closing_after_some_deltas_keeps_an_interrupted_reply() -> None:
    ws = Workspace(ScriptedModel(Say("Une longue réponse qui ne finira pas.", chunk=4)))
    conv = ws.conversation()
    turn = ws.send(conv, "Raconte.", close_after_deltas=2)
    assert turn.outcome.status == "interrupted" and turn.reply == "Une longue"[:8]
    assert conv.messages[-1].interrupted


def test_a_failing_stream_leaves_an_interrupted_reply_in_the_workspace() -> None:
    ws = Workspace(ScriptedModel(Fail("Je commence à répondre à Claire Fontaine", "overloaded")))
    conv = ws.conversation()
    turn = ws.send(conv, "Écris à Claire Fontaine.")
    assert turn.outcome.status == "interrupted" and turn.outcome.reason == "overloaded"
    assert turn.reply == "Je commence à répondre à Claire Fontaine" and conv.messages[-1].interrupted
    assert ws.leaked() == []
