"""The fast paths of the redaction engine's hot spots give exactly what their plain versions
give: folding by str.translate, accent stripping, word splitting of the name and organisation
detectors, the vault copy, the restorer's scan for keys, the fakes' shape helpers and seeds, and
the cache of detections. Each plain version is written out here as the reference."""

from __future__ import annotations

import hashlib
import hmac
import random
import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from openmasq.redact import RedactOptions, SpanCache, orgs, pseudonymise
from openmasq.redact import words as word_view
from openmasq.redact.fakes import _shape
from openmasq.redact.prf import hmac_sha256, seeded_rng
from openmasq.redact.restore import Restorer, _elision_lengths
from openmasq.redact.text import ZERO_WIDTH, FoldedText, _fold_runs, _fold_runs_slowly, fold, strip_accents
from openmasq.redact.vault import Vault

# Letters, accents (composed and combining), apostrophes, hyphens, separators, zero-width
# characters, characters folding to two ("ß", "İ", "ﬁ") and digits: both paths of each function.
TRICKY = [*"aAzZéÉèñøЖж東 \t\n_-‐‑'’ʼ&.,09ßİ\u0301\u0300\u00a0\u202f\u200b\u00adﬁ", "Dupont", "d'", "L'", "s"]
TEXTS = st.lists(st.sampled_from(TRICKY) | st.characters(), max_size=40).map("".join)
# Only characters that fold to exactly one: the translate path end to end.
PLAIN = st.lists(st.sampled_from([*"aAzZéÉèñøЖж東 \t\n_-'’.,09", "Dupont", "  ", " - "]), max_size=40).map("".join)


# --- folding ----------------------------------------------------------------------------------------


@settings(max_examples=500, deadline=None)
@given(TEXTS)
def test_folding_by_translate_equals_folding_run_by_run(text):
    assert _fold_runs(text) == _fold_runs_slowly(text)


@settings(max_examples=300, deadline=None)
@given(PLAIN)
def test_a_text_of_plain_characters_folds_like_fold_and_maps_back(text):
    view = FoldedText(text)
    assert (view.folded, view.origin) == _fold_runs_slowly(text)
    assert view.folded.strip() == fold(text)


def _strip_accents_char_by_char(value: str) -> str:
    decomposed = unicodedata.normalize("NFD", value)
    return unicodedata.normalize("NFC", "".join(ch for ch in decomposed if not unicodedata.combining(ch)))


@settings(max_examples=500, deadline=None)
@given(TEXTS)
def test_stripping_accents_by_translate_equals_dropping_marks_one_by_one(text):
    assert strip_accents(text) == _strip_accents_char_by_char(text)


def test_fold_drops_zero_width_characters_like_before():
    text = "Ma\u200brie\u00ad  DU\u2060PONT"
    reference = "".join(ch for ch in text if ch not in ZERO_WIDTH)
    assert fold(text) == fold(reference) == "marie dupont"


# --- words of the detectors ---------------------------------------------------------------------------

_NAME_WORD = re.compile(r"(?:[^\W\d_]|[\u0300-\u036f])+(?:[-‐‑'’ʼ](?:[^\W\d_]|[\u0300-\u036f])+){0,6}")
_ORG_WORD = re.compile(r"(?:[^\W_]|[\u0300-\u036f])+(?:[-‐'’&](?:[^\W_]|[\u0300-\u036f])+){0,6}|&")


def _name_words_one_by_one(text: str) -> tuple[list[int], list[int], list[str]]:
    """The name detector's words as first written: every match looked at in turn."""
    starts: list[int] = []
    ends: list[int] = []
    texts: list[str] = []
    for match in _NAME_WORD.finditer(text):
        start, word = match.start(), match.group()
        if "'" in word or "’" in word or "ʼ" in word:
            elision = word_view._ELISION.match(word)
            if elision and len(word) > elision.end() and (word[0].islower() or word[elision.end()].islower()):
                starts.append(start)
                ends.append(start + elision.end())
                texts.append(word[: elision.end()])
                start, word = start + elision.end(), word[elision.end() :]
            if len(word) > 3 and word[-2] in "'’" and word[-1] in "sS" and word[0].isupper():
                word = word[:-2]
        starts.append(start)
        ends.append(start + len(word))
        texts.append(word)
    return starts, ends, texts


