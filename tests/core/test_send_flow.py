"""The send flow (reference 6.7-6.8, 7, 9.12-9.14): step protocol, fail-closed redaction, replay
rule, streamed restore, the bounded memory_search loop, and interrupted streams."""

from __future__ import annotations

import json
from collections.abc import Callable, Generator

import pytest

import openmasq.chat.send as send_module
from openmasq.chat.codecs import (
    ChatRequest,
    Done,
    ErrorEvent,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    Usage,
)
from openmasq.chat.conversation import Conversation, Message
from openmasq.chat.drive import ReferenceDriver
from openmasq.chat.send import (
    MAX_MODEL_CALLS,
    Answer,
    CallModel,
    FindNeighbours,
    PersistTurn,
    ReplyDelta,
    SendInput,
    SendOutcome,
    Step,
    send_flow,
)
from openmasq.memory.model import MemoryStore
from openmasq.memory.ops import create_card
from openmasq.memory.search import SEARCH_MAX, nothing_found
from openmasq.redact import RedactionError, Vault, pseudonymise

NOW = 1_767_225_600_000
Model = Callable[[ChatRequest], list[StreamEvent]]


def conversation() -> Conversation:
    return Conversation("c1", Vault.new("ab" * 32))


def ids() -> Callable[[], str]:
    counter = iter(range(1, 1000))
    return lambda: f"m{next(counter)}"


def store_with_claire() -> MemoryStore:
    store = MemoryStore()
    create_card(store, card_id="k1", entity="Claire Fontaine", now=NOW, category="personne",
                facts="Designer chez Karl Studio, aime le thé vert.")
    return store


def inp(conv: Conversation, text: str, store: MemoryStore | None = None, **kw: object) -> SendInput:
    return SendInput(conv, text, store or MemoryStore(), "m", NOW, ids(), **kw)  # type: ignore[arg-type]


def say(text: str, chunk: int = 3) -> list[StreamEvent]:
    return [*(TextDelta(text[i:i + chunk]) for i in range(0, len(text), chunk)), Usage(10, 5), Done("stop")]


def drive(flow: Generator[Step, Answer, SendOutcome], model: Model,
          index: Callable[[str, int], list[tuple[str, float]] | None] | None = None) -> tuple[SendOutcome, list[Step]]:
    """Steps the flow with the reference driver; `index` answers FindNeighbours as the embedding index would."""
    driver = ReferenceDriver(lambda call: model(call.request), neighbours=index)
    outcome = driver.run(flow)
    assert outcome is not None
    return outcome, driver.steps


def requests(steps: list[Step]) -> list[ChatRequest]:
    return [s.request for s in steps if isinstance(s, CallModel)]


def test_the_user_turn_is_persisted_before_the_request_with_its_vault() -> None:
    conv = conversation()
    outcome, steps = drive(send_flow(inp(conv, "Je suis Claire Fontaine.")), lambda r: say("Bonjour."))
    assert isinstance(steps[0], PersistTurn) and isinstance(steps[1], CallModel)
    assert steps[0].message is outcome.user and outcome.user in conv.messages
    assert outcome.user.redactions is not None and outcome.user.redactions >= 1
    assert "Claire Fontaine" in conv.vault.entries.values()
    assert "Claire" not in (outcome.user.wire or "")


def test_a_redaction_error_on_the_new_message_ends_the_send_before_anything_is_yielded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> object:
        raise RedactionError("boom")

    monkeypatch.setattr(send_module, "pseudonymise", broken)
    conv = conversation()
    outcome, steps = drive(send_flow(inp(conv, "Je suis Claire Fontaine.")), lambda r: say("x"))
    assert steps == [] and outcome.status == "blocked"
    assert conv.messages[-1].content == "Je suis Claire Fontaine."
    assert conv.messages[-1].redactions is None  # kept for the user, never replayed


