"""The profile: sentence-wise, append-only, deduplicated by coverage, never over 1,200 characters
(catalogue 11.11, reference section 12 item 4)."""

from __future__ import annotations

import pytest

from openmasq.memory.model import MAX_PROFILE_CHARS
from openmasq.memory.profile import (
    append_to_profile,
    clamp_profile,
    dedupe_profile,
    is_self_preference,
    profile_pieces,
)

SIX_COPIES = (
    "Préfère des réponses courtes. Développeur senior dans une startup SaaS B2B. "
    "L'utilisateur préfère des réponses courtes. Sa collègue s'appelle Claire. "
    "Préfère les réponses courtes. Utilisateur préfère des réponses plus courtes. "
    "Préfère réponses courtes. L'utilisateur préfère les réponses courtes."
)


def test_the_reported_six_copy_profile_collapses():
    cleaned = dedupe_profile(SIX_COPIES)
    assert cleaned == (
        "Préfère des réponses courtes. Développeur senior dans une startup SaaS B2B. Sa collègue s'appelle Claire."
    )
    assert cleaned.count("réponses courtes") == 1


def test_dedupe_is_idempotent_and_a_clean_profile_comes_back_as_the_same_object():
    once = dedupe_profile(SIX_COPIES)
    assert dedupe_profile(once) is once


def test_user_authored_text_round_trips_verbatim():
    text = "Je dirige l'agence Karl Studio à Lyon.\nJ'écris en français; tutoiement bienvenu !  Merci."
    assert dedupe_profile(text) is text
    assert append_to_profile(text, []) is text


def test_four_rephrasings_of_a_covered_preference_change_nothing():
    profile = "Préfère des réponses courtes en français."
    additions = ["Préfère les réponses courtes.", "L'utilisateur préfère des réponses courtes.",
                 "Réponses courtes en français.", "Utilisateur : préfère réponse courte."]
    assert append_to_profile(profile, additions) is profile


def test_a_piece_with_a_new_fact_is_appended():
    profile = "Préfère des réponses courtes."
    assert append_to_profile(profile, ["Préfère des réponses courtes. Cheffe de produit chez Norvik, tutoiement."]) == (
        "Préfère des réponses courtes. Cheffe de produit chez Norvik, tutoiement."
    )


def test_a_fact_repeated_within_one_run_is_appended_once():
    assert append_to_profile("", ["Aime le vélo.", "Aime le vélo.", "L'utilisateur aime le vélo."]) == "Aime le vélo."


def test_a_glued_legacy_blob_splits_at_punctuation_and_before_a_glued_sentence():
    assert profile_pieces("Préfère le café Utilisateur développeur senior. Vit à Lyon! Aime Rome") == [
        "Préfère le café", "Utilisateur développeur senior.", "Vit à Lyon!", "Aime Rome",
    ]


@pytest.mark.parametrize(
    "text",
    ["Développeur senior chez Karl Studio.", "Travaille avec Claire sur le projet.", "Vit à Lyon Part-Dieu."],
)
def test_a_name_inside_a_sentence_does_not_split_it(text: str):
    assert profile_pieces(text) == [text]


# --- reference section 12 item 4: the profile is clamped on every path -----------------------------

def test_appending_never_grows_the_profile_past_the_cap():
    profile = "Développeur senior. " + " ".join(f"Fait numéro {i} sur le projet {i * 7}." for i in range(60))
    profile = clamp_profile(profile)
    grown = append_to_profile(profile, [f"Nouveau sujet {i} avec Verdolini{i}." for i in range(50)])
    assert len(grown) <= MAX_PROFILE_CHARS


def test_an_addition_that_does_not_fit_is_dropped_whole_not_cut():
    profile = "x" * (MAX_PROFILE_CHARS - 20) + "."
    grown = append_to_profile(profile, ["Court.", "Une phrase bien trop longue pour tenir dans ce qui reste."])
    assert grown == profile + " Court."


def test_an_oversized_existing_profile_is_cut_when_appended_to():
    profile = "Mot. " * 400
    assert len(append_to_profile(profile, ["Nouveau."])) <= MAX_PROFILE_CHARS


def test_an_unpunctuated_profile_gets_a_full_stop_before_an_addition():
    assert append_to_profile("Développeur senior", ["Aime le vélo."]) == "Développeur senior. Aime le vélo."


def test_the_user_edit_path_trims_and_cuts():
    assert clamp_profile("  " + "a" * 5000 + "  ") == "a" * MAX_PROFILE_CHARS
    assert clamp_profile("   ") == ""


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Préfère des réponses courtes.", True),
        ("L'utilisateur préfère le train.", True),
        ("L'utilisatrice adore les chiffres.", True),
        ("Ma préférence : le tutoiement.", True),
        ("Prefers short answers.", True),
        ("Bevorzugt kurze Antworten.", True),
        ("Marie Kerner préfère le thé.", False),
        ("Préférences de Karl Studio : devis en PDF.", False),
        ("Responsable du design.", False),
        ("", False),
    ],
)
def test_self_preferences(text: str, expected: bool):
    assert is_self_preference(text) is expected
