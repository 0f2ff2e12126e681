"""Believable substitutes that keep the shape of the real value (reference 9.10): pure functions
of the real value and a seeded `random.Random`, never returning the real value itself."""

from __future__ import annotations

import random
from collections.abc import Callable

from ._shape import distinct, match_case, scramble_word
from .credentials import fake_password, fake_secret
from .dates import fake_date
from .ids import (
    fake_amount,
    fake_bic,
    fake_card,
    fake_digits,
    fake_dni,
    fake_iban,
    fake_nie,
    fake_nino,
    fake_nir,
    fake_siren,
    fake_siret,
    fake_ssn,
    fake_vat,
)
from .names import fake_first_name, fake_person, fake_surname
from .net import fake_ipv4, fake_ipv6, fake_mac, fake_subnet, subnet_of
from .orgs import fake_org
from .phone import fake_phone
from .places import fake_address, fake_location
from .projects import fake_project
from .web import fake_domain, fake_email, fake_path, fake_url, fake_username

__all__ = [
    "fake_address", "fake_amount", "fake_bic", "fake_card", "fake_date", "fake_digits", "fake_dni",
    "fake_domain", "fake_email", "fake_first_name", "fake_for", "fake_iban", "fake_ipv4", "fake_ipv6",
    "fake_location", "fake_mac", "fake_nie", "fake_nino", "fake_nir", "fake_org", "fake_password",
    "fake_path", "fake_person", "fake_phone", "fake_project", "fake_secret", "fake_siren", "fake_siret", "fake_ssn",
    "fake_subnet", "fake_surname", "fake_url", "fake_username", "fake_vat", "match_case", "subnet_of",
]

_Plain = Callable[[str, random.Random], str]

# Kinds whose fake needs nothing but the value and the generator.
_PLAIN: dict[str, _Plain] = {
    "phone": fake_phone, "iban": fake_iban, "bic": fake_bic, "card": fake_card, "nir": fake_nir,
    "dni": fake_dni, "nie": fake_nie, "nino": fake_nino, "ssn": fake_ssn, "siren": fake_siren,
    "siret": fake_siret, "vat": fake_vat, "ipv4": fake_ipv4, "ipv6": fake_ipv6, "mac": fake_mac,
    "apikey": fake_secret, "jwt": fake_secret, "private_key": fake_secret, "token": fake_secret,
    "password": fake_password, "path": fake_path, "username": fake_username, "amount": fake_amount,
    "number": fake_digits,
}


def _name_shaped(real: str, rng: random.Random) -> str:
    return distinct(real, rng, lambda r: scramble_word(real, r))


def fake_for(kind: str, real: str, rng: random.Random, **hints: str) -> str:
    """The fake of `real` for a fine kind of kinds.py. Hints (all optional strings): `locale`,
    `gender`, `country`, `local_hint`, `domain_hint`, `name_hint`, `subnet` (an IPv4's fake /24,
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
        return fake_email(real, rng, local_hint=hints.get("local_hint"), domain_hint=hints.get("domain_hint"))
    if kind == "url":
        return fake_url(real, rng, domain_hint=hints.get("domain_hint"))
    if kind == "domain":
        return fake_domain(real, rng, name_hint=hints.get("name_hint") or hints.get("domain_hint"))
    if kind == "address":
        return fake_address(real, rng, country=country)
    if kind == "location":
        return fake_location(real, rng, country=country)
    if kind in ("dob", "date"):
        return fake_date(real, rng, birth=kind == "dob")
    if any(ch.isdigit() for ch in real):
        return fake_digits(real, rng)
    return _name_shaped(real, rng)
