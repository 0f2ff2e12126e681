"""Properties of the whole engine: reversible, injective, consistent, linear on big input."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scaling import assert_linear

from openmasq.redact import RedactOptions, StreamRestorer, Vault, pseudonymise, restore

FIRST = ["Marie", "Jean", "Camille", "Hélène", "Karim", "Sophie", "Lucas", "Nadia", "Thomas", "Inès"]
LAST = ["Dupont", "Martin", "Lefèvre", "Benali", "Nguyen", "Garnier", "Moreau", "Diallo", "Rossi", "Schmidt"]
ORGS = ["Karl Studio SAS", "Atelier Torbel SARL", "Globex Inc.", "Müller GmbH", "Initech Ltd"]
FILLER = ["Bonjour", "merci pour", "le dossier de", "écris à", "réunion avec", "chez", ",", ".", "et", "puis",
          "Please email", "about the contract of", "à propos de", "\n", "🙂", "مرحبا"]


@st.composite
def messages(draw: st.DrawFn) -> str:
    parts: list[str] = []
    for _ in range(draw(st.integers(1, 10))):
        choice = draw(st.integers(0, 5))
        first, last = draw(st.sampled_from(FIRST)), draw(st.sampled_from(LAST))
        if choice == 0:
            parts.append(f"{first} {last}")
        elif choice == 1:
            parts.append(f"{first.lower()}.{last.lower()}@exemple-{draw(st.integers(1, 9))}.fr")
        elif choice == 2:
            parts.append(draw(st.sampled_from(ORGS)))
        elif choice == 3:
            parts.append(f"06 {draw(st.integers(10, 99))} {draw(st.integers(10, 99))} 45 67")
        elif choice == 4:
            parts.append(last.upper())
        else:
            parts.append(draw(st.sampled_from(FILLER)))
    return " ".join(parts)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages(), st.sampled_from(["fake", "token"]))
def test_restore_of_pseudonymise_is_the_identity(text, mode):
    result = pseudonymise(text, Vault.new("66" * 32), RedactOptions(mode=mode))
    assert restore(result.text, result.vault) == text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(messages(), min_size=1, max_size=4))
def test_the_mapping_is_injective_across_a_conversation(turns):
    vault = Vault.new("77" * 32)
    for text in turns:
        vault = pseudonymise(text, vault).vault
    primary = [sub for sub in vault.entries if sub not in vault.aliases]
    reals = [vault.entries[sub] for sub in primary]
    assert len(set(primary)) == len(primary)
    assert len(set(reals)) == len(reals)
    assert not set(primary) & set(vault.entries.values())


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages(), st.lists(st.integers(0, 400), max_size=10))
def test_a_streamed_reply_restores_like_the_whole_reply(text, cuts):
    result = pseudonymise(text, Vault.new("88" * 32))
    restorer = StreamRestorer(result.vault)
    reply, out, last = result.text, [], 0
    for cut in sorted(c for c in set(cuts) if c <= len(reply)):
        out.append(restorer.feed(reply[last:cut]))
        last = cut
    out.append(restorer.feed(reply[last:]) + restorer.flush())
    assert "".join(out) == text


PROSE_UNIT = ("Marie Dupont (marie.dupont@karl-studio.fr) a vu Jean Martin chez Karl Studio SAS le 12/03. "
              "Numéro 06 12 34 56 78, IBAN FR76 3000 6000 0112 3456 7890 189. ")


def pseudonymise_fresh(text: str) -> object:
    return pseudonymise(text, Vault.new("99" * 32))


def test_large_input_takes_linear_work():
    """10x more text must not cost much more than 10x the work."""
    assert_linear(pseudonymise_fresh, PROSE_UNIT * 100, PROSE_UNIT * 10)


def test_hostile_input_of_one_megabyte_finishes():
    for hostile in ("a@" * 250_000, "1" * 500_000, "-" * 500_000 + "x", "Aa " * 300_000, "http://" + "a." * 200_000):
        result = pseudonymise(hostile, Vault.new("99" * 32))
        assert restore(result.text, result.vault) == hostile
