"""Fake phone numbers: same country, same type (mobile stays mobile), same layout, and valid
per the `phonenumbers` metadata whenever the real number was."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from ...patterns import deferred
from ._shape import DIGITS, distinct, redraw_digits

# Regions tried, in order, for a number written without an international prefix.
NATIONAL_REGIONS = ("FR", "BE", "CH", "LU", "DE", "GB", "ES", "IT", "NL", "PT", "AT", "IE", "US", "CA")
_DRAWS_PER_PREFIX = 24
_DIGIT = deferred(r"[0-9]")


@dataclass(frozen=True)
class _Plan:
    """What a fake must keep: the digits before the national number, the region and the type."""

    lead: str
    national: str
    region: str
    number_type: int


def _phonenumbers() -> Any:
    # Imported on first use so importing the fakes stays cheap.
    import phonenumbers

    return phonenumbers


def _parse_valid(text: str, region: str | None) -> Any | None:
    pn = _phonenumbers()
    try:
        number = pn.parse(text, region)
    except pn.NumberParseException:
        return None
    return number if pn.is_valid_number(number) else None


def _plan(real: str, digits: str) -> _Plan | None:
    pn = _phonenumbers()
    stripped = real.strip()
    if stripped.startswith("+"):
        candidates: list[tuple[str, str | None]] = [(stripped, None)]
    elif digits.startswith("00"):
        candidates = [("+" + digits[2:], None)]
    else:
        candidates = [(stripped, region) for region in NATIONAL_REGIONS]
    for text, region in candidates:
        number = _parse_valid(text, region)
        if number is None:
            continue
        national = pn.national_significant_number(number)
        if not digits.endswith(national):
            continue
        return _Plan(digits[: len(digits) - len(national)], national,
                     pn.region_code_for_number(number), pn.number_type(number))
    return None


def _same_kind(candidate: str, plan: _Plan) -> bool:
    pn = _phonenumbers()
    number = _parse_valid(f"+{pn.country_code_for_region(plan.region)}{candidate}", None)
    if number is None or pn.region_code_for_number(number) != plan.region:
        return False
    kind = pn.number_type(number)
    kinds = pn.PhoneNumberType
    either = {kinds.FIXED_LINE, kinds.MOBILE, kinds.FIXED_LINE_OR_MOBILE}
    if plan.number_type == pn.PhoneNumberType.FIXED_LINE_OR_MOBILE:
        return bool(kind in either)
    return bool(kind == plan.number_type or (kind == pn.PhoneNumberType.FIXED_LINE_OR_MOBILE
                                             and plan.number_type in either))


def _valid_national(plan: _Plan, rng: random.Random) -> str | None:
    """A different valid national number of the same region and type: keep the first digit
    (the type: 6/7 mobile, 1-5 geographic in France), and only if no draw validates keep more."""
    national = plan.national
    for keep in range(1, len(national)):
        for _ in range(_DRAWS_PER_PREFIX):
            candidate = national[:keep] + "".join(rng.choice(DIGITS) for _ in national[keep:])
            if candidate != national and _same_kind(candidate, plan):
                return candidate
    return None


def _lay_out(real: str, digits: str) -> str:
    it = iter(digits)
    return _DIGIT.sub(lambda _: next(it), real)


def _swap_subscriber(real: str, digits: str, rng: random.Random) -> str:
    """For a number no metadata validates: keep the country code or the 0X class, swap the rest."""
    if real.strip().startswith("+"):
        keep = 3
    elif digits.startswith("00"):
        keep = 5 if digits.startswith("0033") else 4
    else:
        keep = 2
    keep = min(keep, max(len(digits) - 2, 0))
    return _lay_out(real, digits[:keep] + redraw_digits(digits[keep:], rng))


def fake_phone(real: str, rng: random.Random) -> str:
    """Same country code or national prefix, same first national digit (type), same separators,
    subscriber digits redrawn until the number is valid again; always different."""
    digits = "".join(_DIGIT.findall(real))
    plan = _plan(real, digits) if len(digits) >= 6 else None
    if plan is not None:
        national = _valid_national(plan, rng)
        if national is not None:
            return _lay_out(real, plan.lead + national)
    return distinct(real, rng, lambda r: _swap_subscriber(real, digits, r))


def dialled_forms(value: str) -> dict[str, str]:
    """The digit strings one number is written as, separators dropped, by name: "given" (as written,
    with its "+"), and for a number the metadata validates "e164" ("+33686013620"), "intl00"
    ("0033686013620"), "intl0" ("+330686013620", from "+33 (0)6 86 01 36 20") and "national"
    ("0686013620"). What restore matches a fake phone by, whatever layout the model gave it, and
    the same form of the real number that replaces it."""
    digits = "".join(_DIGIT.findall(value))
    forms = {"given": ("+" if value.strip().startswith("+") else "") + digits}
    plan = _plan(value, digits) if len(digits) >= 6 else None
    if plan is None:
        return forms
    pn = _phonenumbers()
    code = str(pn.country_code_for_region(plan.region))
    national = plan.national
    prefix = pn.PhoneMetadata.metadata_for_region(plan.region).national_prefix or ""
    forms.update({"e164": f"+{code}{national}", "intl00": f"00{code}{national}", "national": prefix + national})
    if prefix:
        forms["intl0"] = f"+{code}{prefix}{national}"
    return forms
