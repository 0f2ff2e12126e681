"""Contact details: e-mail addresses (plain and obfuscated "x [at] y [dot] com") and phone
numbers (international, and national for FR, GB, US, DE, ES, IT, BE, CH), libphonenumber-valid."""

from __future__ import annotations

import itertools
import re

import phonenumbers

from ...patterns import deferred
from ..checksums import card_valid, nir_valid, siret_valid
from ._base import Hit, glued, is_word_char, keyword_before, lowered, near_long_numbers, windowed_matches
from .labelled import phone_label_before

# --- e-mail ---------------------------------------------------------------------------------

# Found from each "@": the local part is read backwards (at most 64 characters, a longer run is
# no address), the domain forwards; a hostile "a@a@a@..." costs a few steps per "@".
_LOCAL_PUNCT = ".%+-_"
_EMAIL_DOMAIN = deferred(r"(?:[^\W_](?:[\w-]{0,62}[^\W_])?\.){1,8}[A-Za-z]{2,24}(?![\w-])")
# Obfuscated addresses: "jean [at] example [dot] com", "marco[at]libero[dot]it", "p . lambert @
# orange . fr", "tom dot harris at gmail dot com", "luis [arroba] telefonica [punto] es".
_AT_WORDS = r"at|@|arobase|arroba|chiocciola|chez|ät|klammeraffe"
_DOT_WORDS = r"dot|point|punto|punkt|\."
_SPELLED_AT = r"at|arroba|chiocciola|arobase"
_SPELLED_DOT = r"dot|point|punto|punkt"
_OBF_AT = (
    rf"(?:[ ]{{0,3}}[\[({{<][ ]{{0,2}}(?i:{_AT_WORDS})[ ]{{0,2}}[\])}}>][ ]{{0,3}}"
    rf"|[ ](?:{_SPELLED_AT}|AT)[ ]|[ ]{{1,3}}@[ ]{{0,3}}|@[ ]{{1,3}})"
)
_OBF_DOT = (
    rf"(?:[ ]{{0,3}}[\[({{<][ ]{{0,2}}(?i:{_DOT_WORDS})[ ]{{0,2}}[\])}}>][ ]{{0,3}}"
    rf"|[ ](?:{_SPELLED_DOT}|DOT)[ ]|[ ]{{1,3}}\.[ ]{{0,3}}|\.[ ]{{1,3}}|\.)"
)
_LOCAL_WORD = r"[^\W_][\w%+-]{0,63}"
_EMAIL_OBFUSCATED = deferred(
    rf"(?<![\w.%+-]){_LOCAL_WORD}(?:{_OBF_DOT}{_LOCAL_WORD}){{0,5}}{_OBF_AT}"
    rf"(?:[^\W_][\w-]{{0,62}}{_OBF_DOT}){{1,6}}[A-Za-z]{{2,24}}(?![\w-])"
)
# Searched in the lower-cased text.
_OBFUSCATION_PROBE = deferred(
    r"[\[({<] {0,2}(?:at|@|arobase|arroba|chiocciola|chez|ät|klammeraffe) {0,2}[\])}>]"
    r"| (?:at|arroba|chiocciola|arobase) \S{1,64} (?:dot|point|punto|punkt) | @|@ "
)
_BRACKETED = deferred(r"[\[({<]|[ ]@|@[ ]")
_SPELLED_LOCAL_SEPARATOR = deferred(r"(?i)[ ](?:dot|point|punto|punkt)[ ]|[.\d_-]")
# Mailbox providers' labels: "tom at gmail dot com" is an address even with a one-word name.
_MAILBOX_LABELS = frozenset({
    "gmail", "googlemail", "yahoo", "hotmail", "outlook", "live", "msn", "aol", "icloud", "orange", "wanadoo",
    "free", "sfr", "laposte", "gmx", "web", "posteo", "proton", "protonmail", "libero", "virgilio", "tiscali",
    "alice", "telefonica", "terra", "btinternet", "yandex", "zoho", "fastmail",
})
_EMAIL_WORDS = deferred(r"(?i)(?:e-?mail|courriel|mail|adresse|address|correo|posta|contact|écri[st]|write)")
_PERCENT_AT = "%40"
_SPELLED_AT_SPLIT = deferred(rf"[ ](?:{_SPELLED_AT}|AT)[ ]")
# Spelled-out "name at host dot com" reads like prose, so it needs a top-level domain people use.
_COMMON_TLDS = frozenset({
    "com", "org", "net", "fr", "de", "uk", "es", "it", "be", "ch", "eu", "io", "co", "info", "biz",
    "me", "nl", "pt", "ca", "us", "at", "lu", "ie", "pl", "se", "dk", "no", "fi",
})


