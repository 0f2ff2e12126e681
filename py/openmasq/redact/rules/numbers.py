"""Money amounts (a number with a currency symbol, code or word) and other standalone numbers
of three digits or more; both categories are off by default."""

from __future__ import annotations

from ...patterns import deferred
from ._base import Hit, lowered, windowed_matches

# 1 250,50 / 1,250.50 / 1.250,50 / 1'250.50 / 3000 / 12,5 — thousands groups of exactly three.
_NUMBER = r"\d{1,3}(?:[ ,.'’]\d{3}){1,5}(?:[.,]\d{1,2})?(?!\d)|\d{1,15}(?:[.,]\d{1,2})?(?!\d)"
_SCALE = r"(?:[ ]?(?:k|K|M|Md|Mds|Mio|mio|mn|bn|millions?|milliards?|mille|thousand|billion|Mrd\.?))?"
_SYMBOL = r"€|\$|£|¥|₣|₹|₽|Fr\."
_CODE = r"EUR|USD|GBP|CHF|JPY|CAD|AUD|CNY|SEK|NOK|DKK|PLN|MAD|XOF|XPF"
_WORD = (
    r"euros?|dollars?|livres?[ ]sterling|pounds?|francs?(?:[ ]suisses?|[ ]CFA)?|yens?|"
    r"centimes?|cents?|eurocents?|dólares|dollari|sterline|franken"
)
_AMOUNT_AFTER = deferred(
    rf"(?<![\w.,])-?(?:{_NUMBER}){_SCALE}[ ]?(?:{_SYMBOL}|(?:{_CODE})(?![\w])|(?i:{_WORD})(?![\w]))"
)
_AMOUNT_BEFORE = deferred(
    rf"(?:(?<![\w])(?:US|CA|AU|NZ|HK|S)?\$|€|£|¥|(?<![\w])(?:{_CODE}|Fr\.))[ ]?-?(?:{_NUMBER}){_SCALE}(?![\w])"
)
# Where amounts can be: a currency sign, an upper-case code, or a currency word right after a
# number. Signs and codes are scanned for (their first characters are rare in prose); words are
# looked for right after a digit. Amounts are then looked for around these anchors.
_CURRENCY_SIGN = deferred(r"[€$£¥₣₹₽]")
_CURRENCY_CODE = deferred(r"(?:" + _CODE + r"|Fr\.)(?![A-Za-z])")
_CURRENCY_WORD_AFTER = deferred(  # scanned in the lower-cased text, digit first
    r"\d[ ]?(?:k|m|md|mds|mio|mn|bn|millions?|milliards?|mille|thousand|billion|mrd\.?)?[ ]?"
    r"(?:eur|usd|gbp|chf|jpy|cad|aud|cny|sek|nok|dkk|pln|mad|xof|xpf|euro|dollar|livre|pound|franc|yen|cent|dólar|"
    r"sterlin)"
)
_AMOUNT_REACH = 40  # from the currency to the far end of its number
_AMOUNT_MAX_LEN = 64


def find_amounts(text: str) -> list[Hit]:
    """Amounts with their currency: "1 250,50 €", "$3,000", "EUR 450", "12 k€" (score 0.9)."""
    anchors = [(m.start(), m.end()) for pattern in (_CURRENCY_SIGN, _CURRENCY_CODE) for m in pattern.finditer(text)]
    anchors += [(m.start(), m.end()) for m in _CURRENCY_WORD_AFTER.finditer(lowered(text))]
    anchors.sort()
    if not anchors:
        return []
    hits: list[Hit] = []
    for pattern in (_AMOUNT_AFTER, _AMOUNT_BEFORE):
        matches = windowed_matches(text, pattern, anchors, _AMOUNT_REACH, _AMOUNT_MAX_LEN)
        hits.extend(Hit(m.start(), m.end(), "amount", 0.9) for m in matches)
    return hits


_BARE_NUMBER = deferred(r"\d(?<![\w.,]\d)(?<!\d[ .,/:-]\d)\d{2,39}(?![\w]|[ .,/:-]\d)")


def find_numbers(text: str) -> list[Hit]:
    """Standalone numbers of >= 3 digits not glued to letters, years 1900-2099 excepted (0.5)."""
    hits: list[Hit] = []
    for m in _BARE_NUMBER.finditer(text):
        value = m.group(0)
        if len(value) == 4 and 1900 <= int(value) <= 2099:
            continue
        hits.append(Hit(m.start(), m.end(), "number", 0.5))
    return hits


def find_amounts_and_numbers(text: str) -> list[Hit]:
    return find_amounts(text) + find_numbers(text)
