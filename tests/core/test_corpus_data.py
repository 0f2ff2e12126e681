"""The labelled evaluation corpus: well-formed, every label present and every structured value valid."""

from __future__ import annotations

import base64
import collections
import ipaddress
import json
import re
from pathlib import Path

import phonenumbers
import pytest

from openmasq.redact import checksums
from openmasq.redact.evaluate import COARSE_STRUCTURED_KINDS, STRUCTURED_KINDS, Label, Record, parse_jsonl
from openmasq.redact.kinds import CATEGORY_OF_KIND

# Read relative to this file so the same test runs on the host and inside Pyodide
# (the Pyodide harness must ship tests/data/corpus next to tests/core).
CORPUS_DIR = Path(__file__).resolve().parent.parent / "data" / "corpus"

MINIMUM_MESSAGES = {"fr": 120, "en": 110, "de": 30, "es": 30, "it": 30}
MINIMUM_TOTAL = 320
MINIMUM_WITHOUT_PII = 60
PHONE_REGIONS = {"fr": "FR", "en": "GB", "de": "DE", "es": "ES", "it": "IT"}
OTHER_PHONE_REGIONS = ("US", "FR", "GB", "DE", "ES", "IT", "BE", "CH")


def _load() -> list[Record]:
    files = sorted(CORPUS_DIR.glob("*.jsonl"))
    assert files, f"no corpus files under {CORPUS_DIR}"
    return [record for path in files for record in parse_jsonl(path.read_text(encoding="utf-8"))]


RECORDS = _load()
LABELS = [(record, label) for record in RECORDS for label in record.pii]


