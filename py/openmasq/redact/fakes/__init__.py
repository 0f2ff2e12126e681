"""Believable substitutes that keep the shape of the real value (reference 9.10): pure functions
of the real value and a seeded `random.Random`, never returning the real value itself."""

from __future__ import annotations

import random
from collections.abc import Callable

from ._shape import distinct, match_case, scramble_word
from .credentials import fake_password, fake_secret
from .dates import fake_date
from .ids import (
    fake_abn,
    fake_amount,
    fake_bic,
    fake_card,
    fake_cif,
    fake_codice_fiscale,
    fake_digits,
    fake_dni,
    fake_ein,
    fake_iban,
    fake_id_card,
    fake_nie,
    fake_nif,
    fake_nino,
    fake_nir,
    fake_passport,
    fake_record_id,
    fake_siren,
    fake_siret,
    fake_ssn,
    fake_steuer_id,
    fake_svnr,
    fake_tax_id,
    fake_tfn,
    fake_vat,
)
from .names import fake_first_name, fake_person, fake_surname
from .net import fake_ipv4, fake_ipv6, fake_mac, fake_subnet, subnet_of
from .orgs import fake_org
from .phone import fake_phone
from .places import fake_address, fake_location
from .projects import fake_project
from .web import fake_domain, fake_email, fake_path, fake_url, fake_username, is_webmail, plain_email, registrable

__all__ = [
    "fake_abn", "fake_address", "fake_amount", "fake_bic", "fake_card", "fake_cif", "fake_codice_fiscale",
    "fake_date", "fake_digits", "fake_dni", "fake_domain", "fake_ein", "fake_email", "fake_first_name", "fake_for",
    "fake_iban", "fake_id_card", "fake_ipv4", "fake_ipv6", "fake_location", "fake_mac", "fake_nie", "fake_nif",
    "fake_nino", "fake_nir", "fake_org", "fake_passport", "fake_password", "fake_path", "fake_person", "fake_phone",
    "fake_project", "fake_record_id", "fake_secret", "fake_siren", "fake_siret", "fake_ssn", "fake_steuer_id",
    "fake_subnet", "fake_surname", "fake_svnr", "fake_tax_id", "fake_tfn", "fake_url", "fake_username", "fake_vat",
    "is_webmail", "match_case", "plain_email", "registrable", "subnet_of",
]

_Plain = Callable[[str, random.Random], str]

# Kinds whose fake needs nothing but the value and the generator.
_PLAIN: dict[str, _Plain] = {
    "phone": fake_phone, "iban": fake_iban, "bic": fake_bic, "card": fake_card, "nir": fake_nir,
    "dni": fake_dni, "nie": fake_nie, "nino": fake_nino, "ssn": fake_ssn, "siren": fake_siren,
    "siret": fake_siret, "vat": fake_vat, "ipv4": fake_ipv4, "ipv6": fake_ipv6, "mac": fake_mac,
    "apikey": fake_secret, "jwt": fake_secret, "private_key": fake_secret, "token": fake_secret,
    "password": fake_password, "path": fake_path, "username": fake_username, "amount": fake_amount,
    "number": fake_digits, "codice_fiscale": fake_codice_fiscale, "steuer_id": fake_steuer_id, "svnr": fake_svnr,
    "id_card": fake_id_card, "passport": fake_passport, "nif": fake_nif, "tfn": fake_tfn, "tax_id": fake_tax_id,
    "record_id": fake_record_id, "cif": fake_cif, "ein": fake_ein, "abn": fake_abn, "sort_code": fake_digits,
    "account_number": fake_digits,
}


def _name_shaped(real: str, rng: random.Random) -> str:
    return distinct(real, rng, lambda r: scramble_word(real, r))


def fake_for(kind: str, real: str, rng: random.Random, **hints: str) -> str:
    """The fake of `real` for a fine kind of kinds.py. Hints (all optional strings): `locale`,
    `gender`, `country`, `local_hint`, `domain_hint`, `domain_fake` (the fake registrable domain a
    real one already has), `name_hint`, `subnet` (an IPv4's fake /24,
    fake_subnet). An unknown kind gets a digit swap when the value has digits, else a same-shape
    scramble."""
    if kind == "ipv4" and hints.get("subnet"):
        return fake_ipv4(real, rng, subnet=hints["subnet"])
    plain = _PLAIN.get(kind)
    if plain is not None:
        return plain(real, rng)
    locale, country = hints.get("locale"), hints.get("country")
    if kind == "person":
        return fake_person(real, rng, locale=locale, gender=hints.get("gender"))
    if kind == "org":
        return fake_org(real, rng, locale=locale)
    if kind == "project":
        return fake_project(real, rng, locale=locale)
    if kind == "email":
        return fake_email(real, rng, local_hint=hints.get("local_hint"), domain_hint=hints.get("domain_hint"),
                          domain_fake=hints.get("domain_fake"))
    if kind in ("site", "profile"):
        kind = "url" if "/" in real else "domain"
    if kind == "url":
        return fake_url(real, rng, domain_hint=hints.get("domain_hint"), domain_fake=hints.get("domain_fake"))
    if kind == "domain":
        return fake_domain(real, rng, name_hint=hints.get("name_hint") or hints.get("domain_hint"),
                           domain_fake=hints.get("domain_fake"))
    if kind == "address":
        return fake_address(real, rng, country=country)
    if kind == "location":
        return fake_location(real, rng, country=country)
    if kind in ("dob", "date"):
        return fake_date(real, rng, birth=kind == "dob")
    if any(ch.isdigit() for ch in real):
        return fake_digits(real, rng)
    return _name_shaped(real, rng)
