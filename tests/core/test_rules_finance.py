"""Rule detection of IBANs, BIC/SWIFT codes and payment cards: checksums decide."""

from __future__ import annotations

import random
import string

import pytest

from openmasq.redact.checksums import iban_check_digits, luhn_check_digit
from openmasq.redact.rules import detect_finance, detect_rules
from openmasq.redact.rules.finance import IBAN_LENGTHS


def spans_of(text: str, kind: str) -> list[tuple[str, int, int]]:
    return [(s.value, s.start, s.end) for s in detect_rules(text) if s.kind == kind]


NBSP_IBAN = "FR76 3000 6000 0112 3456 7890 189".replace(" ", "\u00a0")
IBANS = [
    ("IBAN : FR76 3000 6000 0112 3456 7890 189", "FR76 3000 6000 0112 3456 7890 189"),
    ("FR7630006000011234567890189", "FR7630006000011234567890189"),
    ("virement sur FR76 3000 6000 0112 3456 7890 189.", "FR76 3000 6000 0112 3456 7890 189"),
    ("DE89 3704 0044 0532 0130 00", "DE89 3704 0044 0532 0130 00"),
    ("IBAN:GB29NWBK60161331926819", "GB29NWBK60161331926819"),
    ("GB29 NWBK 6016 1331 9268 19 please", "GB29 NWBK 6016 1331 9268 19"),
    ("ES91 2100 0418 4502 0005 1332", "ES91 2100 0418 4502 0005 1332"),
    ("IT60 X054 2811 1010 0000 0123 456", "IT60 X054 2811 1010 0000 0123 456"),
    ("BE68 5390 0754 7034", "BE68 5390 0754 7034"),
    ("CH93 0076 2011 6238 5295 7", "CH93 0076 2011 6238 5295 7"),
    ("NL91ABNA0417164300", "NL91ABNA0417164300"),
    ("LU28-0019-4006-4475-0000", "LU28-0019-4006-4475-0000"),
    ("FR76 3000 6000 0112\n3456 7890 189", "FR76 3000 6000 0112\n3456 7890 189"),
    ("FR76 3000 6000 0112 3456 7890 189 BIC BNPAFRPP", "FR76 3000 6000 0112 3456 7890 189"),
    ("ref AB12 FR76 3000 6000 0112 3456 7890 189", "FR76 3000 6000 0112 3456 7890 189"),
    ("fr76 3000 6000 0112 3456 7890 189", "fr76 3000 6000 0112 3456 7890 189"),
    (NBSP_IBAN, NBSP_IBAN),
    ("FR76 3000 6000 \u200b0112 3456 7890 189", "FR76 3000 6000 \u200b0112 3456 7890 189"),
]


@pytest.mark.parametrize(("text", "value"), IBANS)
def test_valid_iban_is_found_whole(text: str, value: str) -> None:
    start = text.index(value)
    assert spans_of(text, "iban") == [(value, start, start + len(value))]


@pytest.mark.parametrize(("text", "value"), [
    ("FR76 3000 6000 0112 3456 7890 188", "FR76 3000 6000 0112 3456 7890 188"),
    ("Konto: DE44 5001 0517 5407 3249 32 (Sparkasse)", "DE44 5001 0517 5407 3249 32"),
    ("ES91 2100 0418 4502 0005 1333", "ES91 2100 0418 4502 0005 1333"),
    ("transferencia a ES7621000813610123456789 a nombre", "ES7621000813610123456789"),
    # compact with a bank code's letters in the account part (Italy's CIN, a British sort code's bank)
    ("il nuovo IBAN da usare è IT47K0306909606100000117215. Va aggiornato", "IT47K0306909606100000117215"),
    ("pay GB28NWBK60161331926819 today", "GB28NWBK60161331926819"),
    ("iban: at48 2011 1822 6170 4300 , kontoinhaber", "at48 2011 1822 6170 4300"),
])
def test_iban_laid_out_as_one_is_an_iban_even_with_a_wrong_key(text: str, value: str) -> None:
    start = text.index(value)
    assert spans_of(text, "iban") == [(value, start, start + len(value))]