def find_emails(text: str) -> list[Hit]:
    """Plain addresses (score 1.0) and "[at]"/"(dot)"-obfuscated ones (score 0.9)."""
    hits: list[Hit] = []
    at = text.find("@")
    while at != -1:
        start = _local_part_start(text, at)
        if start is not None and not _in_url_credentials(text, start):
            m = _EMAIL_DOMAIN.match(text, at + 1)
            if m is not None:
                hits.append(Hit(start, m.end(), "email", 1.0))
        at = text.find("@", at + 1)
    hits.extend(_obfuscated_emails(text))
    return hits


def _in_url_credentials(text: str, start: int) -> bool:
    """"postgres://app:secret@db.host": the "@" ends a URL's user:password, not an address."""
    return start > 0 and text[start - 1] == ":" and "://" in text[max(0, start - 90) : start]


def _is_local_char(ch: str) -> bool:
    return ch.isalnum() or ch in _LOCAL_PUNCT


def _local_part_start(text: str, at: int) -> int | None:
    """Start of the local part ending at `at`, without leading dots; None if empty or too long."""
    start, limit = at, max(0, at - 64)
    while start > limit and _is_local_char(text[start - 1]):
        start -= 1
    if start == limit and start > 0 and _is_local_char(text[start - 1]):
        return None
    while start < at and text[start] == ".":
        start += 1
    return start if start < at else None


def _obfuscated_emails(text: str) -> list[Hit]:
    hits = _percent_encoded_emails(text) if _PERCENT_AT in text else []
    anchors = [(m.start(), m.end()) for m in _OBFUSCATION_PROBE.finditer(lowered(text))]
    if not anchors:
        return hits
    found = [_obfuscated_email_from(text, m) for m in windowed_matches(text, _EMAIL_OBFUSCATED, anchors, 120, 240)]
    return hits + [Hit(m.start(), m.end(), "email", 0.9) for m in found if m is not None]


def _obfuscated_email_from(text: str, m: re.Match[str] | None) -> re.Match[str] | None:
    """The match if it is an address, else the first address that starts inside it: in "me at
    tom.hadley[at]host[dot]uk" the spelled "at" of prose comes first and is no address."""
    tries = 0
    while m is not None and tries < _OBFUSCATED_RETRIES:
        if _is_obfuscated_email(text, m.start(), m.group(0)) and not glued(text, m.start(), m.end()):
            return m
        m = _EMAIL_OBFUSCATED.search(text, m.start() + 1, min(len(text), m.end() + 240))
        tries += 1
    return None


_OBFUSCATED_RETRIES = 3


def _is_obfuscated_email(text: str, start: int, value: str) -> bool:
    """An obfuscated address, not a plain one (found from its "@") nor prose: a spelled-out
    "x at y dot com" needs a top-level domain people use, and a name with a separator
    ("tom dot harris", "jdoe42"), a mailbox provider ("at gmail dot com") or an e-mail word
    before it ("meet at the station", "look at example dot com" are prose)."""
    if value.startswith(".") or ("@" in value and not _BRACKETED.search(value)):
        return False
    if _BRACKETED.search(value):
        return True
    tld = re.split(r"[ .\])}>]", value)[-1].lower()
    if tld not in _COMMON_TLDS:
        return False
    parts = _SPELLED_AT_SPLIT.split(value, maxsplit=1)
    local, domain = parts[0], parts[-1]
    domain_words = re.split(r"[ .]+", domain.lower())
    return (
        _SPELLED_LOCAL_SEPARATOR.search(local) is not None
        or (domain_words[0] in _MAILBOX_LABELS)
        or keyword_before(_EMAIL_WORDS, text, start, 30)
    )


