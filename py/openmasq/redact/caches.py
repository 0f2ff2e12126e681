"""The engine's memo caches hold what it read from users' texts: a word's predicates, a text's
lowered form, a forced value's pattern, a value's fold. `forget_values` empties them (and the
`re` module's own cache, which keys patterns by their source) when an account is locked, so that
nothing of a closed account lingers in the worker's memory. Kept: the caches of data loaded from
the lexicons and fake-data pools, keyed by a data file, a locale, a country or one character,
which hold nothing of the user's and cost time to rebuild. A new cache is forgotten unless named
here: the safe default."""

from __future__ import annotations

import re
import sys
from typing import Any

KEPT = frozenset({
    "openmasq.memory.extract.explicit._cjk_pattern",
    "openmasq.memory.extract.explicit._directive_pattern",
    "openmasq.memory.select._noted_on_day",
    "openmasq.redact.fakes.names.language_of",
    "openmasq.redact.fakes.names.pools",
    "openmasq.redact.fakes.places._country_keys",
    "openmasq.redact.fakes.places._country_lists",
    "openmasq.redact.fakes.places._first_names",
    "openmasq.redact.fakes.places._french_divisions",
    "openmasq.redact.fakes.places._french_towns_by_department",
    "openmasq.redact.fakes.places._place_keys",
    "openmasq.redact.fakes.places.towns",
    "openmasq.redact.lexicon._comma_set",
    "openmasq.redact.lexicon._common_words",
    "openmasq.redact.lexicon._compact_generic",
    "openmasq.redact.lexicon._data",
    "openmasq.redact.lexicon._everyday_name_words",
    "openmasq.redact.lexicon._extras",
    "openmasq.redact.lexicon._names",
    "openmasq.redact.lexicon._service_domains",
    "openmasq.redact.lexicon._tickers",
    "openmasq.redact.lexicon._word_set",
    "openmasq.redact.lexicon.first_names",
    "openmasq.redact.lexicon.surnames",
    "openmasq.redact.places._calendar_words",
    "openmasq.redact.places._read",
    "openmasq.redact.places._regions",
    "openmasq.redact.places._town_table",
    "openmasq.redact.places.region_sections",
    "openmasq.redact.text._char_class",
    "openmasq.redact.text._folded_char",
    "openmasq.redact.text._spellings",
})


def memo_caches() -> dict[str, Any]:
    """Every memo of the loaded openmasq modules (lru_cache functions, memory.memo tables), by
    qualified name: a function where it is defined, a table where it is held."""
    found: dict[str, Any] = {}
    for module_name, module in list(sys.modules.items()):
        if module is None or not module_name.startswith("openmasq."):
            continue
        for name, value in list(vars(module).items()):
            if isinstance(value, type) or not hasattr(value, "cache_clear"):
                continue
            if not callable(value) or getattr(value, "__module__", None) == module_name:
                found[f"{module_name}.{name}"] = value
    return found


def forget_values() -> int:
    """Empties every memo cache that may hold a user's words; returns how many."""
    forgotten = [cache for name, cache in memo_caches().items() if name not in KEPT]
    for cache in forgotten:
        cache.cache_clear()
    re.purge()
    return len(forgotten)


def load_data() -> None:
    """Load now every data set the kept caches would load on first use (lexicon lists, name
    pools of every language, every country's towns): a server calls this before its first
    request, so that none pays for it (importing a language's Faker lists ~0.1 s) and all
    of it can be moved out of the garbage collector's sight at once (proxy.warm_engine)."""
    from . import lexicon
    from . import places as place_names
    from .fakes import places

    lexicon.load_all()
    place_names.load_all()
    places.load_all()
