"""Credentials: PEM/OpenSSH private keys, JWTs, vendor-prefixed API keys, passwords after their
label, values of secret-named assignments, and long high-entropy tokens."""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter

from ...patterns import deferred
from ..checksums import iban_valid
from ._base import Hit, lowered, starts_token, strip_trailing

# --- private keys -------------------------------------------------------------------------------

_PEM_BEGIN = deferred(r"-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = deferred(r"-----END (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----")
# A truncated paste has no END line: the key then runs over its header and base64 lines.
_PEM_BODY = deferred(r"(?:\r?\n[ \t]{0,8}(?:[A-Za-z0-9+/=]{8,200}|[A-Za-z-]{1,40}: [^\r\n]{0,200}))+")
_PEM_MAX = 64 * 1024  # the largest key blocks (RSA 16384, PGP with subkeys) stay well below


def find_private_keys(text: str) -> list[Hit]:
    """Whole PEM private-key blocks, BEGIN to END line (score 1.0)."""
    if "-----BEGIN" not in text:
        return []
    hits: list[Hit] = []
    next_end = -2  # -2: not searched yet; -1: no END line after this point
    pos = 0
    while True:
        begin = _PEM_BEGIN.search(text, pos)
        if begin is None:
            return hits
        if next_end == -2 or (next_end != -1 and next_end < begin.end()):
            found = _PEM_END.search(text, begin.end())
            next_end = found.start() if found else -1
        if next_end != -1 and next_end - begin.end() <= _PEM_MAX and "-----BEGIN" not in text[begin.end():next_end]:
            end_line = _PEM_END.match(text, next_end)
            end = end_line.end() if end_line else next_end
        else:
            body = _PEM_BODY.match(text, begin.end())
            end = body.end() if body else begin.end()
        if end > begin.end():  # a header alone holds no secret
            hits.append(Hit(begin.start(), end, "private_key", 1.0))
        pos = end


# --- JWT ------------------------------------------------------------------------------------------

_JWT = deferred(r"eyJ(?<![\w-]eyJ)[A-Za-z0-9_-]{5,4096}\.[A-Za-z0-9_-]{2,16384}\.[A-Za-z0-9_-]{0,4096}(?![\w-])")


def find_jwts(text: str) -> list[Hit]:
    """JSON Web Tokens: a base64url JSON header with "alg"/"typ", payload and signature (1.0)."""
    if "eyJ" not in text:
        return []
    return [Hit(m.start(), m.end(), "jwt", 1.0) for m in _JWT.finditer(text) if _jwt_header_ok(m.group(0))]


def _jwt_header_ok(token: str) -> bool:
    header = token.split(".", 1)[0]
    try:
        decoded = base64.urlsafe_b64decode(header + "=" * (-len(header) % 4))
    except (binascii.Error, ValueError):
        return False
    return decoded.startswith(b"{") and (b'"alg"' in decoded or b'"typ"' in decoded)


# --- vendor-prefixed API keys ---------------------------------------------------------------------

_E = r"(?![\w-])"
# Every alternative starts with a literal, so the scan jumps between candidate first letters;
# that the key starts a token is checked afterwards.
_VENDOR_KEYS = [
    r"sk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,300}",  # Anthropic
    r"sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,300}",  # OpenAI (checked for a digit below)
    r"gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255}",  # GitHub
    r"gl(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_-]{20,100}",  # GitLab
    r"xox[abprse]-[A-Za-z0-9-]{10,250}|xapp-\d-[A-Za-z0-9-]{10,250}",  # Slack
    r"sk_(?:live|test)_[A-Za-z0-9]{10,250}|pk_(?:live|test)_[A-Za-z0-9]{10,250}",  # Stripe
    r"rk_(?:live|test)_[A-Za-z0-9]{10,250}|whsec_[A-Za-z0-9]{20,100}",
    r"AKIA[A-Z0-9]{16}|ASIA[A-Z0-9]{16}|ABIA[A-Z0-9]{16}|ACCA[A-Z0-9]{16}",  # AWS access key id
    r"AIza[A-Za-z0-9_-]{35}|ya29\.[A-Za-z0-9_-]{20,500}|GOCSPX-[A-Za-z0-9_-]{20,40}",  # Google
    r"hf_[A-Za-z0-9]{30,60}|api_org_[A-Za-z0-9]{30,60}",  # Hugging Face
    r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,64}",  # SendGrid
    r"SK[0-9a-f]{32}|AC[0-9a-f]{32}",  # Twilio API key and account SID
    r"npm_[A-Za-z0-9]{36}",  # npm
    r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,300}",  # PyPI
    r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",  # Shopify
    r"do[por]_v1_[a-f0-9]{64}",  # DigitalOcean
    r"gsk_[A-Za-z0-9]{40,60}|r8_[A-Za-z0-9]{30,45}|pplx-[A-Za-z0-9]{40,60}|xai-[A-Za-z0-9]{40,100}",
    r"lin_api_[A-Za-z0-9]{30,50}|ntn_[A-Za-z0-9]{30,60}|secret_[A-Za-z0-9]{40,50}",  # Linear, Notion
    r"dapi[a-f0-9]{32}(?:-\d)?|key-[0-9a-f]{32}",  # Databricks, Mailgun
    r"sq0(?:atp|csp)-[A-Za-z0-9_-]{22,60}|EAAA[A-Za-z0-9_-]{60,80}",  # Square
    r"ATATT3[A-Za-z0-9_=-]{100,300}|dp\.pt\.[A-Za-z0-9]{40,50}",  # Atlassian, Doppler
    r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}",
]
_APIKEY = deferred("(?:" + "|".join(_VENDOR_KEYS) + ")" + _E)
# Keys that start with digits are anchored on their fixed middle instead.
_TELEGRAM_BOT = deferred(r"(?<![\w-])\d{8,10}:AA[A-Za-z0-9_-]{33}" + _E)
_MAILCHIMP = deferred(r"(?<![\w-])[0-9a-f]{32}-us\d{1,2}" + _E)
_SLACK_WEBHOOK = deferred(r"https://hooks\.slack\.com/services/T[A-Z0-9]{6,12}/B[A-Z0-9]{6,12}/[A-Za-z0-9]{20,30}")


