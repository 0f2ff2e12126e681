"""The extraction run as a sans-I/O flow against a scripted model driven by the reference driver
(reference 3.8, 11.1, 11.14; 12 items 0, 7, 15a, 15b), with egress tests: no real value in any text
yielded to the model."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pytest

import openmasq.memory.extract.run as run_module
from openmasq.chat.codecs import StreamEvent
from openmasq.chat.drive import ReferenceDriver
from openmasq.chat.steps import CallModel, ModelReply, ReplyDelta
from openmasq.memory.extract.run import (
    ExtractionInput,
    ExtractionMessage,
    ExtractionOutcome,
    Feedback,
    exclusion_names,
    run_extraction,
)
from openmasq.memory.model import (
    Card,
    Evidence,
    MemoryStore,
    Origin,
    Refusal,
    ResolvedExtraction,
    Sentence,
)
from openmasq.redact import RedactOptions, Vault, pseudonymise
from openmasq.testing import reply_events

Script = Callable[[CallModel], ModelReply]


def drive(inp: ExtractionInput, replies: Sequence[ModelReply | Script] = (), **kwargs: object
          ) -> tuple[ExtractionOutcome, list[CallModel]]:
    """Run the flow against a scripted model: each call gets the next reply (or the reply a
    function computes from the call), streamed whole."""
    script = list(replies)

    def model(call: CallModel) -> list[StreamEvent]:
        assert script, f"unexpected call #{call.call}"
        reply = script.pop(0)
        return reply_events(reply(call) if callable(reply) else reply)

    driver = ReferenceDriver(model)
    outcome = driver.run(run_extraction(inp, **kwargs))  # type: ignore[arg-type]
    assert outcome is not None and outcome.calls == tuple(driver.calls)
    assert all(isinstance(step, ReplyDelta) and not step.text for step in driver.steps if step not in driver.calls)
    return outcome, driver.calls


def sent(call: CallModel, index: int = 0) -> str:
    """The text of the call's message at `index` (0: the turns it reads)."""
    return call.request.messages[index].content


def extraction(*facts: tuple[str, str, str] | tuple[str, str, str, str], profile: str | None = None) -> ModelReply:
    rows = [{"entite": f[0], "fait": f[1], "cat": f[2], "alias": f[3] if len(f) > 3 else None} for f in facts]
    return ModelReply.ok(json.dumps({"profil": profile, "faits": rows}, ensure_ascii=False))


EMPTY = extraction()


def standard_vault() -> Vault:
    vault = Vault.new("ef" * 32, "fake")
    vault.record("Norvik Group", "Karl Studio", "org")
    vault.record("Simon Cros", "Augustin Vaudel", "person")
    return vault


def user(i: int, text: str, kinds: tuple[str, ...] = ("org",), redactions: int | None = 1) -> ExtractionMessage:
    return ExtractionMessage(f"m{i}", "user", text, redactions, kinds)


def assistant(i: int, text: str, pending: bool = False) -> ExtractionMessage:
    return ExtractionMessage(f"m{i}", "assistant", text, pending=pending)


LONG_TALK = ("Je travaille depuis trois ans avec Karl Studio, une agence de design installée à Évreux. "
             "Ils gèrent toute notre identité visuelle, les maquettes du site et les supports imprimés. "
             "Le contrat cadre a été renouvelé au printemps et couvre encore deux années complètes. ") * 2


@dataclass
class RecordingMerge:
    """A store-side stand-in: records what the runner asked to merge."""

    calls: list[tuple[ResolvedExtraction, dict[str, object]]] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    profile_changed: bool = False

    def __call__(self, store: MemoryStore, resolved: ResolvedExtraction, *, now: int, origin: Origin,
                 evidence: Evidence, scope: str | None) -> RecordingMerge.Outcome:
        self.calls.append((resolved, {"now": now, "origin": origin, "evidence": evidence, "scope": scope}))
        ids = [f.id for f in resolved.facts]
        return RecordingMerge.Outcome(ids, [], self.profile_changed)

    @dataclass
    class Outcome:
        created_ids: list[str]
        updated_ids: list[str]
        profile_changed: bool


def ids() -> Callable[[], str]:
    counter = iter(range(1, 1000))
    return lambda: f"pre-{next(counter)}"


