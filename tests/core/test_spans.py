"""Spans given from outside (the on-device NER worker) join detection through one checked door."""

from __future__ import annotations

import pytest

from openmasq.redact import RedactOptions, Vault, pseudonymise
from openmasq.redact.spans import Span, spans_from_json

TEXT = "Rendez-vous avec Zorglub Vantrak demain."


def test_spans_from_json_read_their_value_from_the_text():
    spans = spans_from_json([{"start": 17, "end": 32, "kind": "person", "source": "ner", "score": 0.91}], TEXT)
    assert spans == [Span(17, 32, "Zorglub Vantrak", "person", "ner", 0.91)]


@pytest.mark.parametrize("start, end", [(-1, 3), (30, 99), (5, 5)])
def test_spans_outside_the_text_are_refused(start, end):
    with pytest.raises(ValueError):
        spans_from_json([{"start": start, "end": end, "kind": "person"}], TEXT)


def test_a_given_span_is_masked_like_a_detected_one():
    given = tuple(spans_from_json([{"start": 17, "end": 32, "kind": "person", "source": "ner"}], TEXT))
    result = pseudonymise(TEXT, Vault.new("ab" * 32), RedactOptions(spans=given))
    assert "Zorglub" not in result.text and "Vantrak" not in result.text
    assert any(rep.source == "ner" for rep in result.replacements)
