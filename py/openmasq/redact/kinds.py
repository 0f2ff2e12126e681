"""Fine kinds of detected values, the user-facing category each belongs to, and levels.

A detector reports a fine kind ("siret", "jwt"); policy switches work on categories
(reference 9.2: 18 user-facing categories, plus the internal `number`)."""

from __future__ import annotations

CATEGORY_OF_KIND: dict[str, str] = {
    "person": "name",
    "username": "username",
    "org": "company",
    # A project or note the memory forces (a codename fake, not a company-shaped one): switched
    # with organisations, as the reference forced them as ORG (spec section 12 item 14).
    "project": "company",
    "email": "email",
    "phone": "phone",
    "iban": "iban",
    "bic": "iban",
    "card": "card",
    "nir": "national_id",
    "dni": "national_id",
    "nie": "national_id",
    "nino": "national_id",
    "ssn": "national_id",
    "codice_fiscale": "national_id",
    "steuer_id": "national_id",
    "svnr": "national_id",  # German Sozialversicherungsnummer
    "id_card": "national_id",  # German Personalausweis and other identity card numbers, by label
    "passport": "national_id",
    "nif": "national_id",  # Spanish NIF of people (K/L/M, or a DNI-shaped value after "NIF")
    "tfn": "national_id",  # Australian tax file number
    "tax_id": "national_id",  # French numéro fiscal (SPI), and tax numbers after their label
    "record_id": "national_id",  # medical record, patient, employee, student and member numbers
    "siren": "company_id",
    "siret": "company_id",
    "vat": "company_id",
    "cif": "company_id",  # Spanish CIF
    "ein": "company_id",  # US employer identification number
    "abn": "company_id",  # Australian business number
    "sort_code": "iban",  # UK bank sort code, by label
    "account_number": "iban",  # bank account number, by label
    "url": "url",
    "domain": "url",
    # A URL or bare domain on the (non-webmail) domain of an e-mail address of the same text:
    # masked with the e-mail, which would otherwise be given away by its own site.
    "site": "email",
    # A platform profile link naming a person ("linkedin.com/in/marie-dupont", "github.com/jdoe42").
    "profile": "username",
    "ipv4": "ip",
    "ipv6": "ip",
    "mac": "ip",
    "apikey": "apikey",
    "jwt": "apikey",
    "private_key": "secret",
    "password": "secret",
    "token": "secret",
    "address": "address",
    "location": "location",
    "dob": "dob",
    "date": "date",
    "path": "path",
    "amount": "number",
    "number": "number",
}

CATEGORIES = (
    "name", "dob", "date", "username", "email", "phone", "address", "location", "company",
    "card", "iban", "national_id", "company_id", "ip", "path", "url", "secret", "apikey", "number",
)

# Categories only a model-grade detector finds; our lexicon and context detectors stand in
# for the model, so "standard" (rules only) leaves them off, as the reference does.
FREE_TEXT_CATEGORIES = frozenset({"name", "dob", "address", "location", "company", "username"})
ALWAYS_ON = frozenset({"apikey", "secret"})
DEFAULT_OFF = frozenset({"url", "date", "path", "number"})
LEVELS = ("standard", "renforce", "strict")


def category_of(kind: str) -> str:
    """The policy category of a fine kind; unknown kinds are treated as secrets (fail closed)."""
    return CATEGORY_OF_KIND.get(kind, "secret")


def categories_for_level(level: str) -> frozenset[str]:
    """Active categories of a level (reference 9.2); `apikey` and `secret` are always on."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r} (expected one of {', '.join(LEVELS)})")
    everything = frozenset(CATEGORIES)
    if level == "strict":
        return everything
    defaults = everything - DEFAULT_OFF
    if level == "renforce":
        return defaults
    return (defaults - FREE_TEXT_CATEGORIES) | ALWAYS_ON