def make_input(messages: Sequence[ExtractionMessage], *, watermark: int = 0, vault: Vault | None = None,
               store: MemoryStore | None = None, **extra: object) -> ExtractionInput:
    defaults: dict[str, object] = {"auto_extract": True}
    defaults.update(extra)
    return ExtractionInput(
        conversation_id="conv-1", messages=list(messages), watermark=watermark,
        vault=vault or standard_vault(), store=store or MemoryStore(), now=99, new_id=ids(),
        **defaults,  # type: ignore[arg-type]
    )


def karl_card(facts: str = "Agence de design.", card_id: str = "c-karl", source: str = "auto") -> Card:
    return Card(card_id, "Karl Studio", "organisation", [Sentence(facts, 1)], source=source,  # type: ignore[arg-type]
                created_at=1, updated_at=1)


# --- reference 11.1: the run ------------------------------------------------------------------


def test_the_model_sees_the_fake_and_the_store_gets_the_real_name():
    store = MemoryStore()
    inp = make_input([user(0, LONG_TALK), assistant(1, "Bien noté.")], store=store)
    reply = extraction(("Norvik Group", "Norvik Group est notre agence de design.", "organisation"))
    outcome, calls = drive(inp, [reply])
    sent = "\n".join(outcome.sent_texts())
    assert "Norvik Group" in sent and "Karl Studio" not in sent
    assert [(c.entity, c.source) for c in store.cards] == [("Karl Studio", "auto")]
    assert "Karl Studio" in store.cards[0].facts
    assert outcome.watermark == 2 and outcome.status == "noted" and outcome.count == 1
    assert (calls[0].request.temperature, calls[0].timeout_s, calls[0].purpose) == (0.0, 60.0, "extract")
    assert calls[0].request.stream and calls[0].request.tools == ()


@pytest.mark.parametrize(("auto", "pending", "watermark", "reason"), [
    (False, False, 0, "auto-extract-off"),
    (True, True, 0, "pending-message"),
    (True, False, 2, "no-new-message"),
])
def test_no_call_when_silent_memory_is_off_a_turn_is_pending_or_nothing_is_new(auto: bool, pending: bool,
                                                                              watermark: int, reason: str):
    messages = [user(0, LONG_TALK), assistant(1, "Bien noté.", pending=pending)]
    outcome, calls = drive(make_input(messages, watermark=watermark, auto_extract=auto))
    assert calls == [] and outcome.status == "skipped" and outcome.watermark == watermark
    assert outcome.reason == reason


def test_a_model_error_returns_nothing_and_keeps_the_watermark():
    outcome, calls = drive(make_input([user(0, LONG_TALK), assistant(1, "ok")]), [ModelReply.failure("http")])
    assert len(calls) == 1 and outcome.status == "unreachable" and outcome.watermark == 0 and outcome.count == 0


def test_a_timeout_is_treated_as_unreachable():
    outcome, _ = drive(make_input([user(0, LONG_TALK), assistant(1, "ok")]), [ModelReply.failure("timeout")])
    assert outcome.status == "unreachable" and outcome.watermark == 0


def test_an_explicit_ask_rereads_below_the_watermark():
    store = MemoryStore()
    messages = [user(0, "Karl Studio fait nos maquettes."), assistant(1, "Très bien."),
                user(2, "Retiens ça.", kinds=()), assistant(3, "C'est noté.")]
    outcome, calls = drive(make_input(messages, watermark=2, auto_extract=False, store=store),
                           [extraction(("Norvik Group", "Fait nos maquettes.", "organisation"))])
    assert outcome.explicit
    assert "Utilisateur : Norvik Group fait nos maquettes." in sent(calls[0])
    assert [c.entity for c in store.cards] == ["Karl Studio"]
    assert outcome.feedback == Feedback("m3", count=1, created_ids=(store.cards[0].id,))


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


def test_an_explicit_ask_over_chatter_with_an_empty_answer_is_nothing_durable_not_a_failure(store: MemoryStore):
    merge = RecordingMerge()
    messages = [user(0, "Il fait beau aujourd'hui.", kinds=()), assistant(1, "Oui !"),
                user(2, "Retiens ça.", kinds=()), assistant(3, "D'accord.")]
    outcome, calls = drive(make_input(messages, store=store), [EMPTY], merge=merge)
    assert len(calls) == 1 and merge.calls == []
    assert outcome.status == "nothing" and outcome.watermark == 4
    assert outcome.feedback == Feedback("m3", count=0, failed=False)
    assert outcome.journal is not None and "rien de durable" in outcome.journal


