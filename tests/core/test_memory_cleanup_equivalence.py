"""The cleanup's shortcuts change no outcome: the pairwise pre-check before folding, the stem keys,
the compaction marks saved with cards, and skipping a merge round that could merge nothing."""

from __future__ import annotations

import copy
from unittest.mock import patch

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from openmasq.memory import compaction
from openmasq.memory.compaction import (
    _analyse,
    _some_pair_interacts,
    _uncovered,
    compact_mark,
    fold,
    recompact,
    same_stem,
)
from openmasq.memory.dedupe import _Merger, auto_clean
from openmasq.memory.memo import Memo
from openmasq.memory.model import CATEGORIES, Card, MemoryStore, Sentence
from openmasq.memory.normalise import normalise
from openmasq.memory.serialise import import_json, store_from_json, store_to_dict, store_to_json

# Sentences that restate, cover, replace an attribute, negate, change a date, repeat, hold two
# sentences, or say nothing in common.
FACTS = [
    "Deadline fin septembre.", "Deadline le 15 novembre pour la refonte.", "Client depuis 2019.",
    "Cliente fidèle depuis 2019.", "Cliente fidèle.", "Basée à Lyon.", "Siège à Lyon.", "Aime le café.",
    "N'aime pas le café.", "Budget 40 k€.", "Budget de 50 k€ pour la refonte du site.", "Responsable du design.",
    "Responsable du design à Lyon.", "Refonte du site du client, deadline fin septembre.", "Associé de Camille.",
    "Associée de Camille.", "Travaille chez Norvik.", "Travaille chez Lucane depuis mars.", "Date limite en mars.",
    "M. Dupont valide les devis. Il signe en juin.", "Ok.", "A.", "Contrôle qualité chaque lundi.",
    "Dans le cadre du projet, relit les maquettes.", "Relit les maquettes du projet.", "Adresse rue des Lilas.",
    "Refonte du site vitrine et de la boutique en ligne avec un nouveau catalogue produit. " * 3,
]
NAMES = ["Norvik", "Norvik Studio", "Atelier Lucane", "Lucane", "Camille Salvi", "Camille", "Karl", "Note"]

fact_lists = st.lists(st.sampled_from(FACTS), min_size=1, max_size=5)


def sentences_of(facts: list[str], times: list[int]) -> list[Sentence]:
    return [Sentence(text, times[i % len(times)]) for i, text in enumerate(facts)]


@st.composite
def stores(draw: st.DrawFn) -> MemoryStore:
    cards = []
    for i in range(draw(st.integers(1, 8))):
        facts = draw(fact_lists)
        times = draw(st.lists(st.integers(1, 5), min_size=1, max_size=5))
        cards.append(Card(
            f"c{i}", draw(st.sampled_from(NAMES)), draw(st.sampled_from(CATEGORIES)), sentences_of(facts, times),
            aliases=draw(st.lists(st.sampled_from(NAMES), max_size=2, unique=True)),
            status=draw(st.sampled_from(["proposed", "confirmed", "rejected"])),
            scope=draw(st.sampled_from([None, None, "s1"])), source=draw(st.sampled_from(["auto", "auto", "user"])),
            created_at=draw(st.integers(1, 5)), updated_at=5,
        ))
    return MemoryStore(cards=cards)


def saved(store: MemoryStore) -> dict[str, object]:
    """The store as saved, without the marks (a cache: a stale one may stay on a merged card)."""
    doc = store_to_dict(store)
    for card in doc["cards"]:
        card.pop("compact_mark", None)
    return doc


# --- the pre-check and the stems ------------------------------------------------------------------

@settings(max_examples=400, deadline=None)
@given(facts=fact_lists, times=st.lists(st.integers(1, 4), min_size=1, max_size=4))
def test_sentences_the_pairwise_check_calls_quiet_come_out_of_folding_as_they_went_in(facts, times):
    live = sentences_of(facts, times)
    if not _some_pair_interacts(live):
        merged = fold(live, now=9)
        assert list(merged.sentences) == live and not merged.superseded and not merged.changed


def test_the_pairwise_check_sees_restatements_coverings_attributes_and_repeats():
    for pair in (["Cliente fidèle.", "Cliente fidèle depuis 2019."], ["Deadline fin septembre.", "Deadline en mars."],
                 ["Basée à Lyon.", "Basée à Lyon."], ["Associé de Camille.", "Associée de Camille."]):
        assert _some_pair_interacts(sentences_of(pair, [1, 2]))
    assert not _some_pair_interacts(sentences_of(["Responsable du design.", "Basée à Lyon."], [1]))


WORD = st.text(alphabet="abcdéeèfgij", min_size=1, max_size=9)