def test_a_failing_memory_block_is_dropped_and_the_send_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    real = pseudonymise

    def block_fails(text: str, *args: object, **kwargs: object) -> object:
        if text.startswith("Mémoire"):
            raise RedactionError("block")
        return real(text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(send_module, "pseudonymise", block_fails)
    conv = conversation()
    outcome, steps = drive(send_flow(inp(conv, "Des nouvelles de Claire Fontaine ?", store_with_claire())),
                           lambda r: say("Oui."))
    sent = requests(steps)[0]
    assert outcome.status == "done" and outcome.memory_error == "RedactionError"
    assert "Mémoire" not in sent.system and "thé vert" not in json.dumps(str(sent))
    assert outcome.memory_used == [] and outcome.reply is not None and outcome.reply.memory_used is None


def test_the_memory_block_goes_in_the_system_text_as_fakes() -> None:
    conv = conversation()
    outcome, steps = drive(send_flow(inp(conv, "Des nouvelles de Claire Fontaine ?", store_with_claire())),
                           lambda r: say("Elle va bien."))
    sent = requests(steps)[0]
    assert "thé vert" in sent.system and "Claire" not in sent.system and "Karl" not in sent.system
    assert outcome.memory_used == ["k1"] and outcome.user.wire_memory == sent.system


def test_only_answered_user_turns_whose_redaction_completed_are_replayed_alternating() -> None:
    conv = conversation()
    conv.messages += [Message("u0", "user", "secret Claire Fontaine", redactions=None),
                      Message("a0", "assistant", "Réponse à Claire Fontaine."),
                      Message("u1", "user", "Bonjour Marc Dubreuil", redactions=1),
                      Message("a1", "assistant", "Bonjour, Marc Dubreuil."),
                      Message("u2", "user", "Tu es là ?", redactions=0),
                      Message("a2", "assistant", "", interrupted=True, error="network")]
    conv.vault.record("Paul Remy", "Claire Fontaine", "person")
    conv.vault.record("Léon Colin", "Marc Dubreuil", "person")
    _, steps = drive(send_flow(inp(conv, "Et ensuite ?")), lambda r: say("Ok."))
    sent = requests(steps)[0].messages
    # The reply to a turn never sent is not replayed alone; the failed turn is not replayed before the new one.
    assert [m.content for m in sent] == ["Bonjour Léon Colin", "Bonjour, Léon Colin.", "Et ensuite ?"]
    assert [m.role for m in sent] == ["user", "assistant", "user"]


def test_a_new_reply_to_the_last_turn_redacts_it_again_in_its_place() -> None:
    conv = conversation()
    conv.messages += [Message("u1", "user", "Bonjour Marc Dubreuil", redactions=1, wire="Bonjour Léon Colin")]
    conv.vault.record("Léon Colin", "Marc Dubreuil", "person")
    flow_inp = inp(conv, "Bonjour Marc Dubreuil")
    flow_inp.again = True
    outcome, steps = drive(send_flow(flow_inp), lambda r: say("Salut."))
    sent = requests(steps)[0].messages
    assert [(m.role, m.content) for m in sent] == [("user", "Bonjour Léon Colin")]
    assert conv.messages[0].id == "u1" and len(conv.messages) == 2
    assert outcome.user is conv.messages[0] and conv.messages[1].content == "Salut."


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 100])
def test_a_fake_split_across_deltas_is_restored(chunk: int) -> None:
    conv = conversation()

    def model(request: ChatRequest) -> list[StreamEvent]:
        fake = request.messages[-1].content.split(" est ")[0]
        return say(f"Oui, {fake} est là.", chunk)

    outcome, steps = drive(send_flow(inp(conv, "Claire Fontaine est là ?")), model)
    shown = "".join(s.text for s in steps if isinstance(s, ReplyDelta))
    assert shown == outcome.reply.content == "Oui, Claire Fontaine est là." if outcome.reply else False
    assert outcome.usage == {"input_tokens": 10, "output_tokens": 5}


def think_then_say(thought: str, answer: str, chunk: int) -> list[StreamEvent]:
    pieces = [ReasoningDelta(thought[i:i + chunk]) for i in range(0, len(thought), chunk)]
    return [*pieces, *say(answer, chunk)]


@pytest.mark.parametrize("chunk", [1, 3, 100])
def test_reasoning_is_restored_and_kept_apart_from_the_reply(chunk: int) -> None:
    conv = conversation()

    def model(request: ChatRequest) -> list[StreamEvent]:
        fake = request.messages[-1].content.split(" est ")[0]
        return think_then_say(f"L'utilisateur parle de {fake}.", f"Oui, {fake} est là.", chunk)

    outcome, steps = drive(send_flow(inp(conv, "Claire Fontaine est là ?")), model)
    reply = outcome.reply
    assert reply is not None
    assert reply.reasoning == "L'utilisateur parle de Claire Fontaine."
    assert reply.content == "Oui, Claire Fontaine est là."
    deltas = [s for s in steps if isinstance(s, ReplyDelta)]
    assert "".join(s.reasoning for s in deltas) == reply.reasoning
    assert "".join(s.text for s in deltas) == reply.content
    assert all(not (s.text and s.reasoning) for s in deltas[:-1])  # each delta carries one or the other
    assert "parle" not in (reply.wire or "")  # the wire copy is the answer as written, without the reasoning


