"""Provider codecs: neutral requests and events to and from the OpenAI Chat Completions and
Anthropic Messages wire formats. Pure: bytes and dicts in, dataclasses out, no I/O."""

from __future__ import annotations

from .errors import ERROR_KINDS, classify_http_error, network_error, parse_retry_after, timeout_error
from .models import (
    PRESETS,
    ChatRequest,
    ChatResponse,
    Done,
    ErrorEvent,
    HttpRequest,
    Message,
    ModelInfo,
    ModelPage,
    Preset,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallAccumulator,
    ToolCallDelta,
    ToolSpec,
    Usage,
    WireImage,
    preset,
)
from .sse import SSEComment, SSEEvent, SSEParser, SSEProblem, encode_comment, encode_event

__all__ = [
    "ERROR_KINDS",
    "PRESETS",
    "ChatRequest",
    "ChatResponse",
    "Done",
    "ErrorEvent",
    "HttpRequest",
    "Message",
    "ModelInfo",
    "ModelPage",
    "Preset",
    "ReasoningDelta",
    "SSEComment",
    "SSEEvent",
    "SSEParser",
    "SSEProblem",
    "StreamEvent",
    "TextDelta",
    "ToolCall",
    "ToolCallAccumulator",
    "ToolCallDelta",
    "ToolSpec",
    "Usage",
    "WireImage",
    "classify_http_error",
    "encode_comment",
    "encode_event",
    "network_error",
    "parse_retry_after",
    "preset",
    "timeout_error",
]
