"""A complete and exact restore (issue 17): a fake comes back whatever layout the model gives it (phones
in any grouping or international form, IBANs and cards regrouped, e-mails and hosts in any case, URL-
encoded and HTML-escaped, initials, possessives, elisions), in text and tool-call arguments, whole and
streamed; and nothing that is not a fake is changed (a fake inside a compound word, loose token forms,
a number one digit off). Person fakes are never ordinary words."""

from __future__ import annotations

import html
import json
import re
from functools import cache
from urllib.parse import quote, quote_plus

import phonenumbers
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scaling import assert_linear

from openmasq.redact import RedactOptions, Restorer, StreamRestorer, Vault, pseudonymise, restore, restore_args
from openmasq.redact.allocate import allocate
from openmasq.redact.fakes.names import pools
from openmasq.redact.fakes.ordinary import is_ordinary_word, name_words
from openmasq.redact.fakes.phone import dialled_forms
from openmasq.redact.spans import Span

KEY = "42" * 32
PHONES = ["06 12 34 56 78", "+33 6 12 34 56 78", "01 42 68 53 00", "+44 20 7946 0958", "+49 30 12345678"]
NUMBERS = ["FR76 3000 6000 0112 3456 7890 189", "DE89 3704 0044 0532 0130 00", "4970 1012 3456 7897"]
PEOPLE = ["Marie Dupont", "Inès Benali", "Jean-Pierre Martin", "Hélène Garnier"]
EMAIL = "ines.benali@karl-studio.fr"
MESSAGE = (f"{PEOPLE[0]}, {PEOPLE[1]} ({EMAIL}), {PEOPLE[2]} et {PEOPLE[3]} ont appelé le "
           + " puis le ".join(PHONES) + " ; IBAN " + ", IBAN ".join(NUMBERS[:2]) + f", carte {NUMBERS[2]}.")


@cache
def conversation() -> Vault:
    result = pseudonymise(MESSAGE, Vault.new(KEY))
    for real in (*PHONES, *NUMBERS, *PEOPLE, EMAIL):
        assert result.vault.substitute_of(real) is not None, real  # every value of the message is masked
    return result.vault


def fake_of(real: str) -> str:
    sub = conversation().substitute_of(real)
    assert sub is not None
    return sub


def streamed(text: str, vault: Vault, cuts: list[int]) -> str:
    restorer = StreamRestorer(vault)
    out, last = [], 0
    for cut in sorted({c for c in cuts if 0 < c < len(text)}):
        out.append(restorer.feed(text[last:cut]))
        last = cut
    out.append(restorer.feed(text[last:]) + restorer.flush())
    return "".join(out)


def _skeleton(value: str) -> str:
    return re.sub(r"[0-9A-Za-z]", "#", value)


# --- phones, IBANs, cards in any layout -----------------------------------------------------------------

def phone_layouts(value: str) -> list[str]:
    """What phonenumbers (the engine's phone formatter) writes for `value`, with other separators, with the
    French "(0)" and the "00" prefix."""
    region = None if value.startswith("+") else "FR"
    number = phonenumbers.parse(value, region)
    formats = phonenumbers.PhoneNumberFormat
    intl = phonenumbers.format_number(number, formats.INTERNATIONAL)
    national = phonenumbers.format_number(number, formats.NATIONAL)
    e164 = phonenumbers.format_number(number, formats.E164)
    out = {value, intl, national, e164, "00" + e164[1:], phonenumbers.format_number(number, formats.RFC3966)}
    for base in (intl, national):
        code, _, rest = base.partition(" ") if base.startswith("+") else ("", "", base)
        for sep in (".", "-", "", "\u00a0", "  "):
            out.add(f"{code} {rest.replace(' ', sep)}".strip() if code else rest.replace(" ", sep))
    if number.country_code == 33:
        out.add(intl.replace("+33 ", "+33 (0)"))
    return sorted(out)


