"""Lexicons: Faker's names per locale, the curated word lists, org affixes and notoriety."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openmasq.redact import lexicon

# --- first names and surnames ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "word, gender",
    [
        ("Jean", "m"),
        ("Marie", "f"),
        ("Camille", "x"),
        ("Élodie", "f"),
        ("ELODIE", "f"),
        ("elodie", "f"),
        ("Gaëlle", "f"),
        ("Zoë", "f"),
        ("Jean-Pierre", "m"),
        ("Marie-Claire", "f"),
        ("Anne-Sophie", "f"),
        ("Hans", "m"),
        ("Giuseppe", "m"),
        ("Dupont", None),
        ("Bonjour", None),
        ("", None),
    ],
)
def test_a_first_name_has_the_gender_of_its_own_language(word: str, gender: str | None) -> None:
    assert lexicon.first_name_gender(word) == gender


@pytest.mark.parametrize("word", ["Jean", "jean", "JEAN", "Élodie", "Elodie", "Zoe", "Jean-Pierre", "Ludwig", "Lucía"])
def test_first_names_are_found_whatever_the_case_and_accents(word: str) -> None:
    assert lexicon.is_first_name(word)


@pytest.mark.parametrize("word", ["Dupont", "Paris-Lyon", "Table", "Jean-Dupont", "Saint-Étienne", ""])
def test_words_that_are_not_first_names(word: str) -> None:
    assert not lexicon.is_first_name(word)


@pytest.mark.parametrize(
    "word", ["Dupont", "DUPONT", "Lefèvre", "Lefevre", "Müller", "Muller", "Núñez", "García", "Rossi", "Smith"]
)
def test_surnames_are_found_whatever_the_case_and_accents(word: str) -> None:
    assert lexicon.is_surname(word)


def test_a_possessive_does_not_hide_a_surname() -> None:
    assert lexicon.is_surname("Smith's")
    assert lexicon.is_surname("Dupont’s")


@pytest.mark.parametrize(
    "word, locale",
    [
        ("Jean", "fr"),
        ("Gaëlle", "fr"),
        ("Dupont", "fr"),
        ("John", "en"),
        ("Smith", "en"),
        ("Hans", "de"),
        ("Müller", "de"),
        ("Giuseppe", "it"),
        ("Rossi", "it"),
        ("García", "es"),
        ("Silva", "pt"),
        ("Jansen", "nl"),
        ("Jean-Marie", "fr"),
        ("Xqzwv", None),
    ],
)
def test_a_name_word_is_read_in_its_most_likely_language(word: str, locale: str | None) -> None:
    assert lexicon.locale_of_name(word) == locale


def test_the_name_lexicons_are_large() -> None:
    # The reference asserts more than 1000 first names and 300 surnames.
    first = {lexicon.lexicon_key(n) for loc in lexicon.LOCALES for g in "mf" for n in lexicon.first_names(loc, g)}
    last = {lexicon.lexicon_key(n) for loc in lexicon.LOCALES for n in lexicon.surnames(loc)}
    assert len(first) > 3000
    assert len(last) > 3000


@pytest.mark.parametrize("locale", sorted(lexicon.LOCALES))
def test_every_language_has_names_of_each_gender_and_surnames(locale: str) -> None:
    for gender in ("m", "f", "x"):
        names = lexicon.first_names(locale, gender)
        assert len(names) >= 10
        assert len({lexicon.lexicon_key(n) for n in names}) == len(names)
        assert all(" " not in n for n in names)
    assert len(lexicon.surnames(locale)) >= 100


def test_fake_pools_keep_the_original_spellings() -> None:
    assert "Élodie" in lexicon.first_names("fr", "f") or "Hélène" in lexicon.first_names("fr", "f")
    assert any(not n.isascii() for n in lexicon.surnames("fr"))
    assert all(lexicon.first_name_gender(n) in ("m", "x") for n in lexicon.first_names("fr", "m")[:50])


@pytest.mark.parametrize("locale", ["fr_FR", "fr-CA", "FR", "de_AT"])
def test_faker_style_locale_ids_are_read_as_their_language(locale: str) -> None:
    assert lexicon.first_names(locale, "f") == lexicon.first_names(locale[:2].lower(), "f")


def test_unknown_locales_and_genders_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown locale"):
        lexicon.surnames("tlh")
    with pytest.raises(ValueError, match="unknown gender"):
        lexicon.first_names("fr", "n")


# --- word lists ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "word", ["de", "Le", "l'", "d’", "the", "und", "der", "y", "della", "não", "het", "Will", "were"]
)
def test_function_words_of_every_language_are_stopwords(word: str) -> None:
    assert lexicon.is_stopword(word)


@pytest.mark.parametrize("word", ["Dupont", "Marie", "facture", "Paris", "Karl", ""])
def test_content_words_are_not_stopwords(word: str) -> None:
    assert not lexicon.is_stopword(word)


@pytest.mark.parametrize(
    "value",
    [
        "facture",
        "Bulletin de paie",
        "Date de naissance",
        "IBAN",
        "R.C.S.",
        "rcs",
        "SARL",
        "GmbH",
        "Bonjour",
        "Cordialement",
        "Mme",
        "Maître",
        "lundi",
        "Janvier",
        "December",
        "Lun.",
        "sept",
        "client",
        "Fournisseur",
        "Direction",
        "projet",
        "réunion",
        "API",
        "json",
        "button",
        "<br>",
        "</div>",
        "EUR",
        "€",
        "euros",
        "livre sterling",
        "rue",
    ],
)
def test_generic_terms_are_recognised(value: str) -> None:
    assert lexicon.is_generic_term(value)


@pytest.mark.parametrize(
    "value", ["avril", "mai", "May", "June", "August", "Sam", "Dupont", "Karl Studio", "Marie", ""]
)
def test_months_that_are_first_names_and_names_are_not_generic(value: str) -> None:
    assert not lexicon.is_generic_term(value)


@pytest.mark.parametrize(
    "value, category",
    [
        ("la", "name"),
        ("Facture", "company"),
        ("La réunion", "name"),
        ("RCS Paris", "company"),
        ("greffe du tribunal", "company"),
        ("Service Client", "company"),
        ("équipe projet", "company"),
        ("l'entreprise", "company"),
        ("Mairie de Lyon", "location"),
        ("Préfecture de la Gironde", "location"),
        ("Tribunal judiciaire de Nanterre", "location"),
        ("Doliprane", "name"),
        ("cancer du poumon", "name"),
        ("   ", "name"),
    ],
)
def test_values_that_are_never_pii_on_their_own(value: str, category: str) -> None:
    assert lexicon.is_non_pii_term(value, category)


@pytest.mark.parametrize(
    "value, category",
    [
        ("Karl Studio", "company"),
        ("Jean Dupont", "name"),
        ("Projet 42", "company"),
        ("Doliprane", "health"),
        ("Bezier", "company"),
        ("Atelier Torbel", "company"),
    ],
)
def test_values_that_can_be_pii(value: str, category: str) -> None:
    assert not lexicon.is_non_pii_term(value, category)


@pytest.mark.parametrize("word", ["pierre", "Rose", "CLAIRE", "Rivière", "blanc", "will", "Grace", "June", "king"])
def test_homographs_are_names_that_are_also_everyday_words(word: str) -> None:
    assert lexicon.is_homograph(word)


@pytest.mark.parametrize("word", ["Dupont", "Camille", "Ondine", "Smith"])
def test_ordinary_names_are_not_homographs(word: str) -> None:
    assert not lexicon.is_homograph(word)


def test_the_homograph_list_is_a_short_french_and_english_list() -> None:
    assert 50 <= len(lexicon._comma_set("homographs.txt")) <= 90


@pytest.mark.parametrize(
    "value", ["France", "Royaume-Uni", "royaume uni", "États-Unis", "USA", "Germany", "Deutschland"]
)
def test_countries_in_french_english_and_their_own_language(value: str) -> None:
    assert lexicon.is_country(value)


def test_closed_lists_hold_the_usual_forms() -> None:
    assert {"M.", "Mme", "Mlle", "Dr", "Pr", "Me", "Maître", "Mr", "Mrs", "Ms", "Herr", "Frau", "Sra.", "Sig.ra"} <= (
        lexicon.HONORIFICS
    )
    assert {"SARL", "SAS", "GmbH", "e.V.", "Inc.", "Ltd", "LLC", "S.L.", "S.p.A.", "S.r.l.", "BV", "NV"} <= (
        lexicon.LEGAL_FORMS
    )
    assert {"de", "du", "de la", "d'", "van", "von", "van der", "da", "di", "dos"} <= lexicon.NAME_PARTICLES


@pytest.mark.parametrize(
    "word, expected",
    [("SARL", True), ("Sarl", True), ("S.A.R.L.", True), ("SA", True), ("sa", False), ("GmbH", True), ("Inc", True)],
)
def test_legal_forms_are_case_aware(word: str, expected: bool) -> None:
    assert lexicon.is_legal_form(word) is expected


@pytest.mark.parametrize(
    "value, stripped",
    [
        ("Atelier Torbel SARL", "Atelier Torbel"),
        ("Cabinet Bezier", "Bezier"),
        ("Github, Inc.", "Github"),
        ("Müller GmbH & Co. KG", "Müller"),
        ("SAS Karl Studio", "Karl Studio"),
        ("Groupe Renault et", "Renault"),
        ("Société : Karl Studio", "Karl Studio"),
        ("Holding - Zurita", "Zurita"),
        ("Karl Studio", "Karl Studio"),
        ("SA", "SA"),
        ("Groupe X", "Groupe X"),
    ],
)
def test_org_affixes_are_stripped_from_both_ends(value: str, stripped: str) -> None:
    assert lexicon.strip_org_affixes(value) == stripped


# --- notoriety (reference 9.8) ---------------------------------------------------------------------

OPEN = {"commercial": True, "people": True}
STRICT = {"commercial": False, "people": False}


@pytest.mark.parametrize(
    "value, category, gates, expected",
    [
        # countries: always exempt
        ("France", "location", STRICT, True),
        ("Royaume-Uni", "company", STRICT, True),
        # tickers in capitals, any category
        ("AAPL", "name", STRICT, True),
        ("Aapl", "name", STRICT, False),
        # state institutions: places and companies at every level
        ("URSSAF", "company", STRICT, True),
        ("Pôle emploi", "company", STRICT, True),
        ("France Travail", "location", STRICT, True),
        ("CAF", "company", STRICT, True),
        ("caf", "company", STRICT, False),
        # famous organisations: companies, and multi-word names
        ("Croix-Rouge", "company", STRICT, True),
        ("Médecins sans frontières", "name", STRICT, True),
        ("ONU", "company", STRICT, True),
        # brands only when commercial brands are exempt
        ("Google", "company", OPEN, True),
        ("Google", "company", STRICT, False),
        ("Google Drive", "name", OPEN, True),
        ("Google", "name", OPEN, False),
        ("HSBC France", "company", OPEN, True),
        ("Github, Inc.", "company", OPEN, True),
        ("Crédit Agricole Alpes Provence", "company", OPEN, True),
        ("SNCF", "company", OPEN, True),
        ("La Poste", "company", OPEN, True),
        ("Karl Studio", "company", OPEN, False),
        # service domains and their mailboxes
        ("https://drive.google.com/file/d/1", "url", OPEN, True),
        ("impots.gouv.fr", "url", OPEN, True),
        ("impots.gouv.fr", "url", STRICT, False),
        ("no-reply@google.com", "email", OPEN, True),
        ("jean.dupont@gmail.com", "email", OPEN, False),
        ("contact@karl-studio.fr", "email", OPEN, False),
        # famous people only when public people are exempt
        ("Emmanuel Macron", "name", OPEN, True),
        ("Président Macron", "name", OPEN, True),
        ("Emmanuel Macron", "name", STRICT, False),
        ("Victor Hugo", "name", OPEN, True),
        ("Jean Dupont", "name", OPEN, False),
        # AI models by shape, never a bare family word or a person
        ("Claude Sonnet 4.6", "name", STRICT, True),
        ("GPT-4o", "company", STRICT, True),
        ("Mistral Large", "company", STRICT, True),
        ("Claude", "name", OPEN, False),
        ("Claude Dupont", "name", OPEN, False),
    ],
)
def test_notoriety_is_scoped_by_category_and_gates(
    value: str, category: str, gates: dict[str, bool], expected: bool
) -> None:
    assert lexicon.is_notorious(value, category, **gates) is expected


def test_an_entity_tied_to_the_writer_is_not_exempt_but_a_country_still_is() -> None:
    assert not lexicon.is_notorious("Google", "company", commercial=True, people=True, tied_to_writer=True)
    assert lexicon.is_notorious("France", "location", commercial=True, people=True, tied_to_writer=True)


@pytest.mark.parametrize(
    "text, value",
    [
        ("Je travaille chez Google depuis 2019.", "Google"),
        ("je bosse pour Airbus", "Airbus"),
        ("Je travaille depuis trois ans chez la société Karl Studio.", "Karl Studio"),
        ("Mon employeur, Microsoft, a changé de politique.", "Microsoft"),
        ("Mon employeur est la SNCF.", "SNCF"),
        ("I work at Google.", "Google"),
        ("I'm working for Amazon these days.", "Amazon"),
        ("My employer is Apple.", "Apple"),
        ("Ich arbeite bei Siemens.", "Siemens"),
        ("Trabajo en Telefónica.", "Telefónica"),
        ("Lavoro presso Enel.", "Enel"),
        ("Ik werk bij Philips.", "Philips"),
        ("Orange, mon employeur, a signé.", "Orange"),
    ],
)
def test_employment_phrases_tie_an_entity_to_the_writer(text: str, value: str) -> None:
    start = text.index(value)
    assert lexicon.ties_to_writer(text, start, start + len(value))


@pytest.mark.parametrize(
    "text, value",
    [
        ("J'ai cherché sur Google.", "Google"),
        ("Je travaille sur un document Google Drive.", "Google Drive"),
        ("Google a publié ses résultats.", "Google"),
        ("I use Amazon for shopping.", "Amazon"),
        ("Je travaille. Google est en panne.", "Google"),
    ],
)
def test_mentions_without_an_employment_phrase_are_not_tied(text: str, value: str) -> None:
    start = text.index(value)
    assert not lexicon.ties_to_writer(text, start, start + len(value))


# --- the wider world's names (detection only) -------------------------------------------------------


@pytest.mark.parametrize(
    "word, gender",
    [
        ("Yaw", "m"),  # Twi (tw_GH)
        ("Akosua", "f"),
        ("Burak", "m"),  # Turkish
        ("Nomvula", "f"),  # Zulu
        ("Taras", "m"),  # transliterated from Ukrainian
        ("Dmitry", "m"),  # transliterated from Russian, usual spelling of the ending
        ("Giorgos", "m"),  # transliterated from Greek
    ],
)
def test_first_names_of_the_wider_world_are_first_names_with_a_gender(word: str, gender: str) -> None:
    assert lexicon.is_first_name(word)
    assert lexicon.first_name_gender(word) == gender
    assert not lexicon.is_core_first_name(word)


@pytest.mark.parametrize(
    "word", ["Nkosi", "Boateng", "Tran", "Morozov", "Shevchenko", "Papadopoulos", "Kaczmarek", "Wang"]
)
def test_surnames_of_the_wider_world_are_surnames(word: str) -> None:
    assert lexicon.is_surname(word)


def test_wider_world_names_never_become_fakes_of_our_languages() -> None:
    pools = {lexicon.lexicon_key(n) for loc in lexicon.LOCALES for g in "mfx" for n in lexicon.first_names(loc, g)}
    assert "yaw" not in pools and "nomvula" not in pools
    assert lexicon.locale_of_name("Yaw") is None


@pytest.mark.parametrize("word", ["Major", "Golden"])
def test_wider_world_first_names_that_are_everyday_words_are_weak(word: str) -> None:
    assert lexicon.is_first_name(word)
    assert lexicon.is_weak_first_name(word)
    assert not lexicon.is_weak_first_name("Kwabena")


def test_an_everyday_word_is_a_homograph_unless_it_is_also_a_surname_of_our_languages() -> None:
    assert lexicon.is_homograph("Major")
    assert not lexicon.is_homograph("Golden")  # a surname here: "Golden" stays a name word
    assert not lexicon.is_homograph("Smith")


@pytest.mark.parametrize("word", ["The", "Mai"])
def test_function_words_are_never_wider_world_first_names(word: str) -> None:
    assert not lexicon.is_first_name(word)


def test_a_compound_of_an_everyday_word_and_a_name_is_no_first_name() -> None:
    assert lexicon.is_first_name("Jean-Pierre")
    assert not lexicon.is_first_name("Saint-Étienne")


def test_cyrillic_and_greek_names_are_transliterated_with_their_usual_variants() -> None:
    russian = lexicon._transliterated(["Дмитрий", "Мария"], lexicon._TRANSLITERATIONS["ru_RU"])
    assert {"dmitriy", "dmitry", "dmitri", "mariya", "maria"} <= set(russian)
    assert lexicon._transliterated(["Тарас"], lexicon._TRANSLITERATIONS["uk_UA"]) == ["taras"]
    assert "giorgos" in lexicon._transliterated(["Γιώργος"], lexicon._TRANSLITERATIONS["el_GR"])


@pytest.mark.parametrize(
    "word, key", [("Yıldırım", "yildirim"), ("Łukasz", "lukasz"), ("Đặng", "dang"), ("Søren", "soren")]
)
def test_letters_without_a_decomposition_fold_to_their_base_letter(word: str, key: str) -> None:
    assert lexicon.lexicon_key(word) == key


NAME_TEXT = st.text(alphabet="abcdeéèëïçñøłAÉÖÑ-'’ ", min_size=1, max_size=20)


@settings(max_examples=200, deadline=None)
@given(st.lists(NAME_TEXT, min_size=1, max_size=8))
def test_folding_many_names_at_once_agrees_with_the_lookup_key(names: list[str]) -> None:
    assert lexicon._fold_lines(names) == [lexicon.lexicon_key(n) for n in names]


# --- everyday words and business words ------------------------------------------------------------


@pytest.mark.parametrize("word", ["table", "Maison", "bonjour", "Strategy", "Tables", "Directrice"])
def test_everyday_words_are_common_words(word: str) -> None:
    assert lexicon.is_common_word(word)


@pytest.mark.parametrize("word", ["Zentavio", "Kelidu", "Brightwave", ""])
def test_invented_words_and_names_are_not_common_words(word: str) -> None:
    assert not lexicon.is_common_word(word)


@pytest.mark.parametrize(
    "word, descriptor, trade",
    [
        ("Freight", True, False),
        ("Holdings", True, False),
        ("Logistics", True, False),
        ("Boulangerie", True, True),
        ("Kanzlei", True, True),
        ("Farmacia", True, True),
        ("Physiotherapie", True, True),
        ("Dupont", False, False),
        ("Bonjour", False, False),
    ],
)
def test_business_descriptors_and_trades(word: str, descriptor: bool, trade: bool) -> None:
    assert lexicon.is_org_descriptor(word) is descriptor
    assert lexicon.is_trade_word(word) is trade


def test_every_trade_word_is_a_descriptor() -> None:
    assert all(lexicon.is_org_descriptor(t) for t in lexicon._comma_set("org_trades.txt"))


@pytest.mark.parametrize("form", ["AB", "Kft.", "s.r.o.", "Sp. z o.o.", "Pty Ltd", "PLLC", "SE"])
def test_legal_forms_of_more_countries(form: str) -> None:
    assert lexicon.is_legal_form(form)


# --- lists read one word at a time -----------------------------------------------------------------

# These lists are looked up one word at a time (lone_names.py): an entry of two words can never match. A line
# that does not end with a comma runs into the next line's first entry ("niece" + "tochter"), which is how
# "tell", "tochter", "hija" and "figlia" were lost as cues.
SINGLE_WORD_LISTS = ("person_cues.txt", "person_links.txt", "person_verbs.txt", "request_verbs.txt")


@pytest.mark.parametrize("name", SINGLE_WORD_LISTS)
def test_every_entry_of_a_list_read_word_by_word_is_one_word(name: str) -> None:
    two_words = sorted(key for key in lexicon.list_keys(name) if " " in key)
    hyphenated = {lexicon.lexicon_key(w) for w in ("beau-frère", "beau-père", "belle-mère", "belle-sœur",
                                                   "grand-mère", "grand-père", "co-worker")}
    assert [key for key in two_words if key not in hyphenated] == []


@pytest.mark.parametrize("cue", ["tell", "tochter", "hija", "figlia", "chiedi", "pregunta", "frag", "bestie"])
def test_the_first_cue_of_each_line_is_a_cue(cue: str) -> None:
    assert lexicon.lexicon_key(cue) in lexicon.list_keys("person_cues.txt")
