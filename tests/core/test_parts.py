"""One text across carriers: consecutive text parts redacted as the one text a model reads."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openmasq.chat.codecs import anthropic, openai
from openmasq.redact import RedactOptions, Vault
from openmasq.redact.parts import pseudonymise_parts

KEY = bytes(range(32))
TEXT = "Écris à Marie Dupont (marie.dupont@karl-studio.fr, 06 12 34 56 78) chez Karl Studio SAS demain."
REALS = ("Marie", "Dupont", "marie.dupont@karl-studio.fr", "06 12 34 56 78", "Karl Studio")


def _redact_parts(parts: list[str]) -> list[str]:
    out, _ = pseudonymise_parts(parts, Vault.new(KEY, mode="fake"), RedactOptions())
    return out


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(TEXT)), max_size=5))
def test_wherever_the_text_is_cut_no_real_value_survives_and_the_parts_stay_as_many(cuts: list[int]) -> None:
    bounds = [0, *sorted(set(cuts)), len(TEXT)]
    parts = [TEXT[a:b] for a, b in itertools.pairwise(bounds) if b > a]
    out = _redact_parts(parts)
    assert len(out) == len(parts)
    joined = "".join(out)
    for real in REALS:
        assert real not in joined, (parts, out)


def test_a_part_left_empty_by_a_fake_that_began_before_it_becomes_a_space() -> None:
    out = _redact_parts(["Bonjour Marie Du", "pont"])
    assert out[1] == " " and "Dupont" not in out[0]


def test_the_same_value_gets_the_same_fake_as_in_a_single_text() -> None:
    vault = Vault.new(KEY, mode="fake")
    whole, _ = pseudonymise_parts([TEXT], vault, RedactOptions())
    split, _ = pseudonymise_parts([TEXT[:20], TEXT[20:]], vault, RedactOptions())
    assert "".join(split) == whole[0]


class _JointRecorder:
    """A TextMap that records how it was called: one by one, or a run at once."""

    def __init__(self) -> None:
        self.runs: list[list[str]] = []

    def __call__(self, value: str) -> str:
        self.runs.append([value])
        return value.upper()

    def joint(self, values: list[str]) -> list[str]:
        self.runs.append(list(values))
        return [value.upper() for value in values]


@pytest.mark.parametrize("codec, body", [
    (openai, {"model": "m", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "a"}, {"type": "text", "text": "b"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}, {"type": "text", "text": "c"}]}]}),
    (anthropic, {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": [
        {"type": "text", "text": "a"}, {"type": "text", "text": "b", "cache_control": {"type": "ephemeral"}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
        {"type": "text", "text": "c"}]}]}),
])
def test_codecs_rewrite_consecutive_text_parts_together_and_a_part_of_another_kind_cuts_the_run(codec, body) -> None:
    recorder = _JointRecorder()
    out = codec.map_request_texts(body, recorder)
    texts = [part.get("text") for part in out["messages"][0]["content"] if part.get("type") == "text"]
    assert texts == ["A", "B", "C"]
    assert ["a", "b"] in recorder.runs and ["c"] in recorder.runs