def find_apikeys(text: str) -> list[Hit]:
    """Keys whose vendor prefix names them (score 1.0)."""
    hits: list[Hit] = []
    for m in _APIKEY.finditer(text):
        value = m.group(0)
        if not starts_token(text, m.start(), "-"):
            continue
        # "sk-" also starts ordinary kebab words ("sk-learn-tutorial-and-more..."): keys have digits.
        if value.startswith("sk-") and not (any(ch.isdigit() for ch in value) and _has_letters(value[3:])):
            continue
        hits.append(Hit(m.start(), m.end(), "apikey", 1.0))
    if "hooks.slack.com" in text:
        hits.extend(Hit(m.start(), m.end(), "apikey", 1.0) for m in _SLACK_WEBHOOK.finditer(text))
    if ":AA" in text:
        hits.extend(Hit(m.start(), m.end(), "apikey", 1.0) for m in _TELEGRAM_BOT.finditer(text))
    if "-us" in text:
        hits.extend(Hit(m.start(), m.end(), "apikey", 1.0) for m in _MAILCHIMP.finditer(text))
    return hits


def _has_letters(value: str) -> bool:
    return any(ch.isalpha() for ch in value)


# --- passwords and secret-named assignments -------------------------------------------------------

_PASSWORD_LABEL = (
    r"password|passwd|passphrase|passwort|kennwort|pwd|mot[ ]de[ ]passe|mdp|contrase(?:ñ|n)a|clave|"
    r"pass|pw|senha|wachtwoord"
)
_SECRET_LABEL = (
    r"api[_-]?key|apikey|api[_-]?secret|secret(?:[_-]?key)?|client[_-]?secret|access[_-]?key|"
    r"private[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|bearer|token|"
    r"authorization|credentials?|session(?:[_-]?(?:id|key|token|secret))?|signing[_-]?key|"
    r"encryption[_-]?key|webhook[_-]?secret|cookie"
)
# The label first (so the scan can skip to its letters), then the rest of the identifier
# ("DB_PASSWORD", "apiKey_prod"), a quote, an assignment sign, and the value (quoted, or up to
# the next space/quote/comma). Where the label starts is checked in `_label_starts_word`.
_ASSIGNMENT = (
    r"(?i:(?P<label>{labels})(?P<suffix>[_.-][\w.-]{{0,30}})?s?)"
    r"[\"']?[ \t]{{0,3}}(?::=|=>|[:=])[ \t]{{0,3}}"
    r"(?:(?i:bearer|basic|token)[ ]{{1,3}})?"
    r"(?:\"(?P<dq>[^\"\r\n]{{1,256}})\"|'(?P<sq>[^'\r\n]{{1,256}})'|`(?P<bq>[^`\r\n]{{1,256}})`"
    r"|«[ ]?(?P<gq>[^»\r\n]{{1,256}}?)[ ]?»|(?P<bare>[^\s\"'`,;]{{1,256}}))"
)
_PASSWORD_ASSIGNMENT = deferred(_ASSIGNMENT.format(labels=_PASSWORD_LABEL))
_SECRET_ASSIGNMENT = deferred(_ASSIGNMENT.format(labels=_SECRET_LABEL))
# Keys that name something about the secret, not the secret ("PASSWORD_FILE", "token_url").
_NOT_SECRET_SUFFIXES = frozenset({
    "file", "path", "url", "uri", "length", "len", "min", "max", "policy", "reset", "field", "label",
    "hint", "placeholder", "required", "expires", "expiry", "ttl", "type", "name", "count", "limit",
    "header", "endpoint", "strength", "rules", "regex", "pattern",
})
# "my password is X", "le mot de passe est X", "das Passwort ist X", "la contraseña es X", "mdp du compte
# netflix : X" (up to three words naming what it opens, then a verb or a colon).
_PASSWORD_SENTENCE = deferred(
    rf"(?i:\b(?:{_PASSWORD_LABEL})[ ]{{1,3}}"
    r"(?:(?:du[ ]|de[ ]la[ ]|de[ ]l['’]|de[ ]|des[ ]|for[ ]the[ ]|for[ ]|of[ ]the[ ]|del[ ]|della[ ]|dello[ ])?"
    r"(?!(?:reset|link|lien|enlace|hint|policy|length|rules|manager|generator|change|changed|expired|oubli[ée]|"
    r"requirements?|field|champ|feld|campo)\b)"
    r"[^\W\d_]{2,12}(?:[ ]{1,3}|(?=:))){0,3}"
    r"(?:(?:is|est|c['’]est|ist|lautet|es|è|era|was|sera|will[ ]be|sarà)[ ]{1,3}|:[ ]{0,3})"
    r"(?:(?:now|maintenant|désormais|jetzt|ahora|:)[ ]{1,3})?)"
    r"(?:\"(?P<dq>[^\"\r\n]{1,256})\"|'(?P<sq>[^'\r\n]{1,256})'|«[ ]?(?P<gq>[^»\r\n]{1,256}?)[ ]?»"
    r"|(?P<bare>[^\s\"',;]{1,256}))"
)
# Label scans run on the lower-cased text, then the full pattern is matched at each label. A
# label is a whole word or identifier part: "pass" in "passé" or "passage" is none.
_PASSWORD_LABELS = deferred(rf"(?:{_PASSWORD_LABEL})s?(?![^\W\d_])")
_SECRET_LABELS = deferred(rf"(?:{_SECRET_LABEL})s?(?![^\W\d_])")
# Words that follow "password is" in prose about passwords, not a password.
_NOT_A_VALUE = frozenset({
    "incorrect", "invalid", "wrong", "required", "expired", "correct", "too", "not", "the", "a", "an",
    "your", "my", "his", "her", "their", "our", "same", "case", "empty", "vide", "oublié", "oublie",
    "requis", "obligatoire", "le", "la", "les", "un", "une", "trop", "pas", "votre", "mon", "ton",
    "son", "notre", "faux", "fausse", "expiré", "expire", "changé", "change", "valid", "valide",
    "strong", "weak", "fort", "faible", "secure", "sécurisé", "sensitive", "missing", "manquant", "set",
    "defined", "stored", "hashed", "encrypted", "chiffré", "correcte", "incorrecte", "ici", "here",
    "below", "above", "ci-dessous", "ci-dessus", "null", "none", "true", "false", "undefined", "nil",
    "yes", "no", "oui", "non", "falsch", "richtig", "nicht", "ein", "eine", "der", "die", "das", "el",
    "los", "las", "una", "muy", "il", "lo", "è",
})
_PLACEHOLDER = deferred(
    r"\$\{[^}]{0,80}\}?|\$[A-Z_][A-Z0-9_]{0,80}|\{\{.{0,80}|<.{0,80}|%\(?\w*\)?s|[*•.#_-]+|[xX]{3,}|…|"
    r"(?i:(?:your|votre)[_ -]?\w{0,30}|redacted|hidden|masqué|none|null|true|false|undefined|"
    r"(?:process\.)?env\.\w+|os\.environ\S*|\S*getenv\S*)"
)


