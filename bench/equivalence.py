"""Proof that a speed change kept the engine's output: record what it does on the corpus, change the
code, then compare (exit 1 and the first differences when anything changed).

    /work/devvenv/bin/python bench/equivalence.py record /tmp/engine-before.json
    /work/devvenv/bin/python bench/equivalence.py compare /tmp/engine-before.json

Covers every corpus and held-out message (5 languages) alone, in ~2 kB concatenations and in
growing conversations sharing one vault, in fake and token mode, at every level, with forced values
and known names; then restores each output and a few reply-like rewrites of it."""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))

from openmasq.redact import Forced, RedactionError, RedactOptions, Vault, pseudonymise  # noqa: E402
from openmasq.redact.evaluate import joined_messages, parse_jsonl  # noqa: E402
from openmasq.redact.restore import Restorer  # noqa: E402

DATA = ROOT / "tests" / "data"
KEY = bytes(range(32))
PROMPT_CHARS = 2048


def messages() -> list[str]:
    texts = []
    for folder in ("corpus", "heldout"):
        for path in sorted((DATA / folder).glob("*.jsonl")):
            texts.extend(record.text for record in parse_jsonl(path.read_text("utf-8")))
    return texts


def concatenations(texts: list[str], count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [joined_messages(texts, rng, PROMPT_CHARS) for _ in range(count)]


def option_sets(texts: list[str]) -> Iterator[tuple[str, RedactOptions]]:
    yield "default", RedactOptions()
    yield "token", RedactOptions(mode="token")
    for level in ("standard", "strict"):
        yield level, RedactOptions(level=level)
    yield "forced", RedactOptions(force=(Forced("Projet Merlebleu"), Forced("Claire Vasseur", "person"),
                                         Forced("Atelier Nord", "org")),
                                  known_names=("Jeanne Martin", "Paul Girard"))


def outcome(text: str, vault: Vault, options: RedactOptions) -> dict[str, Any]:
    try:
        result = pseudonymise(text, vault, options)
    except RedactionError as err:
        return {"refused": str(err)}
    restorer = Restorer(result.vault)
    replies = [result.text, result.text.upper(), " ".join(reversed(result.text.split(" ")))]
    return {
        "text": result.text,
        "replacements": [[r.start, r.end, r.kind, r.substitute, r.source] for r in result.replacements],
        "vault": json.dumps(result.vault.to_json(), sort_keys=True, ensure_ascii=False),
        "restored": [restorer.restore(reply) for reply in replies],
    }


def record_all() -> dict[str, Any]:
    texts = messages()
    long = concatenations(texts, 120, seed=7)
    out: dict[str, Any] = {}
    for label, options in option_sets(texts):
        for n, text in enumerate(texts + long):
            out[f"{label}/single/{n}"] = outcome(text, Vault.new(KEY), options)
        vault = Vault.new(KEY)
        for n, text in enumerate(texts):  # one conversation: the vault grows, fakes must stay stable
            result = outcome(text, vault, options)
            out[f"{label}/conversation/{n}"] = result
            if "vault" in result:
                vault = Vault.from_json(json.loads(result["vault"]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("record", "compare"))
    parser.add_argument("path", type=Path)
    args = parser.parse_args()
    now = record_all()
    digest = hashlib.sha256(json.dumps(now, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]
    if args.action == "record":
        args.path.write_text(json.dumps(now, ensure_ascii=False), "utf-8")
        print(f"recorded {len(now)} outcomes (digest {digest}) to {args.path}")
        return
    before = json.loads(args.path.read_text("utf-8"))
    changed = [key for key in before if before[key] != now.get(key)]
    print(f"compared {len(before)} outcomes: {len(changed)} changed (digest now {digest})")
    for key in changed[:5]:
        print(f"\n{key}\n  before: {json.dumps(before[key], ensure_ascii=False)[:600]}"
              f"\n  now:    {json.dumps(now.get(key), ensure_ascii=False)[:600]}")
    if changed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