def _percent_encoded_emails(text: str) -> list[Hit]:
    """"email=marie.dupont%40orange.fr" in a URL or query string."""
    hits: list[Hit] = []
    at = text.find(_PERCENT_AT)
    while at != -1:
        start = at
        while start > max(0, at - 64) and (text[start - 1].isalnum() or text[start - 1] in ".+-_"):
            start -= 1
        m = _EMAIL_DOMAIN.match(text, at + 3) if start < at and text[start] != "." else None
        if m is not None:
            hits.append(Hit(start, m.end(), "email", 0.9))
        at = text.find(_PERCENT_AT, at + 3)
    return hits


# --- phone numbers ---------------------------------------------------------------------------

# A run of digits with phone separators; it must start a number (not continue "12.5" or the
# digits of "FR76 3000 ...") and end on a digit not glued to a letter.
_PHONE_RUN = deferred(r"\d[\d ().\-/]{5,40}\d")
_GROUP = deferred(r"\d+")
_TRUNK_REGIONS = ("FR", "GB", "DE", "BE", "CH", "IT")
# Digits of a national number written with its trunk "0" (Italy keeps the 0 as part of it).
_TRUNK_LENGTHS = {"FR": (10, 10), "GB": (10, 11), "DE": (6, 14), "BE": (9, 10), "CH": (10, 10), "IT": (6, 11)}
_MIN_DIGITS, _MAX_DIGITS = 8, 15
_DATE_LIKE = deferred(
    r"\d{1,2}([./-])\d{1,2}\1\d{2,4}|\d{4}([./-])\d{1,2}\2\d{1,2}|(?:19|20)\d\d ?[-/] ?(?:19|20)\d\d"
)
_PHONE_WORDS = deferred(
    r"(?i)(?:t[ée]l|phone|mobile|portable|cell|fax|m[óo]vil|tel[ée]fono|tlf|gsm|handy|whats ?app|"
    r"call|ring|text|appel|ll[aá]m|chiam|rufnummer|ruf|erreich|numéro|número|numero|nummer|number|n[°º]|"
    r"contact|kontakt|contatto|fijo|fisso|festnetz|fixe|bizum|cel)"
)
_ID_WORDS = deferred(r"(?i)(?:siren|siret|rcs|tva|vat|iban|rib|compte|account|commande|order|facture|invoice)")
_CURRENCY_NEAR = deferred(r"^ ?(?:€|\$|£|eur\b|euros?\b|usd\b|chf\b|gbp\b|dollars?\b|k€|m€)", re.IGNORECASE)
_IBAN_HEAD = deferred(r"[A-Z]{2}\d{2}[ ]$")
# Shapes a number without trunk prefix takes when written as a phone number.
_US_SHAPE = deferred(r"(?:\+?1[ .-]?)?(?:\(\d{3}\) ?|\d{3}[ .-])\d{3}[ .-]\d{4}")
_IT_MOBILE_SHAPE = deferred(r"3\d{2}[ .-]?\d{3}[ .-]?\d{3,4}|3\d{2}[ .-]\d{6,7}")
# Indian mobiles, written in two groups of five ("98401 22736").
_IN_MOBILE_SHAPE = deferred(r"[6-9]\d{4}[ -]\d{5}")
# Unprompted Spanish numbers: mobiles (6..) and landlines (9..); 7.. and 8.. need a phone word.
# Landlines of two-digit provinces (Madrid 91, Barcelona 93) are written "91 730 22 84".
_ES_SHAPE = deferred(r"[69]\d{2}(?:[ .-]\d{2}){3}|[69]\d{2}(?:[ .-]\d{3}){2}|9[1-8][ .-]\d{3}(?:[ .-]\d{2}){2}")
# "06 12 34 56" is written the French way (pairs): only regions that write numbers so apply,
# so a truncated French number is not read as a valid German one.
_PAIRS = deferred(r"\d\d(?:[ .-]\d\d)+")
_PAIR_REGIONS = ("FR", "BE", "CH")
# Shapes unambiguous enough to be phones without a label even when libphonenumber does not know
# their range (new French mobile ranges, unassigned US area codes...): written the way each
# country writes its numbers, with its trunk or country prefix, ten digits or more. A compact
# run ("0639123456") or three groups of three ("612 345 678", an amount's layout) still needs
# the library or a label.
_SHAPE_ONLY = deferred(
    r"0[1-9](?P<fr>[ .-])\d\d(?:(?P=fr)\d\d){3}"  # FR: 06 39 12 34 56
    r"|\+33[ .-]?(?:\(0\)[ ]?)?[1-9](?:[ .-]?\d\d){4}"  # +33 6 39 12 34 56
    r"|(?:\+?1[ .-]?)?\([2-9]\d\d\)[ ]?[2-9]\d\d[-. ]\d{4}"  # US: (283) 555-0147
    r"|(?:1-)?[2-9]\d\d-[2-9]\d\d-\d{4}|[2-9]\d\d\.[2-9]\d\d\.\d{4}"  # 283-555-0147
    r"|\+1[ .-]?[2-9]\d\d[ .-]?[2-9]\d\d[ .-]?\d{4}"
    r"|07\d{3} \d{6}|07\d{3} \d{3} \d{3}|\+44[ ]?(?:\(0\)[ ]?)?7\d{3}[ ]?\d{3}[ ]?\d{3}"  # UK mobiles
    r"|01[5-7]\d{1,2}[ /-]\d{3,4}[ -]?\d{3,4}"  # DE mobiles: 0151 2345678, 0176/123 4567
    r"|\+49[ ]?(?:\(0\)[ ]?)?1[5-7]\d{1,2}[ /-]?\d{3,4}[ -]?\d{3,4}"
    r"|[67]\d{2}(?:[ .-]\d{2}){3}|\+34[ ]?[67]\d{2}(?:[ .-]?\d{2}){3}|\+34[ ]?[67]\d{2}(?:[ .-]?\d{3}){2}"  # ES
    r"|3\d{2}[ .-]\d{3}[ .-]?\d{4}|3\d{2}[ .-]\d{7}|\+39[ ]?3\d{2}[ .-]?\d{3}[ .-]?\d{3,4}"  # IT mobiles
)
_SHAPE_SCORE = 0.7
_LABELLED_SCORE = 0.8
# A number in a phone's layout that the library rejects (a digit missing, a range it does not know, a country
# whose plan it lacks) is still the user's phone after a phone word, or when it opens with a country code.
_CONTEXT_SCORE = 0.75
_LAID_OUT_GROUPS = 3
_INTERNATIONAL_MIN_DIGITS = 10  # "+12 345 678 points" is a score
_INTERNATIONAL_HEAD = deferred(r"(?:\+ ?|00)(\d{1,3})[ .\-/(]")


