"""The interface promises the token syntax that is sent (issue 17): markers come from one source, the
engine (allocate.TOKEN_WORDS), in every interface language ("[PERSON1]" in French too: a marker is pinned
in the conversation's vault and re-sent every turn, so it cannot follow a language switch, and only its
exact spelling restores). Every marker any page string shows must be one the engine writes."""

from __future__ import annotations

import re
from pathlib import Path

from openmasq.redact import RedactOptions, Vault, pseudonymise
from openmasq.redact.allocate import KIND_TOKEN_WORDS, TOKEN_WORDS

WEB = Path(__file__).resolve().parents[2] / "web" / "app"
_MARKER = re.compile(r"\[([A-Z_]+)\d+[a-z]?\]")
_TABLE = re.compile(r"^const (fr|en) = \{$(.*?)^\};$", re.S | re.M)


def _tables() -> dict[str, str]:
    return dict(_TABLE.findall((WEB / "i18n.js").read_text("utf-8")))


def test_every_marker_a_page_string_shows_is_one_the_engine_writes() -> None:
    words = set(TOKEN_WORDS.values()) | set(KIND_TOKEN_WORDS.values())
    shown = [m.group(1) for path in sorted(WEB.rglob("*.js")) for m in _MARKER.finditer(path.read_text("utf-8"))]
    assert shown  # the token-mode labels show one
    assert set(shown) <= words, set(shown) - words


def test_the_token_mode_label_shows_what_a_person_becomes_in_each_language() -> None:
    sent = pseudonymise("Appelle Marie Dupont.", Vault.new("ab" * 32), RedactOptions(mode="token")).text
    marker = _MARKER.search(sent)
    assert marker is not None and sent == f"Appelle {marker.group()}."
    tables = _tables()
    assert set(tables) == {"fr", "en"}
    for lang, table in tables.items():
        label = re.search(r'"convsettings\.mode\.token": "([^"]*)"', table)
        assert label is not None and marker.group() in label.group(1), lang