def find_passwords(text: str) -> list[Hit]:
    """Password values: after a label and a sign ("password:", "mdp :", "passwort=") or in a
    sentence ("my password is X"), 0.9; a password-looking word later in the label's sentence
    ("temporary password Soleil*cO969"), 0.8; a URL's user:password@, 0.95. The span is the
    value only."""
    hits: list[Hit] = []
    for label in _PASSWORD_LABELS.finditer(lowered(text)):
        if not _label_starts_word(text, label.start()):
            continue
        assignment = _PASSWORD_ASSIGNMENT.match(text, label.start())
        if assignment is not None:
            hit = _assigned_value(text, assignment, "password", 0.9)
        else:
            sentence = _PASSWORD_SENTENCE.match(text, label.start())
            hit = _value_hit(text, sentence, "password", 0.9, _SENTENCE_TRAILING) if sentence else None
        if hit is None:
            hit = _strong_value_nearby(text, label.end())
        if hit is not None:
            hits.append(hit)
    hits.extend(_url_passwords(text))
    return hits


# After a label with no sign ("temporary password Soleil*cO969", "le mot de passe du wifi,
# c'est 66Y4d$Cactus"), the first word of the same sentence that looks like a password is one.
_NEARBY_WORD = deferred(r"[^\s\"'«»,;()\[\]{}<>]{6,64}")
_SENTENCE_END = deferred(r"[.!?](?:\s|$)|\n")
_NEARBY_REACH = 60


