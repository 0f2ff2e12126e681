"""A conversation's extraction run, shell side but pure: the input built from the conversation,
and the outcome applied back to it (watermark, vault, the explicit ask's feedback, the store's
cleanup). Shared by every shell that drives run_extraction (the worker, the testing Workspace)."""

from __future__ import annotations

from collections.abc import Callable

from ..memory.dedupe import auto_clean
from ..memory.extract import ExtractionInput, ExtractionMessage, ExtractionOutcome
from ..memory.model import MemoryStore
from ..redact import RedactOptions
from .attachments import replay_text
from .conversation import Conversation


def extraction_input(conv: Conversation, store: MemoryStore, options: RedactOptions, *, now: int,
                     new_id: Callable[[], str], explicit: bool | None = None, ui_language: str = "fr",
                     model: str = "") -> ExtractionInput:
    """What run_extraction reads of `conv`: its messages (real text with the files a turn sent,
    redaction counts and span kinds), its watermark and vault, the conversation's send options."""
    messages = [
        ExtractionMessage(m.id, m.role, replay_text(m), m.redactions, tuple(k for _, k in m.redacted_spans), m.pending)
        for m in conv.messages
    ]
    return ExtractionInput(conv.id, messages, conv.memory_watermark, conv.vault, store, now, new_id,
                           explicit=explicit, memory_off=conv.memory_off, auto_extract=store.settings.auto_extract,
                           ui_language="en" if ui_language == "en" else "fr", scope=conv.space,
                           redact_options=options, model=model)


def apply_extraction(conv: Conversation, store: MemoryStore, outcome: ExtractionOutcome, *, now: int) -> None:
    """The run's outcome kept: the watermark, the vault with its new spelling variants, an explicit
    ask's feedback pinned to the message it answers, and the store's cleanup after a merge."""
    conv.memory_watermark = outcome.watermark
    if outcome.vault is not None:
        conv.vault = outcome.vault
    feedback = outcome.feedback
    target = conv.message(feedback.message_id) if feedback and feedback.message_id else None
    if feedback is not None and target is not None:
        target.memory_noted = feedback.count
        target.memory_noted_ids = list(feedback.created_ids)
        target.memory_updated_ids = list(feedback.updated_ids)
        target.memory_noted_failed = feedback.failed
        target.memory_noted_pending = False
    if outcome.merge is not None:
        auto_clean(store, now)
