"""Forgetting the engine's memo caches: every one that may hold a user's words is emptied, the
lexicon loaders are kept, and redaction afterwards is the same."""

from __future__ import annotations

import re

from openmasq.redact import RedactOptions, Vault, pseudonymise
from openmasq.redact.caches import KEPT, forget_values, memo_caches
from openmasq.redact.options import Forced

TEXT = "Rendez-vous avec Zéphyrin Quellec (zephyrin.quellec@brumaire-conseil.fr) chez Brumaire Conseil SARL."


def _sizes() -> dict[str, int]:
    return {name: len(c) if isinstance(c, dict) else c.cache_info().currsize for name, c in memo_caches().items()}


def test_forgetting_empties_every_cache_of_values_and_keeps_the_lexicons():
    options = RedactOptions(force=(Forced("Brumaire"),))
    vault = Vault.new()  # its key decides the fakes
    before = pseudonymise(TEXT, vault, options)
    assert any(size for name, size in _sizes().items() if name not in KEPT)
    forgotten = forget_values()
    sizes = _sizes()
    assert forgotten == len([name for name in sizes if name not in KEPT]) > 40
    assert {name: size for name, size in sizes.items() if name not in KEPT and size} == {}
    assert sizes["openmasq.redact.lexicon._data"] > 0
    assert not re._cache  # type: ignore[attr-defined]  # re keys patterns by their source, values included
    again = pseudonymise(TEXT, vault, options)
    assert (again.text, again.vault.entries) == (before.text, before.vault.entries)


def test_every_kept_cache_exists():
    # A renamed loader would silently fall out of KEPT (and be rebuilt at each lock): the list stays true.
    pseudonymise(TEXT, Vault.new())
    import openmasq.memory.extract.explicit
    import openmasq.memory.select  # noqa: F401

    assert sorted(KEPT - set(memo_caches())) == []