def test_an_explicit_ask_with_silent_memory_off_stores_and_reports_the_card_id(store: MemoryStore):
    messages = [user(0, "Retiens que Karl Studio fait nos maquettes."), assistant(1, "Noté.")]
    outcome, _ = drive(make_input(messages, store=store, auto_extract=False),
                       [extraction(("Norvik Group", "Fait nos maquettes.", "organisation"))])
    cards = store.cards
    assert len(cards) == 1 and outcome.feedback is not None
    assert outcome.feedback.created_ids == (cards[0].id,) and outcome.feedback.count == 1


def test_a_profile_only_preference_reports_count_zero_with_the_profile_sentinel(store: MemoryStore):
    messages = [user(0, "Retiens que je préfère des réponses courtes, en français.", kinds=()), assistant(1, "Ok.")]
    outcome, _ = drive(make_input(messages, store=store, auto_extract=False),
                       [extraction(profile="Préfère des réponses courtes, en français.")])
    assert store.profile == "Préfère des réponses courtes, en français."
    assert store.cards == []
    assert outcome.feedback == Feedback("m1", count=0, created_ids=("profile",))


def test_a_silent_run_has_no_feedback():
    outcome, _ = drive(make_input([user(0, LONG_TALK), assistant(1, "ok")]),
                       [extraction(("Norvik Group", "Agence de design.", "organisation"))])
    assert outcome.feedback is None and outcome.count == 1
    assert all(call.noting is None for call in outcome.calls)


# --- reference 11.1: preferences, notes, update and attachment through the real merge --------


def test_a_preference_note_goes_to_the_profile_and_makes_no_card(store: MemoryStore):
    messages = [user(0, "Retiens ça : des réponses courtes en français.", kinds=()), assistant(1, "Ok.")]
    note = ("Préférence de réponse", "Préfère des réponses courtes en français.", "autre")
    drive(make_input(messages, store=store), [extraction(note)])
    assert store.cards == []
    assert store.profile == "Préfère des réponses courtes en français."


def test_the_same_fact_under_two_invented_titles_makes_one_card(store: MemoryStore):
    messages = [user(0, "Retiens ça : toujours relancer sous 48h.", kinds=()), assistant(1, "Ok.")]
    for title in ("Méthode de relance", "Règle de suivi"):
        drive(make_input(messages, store=store), [extraction((title, "Toujours relancer sous 48h.", "autre"))])
    assert len(store.cards) == 1 and store.cards[0].entity == "Méthode de relance"


def test_a_note_already_said_by_a_merged_card_creates_nothing(store: MemoryStore):
    store.cards.append(Card("c-1", "Méthode", "autre",
                                     [Sentence("Toujours relancer sous 48h.", 1), Sentence("Jamais le lundi.", 1)]))
    messages = [user(0, "Retiens ça : toujours relancer sous 48h.", kinds=()), assistant(1, "Ok.")]
    outcome, _ = drive(make_input(messages, store=store), [extraction(("Règle de suivi", "Toujours relancer sous 48h.",
                                                             "autre"))])
    assert outcome.merge is not None and list(outcome.merge.created_ids) == []
    assert len(store.cards) == 1


def test_a_named_persons_preference_is_a_real_card_and_not_the_profile(store: MemoryStore):
    vault = Vault.new("ef" * 32, "fake")
    vault.record("Lucie Brenner", "Marie Kerner", "person")
    messages = [user(0, "Retiens que Marie Kerner préfère le thé.", ("person",)), assistant(1, "Ok.")]
    drive(make_input(messages, store=store, vault=vault), [extraction(("Lucie Brenner", "Lucie Brenner préfère le thé.",
                                                             "personne"))])
    store = store
    assert [(c.entity, c.facts) for c in store.cards] == [("Marie Kerner", "Marie Kerner préfère le thé.")]
    assert store.profile == ""


def test_karl_studio_spelled_with_a_hyphen_merges_into_the_existing_card(store: MemoryStore):
    store.cards.append(karl_card())
    messages = [user(0, "Retiens que karl-studio a signé le devis Q3.", kinds=()), assistant(1, "Ok.")]
    outcome, _ = drive(make_input(messages, store=store, vault=Vault.new("ef" * 32)),
                       [extraction(("karl-studio", "A signé le devis Q3.", "organisation"))])
    card = store.cards[0]
    assert len(store.cards) == 1 and "Agence de design." in card.facts and "devis Q3" in card.facts
    assert card.updated_at == 99 and outcome.merge is not None and list(outcome.merge.created_ids) == []