@settings(max_examples=300, deadline=None)
@given(words=st.lists(WORD, max_size=6), others=st.lists(WORD, max_size=6))
def test_a_word_is_uncovered_exactly_when_no_word_of_the_other_sentence_has_its_stem(words, others):
    other = _analyse(" ".join(["Zz", *others]) + ".")
    expected = [w for w in words if not any(same_stem(w, x) for x in other.words)]
    assert _uncovered(words, other) == expected


@settings(max_examples=500, deadline=None)
@given(text=st.text(alphabet="ab.Z9 é@-\u00a0\n", max_size=30))
def test_fast_normalisation_of_dotted_text_equals_normalisation(text):
    compaction._NORMALISED.clear()
    assert compaction.normalise_fast(text) == normalise(text)


# --- compaction marks -----------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(data=stores())
def test_a_card_marked_compact_is_one_folding_leaves_as_it_is(data):
    auto_clean(data, 10)
    for card in data.cards:
        if card.compact_mark == compact_mark(card.sentences):
            assert not fold(card.sentences, now=11).changed


@settings(max_examples=150, deadline=None)
@given(data=stores(), extra=st.sampled_from(FACTS), target=st.integers(0, 7))
def test_cleaning_with_the_marks_of_a_previous_cleanup_gives_what_cleaning_without_them_gives(data, extra, target):
    auto_clean(data, 10)
    assume(data.cards)  # the cleanup may leave no card (an auto card whose facts were all dropped)
    card = data.cards[target % len(data.cards)]
    card.sentences = [*card.sentences, Sentence(extra, 3)]  # a change after the cleanup
    unmarked = copy.deepcopy(data)
    for other in unmarked.cards:
        other.compact_mark = None
    result, reference = auto_clean(data, 11), auto_clean(unmarked, 11)
    assert (result.changed, result.merged, result.recompacted) == (
        reference.changed, reference.merged, reference.recompacted)
    assert saved(data) == saved(unmarked)


def test_marks_are_saved_and_a_reloaded_store_is_cleaned_without_reading_a_sentence():
    data = MemoryStore(cards=[Card(f"c{i}", f"Société {i}", "organisation",
                                   [Sentence("Client depuis 2019.", 1), Sentence(f"Siège à Lyon, bureau {i}.", 2)])
                              for i in range(50)])
    auto_clean(data, 10)
    assert all(card.compact_mark for card in data.cards)
    reloaded = store_from_json(store_to_json(data))
    assert [c.compact_mark for c in reloaded.cards] == [c.compact_mark for c in data.cards]
    compaction._ANALYSES.clear()
    assert not auto_clean(reloaded, 11).changed
    assert len(compaction._ANALYSES) == 0


def test_a_document_without_marks_loads_and_a_stale_mark_is_folded_again():
    card = Card("a", "Norvik", "projet", [Sentence("Cliente fidèle.", 1), Sentence("Cliente fidèle depuis 2019.", 2)])
    doc = store_to_dict(MemoryStore(cards=[card]))
    assert "compact_mark" not in doc["cards"][0]  # type: ignore[index]
    card.compact_mark = compact_mark([Sentence("Cliente fidèle.", 1)])  # a mark of other sentences
    assert recompact(card, now=5)
    assert card.facts == "Cliente fidèle depuis 2019."


def test_a_changed_fold_version_invalidates_every_mark():
    card = Card("a", "Norvik", "projet", [Sentence("Responsable du design.", 1), Sentence("Basée à Lyon.", 2)])
    assert not recompact(card, now=5)
    mark = card.compact_mark
    with patch.object(compaction, "FOLD_VERSION", compaction.FOLD_VERSION + 1):
        assert compact_mark(card.sentences) != mark


def test_imported_cards_lose_their_marks_and_are_checked_by_the_cleanup():
    incoming = MemoryStore(cards=[Card("x", "Norvik", "projet", [Sentence("Cliente fidèle.", 1),
                                                                  Sentence("Cliente fidèle depuis 2019.", 2)])])
    incoming.cards[0].compact_mark = compact_mark(incoming.cards[0].sentences)  # a false claim
    here = MemoryStore()
    import_json(here, store_to_json(incoming), now=10)
    assert here.cards[0].facts == "Cliente fidèle depuis 2019."


# --- merge rounds ---------------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(data=stores())
def test_skipping_a_round_that_finds_no_equal_notes_changes_nothing(data):
    reference = copy.deepcopy(data)
    result = auto_clean(data, 10)
    with patch.object(_Merger, "notes_collide", lambda self: True):  # every round scans every card
        expected = auto_clean(reference, 10)
    assert (result.changed, result.merged, result.recompacted) == (
        expected.changed, expected.merged, expected.recompacted)
    assert saved(data) == saved(reference)


def test_a_memo_empties_itself_when_full():
    memo: Memo[str, int] = Memo(2)
    memo.remember("a", 1)
    memo.remember("b", 2)
    assert memo.remember("c", 3) == 3
    assert dict(memo) == {"c": 3}
