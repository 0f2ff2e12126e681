"""Resolution (reference 3.6, 11.1 cases 14-22, 38, 43, 46, 51-55; 11.8 pseudonym guard; 12 item 8:
every script anchors; the profile clamp)."""

from __future__ import annotations

import pytest

from openmasq.memory.extract.parse import ParsedExtraction, ParsedFact
from openmasq.memory.extract.resolve import (
    is_sentence_shaped,
    looks_like_secret,
    resolve_extraction,
    sequential_ids,
)
from openmasq.memory.model import MAX_PROFILE_CHARS, ResolvedFact
from openmasq.redact import Vault


def _vault(entries: dict[str, str] | None = None) -> Vault:
    vault = Vault.new("cd" * 32, "fake")
    for fake, real in (entries or {"Norvik Group": "Karl Studio", "Simon Cros": "Augustin Vaudel"}).items():
        vault.record(fake, real, "org" if "Group" in fake or "Industries" in fake else "person")
    return vault


def _parsed(*facts: ParsedFact, profile: str | None = None) -> ParsedExtraction:
    return ParsedExtraction(tuple(facts), profile, len(facts))


def _one(entity: str, fact: str = "Agence de design.", category: str = "organisation",
         alias: str | None = None) -> ParsedFact:
    return ParsedFact(entity, fact, category, alias)  # type: ignore[arg-type]


REAL = "Je travaille avec Karl Studio et Augustin Vaudel. Vaudel gère les devis de l'équipe."


# --- reference 11.1 ---------------------------------------------------------------------------


def test_entity_and_fact_are_unredacted():
    out = resolve_extraction(_parsed(_one("Norvik Group", "Norvik Group fait nos maquettes.")), _vault(), REAL)
    assert out.facts == (ResolvedFact("fact-1", "Karl Studio", "organisation", "Karl Studio fait nos maquettes."),)


def test_a_hallucinated_entity_is_dropped():
    assert resolve_extraction(_parsed(_one("Vertex Corp")), _vault(), REAL).facts == ()


def test_a_fact_holding_an_iban_is_dropped():
    fact = _one("Norvik Group", "IBAN FR76 3000 6000 0112 3456 7890 189")
    assert resolve_extraction(_parsed(fact), _vault(), REAL).facts == ()


def test_an_anchored_alias_survives_and_the_entity_is_unredacted():
    out = resolve_extraction(_parsed(_one("Simon Cros", "Gère les devis.", "personne", "Vaudel")), _vault(), REAL)
    assert [(f.entity, f.alias) for f in out.facts] == [("Augustin Vaudel", "Vaudel")]


@pytest.mark.parametrize("alias", ["Simo", "direction", "Claire"])
def test_an_invented_generic_or_homograph_alias_is_dropped_and_the_fact_kept(alias: str):
    real = REAL + " Claire Fontaine assure la direction."
    out = resolve_extraction(_parsed(_one("Simon Cros", "Gère les devis.", "personne", alias)), _vault(), real)
    assert [(f.entity, f.alias) for f in out.facts] == [("Augustin Vaudel", None)]


def test_a_homograph_alias_of_claire_fontaine_is_dropped_and_the_entity_kept():
    real = "Claire Fontaine (Claire pour les intimes) relit nos textes."
    out = resolve_extraction(_parsed(_one("Claire Fontaine", "Relit nos textes.", "personne", "Claire")),
                             Vault.new("cd" * 32), real)
    assert [(f.entity, f.alias) for f in out.facts] == [("Claire Fontaine", None)]


def test_a_generic_entity_is_dropped_silently_and_kept_when_notes_are_allowed():
    parsed = _parsed(_one("équipe", "Se réunit le lundi.", "autre"))
    assert resolve_extraction(parsed, _vault(), REAL).facts == ()
    kept = resolve_extraction(parsed, _vault(), REAL, allow_notes=True).facts
    assert [f.entity for f in kept] == ["équipe"]


def test_a_cjk_entity_anchors_as_a_substring():
    parsed = _parsed(_one("张伟", "负责采购。", "personne"))
    out = resolve_extraction(parsed, Vault.new("cd" * 32), "请尽快联系张伟先生。")
    assert [f.entity for f in out.facts] == ["张伟"]


@pytest.mark.parametrize(("text", "secret"), [
    ("clé sk-abc123def456ghi789", True),
    ("4242424242424242", True),
    ("carte 4242 4242 4242 4242", True),
    ("FR76 3000 6000 0112 3456 7890 189", True),
    ("AKIAIOSFODNN7EXAMPLE", True),
    ("ghp_abcdefghijklmnop1234", True),
    ("token a1b2c3d4e5f6g7h8i9j0k1l2m3", True),
    ("Agence de design à Évreux, devis signé en 2024.", False),
    ("Appeler le 06 12 34 56 78 avant midi.", False),
    ("internationalisation-des-contrats", False),
])
def test_looks_like_secret(text: str, secret: bool):
    assert looks_like_secret(text) is secret


