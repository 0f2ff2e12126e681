"""Public test harness (docs/testing.md): a scripted model and an in-memory workspace that drives
the send and extraction flows against it, recording every request body sent on the wire."""

from __future__ import annotations

from .loops import in_fresh_loop
from .scripted import (
    CallTool,
    Fail,
    Say,
    ScriptedModel,
    facts,
    last_user_text,
    reply_events,
    tool_results,
)
from .workspace import SentTurn, WireRecord, Workspace, appears_in, attached

__all__ = [
    "CallTool",
    "Fail",
    "Say",
    "ScriptedModel",
    "SentTurn",
    "WireRecord",
    "Workspace",
    "appears_in",
    "attached",
    "facts",
    "in_fresh_loop",
    "last_user_text",
    "reply_events",
    "tool_results",
]