def test_a_fact_already_on_the_card_is_a_no_op(store: MemoryStore):
    store.cards.append(karl_card("Agence de design à Évreux."))
    messages = [user(0, "Retiens que Karl Studio est une agence de design à Evreux.", kinds=()), assistant(1, "Ok.")]
    drive(make_input(messages, store=store, vault=Vault.new("ef" * 32)),
          [extraction(("Karl Studio", "agence de DESIGN a Evreux", "organisation"))])
    assert store.cards[0].updated_at == 1


def test_a_new_entity_gets_the_pre_minted_id_and_source_auto(store: MemoryStore):
    messages = [user(0, "Retiens que Karl Studio fait nos maquettes."), assistant(1, "Ok.")]
    reply = extraction(("Norvik Group", "Fait nos maquettes.", "organisation"))
    outcome, _ = drive(make_input(messages, store=store), [reply])
    assert [(c.id, c.source) for c in store.cards] == [("pre-1", "auto")]
    assert outcome.merge is not None and list(outcome.merge.created_ids) == ["pre-1"]


def test_an_alias_is_added_at_creation_and_a_later_extraction_under_it_joins_the_card(store: MemoryStore):
    vault = Vault.new("ef" * 32, "fake")
    messages = [user(0, "Retiens que Ninon Verdolini (Ninon) gère la compta.", ("person",)), assistant(1, "Ok.")]
    drive(make_input(messages, store=store, vault=vault), [extraction(("Ninon Verdolini", "Gère la compta.", "personne",
                                                             "Ninon"))])
    assert store.cards[0].aliases == ["Ninon"]
    messages = [user(0, "Retiens que Ninon part en congé en août.", ("person",)), assistant(1, "Ok.")]
    drive(make_input(messages, store=store, vault=vault), [extraction(("Ninon", "Part en congé en août.", "personne"))])
    assert len(store.cards) == 1 and "août" in store.cards[0].facts


def test_profile_pieces_append_once_and_profile_changed_says_when_text_was_added(store: MemoryStore):
    messages = [user(0, "Retiens : je suis consultant indépendant et je réponds en français.", kinds=()),
                assistant(1, "Ok.")]
    feedback_ids = []
    for profile in ("Consultant indépendant.", "Répond en français.", "consultant indépendant", None):
        outcome, _ = drive(make_input(messages, store=store), [extraction(profile=profile)])
        assert outcome.feedback is not None
        feedback_ids.append(outcome.feedback.created_ids)
    assert store.profile == "Consultant indépendant. Répond en français."
    assert feedback_ids == [("profile",), ("profile",), (), ()]


def test_recomputing_a_run_on_the_same_store_mints_the_same_created_ids():
    messages = [user(0, "Retiens que Karl Studio fait nos maquettes."), assistant(1, "Ok.")]
    reply = extraction(("Norvik Group", "Fait nos maquettes.", "organisation"))
    first, _ = drive(make_input(messages, store=MemoryStore()), [reply])
    second, _ = drive(make_input(messages, store=MemoryStore()), [reply])
    assert first.feedback is not None and second.feedback is not None
    assert first.feedback.created_ids == second.feedback.created_ids == ("pre-1",)


def test_a_long_profile_is_clamped_on_the_extraction_path(store: MemoryStore):
    messages = [user(0, "Retiens tout ce que je t'ai dit sur moi.", kinds=()), assistant(1, "Ok.")]
    long = " ".join(f"Je travaille sur le sujet numéro {i} avec passion{i}." for i in range(80))
    drive(make_input(messages, store=store), [extraction(profile=long)])
    assert 0 < len(store.profile) <= 1200 < len(long)


def test_the_watermark_never_moves_back():
    outcome, calls = drive(make_input([user(0, LONG_TALK), assistant(1, "ok")], watermark=10))
    assert calls == [] and outcome.watermark == 10 and outcome.reason == "no-new-message"


def test_the_explicit_lookback_is_six_messages():
    old = [m for i in range(4)
           for m in (user(2 * i, f"Sujet{i} : Karl Studio version {i}."), assistant(2 * i + 1, "ok"))]
    messages = [*old, user(8, "Retiens ça.", kinds=()), assistant(9, "ok")]
    _, calls = drive(make_input(messages, watermark=8), [EMPTY])
    wire = sent(calls[0])
    assert "Sujet1" in wire and "Sujet0" not in wire  # messages 2..9 are read, 0 and 1 are not


