"""A message of unknown language is read as the language its commonest words say, or stays unknown."""

from __future__ import annotations

import pytest

from openmasq.redact.language import UNKNOWN, guess_language


@pytest.mark.parametrize("text,lang", [
    ("Bonjour, peux-tu envoyer le devis à Karim ?", "fr"),
    ("Can you send the invoice to Karim?", "en"),
    ("Kannst du die Rechnung an Karim schicken?", "de"),
    ("¿Puedes mandar la factura a Karim?", "es"),
    ("Puoi mandare la fattura a Karim?", "it"),
])
def test_a_sentence_is_read_in_its_language(text: str, lang: str) -> None:
    assert guess_language(text) == lang


@pytest.mark.parametrize("text", ["ok", "Karim Benali 06 12 34 56 78", "", "🙂🙂"])
def test_a_text_without_telling_words_stays_unknown(text: str) -> None:
    assert guess_language(text) == UNKNOWN
