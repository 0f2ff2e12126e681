"""Error mapping: a provider's status, headers and body become a kind the caller acts on and a
message a user understands."""

from __future__ import annotations

import json

import pytest

from openmasq.chat.codecs import ERROR_KINDS, classify_http_error, network_error, parse_retry_after, timeout_error
from openmasq.chat.codecs.errors import classify_error_payload, provider_message


def openai_error(message: str, kind: str = "invalid_request_error", code: str | None = None) -> str:
    return json.dumps({"error": {"message": message, "type": kind, "param": None, "code": code}})


def anthropic_error(kind: str, message: str) -> str:
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_1"})


JSON = {"content-type": "application/json"}

CASES = [
    # (why, status, headers, body, kind)
    ("openai bad key", 401, JSON, openai_error("Incorrect API key provided: sk-abc.", code="invalid_api_key"), "auth"),
    ("anthropic bad key", 401, JSON, anthropic_error("authentication_error", "invalid x-api-key"), "auth"),
    ("forbidden model", 403, JSON, anthropic_error("permission_error", "not allowed"), "auth"),
    ("openai rate limit", 429, {**JSON, "retry-after": "20"}, openai_error("Rate limit reached", "requests"),
     "rate_limit"),
    ("openai no credit", 429, JSON, openai_error("You exceeded your current quota", "insufficient_quota",
                                                   "insufficient_quota"), "quota"),
    ("openai context", 400, JSON, openai_error("This model's maximum context length is 128000 tokens. However, your "
                                               "messages resulted in 411525 tokens.", code="context_length_exceeded"),
     "context_length"),
    ("anthropic context", 400, JSON, anthropic_error("invalid_request_error", "prompt is too long: 203078 tokens > "
                                                     "200000 maximum"), "context_length"),
    ("llama.cpp context", 400, JSON, json.dumps({"error": {"code": 400, "message": "the request exceeds the "
                                                 "available context size, try increasing it",
                                                 "type": "exceed_context_size_error"}}), "context_length"),
    ("vllm context", 400, JSON, json.dumps({"object": "error", "message": "This model's maximum context length is "
                                            "4096 tokens. However, you requested 5000 tokens.", "code": 400}),
     "context_length"),
    ("mistral context", 400, JSON, json.dumps({"message": "Prompt contains 40000 tokens, too large for model with "
                                               "32768 maximum context length", "type": "invalid_request_error"}),
     "context_length"),
    ("other bad request", 400, JSON, openai_error("temperature must be at most 2"), "bad_request"),
    ("unknown model", 404, JSON, json.dumps({"error": "model 'llama9' not found"}), "not_found"),
    ("too large", 413, JSON, anthropic_error("request_too_large", "Request exceeds the maximum size"), "too_large"),
    ("anthropic overloaded", 529, JSON, anthropic_error("overloaded_error", "Overloaded"), "overloaded"),
    ("server error", 500, JSON, anthropic_error("api_error", "Internal server error"), "server"),
    ("bad gateway text", 502, {"content-type": "text/plain"}, "Bad Gateway", "server"),
    ("html login page", 200, {"content-type": "text/html; charset=utf-8"}, "<html><body>Sign in</body></html>", "html"),
    ("html without a content type", 404, {}, "<!DOCTYPE html>\n<html><head><title>404</title>", "html"),
    ("nginx 502 page", 502, {"content-type": "text/html"}, "<html><head><title>502 Bad Gateway</title>", "html"),
]


@pytest.mark.parametrize(("why", "status", "headers", "body", "kind"), CASES, ids=[c[0] for c in CASES])
def test_http_errors_map_to_their_kind(why, status, headers, body, kind):
    error = classify_http_error(status, headers, body.encode())
    assert error.kind == kind
    assert error.kind in ERROR_KINDS
    assert error.status == status
    assert error.message


def test_the_provider_own_words_are_quoted():
    error = classify_http_error(400, JSON, anthropic_error("invalid_request_error", "prompt is too long: 5 > 4"))
    assert error.provider_message == "prompt is too long: 5 > 4"
    assert "prompt is too long" in error.message


def test_an_html_answer_says_to_check_the_base_url():
    error = classify_http_error(200, {"Content-Type": "text/html"}, b"<html></html>")
    assert "base URL" in error.message


def test_a_rate_limit_carries_its_retry_after_seconds():
    error = classify_http_error(429, {"Retry-After": "7"}, anthropic_error("rate_limit_error", "slow down"))
    assert (error.kind, error.retry_after) == ("rate_limit", 7.0)
    assert "7 s" in error.message


@pytest.mark.parametrize(("headers", "body", "now", "seconds"), [
    ({"retry-after": "30"}, "", None, 30.0),
    ({"retry-after": "1.5"}, "", None, 1.5),
    ({"retry-after-ms": "250", "retry-after": "1"}, "", None, 0.25),
    ({"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"}, "", 1445412480.0, 10.0),
    ({"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"}, "", None, None),  # a date needs a clock
    ({"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"}, "", 1445412500.0, 0.0),  # already past
    ({}, "Rate limit reached. Please try again in 20s.", None, 20.0),
    ({}, "Please try again in 1m2.5s. Visit …", None, 62.5),
    ({}, "Please try again in 120ms.", None, 0.12),
    ({"retry-after": "soon"}, "", None, None),
    ({"retry-after": "-3"}, "", None, None),
    ({}, "", None, None),
])
def test_retry_after_is_read_from_headers_dates_and_bodies(headers, body, now, seconds):
    assert parse_retry_after(headers, body, now=now) == seconds


@pytest.mark.parametrize(("payload", "said"), [
    ({"error": {"message": "boom", "type": "x"}}, "boom"),
    ({"error": "model not found"}, "model not found"),
    ({"detail": "Not Found"}, "Not Found"),
    ({"message": "nope"}, "nope"),
    ({"error": {"type": "x"}}, ""),
    (["not", "an", "object"], ""),
])
def test_provider_messages_are_found_in_the_usual_shapes(payload, said):
    assert provider_message(payload) == said


def test_a_long_provider_message_is_clipped():
    assert len(provider_message({"error": "x" * 5000})) <= 300


def test_an_error_inside_a_stream_is_classified_by_its_type():
    error = classify_error_payload({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    assert (error.kind, error.status) == ("overloaded", 529)


def test_network_failure_and_timeout_have_clear_messages():
    assert network_error("ConnectError").kind == "network"
    assert "ConnectError" in network_error("ConnectError").message
    assert timeout_error(30).kind == "timeout"
    assert "30 s" in timeout_error(30).message


def test_a_body_that_is_not_utf8_still_maps():
    assert classify_http_error(500, {}, b"\xff\xfe oops").kind == "server"