def number_layouts(value: str) -> list[str]:
    compact = re.sub(r"[^0-9A-Za-z]", "", value)
    groups = [compact[i:i + 4] for i in range(0, len(compact), 4)]
    return sorted({value, compact, compact.lower(), " ".join(groups), "-".join(groups), ".".join(groups),
                   " ".join(groups).lower()})


PHONE_CASES = [(real, layout) for real in PHONES for layout in phone_layouts(fake_of(real))]
NUMBER_CASES = [(real, layout) for real in NUMBERS for layout in number_layouts(fake_of(real))]


def _restored_number(layout: str, restored_text: str) -> str:
    assert restored_text.startswith("Rappel : ") and restored_text.endswith(", merci.")
    return restored_text[len("Rappel : "):-len(", merci.")]


@pytest.mark.parametrize("real, layout", PHONE_CASES)
def test_a_fake_phone_in_any_layout_restores_to_the_real_number_in_that_layout(real: str, layout: str) -> None:
    restored = _restored_number(layout, restore(f"Rappel : {layout}, merci.", conversation()))
    assert _skeleton(restored) == _skeleton(layout)
    written = re.sub(r"[^\d+]", "", restored.removeprefix("tel:"))
    assert written in set(dialled_forms(real).values()), (layout, restored)


@pytest.mark.parametrize("real, layout", NUMBER_CASES)
def test_a_fake_iban_or_card_regrouped_restores_to_the_real_one_regrouped(real: str, layout: str) -> None:
    restored = _restored_number(layout, restore(f"Rappel : {layout}, merci.", conversation()))
    assert _skeleton(restored) == _skeleton(layout)
    assert re.sub(r"[^0-9A-Z]", "", restored.upper()) == re.sub(r"[^0-9A-Z]", "", real)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PHONE_CASES + NUMBER_CASES), st.lists(st.integers(0, 60), max_size=8))
def test_a_regrouped_number_streamed_in_any_chunks_restores_like_the_whole_reply(case: tuple[str, str],
                                                                               cuts: list[int]) -> None:
    reply = f"Rappel : {case[1]}, merci."
    assert streamed(reply, conversation(), cuts) == restore(reply, conversation())


@pytest.mark.parametrize("real, layout", PHONE_CASES[::3] + NUMBER_CASES[::3])
def test_a_regrouped_number_in_tool_call_arguments_is_restored(real: str, layout: str) -> None:
    args = json.dumps({"to": layout, "note": f"Rappel : {layout}, merci."})
    restored = json.loads(restore_args(args, conversation()))
    assert restored["note"] == restore(f"Rappel : {layout}, merci.", conversation())
    assert restored["to"] != layout


def test_a_number_one_digit_off_or_longer_is_left_alone() -> None:
    fake = fake_of("06 12 34 56 78")
    off = fake[:-1] + str((int(fake[-1]) + 1) % 10)
    for text in (f"Appelez le {off}.", f"Appelez le {fake}1.", f"Réf. 9{fake.replace(' ', '')}."):
        assert restore(text, conversation()) == text


DIGIT_RUN_UNITS = ["1 ", "06 86 01 36 2", "12 " * 11 + "x ", "a" * 50, "+(", "FR76 "]


