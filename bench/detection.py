"""Detection on text the engine has never seen: leak rates and over-redaction of the redaction engine on every
labelled set, in each configuration, against the targets of the detection issue.

    python bench/detection.py                 # every set, every configuration available
    python bench/detection.py --leaks unseen  # also list what leaked on one set (never tune on `unseen`)

Sets (tests/data/<name>/*.jsonl): `unseen`, the held-out set written by people outside the engine's work
before any tuning and never used to build lists, templates or training data; `heldout`, the first held-out
set; `corpus`, the project's own corpus; `dev`, messages written with `unseen` for tuning.

Configurations, each at the install defaults (level `renforce`, fake mode, language `auto` as the app and
the proxy send it, a fresh vault per message):
- `rules`: the rules and lexicons only (the baseline, measured in the same run);
- `model`: rules, lexicons and the on-device NER model, as the proxy, the CLI and the app run them (the app
  runs the same ONNX file on the same Python features in the browser: e2e/test_ml_parity.py).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))

from openmasq.redact import RedactionError, RedactOptions, Vault, pseudonymise  # noqa: E402
from openmasq.redact.evaluate import (  # noqa: E402
    STRUCTURED_KINDS,
    KindScore,
    Record,
    Score,
    format_leaks,
    parse_jsonl,
    run,
    score,
)
from openmasq.redact.pseudonymise import SpanSource  # noqa: E402

DATA_DIR = ROOT / "tests" / "data"
SETS = ("unseen", "heldout", "corpus", "dev")
KEY = bytes(range(32))


@dataclass(frozen=True)
class Target:
    """One line of the issue's targets: the leak rate of a group of kinds at most `bound`."""

    name: str
    kinds: frozenset[str]
    bound: float


TARGETS = (
    Target("persons", frozenset({"person"}), 0.03),
    Target("organisations (spared brands unlabelled)", frozenset({"org"}), 0.04),
    Target("cities and regions", frozenset({"location"}), 0.05),
    Target("street addresses and birth dates", frozenset({"address", "dob"}), 0.03),
    Target("URLs naming a person or an organisation", frozenset({"url"}), 0.10),
    Target("structured values", STRUCTURED_KINDS, 0.0),
)
CLEAN_CHANGED_BOUND = 0.10
NO_LEAK_BOUND = 0.90


def records_of(name: str) -> list[Record]:
    return [r for path in sorted((DATA_DIR / name).glob("*.jsonl")) for r in parse_jsonl(path.read_text("utf-8"))]


def score_configuration(records: list[Record], spans: SpanSource | None) -> tuple[Score, int]:
    """The engine's score on `records` and how many messages it refused (a refusal sends nothing: it is
    counted apart, never as a success)."""
    refused = 0

    def redact(text: str, _lang: str) -> str:
        nonlocal refused
        try:
            return pseudonymise(text, Vault.new(KEY, mode="fake"), RedactOptions(), model=spans).text
        except RedactionError:
            refused += 1
            return ""

    return score(records, run(records, redact)), refused


def _group(result: Score, kinds: frozenset[str]) -> KindScore:
    return result.group(kinds & set(result.kinds))


def _cell(ks: KindScore) -> str:
    return f"{ks.leaked}/{ks.labelled} {100 * ks.leak_rate:.1f} %" if ks.labelled else "-"


def target_table(name: str, records: list[Record], results: dict[str, tuple[Score, int]]) -> str:
    configs = list(results)
    lines = [f"== {name}: {len(records)} messages, {sum(r.has_pii for r in records)} with personal data, "
             f"{sum(len(r.pii) for r in records)} labelled values",
             f"{'leaked (whole values)':<44}" + "".join(f"{c:>22}" for c in configs) + "   target"]
    for target in TARGETS:
        cells = [_cell(_group(results[c][0], target.kinds)) for c in configs]
        verdicts = [_verdict(_group(results[c][0], target.kinds), target.bound) for c in configs]
        lines.append(f"{target.name:<44}" + "".join(f"{cell:>22}" for cell in cells)
                     + f"   <= {100 * target.bound:.0f} %  " + " / ".join(verdicts))
    persons = [results[c][0].kinds.get("person", KindScore("person")) for c in configs]
    lines.append(f"{'  persons, a name word left (+fragment)':<44}"
                 + "".join(f"{100 * p.fragment_rate:>20.1f} %" for p in persons))
    over = [results[c][0].over for c in configs]
    lines.append(f"{'clean messages changed':<44}"
                 + "".join(f"{f'{o.changed_messages}/{o.messages} {100 * o.message_rate:.1f} %':>22}" for o in over)
                 + f"   <= {100 * CLEAN_CHANGED_BOUND:.0f} %  "
                 + " / ".join("MET" if o.message_rate <= CLEAN_CHANGED_BOUND else "NOT MET" for o in over))
    shares = [results[c][0].messages_without_leak(records) for c in configs]
    lines.append(f"{'messages with personal data, no leak':<44}"
                 + "".join(f"{f'{ok}/{n} {100 * ok / max(n, 1):.1f} %':>22}" for ok, n in shares)
                 + f"   >= {100 * NO_LEAK_BOUND:.0f} %  "
                 + " / ".join("MET" if ok >= NO_LEAK_BOUND * n else "NOT MET" for ok, n in shares))
    lines.append(f"{'messages refused (nothing sent)':<44}" + "".join(f"{results[c][1]:>22}" for c in configs))
    if len(configs) > 1:
        base, other = results[configs[0]][0], results[configs[-1]][0]
        ratio = _ratio(_group(other, frozenset({"person"})), _group(base, frozenset({"person"})))
        lines.append(f"person leak rate, {configs[-1]} / {configs[0]}: {ratio}")
    return "\n".join(lines)


def _verdict(ks: KindScore, bound: float) -> str:
    return "-" if not ks.labelled else "MET" if ks.leak_rate <= bound else "NOT MET"


def _ratio(a: KindScore, b: KindScore) -> str:
    return f"{a.leak_rate / b.leak_rate:.2f}" if b.leak_rate else "n/a (baseline 0)"


def configurations() -> dict[str, SpanSource | None]:
    """`rules`, and `model` when the NER model loads (openmasq.ner.runtime, the repo's models/ner/)."""
    configs: dict[str, SpanSource | None] = {"rules": None}
    try:
        from openmasq.ner.runtime import ModelLoadError, Tagger, ner_spans
        tagger = Tagger()
    except (ImportError, FileNotFoundError, ModelLoadError) as error:
        print(f"(no model configuration: {error})")
        return configs
    configs["model"] = lambda text: ner_spans(text, tagger)
    return configs


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--leaks", metavar="SET", choices=SETS, help="list the leaks of one set")
    parser.add_argument("--sets", nargs="*", choices=SETS, default=list(SETS))
    args = parser.parse_args(argv)
    configs = configurations()
    for name in args.sets:
        records = records_of(name)
        if not records:
            print(f"== {name}: no records")
            continue
        results = {config: score_configuration(records, spans) for config, spans in configs.items()}
        print(target_table(name, records, results) + "\n")
        if args.leaks == name:
            for config, (result, _) in results.items():
                print(f"-- {config}\n{format_leaks(result, limit=400)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
