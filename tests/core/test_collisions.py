"""Collisions never block a send (issue 17): a real value equal to a substitute the conversation gave
another value (a fake of another person, a fake of a remembered card, a marker in token mode) is
resolved in the vault; the old value is re-faked, the history replayed with its new substitute, and
the send goes through masked. Each case went "blocked: a real value reached the request" before."""

from __future__ import annotations

import re
from collections.abc import Callable

from openmasq.chat.codecs import ChatRequest, Done, StreamEvent, TextDelta, ToolCallDelta
from openmasq.chat.conversation import Conversation
from openmasq.chat.drive import ReferenceDriver
from openmasq.chat.send import SendInput, SendOutcome, send_flow
from openmasq.chat.steps import CallModel
from openmasq.memory.model import MemoryStore
from openmasq.memory.ops import create_card
from openmasq.redact import Vault, pseudonymise, restore
from openmasq.redact.collisions import resolve_collisions
from openmasq.redact.spans import Span

NOW = 1_767_225_600_000
KEY = "ab" * 32


def _ids() -> Callable[[], str]:
    counter = iter(range(1, 1000))
    return lambda: f"m{next(counter)}"


def _send(conv: Conversation, text: str, reply: str | Callable[[ChatRequest], str | list[StreamEvent]] = "Bien reçu.",
          store: MemoryStore | None = None) -> tuple[SendOutcome, list[ChatRequest]]:
    """Drive one send against a scripted model (a text it says, or the events it streams); returns the
    outcome and every request it made."""
    def model(call: CallModel) -> list[StreamEvent]:
        said = reply(call.request) if callable(reply) else reply
        return said if isinstance(said, list) else [TextDelta(said), Done("stop")]

    driver = ReferenceDriver(model)
    outcome = driver.run(send_flow(SendInput(conv, text, store or MemoryStore(), "m", NOW, _ids())))
    assert outcome is not None
    return outcome, [call.request for call in driver.calls]


def _wire(request: ChatRequest) -> str:
    return "\n".join([request.system, *(m.content for m in request.messages)])


def _primary(vault: Vault, real: str) -> str:
    sub = vault.substitute_of(real)
    assert sub is not None, real
    return sub


def test_a_real_name_equal_to_the_fake_of_another_person_is_sent_masked() -> None:
    conv = Conversation("c1", Vault.new(KEY))
    first, _ = _send(conv, "Je vois Marie Dupont demain.")
    old_fake = _primary(conv.vault, "Marie Dupont")
    outcome, sent = _send(conv, f"Et {old_fake} viendra aussi.")
    assert first.status == "done" and outcome.status == "done", outcome.reason
    wire = _wire(sent[0])
    assert old_fake not in wire and "Marie Dupont" not in wire  # neither real value leaves
    new_fake, other_fake = _primary(conv.vault, old_fake), _primary(conv.vault, "Marie Dupont")
    assert new_fake != old_fake and other_fake != old_fake
    assert f"Je vois {other_fake} demain." in wire and f"Et {new_fake} viendra aussi." in wire
    assert restore(f"{other_fake} et {new_fake}", conv.vault) == f"Marie Dupont et {old_fake}"


def test_a_real_first_name_equal_to_a_fake_first_name_is_sent_masked() -> None:
    conv = Conversation("c1", Vault.new(KEY))
    _send(conv, "Je vois Marie Dupont demain.")
    fake_first = _primary(conv.vault, "Marie Dupont").split()[0]
    outcome, sent = _send(conv, f"{fake_first} est une autre personne : {fake_first} viendra.")
    assert outcome.status == "done", outcome.reason
    wire = _wire(sent[0])
    assert fake_first not in wire.split() and f"{fake_first} " not in wire
    assert restore(_primary(conv.vault, fake_first), conv.vault) == fake_first
    # The old person keeps one identity under the new fake, in the history and alone.
    assert restore(_primary(conv.vault, "Marie Dupont"), conv.vault) == "Marie Dupont"