def find_phones(text: str) -> list[Hit]:
    """Phone numbers libphonenumber accepts as valid (not merely possible)."""
    hits: list[Hit] = []
    memo: dict[tuple[str, bool], float] = {}
    for m in near_long_numbers(text, _PHONE_RUN, _MIN_DIGITS, 4):
        start = _run_start(text, m.start())
        if start is not None and not (m.end() < len(text) and is_word_char(text[m.end()])):
            hits.extend(_phones_in_run(text, start, m.end(), memo))
    return hits


def _run_start(text: str, first_digit: int) -> int | None:
    """Where a run starts once "(", "+" or "+ " before its first digit are included; None when
    the run continues something ("FR76 3000", "12.5", "ab12", "x@1234...")."""
    start = first_digit
    if start > 0 and text[start - 1] == "(":
        start -= 1
    if start > 0 and text[start - 1] == "+":
        start -= 1
    elif start > 1 and text[start - 2 : start] == "+ ":
        start -= 2
    if start == 0:
        return start
    before = text[start - 1]
    if is_word_char(before) or before in "+@":
        return None
    if start > 1 and text[start - 2].isdigit() and before in ".,/:- ":
        return None
    return start


def _phones_in_run(text: str, start: int, end: int, memo: dict[tuple[str, bool], float]) -> list[Hit]:
    """The valid numbers of one run: the whole run, else its longest valid group sequences."""
    groups = [(g.start(), g.end()) for g in _GROUP.finditer(text, start, end)]
    if sum(b - a for a, b in groups) < _MIN_DIGITS or _is_not_a_phone_run(text, start, end):
        return []
    hits: list[Hit] = []
    i, budget = 0, 40
    while i < len(groups) and budget > 0:
        found: tuple[int, Hit] | None = None
        if i == 0 or hits or _wide_gap(text, groups[i - 1][1], groups[i][0]):
            for j in range(len(groups), i, -1):
                digits = sum(b - a for a, b in groups[i:j])
                if digits < _MIN_DIGITS:
                    break
                if digits > _MAX_DIGITS or not _plausible_grouping(text, groups[i:j], j == len(groups)):
                    continue
                budget -= 1
                s, e = _number_start(text, start, groups[i], j - i > 1), groups[j - 1][1]
                score = _phone_score(text, s, e, memo)
                if score:
                    found = (j, Hit(s, e, "phone", score))
                    break
        if found is None:
            i += 1
        else:
            hits.append(found[1])
            i = found[0]
    return hits


