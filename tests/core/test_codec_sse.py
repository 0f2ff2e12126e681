"""The incremental SSE parser: any line ending, any chunking, comments, multi-line data, and
garbage that is reported, never raised."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openmasq.chat.codecs.sse import (
    SSEComment,
    SSEEvent,
    SSEParser,
    SSEProblem,
    encode_comment,
    encode_event,
)


def parse(*chunks: bytes | str, comments: bool = False, max_line: int = 1000) -> list[object]:
    parser = SSEParser(comments=comments, max_line=max_line)
    items: list[object] = []
    for chunk in chunks:
        items += parser.feed(chunk)
    return items + parser.close()


def events(items: list[object]) -> list[SSEEvent]:
    return [i for i in items if isinstance(i, SSEEvent)]


def problems(items: list[object]) -> list[str]:
    return [i.kind for i in items if isinstance(i, SSEProblem)]


STREAM = 'event: delta\ndata: {"a": 1}\n\n: keep-alive\n\ndata: line one\ndata: line two\n\ndata: [DONE]\n\n'
EXPECTED = [SSEEvent('{"a": 1}', "delta"), SSEEvent("line one\nline two"), SSEEvent("[DONE]")]


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_every_line_ending_gives_the_same_events(eol):
    assert events(parse(STREAM.replace("\n", eol))) == EXPECTED


def test_an_event_split_at_every_position_gives_the_same_events():
    data = STREAM.replace("\n", "\r\n").encode()
    for cut in range(len(data) + 1):
        assert events(parse(data[:cut], data[cut:])) == EXPECTED, cut


def test_a_crlf_split_between_two_chunks_is_one_line_break():
    items = parse(b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n")
    assert events(items) == [SSEEvent("a\nb")]


def test_an_event_is_dispatched_as_soon_as_its_blank_line_arrives():
    parser = SSEParser()
    assert parser.feed(b"data: hello\n") == []
    assert parser.feed(b"\n") == [SSEEvent("hello")]


def test_a_utf8_character_split_across_chunks_is_decoded_whole():
    data = "data: Lefèvre — ok\n\n".encode()
    cut = data.index("è".encode()) + 1
    assert events(parse(data[:cut], data[cut:])) == [SSEEvent("Lefèvre — ok")]


def test_comments_are_skipped_or_reported_on_request():
    assert parse(": ping\n\n") == []
    assert parse(": ping\n\n", comments=True) == [SSEComment("ping")]


@pytest.mark.parametrize(("line", "value"), [
    ("data:x", "x"),  # no space after the colon
    ("data:  x", " x"),  # only one space is removed
    ("data", ""),  # a field name alone has an empty value
    ("data:", ""),
])
def test_field_values_follow_the_spec(line, value):
    assert events(parse(f"{line}\n\n")) == [SSEEvent(value)]


def test_id_persists_and_retry_attaches_to_the_next_event():
    items = events(parse("id: 7\nretry: 1500\ndata: a\n\ndata: b\n\nretry: soon\ndata: c\n\n"))
    assert items == [SSEEvent("a", "", "7", 1500), SSEEvent("b", "", "7"), SSEEvent("c", "", "7")]


def test_an_event_field_without_data_dispatches_nothing():
    assert events(parse("event: ping\n\ndata: x\n\n")) == [SSEEvent("x")]


def test_a_leading_byte_order_mark_is_ignored():
    assert events(parse("\ufeffdata: x\n\n".encode())) == [SSEEvent("x")]


def test_a_stream_cut_mid_event_is_reported_and_the_partial_event_dropped():
    items = parse(b'data: {"choices": [{"delta": {"content": "Mar')
    assert events(items) == []
    assert problems(items) == ["truncated"]


def test_a_complete_event_before_the_cut_survives():
    items = parse(b"data: one\n\ndata: tw")
    assert events(items) == [SSEEvent("one")]
    assert problems(items) == ["truncated"]


def test_invalid_utf8_is_replaced_and_reported():
    items = parse(b"data: caf\xe9 ok\n\n")
    assert events(items) == [SSEEvent("caf\ufffd ok")]
    assert problems(items) == ["invalid_utf8"]


def test_a_line_that_is_not_a_field_is_reported_and_the_stream_goes_on():
    items = parse("<html>oops</html>\ndata: x\n\n")
    assert events(items) == [SSEEvent("x")]
    assert problems(items) == ["unknown_field"]


def test_an_overlong_line_is_dropped_and_parsing_resumes_after_it():
    items = parse("data: " + "x" * 600, "y" * 600 + "\n\n", "data: ok\n\n", max_line=1000)
    assert events(items) == [SSEEvent("ok")]
    assert problems(items) == ["line_too_long"]


def test_an_overlong_event_is_dropped():
    items = parse("data: " + "x" * 600 + "\n" + "data: " + "y" * 600 + "\n\ndata: ok\n\n", max_line=1000)
    assert events(items) == [SSEEvent("ok")]
    assert problems(items) == ["event_too_large"]


def test_close_is_idempotent():
    parser = SSEParser()
    parser.feed(b"data: x")
    assert [type(i) for i in parser.close()] == [SSEProblem]
    assert parser.close() == []


@pytest.mark.parametrize("event", [
    SSEEvent("plain"), SSEEvent('{"a":1}', "content_block_delta"), SSEEvent("two\nlines", "", "9", 100),
    SSEEvent(""),
])
def test_encoding_an_event_parses_back_to_it(event):
    assert events(parse(encode_event(event))) == [event]


def test_encoding_a_comment_parses_back_to_it():
    assert parse(encode_comment("keep-alive"), comments=True) == [SSEComment("keep-alive")]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400), st.lists(st.integers(min_value=0, max_value=400), max_size=8))
def test_garbage_bytes_in_any_chunking_never_raise(data, cuts):
    parser = SSEParser(max_line=64)
    last = 0
    for cut in sorted(set(min(c, len(data)) for c in cuts)):
        parser.feed(data[last:cut])
        last = cut
    parser.feed(data[last:])
    parser.close()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(STREAM.encode())), max_size=10),
       st.sampled_from(["\n", "\r\n", "\r"]))
def test_any_chunking_of_a_valid_stream_gives_the_whole_stream_events(cuts, eol):
    data = STREAM.replace("\n", eol).encode()
    pieces, last = [], 0
    for cut in sorted(set(cuts)):
        pieces.append(data[last:cut])
        last = cut
    pieces.append(data[last:])
    assert events(parse(*pieces)) == EXPECTED
