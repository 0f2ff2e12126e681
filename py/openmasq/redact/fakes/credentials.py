"""Format-preserving fake secrets: vendor prefixes, JWT headers, PEM armour, cookie names and
separators kept; every secret character redrawn within its class (upper, lower, digit, hex)."""

from __future__ import annotations

import random
import re

from ...patterns import deferred
from ._shape import DIGITS, LOWER, UPPER, class_pool, distinct

# Prefixes that name the vendor and key type, not the secret (longest first when matching).
VENDOR_PREFIXES = tuple(sorted({
    "sk-ant-api03-", "sk-ant-admin01-", "sk-ant-", "sk-proj-", "sk-svcacct-", "sk-admin-", "sk-or-v1-", "sk-",
    "sk_live_", "sk_test_", "pk_live_", "pk_test_", "rk_live_", "rk_test_", "whsec_", "ghp_", "gho_",
    "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gldt-", "glrt-", "xoxb-", "xoxp-", "xoxa-",
    "xoxs-", "xoxe-", "xapp-", "AKIA", "ASIA", "AIza", "ya29.", "hf_", "npm_", "SG.", "pypi-",
    "shpat_", "shpss_", "dop_v1_", "doo_v1_", "sq0atp-", "sq0csp-", "key-", "gsk_", "xai-",
    "r8_", "nvapi-", "csk-", "AccountKey=", "Bearer ", "Basic ", "Token ", "token ", "bearer ",
}, key=len, reverse=True))
_JWT = deferred(r"(eyJ[A-Za-z0-9_-]{2,8000})\.(eyJ[A-Za-z0-9_-]{0,8000})\.([A-Za-z0-9_-]{0,8000})")
_HEXISH = deferred(r"[0-9a-f]{8,}|[0-9A-F]{8,}")
_PASSWORD_SYMBOLS = "!#$%&*+-.:=?@^_~"
# The first characters of a base64 DER key body encode its ASN.1 header, which says only
# "this is a key of about this size": kept so the fake looks like the same kind of key.
_PEM_KEPT_HEAD = 4


def vendor_prefix(value: str) -> str:
    return next((p for p in VENDOR_PREFIXES if value.startswith(p) and len(value) > len(p) + 3), "")


def _redraw_by_class(text: str, rng: random.Random) -> str:
    """Upper, lower and digit characters redrawn in their class; hex runs stay hex."""
    if _HEXISH.fullmatch(text) and not text.isdigit():
        pool = "0123456789abcdef" if text.islower() else "0123456789ABCDEF"
        return "".join(rng.choice(pool) for _ in text)
    return "".join(rng.choice(class_pool(ch)) if class_pool(ch) else ch for ch in text)


def _fake_jwt(match: re.Match[str], real: str, rng: random.Random) -> str:
    header, payload, signature = match.groups()
    new_payload = "eyJ" + _redraw_by_class(payload[3:], rng)
    new = f"{header}.{new_payload}.{_redraw_by_class(signature, rng)}"
    return real[: match.start()] + new + real[match.end():]


def _fake_pem(real: str, rng: random.Random) -> str:
    out: list[str] = []
    body_seen = False
    for line in real.splitlines(keepends=True):
        text = line.rstrip("\r\n")
        if text.startswith("-----") or ":" in text or not text.strip():
            out.append(line)
            continue
        head = "" if body_seen else text[:_PEM_KEPT_HEAD]
        body_seen = True
        out.append(head + _redraw_by_class(text[len(head):], rng) + line[len(text):])
    return "".join(out)


def _fake_cookie(real: str, rng: random.Random) -> str:
    parts = re.split(r"(;\s*)", real)
    for i in range(0, len(parts), 2):
        name, eq, value = parts[i].partition("=")
        if eq:
            parts[i] = name + eq + _redraw_by_class(value, rng)
    return "".join(parts)


def _looks_like_cookie(real: str) -> bool:
    named = re.match(r"[A-Za-z_][A-Za-z0-9_.\-]{0,60}=[^\s;]", real)
    return bool(named) and not real.startswith("AccountKey=")


def fake_secret(real: str, rng: random.Random) -> str:
    """Vendor prefix (sk-, ghp_, AKIA, xoxb-...), JWT header, PEM armour and cookie names kept;
    the secret characters redrawn within their class; same length."""
    if "-----BEGIN" in real:
        return distinct(real, rng, lambda r: _fake_pem(real, r))
    start = real.find("eyJ")  # one anchored attempt keeps this linear on hostile input
    jwt = _JWT.match(real, start) if start >= 0 else None
    if jwt:
        return distinct(real, rng, lambda r: _fake_jwt(jwt, real, r))
    prefix = vendor_prefix(real)
    if not prefix and _looks_like_cookie(real):
        return distinct(real, rng, lambda r: _fake_cookie(real, r))
    rest = real[len(prefix):]
    return distinct(real, rng, lambda r: prefix + _redraw_by_class(rest, r))


def fake_password(real: str, rng: random.Random) -> str:
    """Same length and the same class at every position (upper, lower, digit, symbol, space)."""

    def make(r: random.Random) -> str:
        out: list[str] = []
        for ch in real:
            if ch.isdigit():
                out.append(r.choice(DIGITS))
            elif ch.isalpha():
                out.append(r.choice(UPPER if ch.isupper() else LOWER))
            elif ch.isspace():
                out.append(ch)
            else:
                out.append(r.choice(_PASSWORD_SYMBOLS))
        return "".join(out)

    return distinct(real, rng, make)