def _phone_valid(value: str, lang: str) -> bool:
    regions = (PHONE_REGIONS.get(lang, "FR"), *OTHER_PHONE_REGIONS)
    for region in regions:
        try:
            number = phonenumbers.parse(value, region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_valid_number(number):
            return True
    return False


def _jwt_valid(value: str) -> bool:
    parts = value.split(".")
    if len(parts) != 3 or not all(re.fullmatch(r"[A-Za-z0-9_-]+", p) for p in parts):
        return False
    header = json.loads(base64.urlsafe_b64decode(parts[0] + "=" * (-len(parts[0]) % 4)))
    return isinstance(header, dict) and "alg" in header


def _public_ip(value: str, version: int) -> bool:
    address = ipaddress.ip_address(value)
    # A private address is not personal data (the reference engine leaves reserved ranges alone).
    return address.version == version and address.is_global


def _dob_plausible(value: str) -> bool:
    years = [int(y) for y in re.findall(r"(?<!\d)(19\d\d|20[0-2]\d)(?!\d)", value)]
    return len(years) == 1 and 1900 <= years[0] <= 2024


PEM = r"-----BEGIN [A-Z ]+-----\n[A-Za-z0-9+/=\n]+\n-----END [A-Z ]+-----"

VALIDATORS = {
    "iban": lambda v, lang: checksums.iban_valid(v),
    "card": lambda v, lang: checksums.card_valid(v),
    "nir": lambda v, lang: checksums.nir_valid(v),
    "siren": lambda v, lang: checksums.siren_valid(v),
    "siret": lambda v, lang: checksums.siret_valid(v),
    "vat": lambda v, lang: checksums.fr_vat_valid(v),
    "dni": lambda v, lang: checksums.dni_valid(v),
    "nie": lambda v, lang: checksums.nie_valid(v),
    "nino": lambda v, lang: checksums.nino_valid(v),
    "ssn": lambda v, lang: checksums.ssn_valid(v),
    "phone": _phone_valid,
    "email": lambda v, lang: bool(re.fullmatch(r"[\w.+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[a-z]{2,}", v)),
    "jwt": lambda v, lang: _jwt_valid(v),
    "ipv4": lambda v, lang: _public_ip(v, 4),
    "ipv6": lambda v, lang: _public_ip(v, 6),
    "mac": lambda v, lang: bool(re.fullmatch(r"[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}", v)),
    "private_key": lambda v, lang: bool(re.fullmatch(PEM, v)),
    "apikey": lambda v, lang: bool(re.fullmatch(r"\S{16,}", v)),
    "token": lambda v, lang: bool(re.fullmatch(r"\S{16,}", v)),
    "password": lambda v, lang: bool(re.fullmatch(r"\S{8,}", v)),
    "dob": lambda v, lang: _dob_plausible(v),
}


def test_ids_are_unique_and_name_their_language():
    ids = [record.id for record in RECORDS]
    assert len(ids) == len(set(ids))
    for record in RECORDS:
        assert re.fullmatch(rf"{record.lang}-\d{{3}}", record.id), record.id


def test_the_corpus_meets_the_size_and_language_minimums():
    per_lang = collections.Counter(record.lang for record in RECORDS)
    assert len(RECORDS) >= MINIMUM_TOTAL
    for lang, minimum in MINIMUM_MESSAGES.items():
        assert per_lang[lang] >= minimum, (lang, per_lang[lang])
    assert set(per_lang) == set(MINIMUM_MESSAGES)


def test_enough_messages_carry_no_personal_data_in_every_language():
    without = [record for record in RECORDS if not record.has_pii]
    assert len(without) >= MINIMUM_WITHOUT_PII
    assert {record.lang for record in without} == set(MINIMUM_MESSAGES)


def _label_id(pair: tuple[Record, Label]) -> str:
    record, label = pair
    return f"{record.id}:{label.kind}:{label.value[:24]}"


@pytest.mark.parametrize("record,label", LABELS, ids=[_label_id(pair) for pair in LABELS])
def test_every_label_occurs_in_its_text_with_a_known_kind(record, label):
    assert label.value in record.text
    assert label.value == label.value.strip() and label.value
    assert label.kind in CATEGORY_OF_KIND


STRUCTURED = [(r, lab) for r, lab in LABELS if lab.kind in VALIDATORS]


@pytest.mark.parametrize("record,label", STRUCTURED, ids=[_label_id(pair) for pair in STRUCTURED])
def test_every_structured_value_is_valid(record, label):
    assert VALIDATORS[label.kind](label.value, record.lang), label.value


def test_labels_of_a_message_are_not_repeated():
    for record in RECORDS:
        pairs = [(label.value, label.kind) for label in record.pii]
        assert len(pairs) == len(set(pairs)), record.id


def test_structured_values_are_not_reused_across_messages():
    # Reused values would let an engine's vault or cache hide a miss on the second message.
    seen: dict[str, str] = {}
    for record, label in STRUCTURED:
        if label.kind in ("dob",):
            continue
        key = checksums.compact(label.value).upper()
        assert key not in seen, (label.value, seen.get(key), record.id)
        seen[key] = record.id


@pytest.mark.parametrize("record", [r for r in RECORDS if not r.has_pii], ids=lambda r: r.id)
def test_messages_without_personal_data_hold_no_structured_value(record):
    assert not re.search(r"[\w.+-]+@[\w-]+\.[a-z]{2,}", record.text), "e-mail address"
    for run in re.findall(r"\d[\d -]{11,}\d", record.text):
        digits = checksums.compact(run)
        assert not checksums.card_valid(digits), run
    for candidate in re.findall(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}\b", record.text):
        assert not checksums.iban_valid(candidate), candidate


def test_every_structured_kind_the_targets_name_is_represented():
    kinds = collections.Counter(label.kind for _, label in LABELS)
    for kind in sorted((STRUCTURED_KINDS - COARSE_STRUCTURED_KINDS) | {"person", "org", "address", "dob"}):
        assert kinds[kind] >= 2, kind


HONORIFIC = re.compile(r"(Mr|Mrs|Ms|Dr|Mme|M|Mlle|Me|Maître|Frau|Herr|Sr|Sra|Dott|Sig)\.?\s", re.IGNORECASE)


def test_person_labels_leave_honorifics_out():
    # The label is the smallest value that must go: "Mme [Aubert]", so an engine that keeps the
    # honorific and replaces the name is not blamed, and one that keeps the name is.
    for record, label in LABELS:
        if label.kind == "person":
            assert not HONORIFIC.match(label.value), (record.id, label.value)
