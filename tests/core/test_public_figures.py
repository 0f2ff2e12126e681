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
    # a filler word between the question and the name
    "Wer war eigentlich Helmut Kohl?",
    "Qui était vraiment Jean Moulin ?",
])
def test_a_public_figure_in_a_general_question_stays(text: str) -> None:
    assert _masked(text) == text


@pytest.mark.parametrize("text", [
    "Qual è il romanzo più famoso di Italo Calvino?",
    "Who has more centuries, Sachin Tendulkar or Virat Kohli?",
    "Was hat Friedrich Dürrenmatt geschrieben?",
])
def test_the_famous_people_of_every_domain_and_country_are_listed_and_stay(text: str) -> None:
    assert _masked(text) == text


def test_a_famous_name_after_a_possessive_and_a_word_introducing_a_person_is_someone_the_writer_knows() -> None:
    assert "Virat Kohli" not in _masked("My colleague Virat Kohli sent the file.")


@pytest.mark.parametrize("text,name", [
    ("My boss Herman Melville or Mark Twain, who pays better?", "Herman Melville"),
    ("Dis à ma sœur Emily Dickinson de venir", "Emily Dickinson"),
    ("le président Jean Martin de notre association", "Jean Martin"),
    # a question of the present, as often about a private person named in a mail or a file
    ("Qui est Héloïse Marchetti ?", "Héloïse Marchetti"),
    ("How many hours did Paul Durand work last week?", "Paul Durand"),
    ("my boss really was Jean Martin", "Jean Martin"),
])
def test_a_person_the_writer_knows_is_masked(text: str, name: str) -> None:
    assert name not in _masked(text)


def test_strict_masks_public_figures_too() -> None:
    assert "Emily Dickinson" not in _masked("A poem in the style of Emily Dickinson.", level="strict")
