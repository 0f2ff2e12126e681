"""Obfuscated e-mail addresses, and web addresses that give a person away: a URL on the domain of
an e-mail of the same text ("site"), a profile link ("profile"). One real domain keeps one fake
domain across e-mails, URLs and messages; famous domains stay."""

from __future__ import annotations

import pytest

from openmasq.redact import RedactOptions, Vault, fakes, pseudonymise
from openmasq.redact.restore import Restorer
from openmasq.redact.rules import detect_rules

KEY = bytes(range(32))


def emails(text: str) -> list[str]:
    return [s.value for s in detect_rules(text) if s.kind == "email"]


OBFUSCATED = [
    ("écrire à p . lambert @ orange . fr", "p . lambert @ orange . fr"),
    ("mail tom dot harris at gmail dot com", "tom dot harris at gmail dot com"),
    ("scrivimi: marco[at]libero[dot]it", "marco[at]libero[dot]it"),
    ("name (at) domain (dot) com", "name (at) domain (dot) com"),
    ("luis[arroba]telefonica[punto]es", "luis[arroba]telefonica[punto]es"),
    ("max punkt muster at gmx punkt de", "max punkt muster at gmx punkt de"),
    ("anna chiocciola libero punto it", "anna chiocciola libero punto it"),
    ("https://x.example/?email=marie.dupont%40orange.fr&a=1", "marie.dupont%40orange.fr"),
    ("e-mail: jdoe at example dot com", "jdoe at example dot com"),
]


@pytest.mark.parametrize(("text", "value"), OBFUSCATED)
def test_obfuscated_email_is_found(text: str, value: str) -> None:
    assert value in emails(text)


@pytest.mark.parametrize("text", [
    "meet at the station", "look at example dot com?", "jdoe at example dot com", "see @ 10 am. Ok",
    "a @ b . c", "Le prix est de 3 [at] 4", "write to jean at noon dot ok",
])
def test_prose_is_no_obfuscated_email(text: str) -> None:
    assert emails(text) == []


@pytest.mark.parametrize(("_text", "value"), OBFUSCATED)
def test_obfuscated_email_fake_is_written_the_same_way_and_restores(_text: str, value: str) -> None:
    result = pseudonymise(_text, Vault.new(KEY))
    fake = next(rep.substitute for rep in result.replacements if rep.kind == "email")
    assert fake != value and fakes.plain_email(fake) is not None
    assert Restorer(result.vault).restore(result.text) == _text
    # a reply may write the fake plainly: it restores to the plain real address
    assert Restorer(result.vault).restore(fakes.plain_email(fake) or "") == fakes.plain_email(value)


TEXT = ("Écris à marie.dupont@plomberie-dufour.fr (site https://www.plomberie-dufour.fr/contact, "
        "plomberie-dufour.fr). Profils : linkedin.com/in/marie-dupont, github.com/jdoe42. "
        "Voir aussi https://github.com/python/cpython et google.com.")


@pytest.mark.parametrize("level", ["standard", "renforce"])
def test_site_on_the_email_domain_gets_the_email_fake_domain(level: str) -> None:
    result = pseudonymise(TEXT, Vault.new(KEY), RedactOptions(level=level))
    fake_email = next(rep.substitute for rep in result.replacements if rep.kind == "email")
    fake_domain = fake_email.rpartition("@")[2]
    assert "plomberie-dufour" not in result.text
    assert f"https://www.{fake_domain}/contact" in result.text and f" {fake_domain})" in result.text
    assert "https://github.com/python/cpython" in result.text and "google.com" in result.text
    assert Restorer(result.vault).restore(result.text) == TEXT


def test_profile_link_is_masked_with_names_and_kept_at_standard() -> None:
    masked = pseudonymise(TEXT, Vault.new(KEY)).text
    assert "marie-dupont" not in masked and "jdoe42" not in masked and "linkedin.com/in/" in masked
    assert "github.com/jdoe42" in pseudonymise(TEXT, Vault.new(KEY), RedactOptions(level="standard")).text


def test_one_real_domain_keeps_one_fake_across_messages() -> None:
    first = pseudonymise("contact: marie@plomberie-dufour.fr", Vault.new(KEY))
    second = pseudonymise("et paul@plomberie-dufour.fr, www.plomberie-dufour.fr", first.vault)
    domain = next(r.substitute for r in first.replacements if r.kind == "email").rpartition("@")[2]
    assert second.text.count(domain) == 2


@pytest.mark.parametrize("url", ["github.com/features", "linkedin.com/company", "https://x.com/home",
                                 "https://github.com/python/cpython"])
def test_platform_pages_are_no_profiles(url: str) -> None:
    assert not [s for s in detect_rules(f"voir {url}") if s.kind == "profile"]


def test_a_site_named_after_a_person_or_firm_of_the_same_text_is_masked_with_them() -> None:
    text = "Viele Grüße\nJens Albrecht\nTischlerei Albrecht & Sohn\nwww.tischlerei-albrecht-bielefeld.de"
    out = pseudonymise(text, Vault.new(bytes(range(32)), mode="fake"), RedactOptions()).text
    assert "albrecht" not in out.lower()
    assert "www." in out and out.endswith(".de")


def test_a_public_site_beside_a_name_stays() -> None:
    text = "Guido says the docs on www.python.org are the best"
    out = pseudonymise(text, Vault.new(bytes(range(32)), mode="fake"), RedactOptions()).text
    assert "www.python.org" in out


def test_the_writers_own_site_said_further_before_its_address_is_masked() -> None:
    text = "¿Qué opinas de mi web de clases de guitarra? https://www.clasesguitarra-tomasvidal.com"
    out = pseudonymise(text, Vault.new(KEY, mode="fake"), RedactOptions()).text
    assert "tomasvidal" not in out and "https://www." in out
