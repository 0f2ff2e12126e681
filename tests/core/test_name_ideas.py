"""Names offered as candidates in a message asking for the name of a pet, a baby or a business stay below
`strict`; people named in such a message are masked."""

from __future__ import annotations

import pytest

from openmasq.redact import RedactOptions, Vault, pseudonymise


def _masked(text: str, level: str = "renforce") -> str:
    return pseudonymise(text, Vault.new("77" * 32), RedactOptions(level=level)).text


@pytest.mark.parametrize("text", [
    "¿Rosa o Luna? Ayúdame a elegir nombre para mi perrita, es una bodeguera",
    "Dame 5 ideas de nombres para una cafetería, algo tipo Aurora, Luna, Cielo...",
    "On hésite pour le nom du chat : Aurore, Léa ou Grace ? Lequel va le mieux à un siamois ?",
    "baby name ideas: Olivia or Amelia?",
    "Welcher Name für unsere Katze: Mia oder Luna?",
])
def test_names_offered_for_a_pet_a_baby_or_a_business_stay(text: str) -> None:
    assert _masked(text) == text


@pytest.mark.parametrize("text,names", [
    ("dis à Marie ou Paul de m'appeler pour le nom du chat", ("Marie", "Paul")),
    ("Quel est le nom de famille de Marie et Paul ?", ("Marie", "Paul")),
    ("mon fils Hugo veut un nom pour le chien : Rex ou Max ?", ("Hugo",)),
])
def test_people_named_beside_a_naming_question_are_masked(text: str, names: tuple[str, ...]) -> None:
    masked = _masked(text)
    assert all(name not in masked for name in names), masked


def test_strict_masks_the_offered_names_too() -> None:
    assert "Amelia" not in _masked("baby name ideas: Olivia or Amelia?", level="strict")
