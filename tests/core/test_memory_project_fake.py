"""Projects and notes forced from memory get a codename fake ("Orion" -> "Kestrion"), not a
company-shaped one: deterministic from the vault key, one per value, restorable whole and
streamed, never a real value or a word of the text."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from memory_cards import T0, card, store

from openmasq.memory.select import select_memory, to_redact_forced
from openmasq.redact import Forced, RedactOptions, StreamRestorer, Vault, pseudonymise, restore
from openmasq.redact.fakes import fake_for, fake_project
from openmasq.redact.fakes.orgs import DESCRIPTORS, LEGAL_FORMS
from openmasq.redact.fakes.projects import TYPE_WORDS
from openmasq.redact.text import fold

KEY = "5a" * 32
PROJECTS = ["Orion", "Projet Merlebleu", "Projet Merlebleu v2", "Opération Sirocco", "PROJET ORION", "Apollo 11",
            "Projet SIRH 2026", "Project Bluebird", "Proyecto Cóndor", "Projekt Sonnenblume", "Plan B", "Atlas-Nord"]
CODENAME = re.compile(r"^[A-Za-z]{4,12}$")


def vault() -> Vault:
    return Vault.new(KEY, "fake")


def redact(text: str, *forced: Forced, into: Vault | None = None) -> tuple[str, Vault]:
    redaction = pseudonymise(text, into or vault(), RedactOptions(force=forced))
    return redaction.text, redaction.vault


def stream_restore(text: str, where: Vault, size: int) -> str:
    restorer = StreamRestorer(where)
    out = [restorer.feed(text[i:i + size]) for i in range(0, len(text), size)]
    return "".join(out) + restorer.flush()


# --- the shape --------------------------------------------------------------------------------------

def test_a_project_fake_keeps_the_type_word_and_version_and_invents_a_codename():
    for seed in range(30):
        rng = random.Random(seed)
        fake = fake_project("Projet Merlebleu v2", rng)
        kind_word, name, version = fake.split(" ")
        assert (kind_word, version) == ("Projet", "v2") and CODENAME.match(name) and name != "Merlebleu"


def test_a_bare_codename_becomes_another_bare_codename_in_the_same_case():
    for seed in range(30):
        assert CODENAME.match(fake_project("Orion", random.Random(seed)))
        shouted = fake_project("PROJET ORION", random.Random(seed))
        assert shouted.startswith("PROJET ") and shouted.isupper()


@settings(max_examples=300, deadline=None)
@given(real=st.sampled_from(PROJECTS), seed=st.integers(0, 10_000))
def test_a_project_fake_never_looks_like_a_company(real, seed):
    fake = fake_project(real, random.Random(seed))
    words = {fold(word.strip(",.")) for word in fake.split()}
    assert not words & (LEGAL_FORMS | DESCRIPTORS)
    assert fold(fake) != fold(real)


def test_an_acronym_codename_is_never_a_legal_form():
    # Random(1476) drew "SAGL" (a Swiss legal form) for "SIRH" before acronyms were checked.
    fake = fake_project("Projet SIRH 2026", random.Random(1476))
    assert fake.startswith("Projet ") and fake.endswith(" 2026")
    assert fold(fake.split()[1]) not in LEGAL_FORMS | DESCRIPTORS


def test_the_type_words_cover_the_ui_languages():
    assert {"projet", "project", "projekt", "proyecto", "progetto", "projeto"} <= TYPE_WORDS
    assert fake_for("project", "Orion", random.Random(3)) == fake_project("Orion", random.Random(3))


# --- through the redaction engine -----------------------------------------------------------------

def test_a_memory_project_is_forced_with_a_codename_and_comes_back():
    data = store(card("p", "Orion", "projet", "Refonte du portail client."))
    selection = select_memory(data, "on avance sur Orion ?", (), scope=None, now=T0, tz_offset_minutes=0)
    forced = to_redact_forced(selection.forced)
    assert forced == (Forced("Orion", "project"),)
    text = "On avance sur Orion ? " + selection.block
    masked, where = redact(text, *forced)
    assert "Orion" not in masked
    [fake] = [sub for sub, real in where.entries.items() if real == "Orion"]
    assert CODENAME.match(fake) and where.kinds[fake] == "project"
    reply = f"Pour {fake}, je propose trois étapes. {fake.upper()} avance bien."
    restored = restore(reply, where)  # the capitals of a shouted fake are the restorer's business
    assert restored.casefold() == "pour orion, je propose trois étapes. orion avance bien."
    for size in (1, 3, 7):
        assert stream_restore(reply, where, size) == restore(reply, where)


def test_a_note_title_is_forced_as_a_project_too():
    data = store(card("n", "Chantier Belvédère", "autre", "Réunion de lancement jeudi."))
    selection = select_memory(data, "le chantier belvédère", (), scope=None, now=T0, tz_offset_minutes=0)
    assert to_redact_forced(selection.forced) == (Forced("Chantier Belvédère", "project"),)
    masked, where = redact("Le point sur Chantier Belvédère.", *to_redact_forced(selection.forced))
    [fake] = [sub for sub, real in where.entries.items() if real == "Chantier Belvédère"]
    assert fake.startswith("Chantier ") and fake in masked


def test_the_fake_is_the_same_for_the_same_key_and_one_value_keeps_one_fake():
    first, one = redact("Orion avance.", Forced("Orion", "project"))
    again, _ = redact("Orion avance.", Forced("Orion", "project"))
    other, _ = redact("Orion avance.", Forced("Orion", "project"), into=Vault.new("6b" * 32, "fake"))
    assert first == again and first != other
    later, _ = redact("Et Orion, encore.", Forced("Orion", "project"), into=one)
    assert first.split()[0] in later


def test_many_projects_get_distinct_fakes_that_are_neither_real_values_nor_words_of_the_text():
    names = [f"Projet {word}" for word in ("Orion", "Vega", "Lyra", "Castor", "Pollux", "Rigel", "Deneb", "Altair",
                                           "Mira", "Sirius", "Antares", "Capella", "Halys", "Vorax", "Cyre")]
    text = " ; ".join(names) + ". Halys, Vorax et Cyre sont aussi des mots de ce texte."
    masked, where = redact(text, *(Forced(name, "project") for name in names))
    fakes = [sub for sub, real in where.entries.items() if real in names]
    assert len(fakes) == len(names) == len(set(fakes))
    real_words = {fold(word) for word in re.findall(r"\w+", text)} - {"projet"}
    for fake in fakes:
        assert fold(fake) not in {fold(name) for name in names}
        assert not {fold(word) for word in fake.split()[1:]} & real_words
    assert restore(masked, where) == text


def test_in_token_mode_a_project_is_a_project_marker_and_comes_back():
    redaction = pseudonymise("Orion avance, Orion livre.", Vault.new(KEY, "token"),
                             RedactOptions(mode="token", force=(Forced("Orion", "project"),)))
    assert redaction.text == "[PROJECT1] avance, [PROJECT1] livre."
    assert restore(redaction.text, redaction.vault) == "Orion avance, Orion livre."
