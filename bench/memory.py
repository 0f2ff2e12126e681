"""Time of memory selection for one 2,000-character message, and of the automatic cleanup, over
stores of 100, 1,000 and 10,000 synthetic cards, with the growth factor per 10x.

Run in the dev venv:  /work/devvenv/bin/python bench/memory.py   (`--quick` skips 10,000 cards)"""

from __future__ import annotations

import argparse
import copy
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))

from openmasq.memory.model import CATEGORIES, Card, MemoryStore, Sentence  # noqa: E402
from openmasq.memory.search import search_memory  # noqa: E402
from openmasq.memory.select import MemoryIndex, select_memory  # noqa: E402

SIZES = (100, 1_000, 10_000)
SELECT_TARGET_MS = 10.0  # selection at 10,000 cards, prebuilt index, CPython
NOW = 1_750_000_000_000
DAY = 86_400_000
SEED = 20_250_615

# 48 syllables: about 110,000 distinct name words, so names repeat about as often as real ones.
SYLLABLES = (
    "ka", "ro", "vel", "mi", "dor", "sa", "lu", "ter", "no", "bri", "zan", "que", "fal", "ti", "gor", "ne",
    "pa", "lin", "mar", "to", "ber", "si", "chal", "ra", "vi", "don", "tel", "mo", "ri", "san", "ju", "fer",
    "lo", "gal", "ba", "den", "ce", "rin", "po", "mal", "ste", "gui", "fon", "da", "nu", "ver", "bo", "cla",
)
FILLER_TEXT = (
    "bonjour je reviens vers toi au sujet du planning de la semaine prochaine il faudrait caler une "
    "réunion pour relire le devis et valider les maquettes avant la livraison du site merci de me dire "
    "ce qui t'arrange pour le rendez-vous et de prévenir l'équipe si le budget change encore"
)
FILLER = FILLER_TEXT.split(" ")


def invented_word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choices(FILLER, k=rng.randint(6, 14))).capitalize() + "."


def synthetic_store(size: int, rng: random.Random) -> MemoryStore:
    """Cards with invented two-word names, 1-3 sentences of facts, some aliases and e-mails, and
    about one card in ten naming another card (mention links)."""
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < size:
        name = f"{invented_word(rng)} {invented_word(rng)}"
        if name.lower() not in seen:
            seen.add(name.lower())
            names.append(name)
    cards: list[Card] = []
    for i, name in enumerate(names):
        at = NOW - rng.randint(0, 400) * DAY
        facts = [sentence(rng) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.1:
            facts.append(f"Travaille avec {rng.choice(names)}.")
        aliases = [name.split()[1]] if rng.random() < 0.5 else []
        if rng.random() < 0.2:
            aliases.append(name.lower().replace(" ", ".") + "@exemple.fr")
        cards.append(Card(
            id=f"card-{i}", entity=name, category=rng.choice(CATEGORIES), aliases=aliases,
            sentences=[Sentence(text, at) for text in facts], status=rng.choice(["confirmed", "proposed"]),
            created_at=at, updated_at=at,
        ))
    return MemoryStore(profile="Je suis consultante indépendante, je préfère le tutoiement.", cards=cards)


def message_for(memory: MemoryStore, rng: random.Random, length: int = 2000) -> str:
    """About `length` characters of ordinary text naming five cards and two surnames."""
    named = [card.entity for card in rng.sample(memory.cards, 5)]
    named += [card.entity.split()[1] for card in rng.sample(memory.cards, 2)]
    room = length - sum(len(name) + 1 for name in named)
    words: list[str] = []
    while sum(len(word) + 1 for word in words) < room:
        words.append(rng.choice(FILLER))
    for name in named:
        words.insert(rng.randrange(len(words) + 1), name)
    return " ".join(words)


def median_ms(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def cleanup_ms(memory: MemoryStore, repeat: int) -> float | None:
    """Median time of `auto_clean` on fresh copies (it works in place); None when unavailable."""
    try:
        from openmasq.memory.dedupe import auto_clean
    except ImportError:
        return None
    times = []
    for _ in range(repeat):
        fresh = copy.deepcopy(memory)
        start = time.perf_counter()
        auto_clean(fresh, NOW)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


COLUMNS = ("select", "select+build", "build", "search", "cleanup")


def measure(size: int) -> dict[str, float | None]:
    """Median ms of each operation over a synthetic store of `size` cards."""
    rng = random.Random(SEED + size)
    memory = synthetic_store(size, rng)
    text = message_for(memory, rng)
    values = [card.entity for card in rng.sample(memory.cards, 20)]
    index = MemoryIndex.build(memory)
    _ = index.links  # what the shell's cached index holds after its first send
    query = " ".join([*memory.cards[size // 2].entity.split(), "devis", "maquettes"])

    def select(prebuilt: MemoryIndex | None) -> object:
        return select_memory(memory, text, values, scope=None, now=NOW, tz_offset_minutes=60, index=prebuilt)

    def search() -> object:
        return search_memory(memory, query, scope=None, tz_offset_minutes=60, index=index)

    select(index)  # warm the normalisation caches, as a running app has
    search()  # the search words are built on first use and cached on the index
    repeat = 30 if size < 10_000 else 15
    return {
        "select": median_ms(lambda: select(index), repeat),
        "select+build": median_ms(lambda: select(None), max(3, repeat // 5)),
        "build": median_ms(lambda: MemoryIndex.build(memory).links, max(3, repeat // 5)),
        "search": median_ms(search, repeat),
        "cleanup": cleanup_ms(memory, 3 if size < 10_000 else 1),
    }


def cell(value: float | None, previous: float | None) -> str:
    """"12.34 (x9.8)": the time and its growth over the previous size (10x fewer cards)."""
    if value is None:
        return "n/a"
    ratio = f" (x{value / previous:.1f})" if previous else ""
    return f"{value:.2f}{ratio}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="100 and 1,000 cards only")
    args = parser.parse_args(argv)
    sizes = SIZES[:2] if args.quick else SIZES
    rows = [measure(size) for size in sizes]
    print(f"Memory engine over N cards, one 2,000-character message (CPython {sys.version.split()[0]})")
    print("median ms, and in brackets the growth factor for 10x more cards")
    print(f"{'cards':>8}  " + "  ".join(f"{name:>16}" for name in COLUMNS))
    previous: dict[str, float | None] = {}
    for size, row in zip(sizes, rows, strict=True):
        print(f"{size:>8}  " + "  ".join(f"{cell(row[name], previous.get(name)):>16}" for name in COLUMNS))
        previous = row
    print()
    print("select       = select_memory with a prebuilt MemoryIndex (the shell caches one per store)")
    print("select+build = select_memory building its own index (no cache)")
    print("build        = MemoryIndex.build plus its mention links")
    print("search       = search_memory, lexical, prebuilt index")
    if rows[0]["cleanup"] is None:
        print("cleanup: not available (openmasq.memory.dedupe.auto_clean cannot be imported)")
    else:
        print("cleanup      = openmasq.memory.dedupe.auto_clean on a fresh copy of the store (it works in place)")
    if len(sizes) == 3:
        at_10k = rows[2]["select"]
        assert at_10k is not None
        verdict = "MET" if at_10k <= SELECT_TARGET_MS else "NOT MET"
        print(f"target: selection <= {SELECT_TARGET_MS:.0f} ms at 10,000 cards: {at_10k:.2f} ms, {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