def _strong_value_nearby(text: str, start: int) -> Hit | None:
    end_of_sentence = _SENTENCE_END.search(text, start, start + _NEARBY_REACH)
    limit = end_of_sentence.start() if end_of_sentence else min(len(text), start + _NEARBY_REACH)
    for m in _NEARBY_WORD.finditer(text, start, limit + 64):
        if m.start() >= limit:
            break
        end = strip_trailing(text, m.start(), m.end(), _SENTENCE_TRAILING)
        if looks_like_password(text[m.start() : end]):
            return Hit(m.start(), end, "password", 0.8)
    return None


def looks_like_password(word: str) -> bool:
    """Letters and digits with a symbol or mixed case: "Soleil*cO969" yes, "ABC123" no."""
    has_letter = any(ch.isalpha() for ch in word)
    has_digit = any(ch.isdigit() for ch in word)
    has_symbol = any(not ch.isalnum() for ch in word)
    mixed_case = any(ch.isupper() for ch in word) and any(ch.islower() for ch in word)
    return len(word) >= 6 and has_letter and has_digit and (has_symbol or mixed_case) and "://" not in word


# Credentials written into a URL: scheme://user:password@host (read after each "://").
_URL_CREDENTIALS = deferred(r"[^\s:/@]{1,64}:(?P<password>[^\s@/]{1,128})@")