def test_an_attribute_update_replaces_the_old_deadline_and_keeps_the_rest(store: MemoryStore):
    store.cards.append(Card("c-m", "Projet Merlebleu", "projet",
                                     [Sentence("Refonte complète du site.", 1),
                                      Sentence("La deadline est fin septembre.", 1)]))
    messages = [user(0, "Retiens que pour le Projet Merlebleu la deadline est désormais le 15 novembre.", kinds=()),
                assistant(1, "Ok.")]
    drive(make_input(messages, store=store, vault=Vault.new("ef" * 32)),
          [extraction(("Projet Merlebleu", "Deadline désormais le 15 novembre.", "projet"))])
    facts = store.cards[0].facts
    assert "15 novembre" in facts and "septembre" not in facts and "Refonte complète" in facts


def test_a_non_attribute_fact_is_appended(store: MemoryStore):
    store.cards.append(Card("c-m", "Projet Merlebleu", "projet",
                                     [Sentence("Refonte complète du site.", 1),
                                      Sentence("La deadline est fin septembre.", 1)]))
    messages = [user(0, "Retiens que le Projet Merlebleu a ses maquettes validées par le client.", kinds=()),
                assistant(1, "Ok.")]
    drive(make_input(messages, store=store, vault=Vault.new("ef" * 32)),
          [extraction(("Projet Merlebleu", "Maquettes validées par le client.", "projet"))])
    facts = store.cards[0].facts
    assert "Maquettes validées" in facts and "septembre" in facts


def test_a_legal_form_variant_attaches_to_the_org_card_as_an_alias(store: MemoryStore):
    store.cards.append(Card("c-t", "Atelier Torbel", "organisation", [Sentence("Menuiserie.", 1)]))
    messages = [user(0, "Retiens : contrat cadre signé avec Atelier Torbel SARL.", kinds=()), assistant(1, "Ok.")]
    drive(make_input(messages, store=store, vault=Vault.new("ef" * 32)),
          [extraction(("Atelier Torbel SARL", "Contrat cadre signé.", "organisation"))])
    cards = store.cards
    assert len(cards) == 1 and "Contrat cadre" in cards[0].facts and "Atelier Torbel SARL" in cards[0].aliases


def test_a_namesake_is_a_new_card(store: MemoryStore):
    store.cards.append(Card("c-c", "Claire Fontaine", "personne", [Sentence("Relit nos textes.", 1)]))
    messages = [user(0, "Retiens que Claire Vernaux est notre nouvelle comptable.", ("person",)), assistant(1, "Ok.")]
    drive(make_input(messages, store=store, vault=Vault.new("ef" * 32)),
          [extraction(("Claire Vernaux", "Nouvelle comptable.", "personne"))])
    assert len(store.cards) == 2


# --- reference 11.14 --------------------------------------------------------------------------

SAINT_ANDIOL = [
    user(0, "Qui dirige la mairie d'après cette page ?", kinds=()),
    assistant(1, "D'après la page consultée, c'est Laurent Saint-Andiol."),
    user(2, "retiens tout ça dans ta mémoire", kinds=()),
    assistant(3, "Je m'en occupe."),
]
SAINT_ANDIOL_REPLY = extraction(("Laurent Saint-Andiol", "Dirige la mairie.", "personne"))


def test_explicit_wire_holds_labelled_turns_and_the_assistant_only_entity_is_stored(store: MemoryStore):
    outcome, calls = drive(make_input(SAINT_ANDIOL, store=store, auto_extract=False), [SAINT_ANDIOL_REPLY])
    wire = sent(calls[0])
    assert "Assistant : D'après la page consultée, c'est Laurent Saint-Andiol." in wire
    assert "Utilisateur : retiens tout ça dans ta mémoire" in wire
    assert [c.entity for c in store.cards] == ["Laurent Saint-Andiol"]
    assert outcome.feedback is not None and outcome.feedback.count == 1 and not outcome.feedback.failed


def test_silent_mode_reads_user_turns_only_so_the_assistant_entity_is_not_anchored(store: MemoryStore):
    outcome, calls = drive(make_input(SAINT_ANDIOL, store=store, explicit=False), [SAINT_ANDIOL_REPLY])
    assert "Saint-Andiol" not in sent(calls[0])
    assert outcome.count == 0 and store.cards == []


def test_memory_off_blocks_silent_runs_but_honours_an_explicit_ask(store: MemoryStore):
    outcome, calls = drive(make_input(SAINT_ANDIOL, store=store, explicit=False, memory_off=True))
    assert calls == [] and outcome.reason == "memory-off"
    _, calls = drive(make_input(SAINT_ANDIOL, store=store, memory_off=True), [SAINT_ANDIOL_REPLY])
    assert len(calls) == 1