def test_reasoning_held_back_when_the_stream_breaks_is_kept_restored() -> None:
    conv = conversation()

    def model(request: ChatRequest) -> list[StreamEvent]:
        fake = request.messages[-1].content.split(" est ")[0]
        return [ReasoningDelta(f"Je pense à {fake}"), ErrorEvent("network", "cut")]

    outcome, _ = drive(send_flow(inp(conv, "Claire Fontaine est là ?")), model)
    assert outcome.status == "interrupted" and outcome.reply is not None
    assert outcome.reply.reasoning == "Je pense à Claire Fontaine" and outcome.reply.content == ""


def tool_call(arguments: str, call_id: str = "t1") -> list[StreamEvent]:
    return [ToolCallDelta(0, id=call_id, name="memory_search", arguments_fragment=arguments[:5]),
            ToolCallDelta(0, arguments_fragment=arguments[5:]), Done("tool_calls")]


def test_memory_search_unredacts_the_query_and_re_redacts_the_result() -> None:
    conv = conversation()
    store = store_with_claire()
    seen: list[ChatRequest] = []

    def model(request: ChatRequest) -> list[StreamEvent]:
        seen.append(request)
        if len(seen) == 1:
            fake = request.messages[-1].content.removeprefix("Tu connais ").removesuffix(" ?")
            return tool_call(json.dumps({"query": fake}))
        return say("Elle aime le thé vert.")

    outcome, _ = drive(send_flow(inp(conv, "Tu connais Claire Fontaine ?", store)), model)
    assert outcome.reply is not None
    use = outcome.reply.tool_uses[0]
    assert json.loads(use.arguments)["query"] == "Claire Fontaine"
    assert "thé vert" in use.wire_result and "Claire" not in use.wire_result
    assert seen[1].messages[-1].role == "tool" and seen[1].messages[-1].content == use.wire_result


def searching(query: str) -> Model:
    """A model that calls memory_search(query) once, then answers."""
    def model(request: ChatRequest) -> list[StreamEvent]:
        return tool_call(json.dumps({"query": query})) if request.messages[-1].role == "user" else say("Voilà.")
    return model


def test_memory_search_asks_the_embedding_index_with_the_real_query_and_re_redacts_its_cards() -> None:
    asked: list[tuple[str, int]] = []

    def index(query: str, k: int) -> list[tuple[str, float]]:
        asked.append((query, k))
        return [("k1", 0.9)]

    conv = conversation()
    flow = send_flow(inp(conv, "Qui fait du design ?", store_with_claire(), semantic=True))
    outcome, steps = drive(flow, searching("graphisme"), index)
    assert asked == [("graphisme", SEARCH_MAX)]  # no word of the card: only the index finds it
    assert outcome.reply is not None
    wire = outcome.reply.tool_uses[0].wire_result
    assert "thé vert" in wire and "Claire" not in wire and "Fontaine" not in wire
    assert sum(isinstance(s, FindNeighbours) for s in steps) == 1


@pytest.mark.parametrize("answer", [None, [("k1", 0.5)], [("gone", 0.99)]])
def test_without_a_usable_answer_from_the_index_the_search_stays_lexical(answer: object) -> None:
    conv = conversation()
    flow = send_flow(inp(conv, "Qui fait du design ?", store_with_claire(), semantic=True))
    outcome, _ = drive(flow, searching("graphisme"), lambda query, k: answer)  # type: ignore[arg-type,return-value]
    assert outcome.reply is not None
    assert outcome.reply.tool_uses[0].wire_result == nothing_found("fr")


def test_without_an_index_the_flow_never_asks_for_neighbours() -> None:
    conv = conversation()
    outcome, steps = drive(send_flow(inp(conv, "Qui fait du design ?", store_with_claire())), searching("graphisme"))
    assert not any(isinstance(s, FindNeighbours) for s in steps)
    assert outcome.reply is not None and outcome.reply.tool_uses[0].wire_result == nothing_found("fr")


def test_the_tool_loop_is_bounded_and_the_last_call_offers_no_tool() -> None:
    conv = conversation()
    calls: list[ChatRequest] = []

    def model(request: ChatRequest) -> list[StreamEvent]:
        calls.append(request)
        return tool_call('{"query": "thé"}', f"t{len(calls)}") if request.tools else say("Fini.")

    outcome, _ = drive(send_flow(inp(conv, "Que sais-tu ?", store_with_claire())), model)
    assert len(calls) == MAX_MODEL_CALLS
    assert [bool(c.tools) for c in calls] == [True, True, True, False]
    assert outcome.reply is not None and outcome.reply.content == "Fini."


@pytest.mark.parametrize("memory_off, with_store, offered", [(False, True, True), (True, True, False),
                                                             (False, False, False)])