def _org_words_one_by_one(text: str) -> tuple[list[int], list[int], list[str], list[bool]]:
    matches = list(_ORG_WORD.finditer(text))
    starts: list[int] = []
    ends: list[int] = []
    texts: list[str] = []
    for m in matches:
        start, end, word = m.start(), m.end(), m.group()
        elision = orgs._LOWER_ELISION.match(word) if ("'" in word or "’" in word) else None
        if elision and elision.end() < len(word) and word[elision.end()].isupper():
            starts.append(start)
            ends.append(start + elision.end())
            texts.append(word[: elision.end()])
            start, word = start + elision.end(), word[elision.end() :]
        starts.append(start)
        ends.append(end)
        texts.append(word)
    links = [
        (texts[i][-1] in "'’") if ends[i] == starts[i + 1]
        else bool(re.fullmatch(r"[ \t]{1,3}", text[ends[i] : starts[i + 1]]))
        for i in range(len(texts) - 1)
    ]
    return starts, ends, texts, links


@settings(max_examples=500, deadline=None)
@given(TEXTS)
def test_the_name_detectors_words_equal_a_match_by_match_split(text):
    assert [m.span() for m in word_view._WORD.finditer(text)] == [m.span() for m in _NAME_WORD.finditer(text)]
    assert word_view._words_with_elisions(text) == _name_words_one_by_one(text)


@settings(max_examples=500, deadline=None)
@given(TEXTS)
def test_the_org_detectors_words_and_links_equal_a_match_by_match_split(text):
    assert [m.span() for m in orgs._WORD.finditer(text)] == [m.span() for m in _ORG_WORD.finditer(text)]
    words = orgs._OrgWords(text)
    assert (words.starts, words.ends, words.texts, words.links) == _org_words_one_by_one(text)


def test_elisions_and_possessives_are_split_where_they_stand():
    assert word_view._words_with_elisions("l'entreprise de Dupont's d'Artagnan")[2] == [
        "l'", "entreprise", "de", "Dupont", "d'", "Artagnan"]
    words = orgs._OrgWords("dell'Autofficina et L'Oréal")
    assert words.texts == ["dell'", "Autofficina", "et", "L'Oréal"]
    assert words.links == [True, True, True]


# --- the vault copy ------------------------------------------------------------------------------------


def test_a_vault_copy_shares_no_container_with_the_original():
    vault = Vault.new("ab" * 32, "fake")
    vault.record("Claire Lefèvre", "Marie Dupont", "person")
    vault.record("Lefèvre", "Dupont", "person", alias=True)
    vault.words["dupont"] = "Lefèvre"
    vault.org_cores["karl studio"] = "Verlac Studio"
    vault.counters["n"] = 2
    copy = vault.copy()
    assert copy == vault
    copy.record("Paul", "Jean", "person", alias=True)
    copy.words["jean"] = "Paul"
    copy.org_cores["x"] = "y"
    copy.counters["n"] = 3
    assert vault.to_json() != copy.to_json()
    assert "Paul" not in vault.entries and "Paul" not in vault.aliases and "jean" not in vault.words
    assert "x" not in vault.org_cores and vault.counters["n"] == 2


# --- where a restorer looks for keys -------------------------------------------------------------------


def _next_match_position_by_position(restorer: Restorer, folded: str, fpos: int) -> tuple[int, int, int] | None:
    """The restorer's search as first written: every word start tried in turn."""
    for p in range(fpos, len(folded)):
        if folded[p].isalnum() and p > 0 and folded[p - 1].isalnum():
            continue
        for elided in _elision_lengths(folded, p):
            end = restorer._longest_key_at(folded, p + elided)
            if end is not None:
                return p, p + elided, end
    return None


def _restorer() -> Restorer:
    vault = Vault.new("cd" * 32, "fake")
    for sub, real, kind in [("Claire Lefèvre", "Marie Dupont", "person"), ("Lefèvre", "Dupont", "person"),
                            ("Ostrel", "Karl", "org"), ("c.lefevre@ostrel.fr", "m.dupont@karl.fr", "email"),
                            ("+33 6 98 76 54 32", "+33 6 12 34 56 78", "phone"), ("[PERSON1]", "Jean", "person"),
                            ("Å", "Z", "person"), ("n3", "42", "number")]:
        vault.record(sub, real, kind)
    return Restorer(vault)


REPLIES = st.lists(st.sampled_from(["Claire", " Lefèvre", "LEFEVRE", "lefèvre", "d'", "qu’", "Ostrel", " ", "\n",
                                    "c.lefevre@ostrel.fr", "+33 6 98 76 54 32", "[PERSON1]", "PERSON1", "Å", "n3",
                                    "x", "é", "-", "_", "'"]), max_size=25).map("".join)