def _plausible_grouping(text: str, groups: list[tuple[int, int]], ends_run: bool) -> bool:
    """A number ends at a space or bracket, on a group of two digits or more, and has no wide
    gap inside ("06 12 34 56 78 / 01 23" holds two numbers, "06 12 34 56 78 9" one and a digit)."""
    if not ends_run and text[groups[-1][1]] not in " )":
        return False
    if groups[-1][1] - groups[-1][0] < 2:
        return False
    return not any(_wide_gap(text, a[1], b[0]) for a, b in itertools.pairwise(groups))


def _wide_gap(text: str, start: int, end: int) -> bool:
    """Two numbers in one run are set apart by " / ", " - " or several spaces, not by one space
    (dropping leading groups at a single space would find numbers inside NIRs and the like). An
    area code and its number are set apart so too in German-speaking countries ("0209 / 41 77 302")."""
    gap = text[start:end].replace("(", "")
    if gap.strip() == "/" and _AREA_CODE.fullmatch(text, _group_start(text, start), start):
        return _SUBSCRIBER.match(text, end) is None
    return len(gap) >= 2 and (gap.strip() in ("/", "-", "") or gap.count(" ") >= 2)


# A trunk "0" and two to five digits: an area code ("0209", "089", "0316").
_AREA_CODE = deferred(r"0[1-9]\d{1,4}")
# The subscriber's number after it: five digits or more, in groups ("41 77 302", "52.31.09", "4 55 12 78").
_SUBSCRIBER = deferred(r"\d{5,}|\d+(?:[ .-]\d{2,}){1,3}")


def _group_start(text: str, end: int) -> int:
    start = end
    while start > 0 and text[start - 1].isdigit():
        start -= 1
    return start


def _number_start(text: str, run_start: int, first_group: tuple[int, int], more_groups: bool) -> int:
    """Include the "+" and the "(" written before the first digits; a "(" only when its ")"
    closes the first group of several ("(202) 555-0143"), not a parenthesis around prose."""
    s, group_end = first_group
    if s > run_start and text[s - 1] == "(" and more_groups and text[group_end : group_end + 1] == ")":
        s -= 1
    if s > run_start and text[s - 1] == "+":
        s -= 1
    elif s - 1 > run_start and text[s - 2 : s] == "+ ":
        s -= 2
    return s


def _is_not_a_phone_run(text: str, start: int, end: int) -> bool:
    """Dates, amounts, IBAN continuations, cards and SIRETs are digit runs that are no phone."""
    run = text[start:end]
    if _DATE_LIKE.fullmatch(run):
        return True
    if _IBAN_HEAD.search(text, max(0, start - 5), start):
        return True
    if _CURRENCY_NEAR.match(text[end : end + 8]) or text[max(0, start - 2) : start].strip() in ("€", "$", "£"):
        return True
    digits = "".join(ch for ch in run if ch.isdigit())
    if len(digits) == 15 and nir_valid(digits):
        return True
    return (13 <= len(digits) <= 19 and card_valid(digits)) or (len(digits) == 14 and siret_valid(digits))


