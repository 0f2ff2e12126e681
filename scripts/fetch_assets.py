"""Fetches, verifies and lays out the assets the in-Pyodide test run needs (stdlib only).

Everything lands in the cache folder (OPENMASQ_CACHE, default ~/.cache/openmasq), never in the repo.
The logic lives in openmasq.site.assets (shared with `openmasq build`); this is its command line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# Runs from a checkout with any Python that has pip: no install of openmasq needed.
sys.path.insert(0, str(REPO / "py"))

from openmasq.site.assets import (  # noqa: E402
    AssetError,
    build_dist,
    build_own_wheel,
    fetch_wheels,
    load_manifest,
    relock,
)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "command",
        choices=["all", "dist", "own-wheel", "relock"],
        help="all: wheels + dist + own wheel; dist: wheels + dist; own-wheel: print our wheel's path; "
        "relock: re-pin sha256 values in scripts/assets.lock.json",
    )
    args = parser.parse_args(argv)
    manifest = load_manifest(REPO)
    try:
        if args.command == "relock":
            relock(manifest, REPO)
            return 0
        if args.command in ("all", "dist"):
            build_dist(manifest, fetch_wheels(manifest), REPO)
        if args.command in ("all", "own-wheel"):
            print(build_own_wheel(REPO))
    except AssetError as error:
        raise SystemExit(str(error)) from None
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
