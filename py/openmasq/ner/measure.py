"""Does the NER model help redaction? The engine on a labelled set with and without the model's spans, per
language and kind: leaks, clean messages changed and replacements on no labelled value; and the per-language,
per-kind decision rule that fills `redact.ner_merge.KEPT_KINDS`. Shared by bench/models.py and the host tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from openmasq.redact import RedactionError, RedactOptions, Vault, pseudonymise
from openmasq.redact.evaluate import KindScore, Record, Score, score
from openmasq.redact.ner_merge import LABEL_KINDS, engine_spans, model_spans
from openmasq.redact.spans import Span


class Recogniser(Protocol):
    """Anything that gives a text's raw model spans (ner.runtime.Tagger)."""

    def spans(self, text: str) -> list[Span]: ...


KEY = bytes(range(32))  # a fixed vault key: the same fakes on every run
MODEL_KINDS = tuple(sorted(set(LABEL_KINDS.values())))
SpansFor = Callable[[Record], tuple[Span, ...]]
T = TypeVar("T")
# The pooled trial, over every language: it decides for a text of unknown language (RedactOptions lang "auto").
ALL_LANGS = "auto"


@dataclass(frozen=True)
class Outcome:
    """One engine configuration on a record set: the leak score, replacements that cover no labelled value
    (per language: false positives, on clean and labelled messages alike), and refused messages."""

    score: Score
    false_positives: dict[str, int] = field(default_factory=dict)
    false_positive_values: tuple[tuple[str, str, str], ...] = ()  # (record id, kind, value)
    refused: tuple[str, ...] = ()

    def leaks(self, lang: str) -> tuple[int, int]:
        """(whole values leaked, values leaked whole or by a name part) over every labelled kind of `lang`
        (ALL_LANGS: of every language)."""
        kinds = [k for by_kind in self._langs(lang, self.score.kinds_by_lang) for k in by_kind.values()]
        return sum(k.leaked for k in kinds), sum(k.fragments for k in kinds)

    def over(self, lang: str) -> tuple[int, int]:
        """(clean messages changed, false-positive replacements) in `lang` (ALL_LANGS: in every language)."""
        changed = sum(o.changed_messages for o in self._langs(lang, self.score.over_by_lang))
        return changed, sum(self._langs(lang, self.false_positives))

    @staticmethod
    def _langs(lang: str, by_lang: Mapping[str, T]) -> list[T]:
        if lang == ALL_LANGS:
            return list(by_lang.values())
        return [by_lang[lang]] if lang in by_lang else []


def raw_spans(records: Iterable[Record], recogniser: Recogniser) -> dict[str, list[Span]]:
    """The model's own spans per record id (the one slow step: every configuration reuses them)."""
    return {record.id: recogniser.spans(record.text) for record in records}


def label_ranges(record: Record) -> list[tuple[int, int]]:
    """Every occurrence of every labelled value in the record's text."""
    ranges: list[tuple[int, int]] = []
    for label in record.pii:
        start = record.text.find(label.value)
        while start != -1:
            ranges.append((start, start + len(label.value)))
            start = record.text.find(label.value, start + 1)
    return ranges


def run_engine(records: list[Record], spans_for: SpansFor | None = None) -> Outcome:
    """The engine at its install defaults (a fresh vault per message, the record's language), given
    `spans_for(record)` as outside spans when set."""
    outputs: dict[str, str] = {}
    false_positives: dict[str, int] = {}
    values: list[tuple[str, str, str]] = []
    refused: list[str] = []
    for record in records:
        given = spans_for(record) if spans_for else ()
        options = RedactOptions(lang=record.lang, spans=given)
        try:
            result = pseudonymise(record.text, Vault.new(KEY, mode="fake"), options)
        except RedactionError:
            refused.append(record.id)
            outputs[record.id] = ""  # fail closed: nothing would be sent
            continue
        outputs[record.id] = result.text
        labelled = label_ranges(record)
        for rep in result.replacements:
            if not any(rep.start < end and start < rep.end for start, end in labelled):
                false_positives[record.lang] = false_positives.get(record.lang, 0) + 1
                values.append((record.id, rep.kind, rep.value))
    return Outcome(score(records, outputs), false_positives, tuple(values), tuple(refused))


def with_kinds(raw: Mapping[str, list[Span]], kinds: frozenset[str] | None = None,
               threshold: float | None = None) -> SpansFor:
    """Outside spans: the model's engine spans of `kinds` (all when None) above `threshold` (None: each kind's
    own, ner_merge.SCORE_THRESHOLDS)."""
    def spans_for(record: Record) -> tuple[Span, ...]:
        spans = engine_spans(record.text, raw[record.id], threshold)
        return tuple(s for s in spans if kinds is None or s.kind in kinds)
    return spans_for


def as_shipped(raw: Mapping[str, list[Span]]) -> SpansFor:
    """Outside spans exactly as the product gives them: ner_merge.model_spans with its table and threshold."""
    def spans_for(record: Record) -> tuple[Span, ...]:
        return tuple(model_spans(record.text, raw[record.id], record.lang))
    return spans_for


@dataclass(frozen=True)
class Trial:
    """The engine with one model kind added, against the engine alone, in one language."""

    lang: str
    kind: str
    spans: int  # model spans of this kind given to the engine
    leaks_before: tuple[int, int]
    leaks_after: tuple[int, int]
    over_before: tuple[int, int]
    over_after: tuple[int, int]

    @property
    def keep(self) -> bool:
        return helps(self.leaks_before, self.leaks_after, self.over_before, self.over_after)