def _phone_score(text: str, start: int, end: int, memo: dict[tuple[str, bool], float]) -> float:
    """1.0 international, 0.9 national with trunk prefix, 0.8/0.7 national without one (US,
    ES, Italian mobiles) when a phone word precedes it or it is written in a phone shape."""
    candidate = text[start:end]
    if glued(text, start, end) or _DATE_LIKE.fullmatch(candidate):
        return 0.0
    without_trunk = candidate[0] not in "+0" and not candidate.startswith("(0")
    keyword = without_trunk and keyword_before(_PHONE_WORDS, text, start, 40)
    score = _memo_score(candidate, keyword, memo)
    if score < _LABELLED_SCORE and phone_label_before(text, start):
        # Right after "tél", "Handy", "móvil"...: any phone-shaped run of digits is the phone.
        return _LABELLED_SCORE
    if not score and _laid_out_as_a_phone(candidate) and (
            _has_country_code(candidate) or keyword_before(_PHONE_WORDS, text, start, 40)):
        score = _CONTEXT_SCORE
    if score and score < 0.9 and keyword_before(_ID_WORDS, text, start, 30):
        return 0.0
    return score


def _laid_out_as_a_phone(candidate: str) -> bool:
    """Grouped the way people write phones: three groups or more ("6 12 34 56 78", "+58 412-555-123"), or
    an area code set apart by a slash or dots ("0478/52.31.09")."""
    groups = _GROUP.findall(candidate)
    return len(groups) >= _LAID_OUT_GROUPS or (len(groups) >= 2 and any(sep in candidate for sep in "/."))


def _has_country_code(candidate: str) -> bool:
    """Opens with "+" or "00" and a calling code the numbering plan knows, ten digits or more ("+52 1 81...",
    "0040 723...")."""
    head = _INTERNATIONAL_HEAD.match(candidate)
    if head is None or sum(ch.isdigit() for ch in candidate) < _INTERNATIONAL_MIN_DIGITS:
        return False
    code = head.group(1)
    return any(phonenumbers.region_code_for_country_code(int(code[:n])) != "ZZ" for n in range(1, len(code) + 1))


def _memo_score(candidate: str, keyword: bool, memo: dict[tuple[str, bool], float]) -> float:
    key = (candidate, keyword)
    if key not in memo:
        memo[key] = _score_candidate(candidate, keyword)
    return memo[key]


def _score_candidate(candidate: str, keyword: bool) -> float:
    score = _library_score(candidate, keyword)
    if not score and _SHAPE_ONLY.fullmatch(candidate):
        return _SHAPE_SCORE
    return score


def _library_score(candidate: str, keyword: bool) -> float:
    digits = "".join(ch for ch in candidate if ch.isdigit())
    if candidate.startswith("+"):
        return 1.0 if _valid_international(candidate) else 0.0
    if digits.startswith("00"):
        return 1.0 if _valid_international("+" + candidate.lstrip("0 ")) else 0.0
    if digits.startswith("0"):
        regions = _trunk_regions(len(digits))
        if _PAIRS.fullmatch(candidate):
            regions = [region for region in regions if region in _PAIR_REGIONS]
        return 0.9 if any(_valid_national(digits, region) for region in regions) else 0.0
    if "/" in candidate:
        return 0.0
    return _score_without_trunk(candidate, digits, keyword)


def _trunk_regions(length: int) -> list[str]:
    """Regions whose numbers, trunk "0" included, can have this many digits."""
    return [region for region in _TRUNK_REGIONS if _TRUNK_LENGTHS[region][0] <= length <= _TRUNK_LENGTHS[region][1]]


def _score_without_trunk(candidate: str, digits: str, keyword: bool) -> float:
    checks = (
        ("US", len(digits) == 10 or (len(digits) == 11 and digits[0] == "1"), _US_SHAPE),
        ("IT", digits[0] == "3" and len(digits) in (9, 10), _IT_MOBILE_SHAPE),
        ("ES", digits[0] in "6789" and len(digits) == 9, _ES_SHAPE),
        ("IN", digits[0] in "6789" and len(digits) == 10, _IN_MOBILE_SHAPE),
    )
    for region, plausible, shape in checks:
        if not plausible:
            continue
        shaped = shape.fullmatch(candidate) is not None
        if (keyword or shaped) and _valid_national(digits[-10:] if region == "US" else digits, region):
            return 0.8 if keyword else 0.7
    return 0.0


def _valid_international(candidate: str) -> bool:
    try:
        number = phonenumbers.parse(candidate, None)
    except phonenumbers.NumberParseException:
        return False
    return bool(phonenumbers.is_valid_number(number))