def test_a_note_title_is_dropped_silently_and_kept_as_a_note_in_explicit_mode():
    parsed = _parsed(_one("Méthode de relance", "Toujours relancer sous 48h.", "projet"))
    assert resolve_extraction(parsed, _vault(), REAL).facts == ()
    notes = resolve_extraction(parsed, _vault(), REAL, allow_notes=True).facts
    assert [(f.entity, f.category, f.note) for f in notes] == [("Méthode de relance", "autre", True)]


def test_a_secret_fact_is_dropped_even_in_explicit_mode():
    parsed = _parsed(_one("Accès serveur", "clé sk-abc123def456ghi789", "autre"))
    assert resolve_extraction(parsed, _vault(), REAL, allow_notes=True).facts == ()


def test_a_self_preference_note_goes_to_the_profile_not_a_card():
    parsed = _parsed(_one("Préférence de réponse", "Préfère des réponses courtes en français.", "autre"))
    out = resolve_extraction(parsed, _vault(), "Retiens ça.", allow_notes=True)
    assert out.facts == ()
    assert out.profile == "Préfère des réponses courtes en français."


def test_a_named_persons_preference_keeps_its_card():
    real = "Marie Kerner préfère le thé."
    out = resolve_extraction(_parsed(_one("Marie Kerner", "Marie Kerner préfère le thé.", "personne")),
                             Vault.new("cd" * 32), real, allow_notes=True)
    assert [(f.entity, f.note) for f in out.facts] == [("Marie Kerner", False)]
    assert out.profile is None


@pytest.mark.parametrize(("entity", "category", "expected"), [
    ("d'Atelier Torbel", "organisation", "Atelier Torbel"),
    ("d’ Atelier Torbel", "organisation", "Atelier Torbel"),
    ("chez Karl Studio", "organisation", "Karl Studio"),
    ("Chez Karl Studio", "organisation", "Karl Studio"),
    ("de Vinci", "personne", "de Vinci"),
])
def test_a_leading_article_or_elision_is_stripped_except_for_people(entity: str, category: str, expected: str):
    real = "Le devis d'Atelier Torbel, rédigé chez Karl Studio, cite Léonard de Vinci."
    out = resolve_extraction(_parsed(_one(entity, "Un fait.", category)), Vault.new("cd" * 32), real)
    assert [f.entity for f in out.facts] == [expected]


@pytest.mark.parametrize(("entity", "real", "expected"), [
    ("de la Fontaine", "Les fables de la Fontaine.", "Fontaine"),
    ("des Lilas", "La mairie des Lilas.", "Lilas"),
    ("du Lac", "L'hôtel du Lac", "Lac"),
    ("d'Al", "Le garage d'Al.", "d'Al"),  # the bare form would be under 3 characters
])
def test_article_stripping_needs_a_bare_form_of_three_characters(entity: str, real: str, expected: str):
    out = resolve_extraction(_parsed(_one(entity, "Un fait.")), Vault.new("cd" * 32), real)
    assert [f.entity for f in out.facts] == [expected]


def test_an_unanchored_note_keeps_its_article_because_the_bare_form_is_not_in_the_text():
    out = resolve_extraction(_parsed(_one("de la Méthode Relance", "Un fait.")), Vault.new("cd" * 32),
                             "Retiens ça.", allow_notes=True)
    assert [(f.entity, f.note) for f in out.facts] == [("de la Méthode Relance", True)]


def test_a_sentence_shaped_entity_is_dropped_even_when_anchored():
    real = "Atelier Torbel s'appelle Ondine désormais."
    out = resolve_extraction(_parsed(_one("Atelier Torbel s'appelle Ondine")), Vault.new("cd" * 32), real)
    assert out.facts == ()


@pytest.mark.parametrize(("entity", "shaped"), [
    ("Atelier Torbel s'appelle Ondine", True), ("Marie qui est là", True), ("Paul travaille", True),
    ("Association des amis du vieux Lyon", True), ("Karl Studio", False), ("Gérard Gereux", False),
])
def test_sentence_shapes(entity: str, shaped: bool):
    assert is_sentence_shaped(entity) is shaped


# --- reference 11.8: the pseudonym guard ------------------------------------------------------

GUARD_REAL = "Retiens la composition du gouvernement français."
GUARD_WIRE = "Retiens la composition du Verdanta Industries."


def test_guard_a_fake_the_vault_knows_resolves_to_the_real_entity():
    vault = _vault({"Verdanta Industries": "gouvernement français"})
    out = resolve_extraction(_parsed(_one("Verdanta Industries", "Liste des ministres.")), vault, GUARD_REAL,
                             allow_notes=True, wire_text=GUARD_WIRE)
    assert [(f.entity, f.note) for f in out.facts] == [("gouvernement français", False)]