def test_a_real_surname_inside_the_fake_of_another_person_is_sent_masked() -> None:
    """"Hélène Ruiz" typed for real after "Marie Dupont" became "Paul Ruiz": the history must not carry "Ruiz"
    (seen in e2e: a persona's fake held the system prompt's real surname)."""
    conv = Conversation("c1", Vault.new(KEY))
    _send(conv, "Je vois Marie Dupont demain.")
    fake_surname = _primary(conv.vault, "Marie Dupont").split()[-1]
    outcome, sent = _send(conv, f"La cliente s'appelle Hélène {fake_surname}.")
    assert outcome.status == "done", outcome.reason
    wire = _wire(sent[0])
    assert fake_surname not in wire.replace(",", " ").replace(".", " ").split()
    assert restore(wire, conv.vault).count("Marie Dupont") == 1


def test_a_real_surname_inside_the_fake_of_an_email_is_sent_masked() -> None:
    """An e-mail faked as "x.ruiz@..." before "Hélène Ruiz" is typed for real: the address, not only the words of
    a name, must lose the real surname."""
    conv = Conversation("c1", Vault.new(KEY))
    _send(conv, "Écris à marie.dupont@gmail.com demain.")
    fake_email = _primary(conv.vault, "marie.dupont@gmail.com")
    parts = [p for p in re.split(r"[@._+-]+", fake_email.split("@")[0]) if len(p) >= 3 and p.isalpha()]
    assert parts, fake_email
    surname = parts[-1].capitalize()
    outcome, sent = _send(conv, f"La cliente s'appelle Hélène {surname}.")
    assert outcome.status == "done", outcome.reason
    wire = _wire(sent[0]).lower()
    assert surname.lower() not in re.split(r"[^\w]+", wire)
    assert restore(_wire(sent[0]), conv.vault).count("marie.dupont@gmail.com") == 1


def test_the_model_reply_after_a_collision_restores_to_the_right_people() -> None:
    conv = Conversation("c1", Vault.new(KEY))
    _send(conv, "Je vois Marie Dupont demain.")
    old_fake = _primary(conv.vault, "Marie Dupont")

    def echo(request: ChatRequest) -> str:  # the model names both people as it was told them
        return "Noté : " + request.messages[-1].content + " / " + request.messages[0].content

    outcome, _ = _send(conv, f"Et {old_fake} viendra aussi.", echo)
    assert outcome.reply is not None
    assert outcome.reply.content == f"Noté : Et {old_fake} viendra aussi. / Je vois Marie Dupont demain."


def test_a_real_name_equal_to_the_fake_of_a_remembered_card_is_sent_masked() -> None:
    store = MemoryStore()
    create_card(store, card_id="k1", entity="Claire Fontaine", now=NOW, category="personne",
                facts="Designer chez Karl Studio.")
    conv = Conversation("c1", Vault.new(KEY))
    first, sent = _send(conv, "Des nouvelles de Claire Fontaine ?", store=store)
    card_fake = _primary(conv.vault, "Claire Fontaine")
    assert first.status == "done" and card_fake in sent[0].system  # the card went out as its fake
    outcome, sent = _send(conv, f"Et {card_fake}, ma voisine, et Claire Fontaine ?", store=store)
    assert outcome.status == "done", outcome.reason
    wire = _wire(sent[0])
    assert card_fake not in wire and "Claire Fontaine" not in wire
    new_card_fake = _primary(conv.vault, "Claire Fontaine")
    assert new_card_fake in sent[0].system and new_card_fake != card_fake


