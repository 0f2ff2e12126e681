"""Instructions (issue 18, item 4): a conversation's system prompt and the account's personas go to the
model only as fakes, with the same vault as the turn; they are stored (state document v5, migrated from v4)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable

import pytest

import openmasq.chat.send as send_module
from openmasq.chat.codecs import ChatRequest, Done, StreamEvent, TextDelta, Usage
from openmasq.chat.conversation import Conversation, conversation_from_dict, conversation_to_dict
from openmasq.chat.drive import ReferenceDriver
from openmasq.chat.instructions import Persona, check_instructions, check_persona_name, instructions_for
from openmasq.chat.send import SendInput, SendOutcome, preview_instructions, send_flow
from openmasq.memory.model import MemoryStore
from openmasq.redact import RedactionError, Vault
from openmasq.store import StateDocument, document_from_json, document_to_json, migrate
from openmasq.store.migrations import LATEST_VERSION, v4_to_v5

NOW = 1_767_225_600_000
NAME, EMAIL = "Claire Fontaine", "claire.fontaine@karl-studio.fr"
PROMPT = f"Tu écris au nom de {NAME} ({EMAIL}), directrice artistique. Signe chaque réponse de son nom."


def conversation(**kw: object) -> Conversation:
    return Conversation("c1", Vault.new(os.urandom(32)), **kw)  # type: ignore[arg-type]


def ids() -> Callable[[], str]:
    counter = iter(range(1, 1000))
    return lambda: f"m{next(counter)}"


def send(conv: Conversation, text: str, system: str,
         model: Callable[[ChatRequest], list[StreamEvent]]) -> tuple[SendOutcome, list[ChatRequest]]:
    driver = ReferenceDriver(lambda call: model(call.request))
    outcome = driver.run(send_flow(SendInput(conv, text, MemoryStore(), "m", NOW, ids(), system_prompt=system)))
    assert outcome is not None
    return outcome, [call.request for call in driver.calls]


def fake_of(conv: Conversation, real: str) -> str:
    return next(sub for sub, value in conv.vault.entries.items() if value == real)


def test_a_system_prompt_reaches_the_model_only_as_fakes_and_the_reply_comes_back_real() -> None:
    conv = conversation(system_prompt=PROMPT)

    def model(request: ChatRequest) -> list[StreamEvent]:
        signed = request.system.split("Tu écris au nom de ")[1].split(" (")[0]
        return [TextDelta(f"Bien reçu. — {signed}"), Usage(40, 6), Done("stop")]

    outcome, sent = send(conv, "Rédige une invitation.", instructions_for(conv, []), model)
    system = sent[0].system
    assert NAME not in system and "Claire" not in system and EMAIL not in system and "karl-studio" not in system
    assert fake_of(conv, NAME) in system and fake_of(conv, EMAIL) in system
    assert outcome.reply is not None and outcome.reply.content == f"Bien reçu. — {NAME}"


def test_a_persona_and_the_typed_text_naming_the_same_person_share_one_fake() -> None:
    persona = Persona("p1", "Assistante de Claire", PROMPT)
    conv = conversation(persona="p1")
    outcome, sent = send(conv, f"Écris à {NAME} pour lundi.", instructions_for(conv, [persona]),
                         lambda r: [TextDelta("Ok."), Done("stop")])
    fake = fake_of(conv, NAME)
    assert fake in sent[0].system and fake in sent[0].messages[-1].content
    assert NAME not in json.dumps([sent[0].system, *(m.content for m in sent[0].messages)], ensure_ascii=False)
    assert outcome.status == "done"


def test_the_instructions_are_the_accounts_then_the_personas_then_the_conversations() -> None:
    persona = Persona("p1", "Juriste", "Réponds en juriste.")
    conv = conversation(persona="p1", system_prompt="Cite le Code civil.")
    assert instructions_for(conv, [persona], "Sois bref.") == "Sois bref.\n\nRéponds en juriste.\n\nCite le Code civil."
    assert instructions_for(conversation(persona="gone"), [persona]) == ""  # a persona deleted since


def test_the_preview_of_the_instructions_masks_as_the_send_does_and_changes_nothing() -> None:
    conv = conversation(system_prompt=PROMPT)
    inp = SendInput(conv, "", MemoryStore(), "m", NOW, ids(), system_prompt=PROMPT)
    redaction = preview_instructions(inp)
    assert redaction is not None and NAME not in redaction.text and EMAIL not in redaction.text
    assert {r.value for r in redaction.replacements} >= {NAME, EMAIL}
    assert conv.vault.entries == {}  # the conversation's vault is the send's to change


def test_instructions_that_cannot_be_redacted_send_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    real = send_module.pseudonymise

    def fails_on_the_prompt(text: str, *args: object, **kwargs: object) -> object:
        if text == PROMPT:
            raise RedactionError("boom")
        return real(text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(send_module, "pseudonymise", fails_on_the_prompt)
    outcome, sent = send(conversation(), "Bonjour", PROMPT, lambda r: [TextDelta("Ok."), Done("stop")])
    assert outcome.status == "blocked" and sent == []


def test_a_conversations_instructions_and_the_personas_are_stored() -> None:
    conv = conversation(system_prompt=PROMPT, persona="p1")
    again = conversation_from_dict(json.loads(json.dumps(conversation_to_dict(conv))))
    assert (again.system_prompt, again.persona) == (PROMPT, "p1")
    doc = StateDocument(conversations=[conv], personas=[Persona("p1", "Claire", PROMPT, "prov1", "gpt-x")])
    loaded = document_from_json(document_to_json(doc))
    assert loaded.personas == doc.personas and loaded.conversations[0].system_prompt == PROMPT


def v4_document() -> dict[str, object]:
    return {"version": 4, "settings": {"system_prompt": "Sois bref."},
            "conversations": [{"id": "c1", "vault": {"version": 1, "key": "ab" * 32, "mode": "fake", "entries": []},
                               "messages": [{"id": "u1", "role": "user", "content": "Bonjour", "redactions": 0}],
                               "branches": [], "forks": {}}]}


def test_v4_to_v5_adds_no_persona_and_leaves_the_conversations_as_they_were() -> None:
    doc = v4_document()
    after = v4_to_v5(json.loads(json.dumps(doc)))
    assert after["version"] == 5 and after["personas"] == [] and after["conversations"] == doc["conversations"]


def test_a_v4_document_loads_with_no_instructions_of_its_own() -> None:
    loaded = document_from_json(json.dumps(v4_document()))
    conv = loaded.conversations[0]
    assert (conv.system_prompt, conv.persona, loaded.personas) == ("", None, [])
    assert loaded.settings.system_prompt == "Sois bref." and migrate(v4_document())["version"] == LATEST_VERSION


@pytest.mark.parametrize("bad", ["", "   ", "x" * 81, 3])
def test_a_persona_needs_a_short_name(bad: object) -> None:
    with pytest.raises(ValueError):
        check_persona_name(bad)


def test_instructions_have_a_bound() -> None:
    assert check_instructions("a" * 20_000) == "a" * 20_000
    with pytest.raises(ValueError):
        check_instructions("a" * 20_001)
