"""Map a provider's failure (HTTP status, headers, body; a network failure; a timeout) to a
clear message and a kind the caller can act on: fix the key, wait, shorten, retry, fix the URL."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from email.utils import parsedate_to_datetime
from typing import Any

from ...patterns import deferred
from .models import ErrorEvent
from .walk import as_str

ERROR_KINDS = (
    "auth",  # 401/403: the key is wrong, or not allowed to use this model
    "rate_limit",  # 429: wait retry_after seconds
    "quota",  # 429 insufficient_quota: no credit left, waiting will not help
    "context_length",  # the conversation is too long for the model
    "too_large",  # 413: the request body is too big
    "bad_request",  # any other 4xx
    "not_found",  # 404: unknown model or wrong base URL
    "overloaded",  # 529 / overloaded_error: the provider is busy for everyone
    "server",  # 5xx
    "html",  # a web page instead of the API's JSON: wrong base URL, captive portal, proxy page
    "network",  # the provider could not be reached
    "timeout",
    "malformed",  # a response or stream event that is not what the API format says
    "truncated",  # a stream that ended before the model finished
    "provider",  # an error the provider reported without a recognisable kind
)

# How providers say the prompt does not fit: OpenAI and Groq (context_length_exceeded,
# "maximum context length"), Anthropic ("prompt is too long"), vLLM ("maximum context length"),
# llama.cpp ("exceeds the available context size"), Mistral ("too large for model with N
# maximum context length"), LM Studio ("context length"), Ollama ("context window").
_CONTEXT = deferred(
    r"context[_ ]length|context[_ ]window|context size|maximum context|prompt is too long|too many tokens"
    r"|reduce the length of the messages|input is too long|exceed_context_size",
    re.IGNORECASE,
)
_TRY_AGAIN = deferred(
    r"try again in (?:(?P<ms>\d{1,9})ms"
    r"|(?:(?P<h>\d{1,4})h)?(?:(?P<m>\d{1,4})m(?!s))?(?:(?P<s>\d{1,6}(?:\.\d{1,6})?)s)?)",
    re.IGNORECASE,
)
_QUOTED_CHARS = 300  # a provider message is quoted up to this length
_SNIFF_CHARS = 512  # how much of a body is looked at to recognise HTML


def classify_http_error(
    status: int, headers: Mapping[str, str] | Iterable[tuple[str, str]], body: bytes | str, *, now: float | None = None
) -> ErrorEvent:
    """The error a non-2xx answer means (or a 2xx answer in HTML). `now` (epoch seconds) lets a
    Retry-After given as an HTTP date count down; without it only delays in seconds are read."""
    lowered = _lower(headers)
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    if looks_like_html(lowered, text):
        return ErrorEvent(
            "html",
            f"The provider answered a web page (HTTP {status}) instead of the API's JSON: check the base URL "
            "(an OpenAI-compatible one usually ends in /v1) and that nothing (proxy, login page) stands in between.",
            status,
        )
    payload = _json_or_none(text)
    said = provider_message(payload) if payload is not None else _plain(text)
    code = _error_code(payload)
    retry_after = parse_retry_after(lowered, text, now=now) if status == 429 or code == "rate_limit_error" else None
    return _by_status(status, code, said, retry_after)


def classify_error_payload(payload: object, status: int | None = None) -> ErrorEvent:
    """An error object sent inside a response or a stream ({"error": ...})."""
    said = provider_message(payload)
    code = _error_code(payload)
    if status is None:
        status = _status_of_code(code)
    return _by_status(status or 0, code, said, parse_retry_after({}, said))


def network_error(detail: str = "") -> ErrorEvent:
    suffix = f" ({detail})" if detail else ""
    return ErrorEvent("network", f"Cannot reach the provider{suffix}: check the base URL and the connection.")


def timeout_error(seconds: float | None = None) -> ErrorEvent:
    after = f" after {seconds:g} s" if seconds is not None else ""
    return ErrorEvent("timeout", f"The provider did not answer{after}; it may be overloaded, try again.")


def looks_like_html(headers: Mapping[str, str], text: str) -> bool:
    if "text/html" in headers.get("content-type", "").lower():
        return True
    head = text[:_SNIFF_CHARS].lstrip().lower()
    return head.startswith(("<!doctype html", "<html", "<head", "<body"))


def parse_retry_after(headers: Mapping[str, str], body: str = "", *, now: float | None = None) -> float | None:
    """Seconds to wait, from retry-after-ms, Retry-After (seconds, or an HTTP date when `now`
    is given), or the body's "try again in 1m2.5s"."""
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = _number(lowered.get("retry-after-ms", ""))
    if millis is not None:
        return millis / 1000
    value = lowered.get("retry-after", "").strip()
    seconds = _number(value)
    if seconds is not None:
        return seconds
    if value and now is not None:
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - now)
        except (TypeError, ValueError, IndexError):
            pass
    return _from_body(body)


