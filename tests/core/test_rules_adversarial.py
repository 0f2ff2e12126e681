"""Hostile input: every rule must run in linear time, checked by counting the detector's work on
100 kB of adversarial text against 10 kB of the same mix (bench/linear.py times 1 MB against
100 kB, which also sees the regular-expression engine's backtracking)."""

from __future__ import annotations

import random
import string

from scaling import assert_linear

from openmasq.redact.rules import detect_rules

_SEGMENTS = (
    "a@",
    "1234567890",
    "1 2 3 4 5 ",
    "-----BEGIN RSA PRIVATE KEY-----\n",
    ".",
    "-",
    "a.",
    "1.",
    "a:",
    "0 ",
    "com.",
    "Aa-",
    "Aa ",
    "::1:",
    "eyJ",
    "https://",
    "password: ",
    "+33 ",
    " [at] x [dot] ",
    "12 rue ",
    "Am Markt ",
    "FR76 ",
    "€1 ",
    "né le ",
    "x" * 30 + "_",
    "tel " + "1" * 30 + "x ",
)


def hostile(size: int) -> str:
    """`size` characters: equal shares of repeated hostile patterns, random printable
    characters and random alphanumerics (seeded)."""
    rng = random.Random(7)
    share = size // (len(_SEGMENTS) + 2)
    parts = [(pattern * (share // len(pattern) + 1))[:share] for pattern in _SEGMENTS]
    parts.append("".join(rng.choice(string.printable) for _ in range(share)))
    parts.append("".join(rng.choice(string.ascii_letters + string.digits) for _ in range(share)))
    return "\n".join(parts)


def test_hostile_text_takes_linear_work() -> None:
    assert_linear(detect_rules, hostile(100_000), hostile(10_000))


def test_hostile_patterns_alone_find_nothing_structured() -> None:
    kinds = {span.kind for span in detect_rules(hostile(20_000))}
    assert not kinds & {"iban", "card", "nir", "siret", "private_key", "jwt"}