# How many more replacements on no labelled value (over-redaction: an answer a little less precise) one leak
# avoided is worth (a real name or place reaching the provider: what the product promises never happens).
OVER_PER_LEAK = 3


def helps(leaks_before: tuple[int, int], leaks_after: tuple[int, int],
          over_before: tuple[int, int], over_after: tuple[int, int]) -> bool:
    """Keep the model where it lowers leaks (whole values, or name parts left behind) without raising any leak
    count, and where the over-redaction it adds (clean messages changed, replacements on no labelled value) is at
    most OVER_PER_LEAK per leak avoided."""
    no_worse = all(a <= b for a, b in zip(leaks_after, leaks_before, strict=True))
    avoided = leaks_before[1] - leaks_after[1]
    lower = leaks_after != leaks_before and avoided >= 0
    added = [a - b for a, b in zip(over_after, over_before, strict=True)]
    bounded = all(extra <= OVER_PER_LEAK * max(avoided, 0) for extra in added)
    return no_worse and lower and bounded


def cost(leaks: tuple[int, int], over: tuple[int, int]) -> int:
    """One number to rank thresholds: leaks (whole or by a name part) weighted OVER_PER_LEAK to one replacement
    on no label."""
    return OVER_PER_LEAK * leaks[1] + over[1]


def trials(records: list[Record], raw: Mapping[str, list[Span]], threshold: float | None = None,
           baseline: Outcome | None = None) -> list[Trial]:
    """One trial per (language, model kind): the engine given only that kind's model spans."""
    baseline = baseline or run_engine(records)
    langs = [*sorted({r.lang for r in records}), ALL_LANGS]
    out: list[Trial] = []
    for kind in MODEL_KINDS:
        spans_for = with_kinds(raw, frozenset({kind}), threshold)
        counts = {lang: sum(len(spans_for(r)) for r in records if lang in (r.lang, ALL_LANGS)) for lang in langs}
        after = run_engine(records, spans_for) if any(counts.values()) else baseline
        out.extend(Trial(lang, kind, counts[lang], baseline.leaks(lang), after.leaks(lang),
                         baseline.over(lang), after.over(lang)) for lang in langs)
    return out


def decision(found: Iterable[Trial]) -> dict[str, frozenset[str]]:
    """KEPT_KINDS as the trials decide it."""
    kept: dict[str, set[str]] = {}
    for trial in found:
        kept.setdefault(trial.lang, set())
        if trial.keep:
            kept[trial.lang].add(trial.kind)
    return {lang: frozenset(kinds) for lang, kinds in sorted(kept.items())}


# --- Printing -----------------------------------------------------------------------------------

def _cell(ks: KindScore | None) -> str:
    if ks is None or not ks.labelled:
        return "-"
    return f"{ks.leaked}+{ks.fragments - ks.leaked}/{ks.labelled}"


def format_comparison(outcomes: Mapping[str, Outcome]) -> str:
    """Per language and labelled kind: leaked whole + leaked by a name part / labelled, for each engine;
    then clean messages changed and replacements on no labelled value."""
    names = list(outcomes)
    first = next(iter(outcomes.values())).score
    lines = ["leaks per language and kind: whole+name-part/labelled",
             f"{'lang kind':<18}" + "".join(f"{n:>16}" for n in names)]
    for lang in sorted(first.kinds_by_lang):
        for kind in sorted(first.kinds_by_lang[lang]):
            leaks = [_cell(outcomes[n].score.kinds_by_lang.get(lang, {}).get(kind)) for n in names]
            lines.append(f"{lang + ' ' + kind:<18}" + "".join(f"{c:>16}" for c in leaks))
    lines.append("")
    lines.append("over-redaction per language: clean messages changed/clean messages, replacements on no label")
    for lang in sorted(first.over_by_lang):
        cells = []
        for n in names:
            over = outcomes[n].score.over_by_lang[lang]
            cells.append(f"{over.changed_messages}/{over.messages}, {outcomes[n].false_positives.get(lang, 0)}")
        lines.append(f"{lang:<18}" + "".join(f"{c:>16}" for c in cells))
    totals = []
    for n in names:
        s = outcomes[n].score
        leaked = sum(k.leaked for k in s.kinds.values())
        parts = sum(k.fragments for k in s.kinds.values())
        labelled = sum(k.labelled for k in s.kinds.values())
        fps = sum(outcomes[n].false_positives.values())
        totals.append(f"{leaked}+{parts - leaked}/{labelled} {s.over.changed_messages}/{s.over.messages} {fps}")
    lines.append(f"{'all':<18}" + "".join(f"{c:>16}" for c in totals) + "   (leaks, clean changed, on no label)")
    return "\n".join(lines)


def format_trials(found: Iterable[Trial]) -> str:
    """One line per (language, model kind) trial and its verdict."""
    lines = ["per language and model kind: leaks whole,+part and over-redaction clean changed,on-no-label;"
             " engine alone -> with that kind",
             f"{'lang':<5}{'kind':<10}{'spans':>6}  {'leaks':>14}  {'over':>14}  keep"]
    for t in found:
        leaks = f"{t.leaks_before[0]},{t.leaks_before[1]}->{t.leaks_after[0]},{t.leaks_after[1]}"
        over = f"{t.over_before[0]},{t.over_before[1]}->{t.over_after[0]},{t.over_after[1]}"
        lines.append(f"{t.lang:<5}{t.kind:<10}{t.spans:>6}  {leaks:>14}  {over:>14}  {'yes' if t.keep else 'no'}")
    return "\n".join(lines)