def test_memory_search_is_offered_only_with_memory_and_not_switched_off(
        memory_off: bool, with_store: bool, offered: bool) -> None:
    conv = conversation()
    conv.memory_off = memory_off
    store = store_with_claire() if with_store else MemoryStore()
    _, steps = drive(send_flow(inp(conv, "Salut", store)), lambda r: say("Salut."))
    assert bool(requests(steps)[0].tools) is offered


def test_an_error_event_keeps_the_partial_reply_marked_interrupted() -> None:
    conv = conversation()

    def model(request: ChatRequest) -> list[StreamEvent]:
        fake = request.messages[-1].content.removeprefix("Appelle ")
        return [TextDelta("J'appelle "), TextDelta(fake[:3]), TextDelta(fake[3:]), ErrorEvent("network", "cut")]

    outcome, _ = drive(send_flow(inp(conv, "Appelle Claire Fontaine")), model)
    assert outcome.status == "interrupted" and outcome.reply is not None
    assert outcome.reply.content == "J'appelle Claire Fontaine" and outcome.reply.interrupted
    assert not outcome.reply.pending and outcome.reply.error == "network"


def test_closing_the_flow_mid_stream_keeps_the_partial_reply() -> None:
    conv = conversation()
    flow = send_flow(inp(conv, "Bonjour"))
    assert isinstance(next(flow), PersistTurn)
    assert isinstance(flow.send(None), CallModel)
    flow.send(TextDelta("Bonjour, je "))
    flow.close()
    reply = conv.messages[-1]
    assert reply.role == "assistant" and reply.content == "Bonjour, je " and reply.interrupted and not reply.pending


def test_old_turns_are_dropped_when_the_context_window_is_near() -> None:
    conv = conversation()
    for i in range(10):
        conv.messages += [Message(f"u{i}", "user", f"question {i} " + "x" * 400, redactions=0),
                          Message(f"a{i}", "assistant", f"réponse {i} " + "y" * 400)]
    outcome, steps = drive(send_flow(inp(conv, "Dernière question", context_tokens=1000, max_tokens=200)),
                           lambda r: say("Ok."))
    sent = requests(steps)[0].messages
    assert outcome.dropped_turns > 0 and sent[0].role == "user" and sent[-1].content == "Dernière question"
    # The turn record says how many old messages its request left out; the conversation keeps them.
    assert outcome.user.context_dropped == outcome.dropped_turns == 20 + 1 - len(sent)
    assert len(conv.messages) == 22
    assert sent[-2].content.startswith("réponse 9")
    assert sum(len(m.content) for m in sent) // 4 <= 800


def test_a_card_named_in_the_message_but_left_out_by_the_budget_is_still_masked() -> None:
    store = MemoryStore()
    create_card(store, card_id="k9", entity="Fournisseur Numéro07", now=NOW, category="organisation",
                facts="Livre des fournitures. " * 10)
    store.settings.budget_chars = 120
    conv = conversation()
    outcome, steps = drive(send_flow(inp(conv, "Relance Fournisseur Numéro07 demain.", store)), lambda r: say("Ok."))
    assert [s.reason for s in outcome.memory_skipped] == ["budget"] and outcome.memory_used == []
    assert "Numéro07" not in requests(steps)[0].messages[-1].content
    assert outcome.reply is not None and outcome.reply.memory_skipped is not None


def test_an_unknown_tool_gets_a_plain_refusal_and_the_loop_goes_on() -> None:
    conv = conversation()
    seen: list[ChatRequest] = []

    def model(request: ChatRequest) -> list[StreamEvent]:
        seen.append(request)
        if len(seen) == 1:
            call = ToolCallDelta(0, id="x1", name="web_search", arguments_fragment='{"q": "météo"}')
            return [call, Done("tool_calls")]
        return say("Je ne peux pas chercher sur le web.")

    outcome, _ = drive(send_flow(inp(conv, "Quel temps fait-il ?", store_with_claire())), model)
    assert seen[1].messages[-1].content == send_module.UNKNOWN_TOOL
    assert outcome.reply is not None and outcome.reply.tool_uses[0].name == "web_search"


def test_a_failing_selection_injects_nothing_and_the_message_still_goes(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("index")

    monkeypatch.setattr(send_module, "select_memory", broken)
    conv = conversation()
    outcome, steps = drive(send_flow(inp(conv, "Des nouvelles de Claire Fontaine ?", store_with_claire())),
                           lambda r: say("Oui."))
    assert outcome.status == "done" and requests(steps)[0].system == "" and outcome.memory_used == []


def test_the_first_message_names_the_conversation() -> None:
    conv = conversation()
    drive(send_flow(inp(conv, "Organiser le séminaire de rentrée à Évreux en septembre")), lambda r: say("Ok."))
    assert conv.title == "Organiser le séminaire de rentrée…"
