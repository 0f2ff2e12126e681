"""Detection in two halves (detect.gather's `offload`): the names half computed elsewhere gives
the same spans in the same order, a half that could not be had there runs here, and the half
sent away is always collected, even when the other half fails. And what a shell computes of a
text while it waits (prepare_pass) is what the pass then reads."""

from __future__ import annotations

import pytest

from openmasq.redact import RedactOptions, Vault, pseudonymise
from openmasq.redact import detect as detect_module
from openmasq.redact.allocate import prefetch_candidates
from openmasq.redact.caches import forget_values
from openmasq.redact.detect import detect_names_and_orgs, gather
from openmasq.redact.pseudonymise import detect_spans, prepare_pass
from openmasq.redact.text import fold, folded_text

TEXT = ("Marie Dupont (marie.dupont@karl-studio.fr, @zora.kel) travaille chez Karl Studio SAS ; "
        "IBAN FR76 3000 6000 0112 3456 7890 189, tél. 06 12 34 56 78.")


def as_json(spans):
    return [s.to_json() for s in spans]


def test_a_half_computed_elsewhere_gives_the_spans_of_one_piece_in_the_same_order():
    sent = []

    def offload(view, known_names):
        sent.append((view, known_names))
        result = detect_names_and_orgs(view, known_names)  # "elsewhere": the same function
        return lambda: result

    options = RedactOptions(known_names=("Marie Dupont",))
    assert as_json(gather(TEXT, options, offload=offload)) == as_json(gather(TEXT, options))
    assert sent == [(TEXT, ("Marie Dupont",))]
    kinds = [s.kind for s in gather(TEXT, options, offload=offload)]
    assert "person" in kinds and "org" in kinds and "username" in kinds and "iban" in kinds


def test_a_half_that_could_not_be_had_elsewhere_runs_here():
    assert as_json(gather(TEXT, RedactOptions(), offload=lambda view, known: lambda: None)) == \
        as_json(gather(TEXT, RedactOptions()))


def test_nothing_is_sent_away_when_names_are_switched_off():
    off = RedactOptions(categories=(("name", False), ("company", False), ("username", False)))

    def offload(view, known_names):
        raise AssertionError("the names half was sent although names are off")

    spans = gather(TEXT, off, offload=offload)
    assert {s.kind for s in spans} >= {"iban", "email"}
    assert not {"person", "org", "username"} & {s.kind for s in spans}


def test_the_half_sent_away_is_collected_even_when_the_other_half_fails(monkeypatch):
    collected = []

    def offload(view, known_names):
        return lambda: collected.append(view)

    def failing_rules(view):
        raise RuntimeError("a rule failed")

    monkeypatch.setattr(detect_module, "detect_rules", failing_rules)
    with pytest.raises(RuntimeError, match="a rule failed"):
        gather(TEXT, RedactOptions(), offload=offload)
    assert collected == [TEXT]


def test_a_pass_prepared_ahead_reads_its_folds_from_the_memo_and_redacts_the_same():
    vault = Vault.new()
    forget_values()
    cold = pseudonymise(TEXT, vault, RedactOptions())
    forget_values()
    prepare_pass(TEXT)
    fold_hits, folded_hits = fold.cache_info().hits, folded_text.cache_info().hits
    warm = pseudonymise(TEXT, vault, RedactOptions())
    assert fold.cache_info().hits > fold_hits and folded_text.cache_info().hits > folded_hits
    assert (warm.text, warm.vault.entries) == (cold.text, cold.vault.entries)


def test_fakes_computed_ahead_give_the_substitutes_of_a_pass_alone_and_names_are_never_asked():
    asked = []

    def computed_ahead(key, wanted):
        asked.extend(kind for kind, _ in wanted)
        result = prefetch_candidates(key, wanted)  # "elsewhere": the same function
        return lambda: result

    class Ahead:
        detect_spans = staticmethod(detect_spans)
        prefetch = staticmethod(computed_ahead)

    vault = Vault.new()
    for options in (RedactOptions(), RedactOptions(level="strict")):
        helped = pseudonymise(TEXT, vault, options, parallel=Ahead())
        alone = pseudonymise(TEXT, vault, options)
        assert (helped.text, helped.vault.entries) == (alone.text, alone.vault.entries)
    assert "iban" in asked and "phone" in asked
    assert not {"person", "org", "email", "number"} & set(asked)


def test_ipv4_fakes_computed_ahead_keep_their_fake_network_as_a_pass_alone_does():
    text = f"{TEXT} Serveurs 10.0.0.5 et 10.0.0.6, passerelle 10.0.1.1, DNS 8.8.8.8."
    asked = []

    def computed_ahead(key, wanted):
        asked.extend(kind for kind, _ in wanted)
        result = prefetch_candidates(key, wanted)
        return lambda: result

    class Ahead:
        detect_spans = staticmethod(detect_spans)
        prefetch = staticmethod(computed_ahead)

    for _ in range(10):
        vault = Vault.new()
        helped = pseudonymise(text, vault, RedactOptions(), parallel=Ahead())
        alone = pseudonymise(text, vault, RedactOptions())
        assert (helped.text, helped.vault.entries) == (alone.text, alone.vault.entries)
    assert "ipv4" in asked


def test_fakes_that_could_not_be_had_ahead_are_computed_by_the_pass():
    class Busy:
        detect_spans = staticmethod(detect_spans)

        @staticmethod
        def prefetch(key, wanted):
            return lambda: None

    vault = Vault.new()
    helped = pseudonymise(TEXT, vault, RedactOptions(), parallel=Busy())
    alone = pseudonymise(TEXT, vault, RedactOptions())
    assert (helped.text, helped.vault.entries) == (alone.text, alone.vault.entries)


def test_a_candidate_computed_ahead_is_the_one_the_pass_checks_and_uses():
    iban = "FR76 3000 6000 0112 3456 7890 189"

    class Marked:
        detect_spans = staticmethod(detect_spans)

        @staticmethod
        def prefetch(key, wanted):
            assert ("iban", iban) in wanted
            return lambda: {("fake:iban", iban): ["FR12 MARKED CANDIDATE"]}

    result = pseudonymise(TEXT, Vault.new(), RedactOptions(), parallel=Marked())
    assert "FR12 MARKED CANDIDATE" in result.text and iban not in result.text
    assert result.vault.entries["FR12 MARKED CANDIDATE"] == iban