NOT_IBANS = [
    "fr7630006000011234567890188",
    "FR76 3000 6000 0112\n3456 7890\n189",
    "FR76 3000 6000 0112 3456",
    "DE89 3704 0044 0532 0130 0",
    "XFR7630006000011234567890189",
    "MP3 1234 5678 9012 3456",
    "H264 encoded video 1080p",
    "AB12CDEF34567890",
    "SKU DE12ABCDEFGH12345678 in stock",  # a country's length, but letters no account part holds
    "FR76 3000 6000 0112 3456 7890 1899",
    "iso 9001 2015 certified",
    "model A320 200 seats",
    "FR" + "7" * 40,
    "WXYZ" * 20,
    "",
]


@pytest.mark.parametrize("text", NOT_IBANS)
def test_no_iban_without_a_valid_key_or_an_iban_layout_and_length(text: str) -> None:
    assert spans_of(text, "iban") == []


BICS = [
    ("BIC : BNPAFRPPXXX", "BNPAFRPPXXX"),
    ("BIC: BNPAFRPP", "BNPAFRPP"),
    ("SWIFT DEUTDEFF", "DEUTDEFF"),
    ("code BIC CRLYFRPP.", "CRLYFRPP"),
    ("BIC/SWIFT: COBADEFFXXX", "COBADEFFXXX"),
    ("Swift code: CHASUS33", "CHASUS33"),
    ("BIC de la banque : AGRIFRPP882", "AGRIFRPP882"),
    ("bic = SOGEFRPP", "SOGEFRPP"),
    ("BIC - BOFAGB22", "BOFAGB22"),
    ("the BIC of the bank is NWBKGB2L", "NWBKGB2L"),
    ("IBAN FR76 3000 6000 0112 3456 7890 189, BIC BNPAFRPP", "BNPAFRPP"),
    ("BIC\u00a0: BNPAFRPPXXX", "BNPAFRPPXXX"),
    ("SWIFT: UBSWCHZH80A", "UBSWCHZH80A"),
    ("BIC:BNPAFRPP", "BNPAFRPP"),
    ("SWIFT/BIC DEUTDEDB", "DEUTDEDB"),
]


@pytest.mark.parametrize(("text", "value"), BICS)
def test_bic_after_its_keyword_is_found(text: str, value: str) -> None:
    start = text.index(value)
    assert spans_of(text, "bic") == [(value, start, start + len(value))]


NOT_BICS = [
    "BNPAFRPPXXX",
    "la banque BNPAFRPP",
    "BIC: bnpafrpp",
    "BIC: BNPAFRP",
    "BIC: BNPAFRPPXX",
    "BIC: BNPAFRPPXXXX",
    "BICYCLE BNPAFRPP",
    "BIC is not provided here",
    "SWIFT is a language, CONSTANT VALUE",
    "the bic of one two three four five BNPAFRPP",
    "basic BNPAFRPP",
    "BIC: 12345678",
    "SWIFT",
    "BIC :",
    "swiftly DEUTDEFF",
]


@pytest.mark.parametrize("text", NOT_BICS)
def test_no_bic_without_keyword_or_with_a_bad_shape(text: str) -> None:
    assert spans_of(text, "bic") == []


CARDS = [
    ("Carte : 4111 1111 1111 1111", "4111 1111 1111 1111"),
    ("4111-1111-1111-1111", "4111-1111-1111-1111"),
    ("4111111111111111", "4111111111111111"),
    ("MC 5555 5555 5555 4444", "5555 5555 5555 4444"),
    ("Amex 3782 822463 10005", "3782 822463 10005"),
    ("378282246310005", "378282246310005"),
    ("Discover 6011 1111 1111 1117", "6011 1111 1111 1117"),
    ("JCB 3530 1113 3330 0000", "3530 1113 3330 0000"),
    ("Diners 3622 720627 1667", "3622 720627 1667"),
    ("Mastercard 2223 0031 2200 3222", "2223 0031 2200 3222"),
    ("Maestro 6304 0000 0000 0000", "6304 0000 0000 0000"),
    ("4111 1111 1111 1111 123", "4111 1111 1111 1111"),
    ("carte 4012 8888 8888 1881, exp 12/27", "4012 8888 8888 1881"),
    ("4111\u00a01111\u00a01111\u00a01111", "4111\u00a01111\u00a01111\u00a01111"),
    ("4111 1111\u200b 1111 1111", "4111 1111\u200b 1111 1111"),
    ("4111\u20131111\u20131111\u20131111", "4111\u20131111\u20131111\u20131111"),
]


