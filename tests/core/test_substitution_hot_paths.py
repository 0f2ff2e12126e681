"""The fast paths of allocation, substitution and restore give exactly what their plain versions
give: the casing mirror of fakes, the restorer's URL encodings, whitespace collapse and streaming
hold-back test, the exact-spelling pass of apply, and the French towns grouped per département.
Each plain version is written out here as the reference."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from urllib.parse import quote, quote_plus

from hypothesis import given, settings
from hypothesis import strategies as st

from openmasq.redact.apply import Replacement, _add_exact_occurrences, _Chosen
from openmasq.redact.fakes import _shape, places
from openmasq.redact.restore import Restorer, _collapse, _plus_for_space, _url_encoded
from openmasq.redact.text import find_exact
from openmasq.redact.vault import Vault

# Cased and uncased letters, titlecase ("ǅ"), accents, hyphens, every kind of whitespace, digits.
PIECES = [*"aAzZéÉ ǅǈ-‐'’09_ßİ\t\n\u00a0\u202f\u2028", "Dupont", "DUPONT", "dupont", "Jean-Pierre", "  ", " - "]
TEXTS = st.lists(st.sampled_from(PIECES) | st.characters(), max_size=14).map("".join)


# --- casing of fakes ---------------------------------------------------------------------------------


def _match_case_as_first_written(template: str, value: str) -> str:
    whole = _shape._part_style(template)
    if not whole:
        return value
    if whole in ("upper", "lower"):
        return _shape._apply_style(whole, value)
    t_words = [p for p in _shape._split_parts(template) if p.strip(" -")]
    pieces = _shape._split_parts(value)
    v_words = [p for p in pieces if p.strip(" -")]
    if len(t_words) == len(v_words):
        styles = iter([_shape._part_style(t) or "title" for t in t_words])
        return "".join(_shape._apply_style(next(styles), p) if p.strip(" -") else p for p in pieces)
    return "".join(_shape._apply_style("title", p) if p.strip(" -") else p for p in pieces)


@settings(max_examples=1500, deadline=None)
@given(TEXTS, TEXTS)
def test_a_fake_cased_like_its_template_equals_the_part_by_part_mirror(template, value):
    assert _shape.match_case(template, value) == _match_case_as_first_written(template, value)


def test_one_word_fakes_mirror_one_word_templates():
    assert _shape.match_case("DUPONT", "Lefèvre") == "LEFÈVRE"
    assert _shape.match_case("dupont", "Lefèvre") == "lefèvre"
    assert _shape.match_case("Jean DUPONT", "Paul Martin") == "Paul MARTIN"
    assert _shape.match_case("Dupont", "martin-leroy") == "Martin-Leroy"


# --- the restorer's keys ------------------------------------------------------------------------------


def _outcome(encode: Callable[[str], str], text: str) -> str | type[Exception]:
    try:
        return encode(text)
    except UnicodeEncodeError as err:  # a lone surrogate: no UTF-8 for it, either way
        return type(err)


@settings(max_examples=1000, deadline=None)
@given(TEXTS)
def test_url_encoding_by_translate_equals_urllib(text):
    assert _outcome(_url_encoded, text) == _outcome(lambda t: quote(t, safe=""), text)
    assert _outcome(lambda t: _plus_for_space(_url_encoded(t)), text) == _outcome(
        lambda t: quote_plus(t, safe=""), text)


@settings(max_examples=1000, deadline=None)
@given(TEXTS)
def test_collapsing_whitespace_equals_the_plain_substitution(text):
    assert _collapse(text) == re.sub(r"\s+", " ", text)


def test_the_space_is_the_only_printable_whitespace_character():
    # What _collapse's shortcut rests on.
    assert [ch for ch in map(chr, range(0x110000)) if re.fullmatch(r"\s", ch) and ch.isprintable()] == [" "]


_ELISION_FORMS = [f"{el}{apostrophe}" for el in ("d", "qu") for apostrophe in "'’"]


def _could_grow_as_first_written(keys: frozenset[str], folded_suffix: str) -> bool:
    """Every key stored again after each elision, and the suffix looked up among them all."""
    prefixes = sorted(set(keys) | {elision + key for key in keys for elision in _ELISION_FORMS})
    i = bisect.bisect_left(prefixes, folded_suffix)
    return i < len(prefixes) and prefixes[i].startswith(folded_suffix)


def _restorer(subs: list[str]) -> Restorer:
    vault = Vault.new("cd" * 32, "fake")
    for n, sub in enumerate(dict.fromkeys(subs)):
        vault.record(sub, f"real {n}", "person")
    return Restorer(vault)


SUBS = st.lists(st.sampled_from(["Claire Lefèvre", "Ostrel", "Dupont", "d'Ostrel", "quentin", "[PERSON1]", "n3",
                                 "Å", "qu", "d", "Claire"]), max_size=5)
SUFFIXES = st.lists(st.sampled_from([*"dq'’uaéclx ", "claire", "ostrel", "lefevre", "person1"]), min_size=1,
                    max_size=5).map("".join)


@settings(max_examples=600, deadline=None)
@given(SUBS, SUFFIXES)
def test_the_streaming_hold_back_test_equals_a_look_up_among_keys_with_their_elisions(subs, suffix):
    restorer = _restorer(subs)
    assert restorer._could_grow_into_key(suffix) == _could_grow_as_first_written(restorer._keys, suffix)


@settings(max_examples=200, deadline=None)
@given(SUBS)
def test_the_hold_back_window_and_first_characters_count_the_elisions(subs):
    restorer = _restorer(subs)
    prefixes = set(restorer._keys) | {e + k for k in restorer._keys for e in _ELISION_FORMS}
    assert restorer.max_len == max((len(p) for p in prefixes), default=0)
    assert restorer._firsts == {p[0] for p in prefixes}


# --- apply's exact-spelling pass ------------------------------------------------------------------------


def _exact_pass_as_first_written(text: str, table: dict[str, tuple[str, str]], chosen: _Chosen) -> None:
    found = []
    for real in sorted(table, key=lambda v: (-len(v), v)):
        sub, kind = table[real]
        found.extend(Replacement(s, e, real, kind, sub, "vault") for s, e in find_exact(text, real))
    for rep in found:
        chosen.add(rep)


WORDS = ["Marie", "Marie Dupont", "Dupont", "Karl", "Karl Studio", "06 12", "a"]
EXACT_TEXTS = st.lists(st.sampled_from([*WORDS, " ", "x", "é", "-", "Maries", ", "]), max_size=20).map("".join)


@settings(max_examples=500, deadline=None)
@given(EXACT_TEXTS, st.lists(st.sampled_from(WORDS), max_size=5), st.lists(st.integers(0, 60), max_size=4))
def test_the_exact_spelling_pass_keeps_what_the_collect_then_add_pass_keeps(text, reals, planned_starts):
    table = {real: (f"sub{n}", "person") for n, real in enumerate(reals)}
    fast, plain = _Chosen(), _Chosen()
    for start in planned_starts:  # spans this pass planned already
        if start < len(text):
            rep = Replacement(start, min(start + 3, len(text)), text[start:start + 3], "person", "P", "rule")
            fast.add(rep)
            plain.add(rep)
    _add_exact_occurrences(text, table, fast)
    _exact_pass_as_first_written(text, table, plain)
    assert fast.items == plain.items


# --- French towns per département -----------------------------------------------------------------------


def _french_candidates_as_first_written(real_postcode: str) -> tuple[places.Town, ...]:
    all_towns = places.towns("FR")
    department = places._department(real_postcode)
    same = tuple(t for t in all_towns if places._department(t.postcode) == department and t.postcode != real_postcode)
    if same:
        return same
    region = places.data.FR_REGION_OF_DEPARTMENT.get(department, "")
    return tuple(t for t in all_towns if t.area == region and region) or all_towns


def test_french_towns_grouped_per_departement_give_the_same_candidates_in_the_same_order():
    for postcode in ("75011", "69003", "13001", "20000", "20200", "97110", "97400", "01000", "99999", "00000"):
        assert places._french_candidates(postcode) == _french_candidates_as_first_written(postcode), postcode