def _valid_national(digits: str, region: str) -> bool:
    """Validity of national digits, building the number directly (parsing costs 3x more).
    Italy keeps its leading zero in the national number; the others drop the trunk "0"."""
    code = phonenumbers.country_code_for_region(region)
    if region == "IT":
        zeros = len(digits) - len(digits.lstrip("0"))
        number = phonenumbers.PhoneNumber(
            country_code=code, national_number=int(digits), italian_leading_zero=zeros > 0,
            number_of_leading_zeros=zeros if zeros > 1 else None,
        )
    else:
        national = digits[1:] if digits.startswith("0") else digits
        if not national or national.startswith("0"):
            return False
        number = phonenumbers.PhoneNumber(country_code=code, national_number=int(national))
    return bool(phonenumbers.is_valid_number(number))


# Phones written in a way no run of groups reads: a digit at a time ("0 6 7 4 2 1 9 8 5 3", read out or typed
# from a form's boxes), or a trunk "(0)" after the country code ("+49 (0)171 / 552 83 09").
_SPACED_DIGITS = deferred(r"(?<![\w+.,/-])(?:\+ ?)?\d(?: \d){8,13}(?![\w]| \d)")
_TRUNK_IN_BRACKETS = deferred(r"(?<![\w+])\+\d{1,3} ?\(0\) ?\d{2,5}(?: ?[/.-]? ?\d{2,8}){1,4}(?![\w]|[ /.-]\d)")


def find_unusual_phones(text: str) -> list[Hit]:
    """Phones of the two writings above, scored on their digits as find_phones scores a run."""
    hits: list[Hit] = []
    for m in _SPACED_DIGITS.finditer(text):
        compact = m.group().replace(" ", "")
        keyword = keyword_before(_PHONE_WORDS, text, m.start(), 40) or phone_label_before(text, m.start())
        score = _library_score(compact, keyword)
        if score:
            hits.append(Hit(m.start(), m.end(), "phone", score))
    for m in _TRUNK_IN_BRACKETS.finditer(text):
        international = "+" + "".join(ch for ch in m.group().replace("(0)", "") if ch.isdigit())
        if _valid_international(international):
            hits.append(Hit(m.start(), m.end(), "phone", 1.0))
    return hits


# After a phone word, a number typed in pieces ("bizum al 6 9 9 - 87 65 43", "call 0 7700 - 900 - 123"): its
# parts are set apart the way two numbers would be, so the runs above split it, yet it is the one number asked for.
# Each piece is set apart by a separator it cannot share with a digit, so a run of digits splits one way only.
_PIECES = deferred(
    r"(?<![\w+.,/-])(?:\+ ?)?\d+(?:(?:[ ]{1,2}[-–/.]?[ ]{0,2}|[-–/.][ ]{0,2})\d+){2,12}(?![\w]|[ .-]\d)"
)
_PIECES_DIGITS = (9, 15)
_YEAR = deferred(r"(?:19|20)\d\d")


def _phones_in_pieces(text: str, found: list[Hit]) -> list[Hit]:
    """Numbers in pieces after a phone word, where no phone was found already."""
    hits: list[Hit] = []
    for m in _PIECES.finditer(text):
        digits = sum(ch.isdigit() for ch in m.group())
        if not _PIECES_DIGITS[0] <= digits <= _PIECES_DIGITS[1] or _DATE_LIKE.fullmatch(m.group()):
            continue
        if all(_YEAR.fullmatch(group) for group in _GROUP.findall(m.group())):
            continue  # "between 2019 - 2020 - 2021"
        if any(h.start < m.end() and m.start() < h.end for h in found):
            continue
        if not (keyword_before(_PHONE_WORDS, text, m.start(), 40) or phone_label_before(text, m.start())):
            continue
        if keyword_before(_ID_WORDS, text, m.start(), 30) or _is_not_a_phone_run(text, m.start(), m.end()):
            continue
        hits.append(Hit(m.start(), m.end(), "phone", _CONTEXT_SCORE))
    return hits


def find_contact(text: str) -> list[Hit]:
    phones = find_phones(text) + find_unusual_phones(text)
    return find_emails(text) + phones + _phones_in_pieces(text, phones)