def provider_message(payload: object) -> str:
    """The provider's own words from the usual error shapes: {"error": {"message"}} (OpenAI,
    Anthropic), {"error": "..."} (Ollama), {"message"}, {"detail"} (FastAPI servers)."""
    if not isinstance(payload, dict):
        return ""
    error = payload.get("error")
    if isinstance(error, dict):
        return _clip(as_str(error.get("message")))
    if isinstance(error, str):
        return _clip(error)
    for key in ("message", "detail"):
        if isinstance(payload.get(key), str):
            return _clip(payload[key])
    return ""


# --- helpers ----------------------------------------------------------------------------------


def _by_status(status: int, code: str, said: str, retry_after: float | None) -> ErrorEvent:
    kind, message = _kind_and_message(status, code, said, retry_after)
    full = f"{message} Provider said: {said}" if said else message
    return ErrorEvent(kind, full, status or None, retry_after, said)


def _kind_and_message(status: int, code: str, said: str, retry_after: float | None) -> tuple[str, str]:
    if status in (401, 403) or code in ("authentication_error", "permission_error", "invalid_api_key"):
        if status == 403 or code == "permission_error":
            return "auth", "The API key is not allowed to do this (HTTP 403): check the key's permissions and model."
        return "auth", f"The API key was refused (HTTP {status or 401}): check it in the provider settings."
    if code == "insufficient_quota":
        return "quota", "The provider account has no credit or quota left; waiting will not help."
    if status == 429 or code == "rate_limit_error":
        wait = f" Try again in {retry_after:g} s." if retry_after is not None else " Try again shortly."
        return "rate_limit", "The provider is rate-limiting this key (HTTP 429)." + wait
    if _CONTEXT.search(said) or code in ("context_length_exceeded", "exceed_context_size_error"):
        return "context_length", "The conversation is too long for this model: shorten it or start a new one."
    if status == 413 or code == "request_too_large":
        return "too_large", "The request is too large for the provider (HTTP 413)."
    if status == 404 or code == "not_found_error":
        return "not_found", "Not found (HTTP 404): check the model name and the base URL."
    if status == 529 or code == "overloaded_error":
        return "overloaded", "The provider is overloaded; try again in a moment."
    if status >= 500 or code == "api_error":
        return "server", f"The provider failed (HTTP {status or 500}); try again later."
    if 400 <= status < 500:
        return "bad_request", f"The provider rejected the request (HTTP {status})."
    return "provider", "The provider reported an error."


def _status_of_code(code: str) -> int | None:
    return {
        "authentication_error": 401, "permission_error": 403, "rate_limit_error": 429, "not_found_error": 404,
        "overloaded_error": 529, "api_error": 500, "request_too_large": 413,
    }.get(code)


def _error_code(payload: object) -> str:
    """The machine-readable kind: error.code (OpenAI) or error.type (Anthropic, OpenAI)."""
    if not isinstance(payload, dict):
        return ""
    error = payload.get("error")
    if not isinstance(error, dict):
        return ""
    code = error.get("code")
    if isinstance(code, str) and code:
        return code
    return as_str(error.get("type"))


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _plain(text: str) -> str:
    return _clip(" ".join(text.split()))


def _clip(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _QUOTED_CHARS else text[: _QUOTED_CHARS - 1] + "…"


def _lower(headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> dict[str, str]:
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    return {str(k).lower(): str(v) for k, v in pairs}


def _number(value: str) -> float | None:
    try:
        number = float(value)
    except ValueError:
        return None
    return number if number >= 0 and number == number and number != float("inf") else None


def _from_body(body: str) -> float | None:
    match = _TRY_AGAIN.search(body)
    if match is None:
        return None
    if match.group("ms"):
        return int(match.group("ms")) / 1000
    hours, minutes, seconds = match.group("h"), match.group("m"), match.group("s")
    if not (hours or minutes or seconds):
        return None
    return int(hours or 0) * 3600 + int(minutes or 0) * 60 + float(seconds or 0)
