"""Streaming restore: for any chunking, the output equals the restore of the whole text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from openmasq.redact import StreamRestorer, Vault, restore

KEY = "22" * 32


def _vault() -> Vault:
    v = Vault.new(KEY, "fake")
    v.record("Claire Lefèvre", "Marie Dupont", "person")
    v.record("Lefèvre", "Dupont", "person", alias=True)
    v.record("Claire", "Marie", "person", alias=True)
    v.record("Ostrel Conseil", "Karl Studio", "org")
    v.record("Ostrel", "Karl", "org", alias=True)
    v.record("claire.lefevre@verlac.fr", "marie.dupont@karl-studio.fr", "email")
    v.record("[PERSON1]", "Jean Martin", "person")
    v.record("[PERSON12]", "Paul Roux", "person")
    v.record("n1", "1 250", "number")
    return v


VAULT = _vault()
PIECES = [
    "Claire Lefèvre", "CLAIRE LEFÈVRE", "claire lefevre", "Claire\nLefèvre", "Lefèvre", "Lefèvres", "Claire",
    "d'Ostrel Conseil", "qu'Ostrel", "Ostrel", "claire.lefevre@verlac.fr", "[PERSON1]", "[PERSON12]", "PERSON1",
    "[PERSON1", "n1", "n12", " ", "\n", ", ", "'s", "é", "Cl", "Lef", "x", "-", "_",
]


def _stream(text: str, cuts: list[int]) -> str:
    restorer = StreamRestorer(VAULT)
    out, last = [], 0
    for cut in sorted(set(cuts)):
        out.append(restorer.feed(text[last:cut]))
        last = cut
    out.append(restorer.feed(text[last:]))
    out.append(restorer.flush())
    return "".join(out)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=20), st.data())
def test_streaming_equals_whole_text_restore_for_any_chunking(pieces, data):
    text = "".join(pieces)
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=12))
    assert _stream(text, cuts) == restore(text, VAULT)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="Claire Lefèvr[PERSON1]n2 \n'", max_size=60), st.data())
def test_streaming_equals_whole_text_on_random_characters(text, data):
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=12))
    assert _stream(text, cuts) == restore(text, VAULT)


def test_a_fake_split_across_chunks_is_held_then_restored():
    restorer = StreamRestorer(VAULT)
    assert restorer.feed("Bonjour Cla") == "Bonjour "
    assert restorer.feed("ire Lef") == ""
    assert restorer.feed("èvre, merci") == "Marie Dupont, merci"
    assert restorer.flush() == ""


def test_only_the_shortest_possible_tail_is_held_back():
    restorer = StreamRestorer(VAULT)
    assert restorer.feed("Bonjour à tous x") == "Bonjour à tous x"
    assert restorer.pending == ""


def test_character_by_character_stream_restores_a_tool_echo():
    text = "Je transmets à claire.lefevre@verlac.fr et [PERSON1]."
    restorer = StreamRestorer(VAULT)
    out = "".join(restorer.feed(ch) for ch in text) + restorer.flush()
    assert out == "Je transmets à marie.dupont@karl-studio.fr et Jean Martin."


def test_an_empty_vault_passes_text_through_immediately():
    restorer = StreamRestorer(Vault.new(KEY))
    assert restorer.feed("Cla") == "Cla"
