"""Rule-based detectors of structured personal data: regexes with cheap presence probes and
validators (checksums, ranges, libphonenumber), returning every match as a `Span`.

Overlaps are allowed: a later stage keeps the most specific or longest span. Detectors read a
view of the text where NBSP-like spaces are plain spaces and zero-width characters are gone;
offsets and values are reported on the original text."""

from __future__ import annotations

from ..spans import Span
from ._base import Finder, Hit, run_finders
from .address import find_addresses
from .contact import find_contact, find_emails, find_phones
from .corrections import echo_corrections
from .dates import find_dates, find_dates_and_dobs, find_dobs
from .finance import find_bics, find_cards, find_finance, find_ibans
from .ids import (
    find_checked_ids,
    find_dnis,
    find_ids,
    find_nies,
    find_ninos,
    find_nirs,
    find_sirens,
    find_sirets,
    find_ssns,
    find_vats,
)
from .labelled import find_labelled
from .network import find_domains, find_ipv4, find_ipv6, find_macs, find_network, find_urls
from .numbers import find_amounts, find_amounts_and_numbers, find_numbers
from .secrets import (
    find_apikeys,
    find_jwts,
    find_passwords,
    find_private_keys,
    find_secret_assignments,
    find_secrets,
    find_tokens,
    shannon_entropy,
)

FAMILIES: dict[str, tuple[Finder, ...]] = {
    "secrets": (find_secrets,),
    "network": (find_network,),
    "finance": (find_finance,),
    "ids": (find_ids,),
    "labelled": (find_labelled,),
    "contact": (find_contact,),
    "address": (find_addresses,),
    "dates": (find_dates_and_dobs,),
    "numbers": (find_amounts_and_numbers,),
}


def detect_rules(text: str) -> list[Span]:
    """Every rule match in `text` (source "rule"), sorted by start then longest first; a structured value
    typed again, corrected, is found too (corrections.py)."""
    return run_finders(text, [finder for finders in FAMILIES.values() for finder in finders], then=echo_corrections)


def detect_contact(text: str) -> list[Span]:
    """E-mail addresses and phone numbers."""
    return run_finders(text, FAMILIES["contact"])


def detect_network(text: str) -> list[Span]:
    """URLs, bare domains, IPv4/IPv6 and MAC addresses."""
    return run_finders(text, FAMILIES["network"])


def detect_finance(text: str) -> list[Span]:
    """IBAN, BIC and payment cards."""
    return run_finders(text, FAMILIES["finance"])


def detect_ids(text: str) -> list[Span]:
    """NIR, SIREN, SIRET, VAT, DNI, NIE, NINO and SSN."""
    return run_finders(text, FAMILIES["ids"])


def detect_labelled(text: str) -> list[Span]:
    """Structured values right after their label, whatever their check digits say."""
    return run_finders(text, FAMILIES["labelled"])


def detect_secrets(text: str) -> list[Span]:
    """Private keys, JWTs, API keys, passwords, secret assignments and high-entropy tokens."""
    return run_finders(text, FAMILIES["secrets"])


def detect_addresses(text: str) -> list[Span]:
    """Street addresses with their postal code and city."""
    return run_finders(text, FAMILIES["address"])


def detect_dates(text: str) -> list[Span]:
    """Full dates; dates of birth (after a birth phrase) as `dob`."""
    return run_finders(text, FAMILIES["dates"])


def detect_numbers(text: str) -> list[Span]:
    """Money amounts and other standalone numbers."""
    return run_finders(text, FAMILIES["numbers"])


__all__ = [
    "FAMILIES",
    "Finder",
    "Hit",
    "detect_addresses",
    "detect_contact",
    "detect_dates",
    "detect_finance",
    "detect_ids",
    "detect_labelled",
    "detect_network",
    "detect_numbers",
    "detect_rules",
    "detect_secrets",
    "find_addresses",
    "find_amounts",
    "find_apikeys",
    "find_bics",
    "find_cards",
    "find_checked_ids",
    "find_dates",
    "find_dnis",
    "find_dobs",
    "find_domains",
    "find_emails",
    "find_ibans",
    "find_ipv4",
    "find_ipv6",
    "find_jwts",
    "find_labelled",
    "find_macs",
    "find_nies",
    "find_ninos",
    "find_nirs",
    "find_numbers",
    "find_passwords",
    "find_phones",
    "find_private_keys",
    "find_secret_assignments",
    "find_sirens",
    "find_sirets",
    "find_ssns",
    "find_tokens",
    "find_urls",
    "find_vats",
    "shannon_entropy",
]