def digit_runs(unit: str, size: int = 20_000) -> str:
    return unit * (size // len(unit))


@pytest.mark.parametrize("unit", DIGIT_RUN_UNITS)
def test_restoring_long_runs_of_digit_groups_takes_linear_work(unit: str) -> None:
    """A reply of 20 kB of number-like groups: each window is read group by group while it begins a
    number, never every window of a long run."""
    restorer = Restorer(conversation())
    assert_linear(restorer.restore, digit_runs(unit))


# --- names, addresses, hosts --------------------------------------------------------------------------------

def name_variants(real: str) -> list[tuple[str, str]]:
    """(how the model may write the fake, what restore must give) for a person."""
    fake = fake_of(real)
    first, last = fake.split()[0], fake.split()[-1]
    rfirst, rlast = real.split()[0], real.split()[-1]
    out = [
        (fake, real), (fake.upper(), real.upper()), (fake.lower(), real), (fake.replace(" ", "\n"), real),
        (fake.replace(" ", "-"), real), (fake.replace(" ", "_"), real), (f"{fake}'s", f"{real}'s"),
        (f"{fake}’s", f"{real}’s"), (f"{first[0]}. {last}", f"{rfirst[0]}. {rlast}"),
        (f"{first} {last[0]}.", f"{rfirst} {rlast[0]}."), (quote(fake), quote(real)),
        (quote_plus(fake), quote_plus(real)), (html.escape(fake), html.escape(real)),
        (_decimal_references(fake), html.escape(real)), (_hex_references(first) + fake[len(first):], html.escape(real)),
    ]
    vowel = real[0].lower() in "aeiouyhéèêi"
    out.append((f"qu'{fake}", f"qu'{real}" if vowel else f"que {real}"))
    return out


def _decimal_references(value: str) -> str:
    """The value as HTML that writes its first letter and every letter outside ASCII as "&#233;"."""
    return "".join(f"&#{ord(ch)};" if i == 0 or not ch.isascii() else ch for i, ch in enumerate(value))


def _hex_references(value: str) -> str:
    return "".join(f"&#x{ord(ch):X};" for ch in value)


NAME_CASES = [case for real in PEOPLE for case in name_variants(real)]


@pytest.mark.parametrize("written, expected", NAME_CASES)
def test_a_person_fake_written_any_way_restores_to_the_real_name(written: str, expected: str) -> None:
    assert restore(f"Voir {written} demain.", conversation()) == f"Voir {expected} demain."


def test_e_mails_and_the_hosts_of_their_domain_restore_in_any_case() -> None:
    fake = fake_of(EMAIL)
    domain = fake.rpartition("@")[2]
    vault = conversation()
    assert restore(fake.upper(), vault) == EMAIL
    assert restore(quote(fake, safe=""), vault) == quote(EMAIL, safe="")
    for host, real in ((domain, "karl-studio.fr"), (domain.upper(), "karl-studio.fr"),
                       (f"contact@{domain}", "contact@karl-studio.fr"), (f"https://www.{domain}/x",
                                                                          "https://www.karl-studio.fr/x")):
        assert restore(f"Site : {host}.", vault) == f"Site : {real}."


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(NAME_CASES + [(f"{w} ", f"{w} ") for w in ("Bonjour", "et", ",", "\n")]),
                min_size=1, max_size=6), st.lists(st.integers(0, 200), max_size=10))
def test_names_written_any_way_restore_the_same_streamed_and_in_tool_arguments(parts: list[tuple[str, str]],
                                                                              cuts: list[int]) -> None:
    reply = " ".join(written for written, _ in parts) + "."
    whole = restore(reply, conversation())
    assert streamed(reply, conversation(), cuts) == whole
    assert json.loads(restore_args(json.dumps({"body": reply}), conversation())) == {"body": whole}


# --- nothing else changes ----------------------------------------------------------------------------------

def _words_that_are_no_fake() -> list[str]:
    vault = conversation()
    fakes = {w.casefold() for sub in vault.entries for w in re.split(r"\W+", sub) if w}
    return [w for w in sorted(name_words("fr"))[:400] if w.casefold() not in fakes]