def test_an_illegible_reply_gets_one_corrective_retry(store: MemoryStore):
    outcome, calls = drive(make_input(SAINT_ANDIOL, store=store), [ModelReply.ok("Voici les faits : Laurent dirige."),
                                                        SAINT_ANDIOL_REPLY])
    assert [c.purpose for c in calls] == ["extract", "retry"]
    retry = calls[1].request.messages
    assert (retry[1].role, retry[1].content) == ("assistant", "Voici les faits : Laurent dirige.")
    assert "UNIQUEMENT l'objet JSON" in retry[2].content
    assert outcome.count == 1


def test_two_illegible_replies_fail_and_advance_the_watermark(store: MemoryStore):
    outcome, calls = drive(make_input(SAINT_ANDIOL, store=store), [ModelReply.ok("non"), ModelReply.ok("toujours pas")])
    assert len(calls) == 2 and outcome.status == "illegible"
    assert outcome.feedback == Feedback("m3", count=0, failed=True)
    assert outcome.watermark == 4


def test_unreachable_explicit_fails_keeps_the_watermark_and_showed_pending(store: MemoryStore):
    outcome, calls = drive(make_input(SAINT_ANDIOL, store=store), [ModelReply.failure("unreachable")])
    assert outcome.feedback == Feedback("m3", count=0, failed=True)
    assert outcome.watermark == 0
    assert calls[0].noting == "m3"


# --- section 12 fixes -------------------------------------------------------------------------


def test_a_null_pass_after_a_full_pass_is_a_failure_not_truncated(store: MemoryStore):
    rows = [(f"Entité {i}", "Un fait.", "autre") for i in range(25)]
    messages = [user(0, "Retiens tout ça : " + ", ".join(r[0] for r in rows), kinds=()), assistant(1, "Ok.")]
    outcome, calls = drive(make_input(messages, store=store), [extraction(*rows), ModelReply.failure("timeout")],
                           merge=RecordingMerge())
    assert len(calls) == 2 and outcome.count == 25
    assert not outcome.truncated and outcome.journal is not None and "tronqué" not in outcome.journal


def test_the_explicit_sweep_asks_again_with_the_captured_fakes_excluded(store: MemoryStore):
    first = [(f"Entité {i}", "Un fait.", "autre") for i in range(25)]
    messages = [user(0, "Retiens tout ça : " + ", ".join(f"Entité {i}" for i in range(27)), kinds=()),
                assistant(1, "Ok.")]
    second = extraction(("Entité 25", "f", "autre"), ("Entité 26", "f", "autre"))
    outcome, calls = drive(make_input(messages, store=store), [extraction(*first), second], merge=RecordingMerge())
    assert len(calls) == 2 and outcome.passes == 2 and outcome.count == 27
    assert "Entité 24" in calls[1].request.system and "Entité 24" not in calls[0].request.system
    assert outcome.journal == "27 faits · 2 passes"


def test_the_wire_uses_the_full_replay_so_a_case_variant_is_masked():
    messages = [user(0, LONG_TALK), assistant(1, "ok"), user(2, "KARL STUDIO et karl studio ont rappelé."),
                assistant(3, "ok")]
    outcome, calls = drive(make_input(messages), [EMPTY])
    wire = sent(calls[0])
    assert "KARL" not in wire.upper().replace("NORVIK", "") and "NORVIK GROUP" in wire
    assert outcome.vault is not None and "NORVIK GROUP" in outcome.vault.entries


def test_a_user_turn_whose_redaction_did_not_complete_is_never_replayed():
    messages = [user(0, LONG_TALK), assistant(1, "ok"),
                user(2, "Mon voisin Jean Secret-Voisin habite au 4 rue des Lilas.", redactions=None),
                assistant(3, "Jean Secret-Voisin ? Noté."),
                user(4, "Retiens que Karl Studio fait nos maquettes."), assistant(5, "ok")]
    outcome, _ = drive(make_input(messages), [EMPTY])
    assert outcome.explicit
    assert all("Secret-Voisin" not in text for text in outcome.sent_texts())


def test_a_bare_preference_marker_does_not_make_the_run_explicit():
    messages = [user(0, "Désormais je préfère le thé.", kinds=()), assistant(1, "ok")]
    outcome, calls = drive(make_input(messages))
    assert not outcome.explicit and outcome.status == "gated" and calls == [] and outcome.watermark == 2


