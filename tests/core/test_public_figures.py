"""A full name presented as a public figure in a general question is spared below `strict`; a person the
writer knows, or any name at `strict`, is masked."""

from __future__ import annotations

import pytest

from openmasq.redact import RedactOptions, Vault, pseudonymise


def _masked(text: str, level: str = "renforce") -> str:
    return pseudonymise(text, Vault.new("88" * 32), RedactOptions(level=level)).text


@pytest.mark.parametrize("text", [
    "Write a short poem about the sea in the style of Emily Dickinson.",
    "¿Quién fue Simón Bolívar y por qué Bolivia lleva su nombre?",
    "Mark Twain or Herman Melville: who wrote more about the sea?",
    'Summarise "The Great Gatsby" by F. Scott Fitzgerald in five sentences.',
    "Quels sont les thèmes des œuvres de Berthe Morisot ?",
    # a question about the world that opens the sentence, in a message about nobody the writer knows
    "Wer war eigentlich Gustav Stresemann und wofür bekam er den Nobelpreis?",
    "¿Cuántos títulos ganó Rafael Nadal en París?",
    "Quanti gol ha segnato Roberto Baggio in nazionale?",
])
def test_a_public_figure_in_a_general_question_stays(text: str) -> None:
    assert _masked(text) == text


@pytest.mark.parametrize("text,name", [
    ("My boss Herman Melville or Mark Twain, who pays better?", "Herman Melville"),
    ("Dis à ma sœur Emily Dickinson de venir", "Emily Dickinson"),
    ("le président Jean Martin de notre association", "Jean Martin"),
    # a question that speaks of the writer
    ("Who is Karen Holloway? she emailed me twice", "Karen Holloway"),
    ("Wie viele Stunden hat Jonas Weber für mich gearbeitet?", "Jonas Weber"),
])
def test_a_person_the_writer_knows_is_masked(text: str, name: str) -> None:
    assert name not in _masked(text)


def test_strict_masks_public_figures_too() -> None:
    assert "Emily Dickinson" not in _masked("A poem in the style of Emily Dickinson.", level="strict")