@pytest.mark.parametrize(("text", "value"), CARDS)
def test_luhn_valid_card_of_a_known_brand_is_found(text: str, value: str) -> None:
    start = text.index(value)
    assert [(s.value, s.start, s.end, s.score) for s in detect_finance(text) if s.kind == "card"] == [
        (value, start, start + len(value), 1.0)
    ]


NOT_CARDS = [
    "4111111111111112",
    "1234 5678 9012 3456",
    "0000 0000 0000 0000",
    "4111 1111 1111",
    "9999 9999 9999 9995",
    "3.14159265358979323",
    "12.4111111111111111",
    "SIRET 732 829 320 00074",
    "IBAN FR76 3000 6000 0112 3456 7890 189",
    "1" * 40,
    "tel 06 12 34 56 78 06 12 34 56 78",
    "4111 1111 1111 1111 1111 1111 1111",
    "x4111111111111111",
    "order 20240312143055123",
    "5555555555554445",
]


@pytest.mark.parametrize("text", NOT_CARDS)
def test_no_card_without_luhn_brand_or_a_card_layout(text: str) -> None:
    assert spans_of(text, "card") == []


def _grouped(value: str, sep: str = " ") -> str:
    return sep.join(value[i : i + 4] for i in range(0, len(value), 4))


def test_every_registered_iban_layout_is_found_in_prose() -> None:
    rng = random.Random(11)
    for country, length in sorted(IBAN_LENGTHS.items()):
        bban = "".join(rng.choice(string.digits) for _ in range(length - 4))
        iban = country + iban_check_digits(country, bban) + bban
        for value in (iban, _grouped(iban), _grouped(iban, "\u00a0")):
            text = f"Voici mon IBAN {value}, merci."
            assert spans_of(text, "iban") == [(value, 15, 15 + len(value))], text


@pytest.mark.parametrize(("prefix", "length"), [("4", 16), ("4", 13), ("51", 16), ("2221", 16), ("34", 15),
                                                ("37", 15), ("6011", 16), ("65", 16), ("3528", 16), ("36", 14)])
def test_generated_luhn_cards_of_each_brand_are_found(prefix: str, length: int) -> None:
    rng = random.Random(prefix + str(length))
    for _ in range(20):
        payload = prefix + "".join(rng.choice(string.digits) for _ in range(length - len(prefix) - 1))
        card = payload + luhn_check_digit(payload)
        value = _grouped(card) if length == 16 else card
        text = f"carte n° {value} exp 12/27"
        assert spans_of(text, "card") == [(value, 9, 9 + len(value))], text


@pytest.mark.parametrize(("text", "value"), [
    ("sorry missed a digit, 5412 7534 1298 0061. Why", "5412 7534 1298 0061"),
    ("4970-1012-3456-7890", "4970-1012-3456-7890"),
    ("4111 1111 1111 1112", "4111 1111 1111 1112"),
    ("5555 5555 5555 4445", "5555 5555 5555 4445"),
])
def test_card_laid_out_in_four_groups_of_four_is_a_card_even_failing_luhn(text: str, value: str) -> None:
    start = text.index(value)
    assert spans_of(text, "card") == [(value, start, start + len(value))]


@pytest.mark.parametrize("text", [
    "order 4970 1012 3456 7891 shipped", "1234 5678 9012 3456", "4970 1012-3456 7890", "lot 4970 1012 3456 7890",
    "4970 1012 3456 7890 1234",
])
def test_four_groups_of_four_out_of_a_card_range_mixed_or_after_another_number_word_are_no_card(text: str) -> None:
    assert spans_of(text, "card") == []