def test_the_input_vault_is_not_modified_and_the_run_returns_its_own_copy():
    vault = standard_vault()
    before = dict(vault.entries)
    outcome, _ = drive(make_input([user(0, "KARL STUDIO " + LONG_TALK), assistant(1, "ok")], vault=vault), [EMPTY])
    assert vault.entries == before and outcome.vault is not None and outcome.vault is not vault


def test_the_english_ui_gets_the_english_prompt_and_labels(store: MemoryStore):
    messages = [user(0, "Remember that Karl Studio does our mock-ups."), assistant(1, "Sure.")]
    outcome, calls = drive(make_input(messages, store=store, ui_language="en"), [EMPTY])
    assert calls[0].request.system.startswith("You extract DURABLE facts")
    assert sent(calls[0]).startswith("User: ")
    assert outcome.journal == "nothing durable to remember · 1 pass"


def test_the_gate_advances_the_watermark_without_a_call():
    outcome, calls = drive(make_input([user(0, "quelle heure est-il ?", kinds=()), assistant(1, "midi")]))
    assert calls == [] and outcome.status == "gated" and outcome.watermark == 2


def test_the_merge_gets_origin_evidence_scope_and_now():
    merge = RecordingMerge()
    messages = [user(0, LONG_TALK), assistant(1, "ok")]
    drive(make_input(messages, scope="space-1"), [extraction(("Norvik Group", "Agence.", "organisation"))], merge=merge)
    (resolved, kwargs), = merge.calls
    assert kwargs == {"now": 99, "origin": "auto-silent", "evidence": Evidence("conv-1", ("m0",)), "scope": "space-1"}
    assert resolved.facts[0].entity == "Karl Studio"


# --- egress -----------------------------------------------------------------------------------


def _redacted_conversation(turns: Sequence[tuple[str, str]]) -> tuple[list[ExtractionMessage], Vault]:
    """Messages as the send path leaves them: user turns pseudonymised one after the other."""
    vault = Vault.new("12" * 32)
    messages: list[ExtractionMessage] = []
    for i, (role, text) in enumerate(turns):
        if role == "user":
            redaction = pseudonymise(text, vault)
            vault = redaction.vault
            kinds = tuple(rep.kind for rep in redaction.replacements)
            messages.append(ExtractionMessage(f"m{i}", "user", text, len(redaction.replacements), kinds))
        else:
            messages.append(ExtractionMessage(f"m{i}", "assistant", text))
    return messages, vault


EGRESS_TURNS = [
    ("user", "Je prépare le devis de Marie Dupont chez Karl Studio SAS. Son e-mail : marie.dupont@karl-studio.fr, "
             "son téléphone 06 12 34 56 78. " + LONG_TALK),
    ("assistant", "Très bien, je note que Marie Dupont gère le devis chez Karl Studio SAS."),
    ("user", "Retiens aussi que MARIE DUPONT valide tout, et que Jean Moreau de Vexalis Conseil relit."),
    ("assistant", "C'est entendu pour Jean Moreau."),
]
REALS = ["Marie Dupont", "MARIE DUPONT", "Dupont", "Karl Studio", "marie.dupont@karl-studio.fr", "karl-studio",
         "06 12 34 56 78", "Jean Moreau", "Moreau", "Vexalis"]


def _echo_model(call: CallModel) -> ModelReply:
    """A model that extracts the capitalised pairs it sees on the wire (fakes, if all is well)."""
    import re

    wire = sent(call)
    names = list(dict.fromkeys(re.findall(r"\b[A-Z][a-zé]+ [A-Z][a-zé]+\b", wire)))[:6]
    return extraction(*[(n, f"{n} travaille sur le devis.", "personne") for n in names],
                      profile="Prépare des devis.")


def test_no_real_value_of_the_conversation_or_the_store_reaches_the_model():
    messages, vault = _redacted_conversation(EGRESS_TURNS)
    store = MemoryStore(cards=[
        Card("c1", "Karl Studio", "organisation", [Sentence("Agence.", 1)], aliases=["karl-studio"]),
        Card("c2", "Marie Dupont", "personne", [Sentence("Cliente.", 1)]),
        Card("c3", "Vexalis Conseil", "organisation", [Sentence("Relecteur.", 1)]),
        Card("c4", "Bertrand Lagarde", "personne", [Sentence("Ancien contact.", 1)]),
    ])
    for explicit in (False, True):
        outcome, calls = drive(make_input(messages, vault=vault, store=store, explicit=explicit),
                               [_echo_model, _echo_model, _echo_model, _echo_model], merge=RecordingMerge())
        assert calls, "the flow made no call"
        sent = "\n".join(outcome.sent_texts())
        for real in [*REALS, "Bertrand Lagarde", "Lagarde"]:
            assert real.lower() not in sent.lower(), (explicit, real)