def _near_misses() -> list[str]:
    """Text around the fakes that is not a fake: compounds, glued words, a lower-case lone first name,
    loose token forms, numbers with one more digit."""
    first = fake_of(PEOPLE[0]).split()[0]
    last = fake_of(PEOPLE[0]).split()[-1]
    phone = fake_of(PHONES[0])
    return [f"{first}-Louis", f"Jean-{first}", f"{last}-Martin", f"{first}_x", f"{first}ville", f"X{last}",
            first.lower(), f"{phone}1", f"1{phone.replace(' ', '')}", "PERSON1", "[ PERSON1 ]", "{PERSON1}",
            "[person1]", "&amp;", "&#233;t&#233;", "R&D", "&nom;", "&#", f"&#{ord(first[0])};", f"{first}&#x2D;Louis"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(_words_that_are_no_fake()), st.sampled_from(_near_misses()),
                          st.sampled_from([" ", ", ", ". ", "\n", "-", "'"])), min_size=1, max_size=15),
       st.lists(st.integers(0, 300), max_size=6))
def test_no_word_that_is_not_a_fake_is_changed(parts: list[str], cuts: list[int]) -> None:
    text = " ".join(parts)
    assert restore(text, conversation()) == text
    assert streamed(text, conversation(), cuts) == text


def test_a_fake_inside_a_compound_word_is_not_restored() -> None:
    vault = Vault.new(KEY, "fake")
    vault.record("Lucy", "Marie", "person")
    assert restore("Lucy-Louis et Jean-Lucy, lucy_2 ; Lucy arrive.", vault) == \
        "Lucy-Louis et Jean-Lucy, lucy_2 ; Marie arrive."


def test_only_the_exact_marker_restores_in_token_mode() -> None:
    vault = pseudonymise("Appelle Marie Dupont.", Vault.new(KEY), RedactOptions(mode="token")).vault
    assert vault.entries == {"[PERSON1]": "Marie Dupont"}
    assert restore("[PERSON1] et \\[PERSON1\\]", vault) == "Marie Dupont et Marie Dupont"
    for loose in ("[ PERSON1 ]", "{PERSON1}", "PERSON1", "[person1]", "[Person1]", "[PERSON1 ]"):
        assert restore(f"Voir {loose}.", vault) == f"Voir {loose}."


def test_an_initial_shared_by_two_fakes_restores_neither_initial() -> None:
    vault = Vault.new(KEY, "fake")
    vault.record("Lisa Marcotte", "Marie Dupont", "person")
    vault.record("Léo Marcotte", "Paul Dupont", "person")
    vault.record("Marcotte", "Dupont", "person", alias=True)
    assert restore("L. Marcotte", vault) == "L. Dupont"  # the surname still restores; the initial is unknown
    vault.record("Sandy Monney", "Camille Roy", "person")
    assert restore("S. Monney", vault) == "C. Roy"


# --- person fakes are not ordinary words --------------------------------------------------------------------

def test_person_fakes_are_never_ordinary_words_of_the_conversation_language() -> None:
    p = pools("fr")
    reals = [f"{first} {last}" for first, last in zip(p.female[:60] + p.male[:60], p.surnames[::5], strict=False)]
    text = ", ".join(reals)
    vault = Vault.new(KEY, "fake")
    spans, pos = [], 0
    for real in reals:
        spans.append(Span(pos, pos + len(real), real, "person", "lexicon"))
        pos += len(real) + 2
    allocate(spans, text, vault, lang="fr")
    fakes = [sub for sub in vault.entries if sub not in vault.aliases]
    assert len(fakes) == len(reals)
    for fake in fakes:
        assert not any(is_ordinary_word(word, ("fr",)) for word in fake.split()), fake
        assert not fake.startswith("[")  # the pools were never exhausted into a marker


@pytest.mark.parametrize("word", ["Victoire", "Pierre", "Rose", "Marine", "Claire", "Olive", "Baron"])
def test_the_dictionary_knows_the_names_that_are_words(word: str) -> None:
    assert is_ordinary_word(word, ("fr",))


@pytest.mark.parametrize("word", ["Alain", "Karim", "Lefèvre", "Nadia", "de"])
def test_the_dictionary_keeps_names_that_are_no_words(word: str) -> None:
    assert not is_ordinary_word(word, ("fr",))
