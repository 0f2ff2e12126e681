"""The step counter behind the linear-work checks: it sees quadratic work, passes linear work, and
counts only the code it is pointed at."""

from __future__ import annotations

import pytest
from scaling import assert_linear, steps

HERE = __file__


def linear(text: str) -> int:
    total = 0
    for ch in text:
        total += ch == "a"
    return total


def quadratic(text: str) -> int:
    total = 0
    for i in range(len(text)):
        for ch in text[i : i + len(text)]:  # a rescan of the rest from every position
            total += ch == "a"
    return total


def test_linear_work_passes():
    assert_linear(linear, "ab" * 500, within=HERE)


def test_quadratic_work_fails():
    with pytest.raises(AssertionError, match="Python steps"):
        assert_linear(quadratic, "ab" * 100, within=HERE)


def test_only_the_code_pointed_at_is_counted():
    assert steps(linear, "ab" * 50, within=HERE) > 100
    assert steps(linear, "ab" * 50, within="/nowhere/") == 0
