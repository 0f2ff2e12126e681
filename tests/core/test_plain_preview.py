"""The conversation list's preview line (issue 18, chat/plain.py): what a message says, without its markdown."""

from __future__ import annotations

import pytest

from openmasq.chat.plain import plain_text


@pytest.mark.parametrize("markdown, shown", [
    ("# Titre\n\nDu **gras**, de l'*italique* et du ~~barré~~.", "Titre Du gras, de l'italique et du barré."),
    ("- un\n- deux\n1. trois\n> cité", "un deux trois cité"),
    ("Voir [la doc](https://example.org/x) ou <https://example.org>.", "Voir la doc ou https://example.org."),
    ("```python\nprint('x')\n```\nFin", "print('x') Fin"),
    ("| a | b |\n|---|---|\n| 1 | 2 |", "a b 1 2"),
    ("Un `code` et <b>gras</b> et \\*étoile\\*", "Un code et gras et *étoile*"),
    ("snake_case_name et _souligné_", "snake_case_name et souligné"),
])
def test_the_preview_says_what_the_markdown_says(markdown: str, shown: str) -> None:
    assert plain_text(markdown) == shown


def test_a_huge_message_gives_one_short_line() -> None:
    line = plain_text("**mot** " * 200_000)
    assert line.startswith("mot mot") and len(line) <= 120 and "*" not in line