def test_memory_entities_are_listed_as_their_fakes_and_never_real():
    messages, vault = _redacted_conversation(EGRESS_TURNS)
    store = MemoryStore(cards=[
        Card("c1", "Karl Studio SAS", "organisation", [Sentence("Agence.", 1)]),
        Card("c2", "Marie Dupont", "personne", [Sentence("Cliente.", 1)]),
        Card("c3", "Projet Sans Fake", "projet", [Sentence("Refonte.", 1)]),
    ])
    _, calls = drive(make_input(messages, vault=vault, store=store, explicit=True), [EMPTY])
    system = calls[0].request.system
    fake_marie = vault.substitute_of("Marie Dupont")
    fake_karl = vault.substitute_of("Karl Studio SAS")
    assert fake_marie and fake_karl
    assert f"DÉJÀ EN MÉMOIRE : {fake_karl}, {fake_marie}." in system
    assert "Marie Dupont" not in system and "Karl Studio" not in system and "Projet Sans Fake" not in system


def test_a_refused_or_rejected_entity_is_never_in_the_prompt():
    messages, vault = _redacted_conversation(EGRESS_TURNS)
    store = MemoryStore(
        cards=[Card("c2", "Marie Dupont", "personne", [Sentence("Cliente.", 1)]),
               Card("c1", "Karl Studio SAS", "organisation", [Sentence("Agence.", 1)], status="rejected")],
        refusals=[Refusal("marie dupont", None, 1)],
    )
    _, calls = drive(make_input(messages, vault=vault, store=store, explicit=True), [EMPTY])
    assert "MÉMOIRE" not in calls[0].request.system
    assert exclusion_names(store, vault, "Marie Dupont chez Karl Studio SAS", RedactOptions()) == []


def test_a_retry_re_fakes_a_real_value_the_model_wrote():
    messages = [user(0, LONG_TALK), assistant(1, "ok")]
    outcome, calls = drive(make_input(messages), [ModelReply.ok("Je pense à Karl Studio, pas de JSON."), EMPTY])
    assert sent(calls[1], 1) == "Je pense à Norvik Group, pas de JSON."
    assert all("Karl Studio" not in text for text in outcome.sent_texts())


def test_a_request_that_would_carry_a_real_value_is_not_sent(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(run_module, "replay_for_model", lambda text, vault, options=None: text)
    outcome, calls = drive(make_input([user(0, LONG_TALK), assistant(1, "ok")]))
    assert calls == [] and outcome.status == "blocked" and outcome.watermark == 0
    assert outcome.journal is not None and "bloquée" in outcome.journal


def test_a_category_switched_off_stays_in_clear_as_at_send_time_and_is_not_blocked():
    vault = standard_vault()
    vault.record("07 98 76 54 32", "06 12 34 56 78", "phone")
    messages = [user(0, LONG_TALK + " Appeler le 06 12 34 56 78."), assistant(1, "ok")]
    options = RedactOptions(categories=(("phone", False),))
    outcome, calls = drive(make_input(messages, vault=vault, redact_options=options), [EMPTY])
    assert outcome.status == "nothing" and "06 12 34 56 78" in sent(calls[0])
    outcome, calls = drive(make_input(messages, vault=vault), [EMPTY])
    assert "06 12 34 56 78" not in sent(calls[0])


def test_exclusion_names_are_fakes_of_mentioned_cards_and_a_name_without_a_fake_is_left_out():
    store = MemoryStore(cards=[
        Card("c1", "Augustin Vaudel", "personne", [Sentence("Gère les devis.", 1)], aliases=["Vaudel"]),
        Card("c2", "Merlebleu", "projet", [Sentence("Refonte.", 1)]),
        Card("c3", "Karl Studio", "organisation", [Sentence("Agence.", 1)]),
    ])
    text = "Vaudel relance le projet Merlebleu."  # Karl Studio is not mentioned: not listed
    assert exclusion_names(store, standard_vault(), text, RedactOptions()) == ["Simon Cros"]