@settings(max_examples=400, deadline=None)
@given(REPLIES, st.integers(min_value=0, max_value=30))
def test_the_restorers_candidate_scan_finds_what_a_position_by_position_scan_finds(reply, start):
    restorer = _restorer()
    folded = FoldedText(reply).folded
    fpos = min(start, len(folded))
    assert restorer._next_match(folded, fpos) == _next_match_position_by_position(restorer, folded, fpos)


# --- the fakes' shape helpers and seeds ----------------------------------------------------------------


def _fold_key_char_by_char(value: str) -> str:
    return "".join(ch for ch in strip_accents(value).casefold() if ch.isalnum())


@settings(max_examples=500, deadline=None)
@given(TEXTS)
def test_the_fakes_fold_key_by_regex_equals_keeping_alnum_characters_one_by_one(text):
    assert _shape.fold_key(text) == _fold_key_char_by_char(text)


# Titlecase letters ("ǅ") are where the whole-string and per-character case tests part ways.
CASES = st.lists(st.sampled_from([*"aAzZéÉ ǅǈᾈ-'09_ßİ", "Dupont", "DUPONT", "dupont"]) | st.characters(),
                 max_size=12).map("".join)


@settings(max_examples=800, deadline=None)
@given(CASES)
def test_a_parts_casing_style_equals_the_per_character_reading(part):
    assert _shape._part_style(part) == _shape._part_style_slowly(part)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30), st.text(max_size=30), st.integers(min_value=0, max_value=20))
def test_a_seed_is_the_hmac_of_the_plain_hmac_object(purpose, value, attempt):
    key = "ab" * 32
    message = "\x1f".join((purpose, value, str(attempt))).encode("utf-8")
    reference = random.Random(int.from_bytes(hmac.new(bytes.fromhex(key), message, hashlib.sha256).digest(), "big"))
    assert seeded_rng(key, purpose, value, attempt).random() == reference.random()


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=16, max_size=160), st.binary(max_size=300))
def test_the_hmac_from_cached_key_states_is_the_hmac_of_the_standard_library(key, message):
    # Keys of every length around the 64-byte block (longer ones are hashed first, RFC 2104),
    # each asked twice: the second time from the cached states.
    for _ in range(2):
        assert hmac_sha256(key.hex(), message) == hmac.new(key, message, hashlib.sha256).digest()


# --- the cache of detections ---------------------------------------------------------------------------

TURNS = [
    "Bonjour, je suis Marie Dupont (marie.dupont@karl-studio.fr), de Karl Studio SAS à Lyon.",
    "Rappelle Jean Martin au 06 12 34 56 78 avant jeudi, IBAN FR76 3000 6000 0112 3456 7890 189.",
    "Thanks, John Smith from Brightwave Ltd will call Marie Dupont tomorrow.",
    "Rien à masquer ici.",
]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(TURNS), min_size=1, max_size=10), st.sampled_from(["fake", "token"]))
def test_a_conversation_redacted_with_its_detection_cache_equals_one_redacted_without(history, mode):
    """A client re-sends its history: with the cache, every pass gives the text and the vault
    that a pass detecting everything again gives."""
    options = RedactOptions(mode=mode)
    cache = SpanCache()
    plain = cached = Vault.new("ef" * 32)
    for text in history:
        without = pseudonymise(text, plain, options)
        with_cache = pseudonymise(text, cached, options, cache=cache)
        assert (with_cache.text, with_cache.replacements) == (without.text, without.replacements)
        assert with_cache.vault.to_json() == without.vault.to_json()
        plain, cached = without.vault, with_cache.vault
    assert len(cache) == len(set(history))


def test_the_detection_cache_keeps_at_most_its_characters_and_drops_the_least_recently_used():
    cache = SpanCache(max_chars=len(TURNS[0]) + len(TURNS[1]))
    options = RedactOptions()
    first = cache.spans(TURNS[0], options)
    cache.spans(TURNS[2], options)
    assert cache.spans(TURNS[0], options) == first  # used again: now the most recent
    cache.spans(TURNS[1], options)  # over the bound: TURNS[2] goes
    assert cache.chars <= cache.max_chars
    assert len(cache) == 2 and (options, TURNS[2]) not in cache._spans and (options, TURNS[0]) in cache._spans


def test_the_detection_cache_keeps_options_apart():
    cache = SpanCache()
    text = "Écris à Marie Dupont chez Karl Studio SAS."
    spans = cache.spans(text, RedactOptions())
    assert any(span.kind == "person" for span in spans)
    # The same text with names switched off is detected again, not served from the first entry.
    assert not any(span.kind == "person" for span in cache.spans(text, RedactOptions(categories=(("name", False),))))
    assert len(cache) == 2