def _url_passwords(text: str) -> list[Hit]:
    hits: list[Hit] = []
    at = text.find("://")
    while at != -1:
        m = _URL_CREDENTIALS.match(text, at + 3)
        if m is not None and not _PLACEHOLDER.fullmatch(m.group("password")):
            hits.append(Hit(m.start("password"), m.end("password"), "password", 0.95))
        at = text.find("://", at + 3)
    return hits


def find_secret_assignments(text: str) -> list[Hit]:
    """Values of secret-named keys: API_KEY=..., "token": "...", Authorization: Bearer ... (0.85)."""
    hits: list[Hit] = []
    for label in _SECRET_LABELS.finditer(lowered(text)):
        assignment = _SECRET_ASSIGNMENT.match(text, label.start())
        hit = _assigned_value(text, assignment, "token", 0.85) if assignment else None
        if hit is not None:
            hits.append(hit)
    return hits


def _assigned_value(text: str, m: re.Match[str], kind: str, score: float) -> Hit | None:
    if not _label_starts_word(text, m.start()) or _names_something_else(m.group("suffix")):
        return None
    return _value_hit(text, m, kind, score, _ASSIGNMENT_TRAILING)


def _label_starts_word(text: str, start: int) -> bool:
    """"DB_PASSWORD", "apiKey", "x-api-key" yes; "bypass", "compass" no."""
    if start == 0:
        return True
    before = text[start - 1]
    return not before.isalnum() or ((before.islower() or before.isdigit()) and text[start].isupper())


def _names_something_else(suffix: str | None) -> bool:
    return suffix is not None and any(part.lower() in _NOT_SECRET_SUFFIXES for part in re.split(r"[_.-]", suffix))


# "password: hunter2!" keeps its "!"; the value ending a sentence loses its final punctuation.
_ASSIGNMENT_TRAILING = ".,;:)]}"
_SENTENCE_TRAILING = ".,;:!?)]}"


def _value_hit(text: str, m: re.Match[str], kind: str, score: float, trailing: str) -> Hit | None:
    """The value group of a label match, trimmed, unless it is a placeholder or a prose word."""
    group = next(name for name in ("dq", "sq", "bq", "gq", "bare") if name in m.groupdict() and m.group(name))
    start, end = m.start(group), m.end(group)
    if group == "bare":
        end = strip_trailing(text, start, end, trailing)
    value = text[start:end].strip()
    start += len(text[start:end]) - len(text[start:end].lstrip())
    end = start + len(value)
    if not value or _is_not_a_secret(value, kind) or (group == "bare" and _is_function_word(value)):
        return None
    return Hit(start, end, kind, score)


def _is_function_word(value: str) -> bool:
    """"the password is in the vault", "el pin es de cuatro cifras": a sentence about the secret, not its value."""
    from .. import lexicon

    return lexicon.is_stopword(value)


def _is_not_a_secret(value: str, kind: str) -> bool:
    if value.lower() in _NOT_A_VALUE or _PLACEHOLDER.fullmatch(value):
        return True
    if kind == "token":
        # Config noise: numbers ("max_tokens: 1500"), words ("session: morning"), references.
        if len(value) < 6 or value.replace(".", "").isdigit() or value.startswith(("{", "[", "(")):
            return True
        mixed_case = any(ch.isupper() for ch in value) and any(ch.islower() for ch in value)
        return not (any(ch.isdigit() for ch in value) or mixed_case or len(value) >= 16)
    return False


# --- generic high-entropy tokens ---------------------------------------------------------------