def test_guard_an_unresolved_fake_is_refused_even_with_a_real_alias():
    parsed = _parsed(_one("Verdanta Industries", "Liste des ministres.", alias="gouvernement français"))
    out = resolve_extraction(parsed, Vault.new("cd" * 32), GUARD_REAL, allow_notes=True, wire_text=GUARD_WIRE)
    assert out.facts == ()


def test_guard_a_truly_invented_title_is_kept_as_a_note():
    out = resolve_extraction(_parsed(_one("Liste ministérielle 2026", "Les ministres.")), Vault.new("cd" * 32),
                             GUARD_REAL, allow_notes=True, wire_text=GUARD_WIRE)
    assert [(f.entity, f.note) for f in out.facts] == [("Liste ministérielle 2026", True)]


def test_guard_an_anchored_entity_is_a_real_card():
    out = resolve_extraction(_parsed(_one("gouvernement français", "Les ministres.")), Vault.new("cd" * 32),
                             GUARD_REAL, allow_notes=True, wire_text=GUARD_WIRE)
    assert [(f.entity, f.note) for f in out.facts] == [("gouvernement français", False)]


def test_guard_without_wire_text_is_inactive_and_the_fake_becomes_a_note():
    out = resolve_extraction(_parsed(_one("Verdanta Industries", "Les ministres.")), Vault.new("cd" * 32),
                             GUARD_REAL, allow_notes=True)
    assert [(f.entity, f.note) for f in out.facts] == [("Verdanta Industries", True)]


def test_guard_a_wire_only_alias_is_dropped_and_the_fact_kept():
    parsed = _parsed(_one("Liste ministérielle 2026", "Les ministres.", alias="Verdanta Industries"))
    out = resolve_extraction(parsed, Vault.new("cd" * 32), GUARD_REAL, allow_notes=True, wire_text=GUARD_WIRE)
    assert [(f.entity, f.alias) for f in out.facts] == [("Liste ministérielle 2026", None)]


def test_guard_a_title_holding_an_unresolved_fake_word_is_refused():
    out = resolve_extraction(_parsed(_one("Composition de Verdanta Industries", "Les ministres.")),
                             Vault.new("cd" * 32), GUARD_REAL, allow_notes=True, wire_text=GUARD_WIRE)
    assert out.facts == ()


# --- reference 12 item 8: every script anchors ------------------------------------------------


@pytest.mark.parametrize(("entity", "real"), [
    ("Иван Петров", "Вчера Иван Петров подписал договор."),
    ("شركة النور", "وقعنا العقد مع شركة النور أمس."),
    ("Γιώργος Παππάς", "Ο Γιώργος Παππάς υπέγραψε τη σύμβαση."),
    ("דוד כהן", "דוד כהן חתם על החוזה."),
])
def test_non_latin_entities_anchor_in_silent_mode(entity: str, real: str):
    out = resolve_extraction(_parsed(_one(entity, "A signé le contrat.", "personne")), Vault.new("cd" * 32), real)
    assert [(f.entity, f.note) for f in out.facts] == [(entity, False)]


# --- notes, profile, ids ----------------------------------------------------------------------


def test_note_titles_must_be_three_to_sixty_characters():
    long_title = "Titre " + "x" * 60
    out = resolve_extraction(_parsed(_one("Ab", "f"), _one(long_title, "f"), _one("Abc", "f")),
                             Vault.new("cd" * 32), "Retiens ça.", allow_notes=True)
    assert [f.entity for f in out.facts] == ["Abc"]


def test_the_profile_is_unredacted_and_a_secret_profile_dropped():
    out = resolve_extraction(_parsed(profile="Travaille avec Norvik Group."), _vault(), REAL)
    assert out.profile == "Travaille avec Karl Studio."
    assert resolve_extraction(_parsed(profile="Ma clé est sk-abc123def456ghi789"), _vault(), REAL).profile is None


def test_the_profile_is_clamped_to_1200_characters_with_preferences_too():
    long = " ".join(f"Phrase numéro {i} sur le métier de consultant{i}." for i in range(60))
    parsed = _parsed(_one("Préférence", "Préfère le vouvoiement.", "autre"), profile=long)
    out = resolve_extraction(parsed, Vault.new("cd" * 32), "Retiens ça.", allow_notes=True)
    assert out.profile is not None and len(out.profile) <= MAX_PROFILE_CHARS
    assert len(long) > MAX_PROFILE_CHARS


def test_ids_are_minted_in_order_for_kept_facts_only():
    ids = iter(["a", "b", "c"])
    parsed = _parsed(_one("Vertex Corp"), _one("Norvik Group"), _one("Simon Cros", category="personne"))
    out = resolve_extraction(parsed, _vault(), REAL, new_id=lambda: next(ids))
    assert [(f.id, f.entity) for f in out.facts] == [("a", "Karl Studio"), ("b", "Augustin Vaudel")]
    counter = sequential_ids("x")
    assert (counter(), counter()) == ("x-1", "x-2")
