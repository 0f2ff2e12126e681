"""Extraction (reference 3): from a conversation's redacted turns to resolved facts, as a
sans-I/O flow (`run_extraction` yields the send flow's model-call steps), with its pieces and its schedule."""

from __future__ import annotations

from .explicit import EXPLICIT_LOOKBACK, is_explicit_memory_ask
from .gate import worth_extracting
from .parse import ParsedExtraction, ParsedFact, is_nominal_entity_name, parse_extraction
from .prompt import EXPLICIT_LIMIT, SILENT_LIMIT, system_prompt
from .resolve import looks_like_secret, resolve_extraction
from .run import (
    ExtractionInput,
    ExtractionMessage,
    ExtractionOutcome,
    Feedback,
    run_extraction,
)
from .schedule import ConversationSummary, DueRun, Event, Plan, plan, startup_candidates
from .sweep import SweepResult, sweep_extraction

__all__ = [
    "EXPLICIT_LIMIT",
    "EXPLICIT_LOOKBACK",
    "SILENT_LIMIT",
    "ConversationSummary",
    "DueRun",
    "Event",
    "ExtractionInput",
    "ExtractionMessage",
    "ExtractionOutcome",
    "Feedback",
    "ParsedExtraction",
    "ParsedFact",
    "Plan",
    "SweepResult",
    "is_explicit_memory_ask",
    "is_nominal_entity_name",
    "looks_like_secret",
    "parse_extraction",
    "plan",
    "resolve_extraction",
    "run_extraction",
    "startup_candidates",
    "sweep_extraction",
    "system_prompt",
    "worth_extracting",
]