# "=" only as base64 padding, so "API_KEY=value" splits at its sign.
_TOKEN_RUN = deferred(r"(?<![\w+/=.-])[A-Za-z0-9_+/-]{20,512}={0,2}(?![\w+/=-])")
_SEGMENT = deferred(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_HEX_OR_UUID = deferred(r"[0-9a-fA-F]+|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_PART_SEPARATOR = deferred(r"[-_./]")
# One word, one number, or a word glued to a number ("x86", "v2", "utf8"), evenly cased.
_WORDISH_PART = deferred(
    r"(?:[a-z]{1,15}|[A-Z]{1,15}|[A-Z][a-z]{1,15})?\d{0,6}(?:[a-z]{1,15}|[A-Z]{1,15}|[A-Z][a-z]{1,15})?"
)
_PUBLIC_PREFIXES = ("sha256-", "sha384-", "sha512-", "sha1-", "md5-")
# Measured on 3000 random tokens per alphabet (base62, base64url, lower+digits, upper+digits) at
# lengths 20..64 against 8400 generated identifiers (snake, camel, kebab, upper, with numbers):
# entropy >= 3.3 bits/char below 32 chars (>= 3.7 from 32) and short letter/digit segments (mean
# <= 3.2, or <= 4.0 with a vowel share <= 0.32 among letters) keeps 98.2 % of random tokens and
# 0 of the identifiers. Words average 5+ letters and 38 % vowels; random letters about 20 %.
_MIN_ENTROPY_SHORT, _MIN_ENTROPY_LONG = 3.3, 3.7
_MAX_MEAN_SEGMENT, _MAX_MEAN_SEGMENT_FEW_VOWELS, _MAX_VOWEL_SHARE = 3.2, 4.0, 0.32


def find_tokens(text: str) -> list[Hit]:
    """Long random-looking tokens of [A-Za-z0-9_-+/=] mixing letters and digits (score 0.7)."""
    hits: list[Hit] = []
    for m in _TOKEN_RUN.finditer(text):
        value = m.group(0)
        if _looks_random(value) and not _is_public_id(text, m.start(), value):
            hits.append(Hit(m.start(), m.end(), "token", 0.7))
    return hits


def shannon_entropy(value: str) -> float:
    """Bits per character of the value's own character distribution."""
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def _looks_random(value: str) -> bool:
    if not any(ch.isdigit() for ch in value) or not _has_letters(value):
        return False
    minimum = _MIN_ENTROPY_SHORT if len(value) < 32 else _MIN_ENTROPY_LONG
    if shannon_entropy(value) < minimum:
        return False
    segments = _SEGMENT.findall(value)
    mean_segment = sum(map(len, segments)) / max(1, len(segments))
    letters = [ch for ch in value if ch.isalpha()]
    vowel_share = sum(ch in "aeiouAEIOU" for ch in letters) / len(letters)
    return mean_segment <= _MAX_MEAN_SEGMENT or (
        mean_segment <= _MAX_MEAN_SEGMENT_FEW_VOWELS and vowel_share <= _MAX_VOWEL_SHARE
    )


def _is_public_id(text: str, start: int, value: str) -> bool:
    """Hashes, UUIDs, SRI digests, inline data and bank numbers are not secrets."""
    if _HEX_OR_UUID.fullmatch(value) or value.lower().startswith(_PUBLIC_PREFIXES):
        return True
    if text.endswith("base64,", max(0, start - 7), start):
        return True
    if value.startswith(("/", "./", "../")) or _is_identifier(value):
        return True
    return iban_valid(value)


def _is_identifier(value: str) -> bool:
    """A kebab/snake/dotted name made of words and numbers ("x86_64-unknown-linux-gnu")."""
    parts = _PART_SEPARATOR.split(value)
    return len(parts) >= 3 and all(_WORDISH_PART.fullmatch(part) for part in parts)


# A PIN after its label ("PIN 4821", "mon code PIN est le 0417", "Geheimzahl: 9930"): 4 to 8 digits; a
# card's security code ("cvv 123"): 3 or 4.
_PIN_WORDS = (
    r"pin(?:[ -]?code| number)?|code (?:pin|secret|de (?:la |ma |ta |sa )?carte(?: bleue| bancaire)?)|geheimzahl|"
    r"c[óo]digo pin|codice pin|digicode|t[üu]rcode|door code|gate code|c[óo]digo (?:de )?(?:la )?puerta|"
    r"codice (?:del )?portone"
)
_PIN = deferred(
    r"(?i:(?<![\w-])(?:(?:" + _PIN_WORDS + r")"
    # up to four words naming whose ("el pin de la tarjeta nueva es", "le code de la carte de mamie c'est")
    r"(?:[ ]{1,3}[^\W\d_]{1,12}){0,4}?(?=[ :=]{0,4}(?:is|est|c['’]est|ist|lautet|es|è|le|\d))"
    r"|(?:cvv2?|cvc2?|cryptogramme|pr[üu]fnummer)(?=[ :=]{0,4}\d))"
    r"(?:[ ]{1,3}(?:is|est|c['’]est|ist|lautet|es|è)(?:[ ]le)?)?[ ]{0,3}[:=]?[ ]{0,3})"
    r"(?P<value>\d{3,8}[A-Z]?)(?![\w]|[.,/-]\d)"
)
# Backup and recovery codes after their label: every code of the list (digits in one or two groups).
_BACKUP_LABEL = deferred(
    r"(?i:(?:backup|recovery|2fa|two-factor)[ -]?codes?|codes? de (?:secours|r[ée]cup[ée]ration|sauvegarde)|"
    r"backup-?codes|wiederherstellungs-?codes|c[óo]digos? de (?:respaldo|recuperaci[óo]n|seguridad)|"
    r"codici (?:di )?(?:backup|recupero|emergenza))"
)
_BACKUP_CODE = deferred(
    r"(?:[ \t:,;\-–—]|\n|[^\W\d_]{1,12}(?=[ :]))*(?P<code>\d{4,5}[ -]\d{3,5}(?![\w]|[ -]\d)|\d{6,10}(?![\w]))"
)
_BACKUP_CODES_MAX = 16


def find_backup_codes(text: str) -> list[Hit]:
    hits: list[Hit] = []
    for label in _BACKUP_LABEL.finditer(text):
        position = label.end()
        for _ in range(_BACKUP_CODES_MAX):
            m = _BACKUP_CODE.match(text, position)
            if m is None or m.start("code") - position > 40:
                break
            hits.append(Hit(m.start("code"), m.end("code"), "password", 0.85))
            position = m.end()
    return hits


def find_pins(text: str) -> list[Hit]:
    return [
        Hit(m.start("value"), m.end("value"), "password", 0.85)
        for m in _PIN.finditer(text)
        if len(m.group("value")) >= 4 or m.group(0).lower().startswith(("cvv", "cvc", "crypto", "prüf", "pruf"))
    ]


def find_secrets(text: str) -> list[Hit]:
    """Every secret; a generic token is left out where a more specific secret covers it."""
    specific = (
        find_private_keys(text) + find_jwts(text) + find_apikeys(text) + find_passwords(text) + find_pins(text)
        + find_backup_codes(text)
    )
    tokens = find_secret_assignments(text) + find_tokens(text)
    return specific + _not_covered(tokens, specific)


def _not_covered(hits: list[Hit], by: list[Hit]) -> list[Hit]:
    """The hits that no span of `by` contains (one sweep over both lists sorted by start)."""
    covering = sorted((h.start, h.end) for h in by)
    kept: list[Hit] = []
    i, reach = 0, -1  # reach: the furthest end among covering spans starting at or before the hit
    for hit in sorted(hits):
        while i < len(covering) and covering[i][0] <= hit.start:
            reach = max(reach, covering[i][1])
            i += 1
        if hit.end > reach:
            kept.append(hit)
    return kept