def test_a_search_result_naming_someone_as_another_persons_fake_renames_that_fake_in_the_rest_of_the_loop() -> None:
    conv = Conversation("c1", Vault.new(KEY))
    _send(conv, "Je vois Marie Dupont demain.")
    old_fake = _primary(conv.vault, "Marie Dupont")
    store = MemoryStore()  # someone real whose name is the fake Marie Dupont was given
    create_card(store, card_id="k1", entity=old_fake, now=NOW, category="personne",
                facts="Mon dentiste, rue des Lilas.")

    def model(request: ChatRequest) -> str | list[StreamEvent]:
        if request.messages[-1].role == "user":
            return [ToolCallDelta(0, id="t1", name="memory_search", arguments_fragment='{"query": "dentiste"}'),
                    Done("tool_calls")]
        return "Noté : " + " / ".join(m.content for m in request.messages)  # names everyone as it was told

    outcome, sent = _send(conv, "Qui est mon dentiste ?", model, store)
    assert outcome.status == "done", outcome.reason
    assert len(sent) == 2 and "rue des Lilas" in sent[1].messages[-1].content  # the card came back from the search
    new_fake = _primary(conv.vault, "Marie Dupont")
    assert new_fake != old_fake
    wire = _wire(sent[1])
    assert old_fake not in wire and "Marie Dupont" not in wire  # the dentist's real name never leaves
    assert f"Je vois {new_fake} demain." in wire  # the history within the loop carries Marie's new fake
    assert outcome.reply is not None and "Je vois Marie Dupont demain." in outcome.reply.content
    assert old_fake in outcome.reply.content  # the dentist, restored from the fake the search gave him


def test_a_real_value_equal_to_a_token_in_token_mode_is_sent_masked() -> None:
    conv = Conversation("c1", Vault.new(KEY, "token"))
    _send(conv, "Je vois Léa Morvan demain, Morvan arrive tôt.")
    assert conv.vault.entries["[PERSON1]"] == "Léa Morvan"
    conv.forced_redactions.append(("[PERSON1]", "person"))  # the user masks a literal marker
    outcome, sent = _send(conv, "Le texte dit [PERSON1] ici.")
    assert outcome.status == "done", outcome.reason
    wire = _wire(sent[0])
    assert "[PERSON1]" not in wire and "Léa Morvan" not in wire and "Morvan" not in wire
    literal, person = _primary(conv.vault, "[PERSON1]"), _primary(conv.vault, "Léa Morvan")
    assert f"Le texte dit {literal} ici." in wire and f"Je vois {person} demain" in wire
    surname = next(sub for sub, real in conv.vault.entries.items() if real == "Morvan")
    assert surname.startswith(person[:-1]) and surname != person  # the surname follows its person's number
    assert restore(f"{person}, {surname}, {literal}", conv.vault) == "Léa Morvan, Morvan, [PERSON1]"


def test_collision_resolution_keeps_every_value_masked_and_the_mapping_injective() -> None:
    vault = pseudonymise("Marie Dupont, Paul Dupont et Karl Studio SAS.", Vault.new(KEY)).vault
    before = set(vault.entries.values())
    fake = _primary(vault, "Marie Dupont")
    result = pseudonymise(f"{fake} travaille chez Karl Studio SAS.", vault)
    assert "Marie Dupont" in result.refaked
    after = result.vault
    assert before <= set(after.entries.values()) | {fake}
    primaries = [sub for sub in after.entries if sub not in after.aliases]
    assert len({after.entries[s] for s in primaries}) == len(primaries)
    assert not set(after.entries) & set(after.entries.values())  # no substitute is a real value
    assert fake not in result.text and restore(result.text, after) == f"{fake} travaille chez Karl Studio SAS."


def test_no_collision_changes_nothing() -> None:
    vault = pseudonymise("Marie Dupont appelle.", Vault.new(KEY)).vault
    copy = vault.copy()
    assert resolve_collisions([Span(0, 11, "Jean Martin", "person", "lexicon")], "Jean Martin", copy) == ()
    assert copy.to_json() == vault.to_json()


def test_a_send_without_collision_redacts_each_text_once(monkeypatch) -> None:
    import openmasq.chat.send as send_module
    calls: list[str] = []
    real = send_module.pseudonymise
    monkeypatch.setattr(send_module, "pseudonymise", lambda text, *a, **k: calls.append(text) or real(text, *a, **k))
    conv = Conversation("c1", Vault.new(KEY))
    _send(conv, "Je vois Marie Dupont demain.")
    _send(conv, "Et Jean Martin ?")
    assert calls == ["Je vois Marie Dupont demain.", "Et Jean Martin ?"]
    fake = _primary(conv.vault, "Marie Dupont")
    calls.clear()
    _send(conv, f"Et {fake} ?")
    assert calls == [f"Et {fake} ?", f"Et {fake} ?"]  # one more round after the collision, no more
