"""Seeds for fakes: an HMAC-SHA256 of the conversation's secret key, never a public hash
shifted by a salt (reference 12 item 20: one known pair would reveal such a salt)."""

from __future__ import annotations

import hmac
import random


def seeded_rng(key_hex: str, purpose: str, value: str, attempt: int) -> random.Random:
    """A generator determined by (key, purpose, value, attempt) and unpredictable without the key."""
    message = "\x1f".join((purpose, value, str(attempt))).encode("utf-8")
    # hmac.digest: the one-shot form of hmac.new(...).digest(), same bytes, without the object.
    digest = hmac.digest(bytes.fromhex(key_hex), message, "sha256")
    return random.Random(int.from_bytes(digest, "big"))

