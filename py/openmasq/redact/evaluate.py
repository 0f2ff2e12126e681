"""Leak and over-redaction scores of a redaction function on a labelled corpus.

Pure: callers read the corpus files and run the redactor; this module parses, compares and prints."""

from __future__ import annotations

import difflib
import json
import random
import unicodedata
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..patterns import deferred

# Kinds whose value must never survive (the "valid structured values": e-mail, phone, IBAN,
# card, national and company identifiers, secrets). Their leak-rate target is exactly 0.
STRUCTURED_KINDS = frozenset({
    "email", "phone", "iban", "card", "nir", "dni", "nie", "nino", "ssn", "siren", "siret", "vat",
    "apikey", "jwt", "private_key", "password", "token",
})
# The coarser labels of the outside writers' held-out set (tests/data/unseen): any identifier, any secret, any IP
# address; structured too.
COARSE_STRUCTURED_KINDS = frozenset({"id", "secret", "ip"})
STRUCTURED_KINDS |= COARSE_STRUCTURED_KINDS

# Kinds whose separators are mere layout ("06 12 34 56 78" and "0612345678" are one value):
# they are compared with everything but letters and digits removed.
_LAYOUT_FREE_KINDS = frozenset({
    "phone", "iban", "bic", "card", "nir", "dni", "nie", "nino", "ssn", "siren", "siret", "vat", "mac", "dob", "id",
})

# A first name or surname left behind still names the person when the full value is gone
# ("fragment" leaks, reported beside the leak rate). Organisations and addresses are left out:
# their fakes legitimately reuse generic words ("Transports", "Road") and would be blamed.
_FRAGMENT_KINDS = frozenset({"person"})
_FRAGMENT_MIN_LEN = 3

_WHITESPACE = deferred(r"\s+")
_NOT_ALNUM = deferred(r"[\W_]+")
_WORD = deferred(r"\w+")
_TOKEN = deferred(r"\S+")
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'"})


@dataclass(frozen=True)
class Label:
    """One value of a record that a privacy tool must mask."""

    value: str
    kind: str


@dataclass(frozen=True)
class Record:
    """One corpus message and its labels (an empty `pii` marks a message without personal data)."""

    id: str
    lang: str
    text: str
    pii: tuple[Label, ...] = ()

    @property
    def has_pii(self) -> bool:
        return bool(self.pii)


@dataclass(frozen=True)
class Leak:
    """A labelled value found in the output (`fragment`: only one of its words was found)."""

    record_id: str
    kind: str
    value: str
    fragment: str = ""


@dataclass(frozen=True)
class KindScore:
    """Leak counts of one kind: `leaked` whole values; `fragments` leaked whole or by a telling word."""

    kind: str
    labelled: int = 0
    leaked: int = 0
    fragments: int = 0

    @property
    def leak_rate(self) -> float:
        return self.leaked / self.labelled if self.labelled else 0.0

    @property
    def fragment_rate(self) -> float:
        return self.fragments / self.labelled if self.labelled else 0.0


@dataclass(frozen=True)
class OverRedaction:
    """Changes made to messages without personal data: whole messages and whitespace tokens."""

    messages: int = 0
    changed_messages: int = 0
    tokens: int = 0
    changed_tokens: int = 0

    @property
    def message_rate(self) -> float:
        return self.changed_messages / self.messages if self.messages else 0.0

    @property
    def token_rate(self) -> float:
        return self.changed_tokens / self.tokens if self.tokens else 0.0


@dataclass(frozen=True)
class Score:
    """Scores of one engine on one corpus, overall and per language."""

    kinds: dict[str, KindScore]
    over: OverRedaction
    kinds_by_lang: dict[str, dict[str, KindScore]] = field(default_factory=dict)
    over_by_lang: dict[str, OverRedaction] = field(default_factory=dict)
    leaks: tuple[Leak, ...] = ()
    changed_clean_ids: tuple[str, ...] = ()

    def messages_without_leak(self, records: Iterable[Record]) -> tuple[int, int]:
        """(messages with personal data none of whose values survived whole, messages with personal data)."""
        leaking = {leak.record_id for leak in self.leaks if not leak.fragment}
        with_pii = [record.id for record in records if record.has_pii]
        return sum(rid not in leaking for rid in with_pii), len(with_pii)

    def group(self, kinds: Collection[str]) -> KindScore:
        """Leak counts summed over `kinds` (e.g. STRUCTURED_KINDS)."""
        return _sum_kinds("+".join(sorted(kinds)), [self.kinds[k] for k in kinds if k in self.kinds])


# --- Corpus parsing -------------------------------------------------------------------------

def parse_record(obj: Mapping[str, object]) -> Record:
    """A record from one decoded JSONL object; raises ValueError on a malformed one."""
    rid, lang, text, pii = obj.get("id"), obj.get("lang"), obj.get("text"), obj.get("pii", [])
    if not isinstance(rid, str) or not isinstance(lang, str) or not isinstance(text, str):
        raise ValueError(f"malformed corpus record: {obj!r:.120}")
    if not isinstance(pii, list):
        raise ValueError(f"malformed labels in {rid}: {pii!r:.120}")
    labels = []
    for item in pii:
        value, kind = (item.get("value"), item.get("kind")) if isinstance(item, dict) else (None, None)
        if not isinstance(value, str) or not isinstance(kind, str):
            raise ValueError(f"malformed label in {rid}: {item!r:.120}")
        labels.append(Label(value, kind))
    return Record(rid, lang, text, tuple(labels))


def parse_jsonl(text: str) -> list[Record]:
    """Records of a JSONL document (blank lines ignored)."""
    return [parse_record(json.loads(line)) for line in text.splitlines() if line.strip()]


# --- Running and comparing ------------------------------------------------------------------

def joined_messages(texts: Sequence[str], rng: random.Random, chars: int) -> str:
    """Whole corpus messages drawn at random and joined by spaces until they reach `chars`: a long
    prompt of realistic data for the benchmarks."""
    pieces: list[str] = []
    while sum(len(p) + 1 for p in pieces) < chars:
        pieces.append(rng.choice(texts))
    return " ".join(pieces)


def run(records: Iterable[Record], redact: Callable[[str, str], str]) -> dict[str, str]:
    """The output of `redact(text, lang)` for every record, by record id."""
    return {record.id: redact(record.text, record.lang) for record in records}


def fold(text: str) -> str:
    """Case-, accent-, apostrophe- and whitespace-insensitive form used to find surviving values."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_APOSTROPHES))
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _WHITESPACE.sub(" ", stripped.casefold()).strip()


def _compact(text: str) -> str:
    return _NOT_ALNUM.sub("", fold(text))


def contains_word(haystack: str, needle: str) -> bool:
    """Whether `needle` occurs in `haystack` not glued to a letter or digit on either side."""
    if not needle:
        return False
    start = haystack.find(needle)
    while start != -1:
        end = start + len(needle)
        before_ok = start == 0 or not haystack[start - 1].isalnum()
        after_ok = end == len(haystack) or not haystack[end].isalnum()
        if before_ok and after_ok:
            return True
        start = haystack.find(needle, start + 1)
    return False


def is_leaked(value: str, kind: str, output: str) -> bool:
    """Whether the real `value` (or a case, accent or whitespace variant of it) is still in `output`.

    Structured kinds are compared without separators, since "FR76 3000..." and "FR763000..." are
    one value; any surviving digit run of the value counts, glued or not."""
    if kind in _LAYOUT_FREE_KINDS:
        needle = _compact(value)
        return bool(needle) and needle in _compact(output)
    return contains_word(fold(output), fold(value))


def telling_words(value: str) -> list[str]:
    """Capitalised words of a name that identify on their own."""
    words = _WORD.findall(value)
    return [w for w in words if len(w) >= _FRAGMENT_MIN_LEN and w[0].isupper() and not w.isdigit()]


def leaked_fragment(label: Label, source: str, output: str) -> str:
    """A telling word of the label found in the output but nowhere in the source outside labels.

    `source` is the input with every labelled value blanked, so a word the message also uses in
    its own right ("Paris" in prose) is not blamed on the label."""
    if label.kind not in _FRAGMENT_KINDS:
        return ""
    folded_output, folded_source = fold(output), fold(source)
    for word in telling_words(label.value):
        folded = fold(word)
        if contains_word(folded_output, folded) and not contains_word(folded_source, folded):
            return word
    return ""


def _without_labels(record: Record) -> str:
    text = record.text
    for label in sorted(record.pii, key=lambda lab: -len(lab.value)):
        text = text.replace(label.value, " ")
    return text


def changed_tokens(before: str, after: str) -> tuple[int, int]:
    """(tokens of `before`, how many of them did not survive into `after`), tokens split on whitespace."""
    old, new = _TOKEN.findall(before), _TOKEN.findall(after)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    kept = sum(block.size for block in matcher.get_matching_blocks())
    return len(old), len(old) - kept


# --- Scoring ----------------------------------------------------------------------------------

def _sum_kinds(kind: str, parts: Iterable[KindScore]) -> KindScore:
    total = KindScore(kind)
    for part in parts:
        total = KindScore(kind, total.labelled + part.labelled, total.leaked + part.leaked,
                          total.fragments + part.fragments)
    return total


def _sum_over(parts: Iterable[OverRedaction]) -> OverRedaction:
    total = OverRedaction()
    for p in parts:
        total = OverRedaction(total.messages + p.messages, total.changed_messages + p.changed_messages,
                              total.tokens + p.tokens, total.changed_tokens + p.changed_tokens)
    return total


def score_record(record: Record, output: str) -> tuple[list[KindScore], list[Leak], OverRedaction]:
    """Per-label counts, leaks and (for a message without personal data) over-redaction of one output."""
    if not record.has_pii:
        tokens, changed = changed_tokens(record.text, output)
        return [], [], OverRedaction(1, int(output != record.text), tokens, changed)
    source = _without_labels(record)
    counts, leaks = [], []
    for label in record.pii:
        leaked = is_leaked(label.value, label.kind, output)
        fragment = "" if leaked else leaked_fragment(label, source, output)
        counts.append(KindScore(label.kind, 1, int(leaked), int(leaked or bool(fragment))))
        if leaked or fragment:
            leaks.append(Leak(record.id, label.kind, label.value, fragment))
    return counts, leaks, OverRedaction()


def score(records: Iterable[Record], outputs: Mapping[str, str]) -> Score:
    """Leak rates per kind and over-redaction of `outputs` (by record id) against the labels."""
    per_lang_kind: dict[str, dict[str, list[KindScore]]] = {}
    per_lang_over: dict[str, list[OverRedaction]] = {}
    leaks: list[Leak] = []
    changed_clean: list[str] = []
    for record in records:
        counts, record_leaks, over = score_record(record, outputs[record.id])
        for count in counts:
            per_lang_kind.setdefault(record.lang, {}).setdefault(count.kind, []).append(count)
        per_lang_over.setdefault(record.lang, []).append(over)
        leaks.extend(record_leaks)
        if over.changed_messages:
            changed_clean.append(record.id)
    kinds_by_lang = {lang: {k: _sum_kinds(k, parts) for k, parts in sorted(kinds.items())}
                     for lang, kinds in per_lang_kind.items()}
    all_kinds = sorted({k for kinds in kinds_by_lang.values() for k in kinds})
    kinds = {k: _sum_kinds(k, [by[k] for by in kinds_by_lang.values() if k in by]) for k in all_kinds}
    over_by_lang = {lang: _sum_over(parts) for lang, parts in per_lang_over.items()}
    return Score(kinds, _sum_over(over_by_lang.values()), kinds_by_lang, over_by_lang, tuple(leaks),
                 tuple(changed_clean))


# --- Printing ---------------------------------------------------------------------------------

def _pct(rate: float) -> str:
    return f"{100 * rate:.1f} %"


def _kind_order(kinds: Iterable[str]) -> list[str]:
    """Structured kinds first (their target is 0), then the free-text ones, each alphabetically."""
    return sorted(kinds, key=lambda k: (k not in STRUCTURED_KINDS, k))


def _leak_cell(ks: KindScore | None, unsupported: bool) -> str:
    if ks is None or ks.labelled == 0:
        return "-"
    return f"{ks.leaked}/{ks.labelled} {_pct(ks.leak_rate)}" + (" n/s" if unsupported else "")


def _row(label: str, cells: Iterable[str], width: int) -> str:
    return f"{label:<22}" + "".join(f"{cell:>{width}}" for cell in cells)


def format_table(scores: Mapping[str, Score],
                 unsupported: Mapping[str, Collection[str]] | None = None) -> str:
    """Leak rate per kind, one column per engine, then over-redaction.

    `unsupported[engine]` lists the kinds that engine has no detector for: their cell is marked n/s."""
    unsupported = unsupported or {}
    names = list(scores)
    width = max([len(n) for n in names] + [18]) + 2
    first = next(iter(scores.values()))
    lines = ["leak rate per kind (value still present; +fragment: or one of its names left)",
             _row("kind (labelled)", names, width)]
    for kind in _kind_order({k for s in scores.values() for k in s.kinds}):
        labelled = first.kinds.get(kind, KindScore(kind)).labelled
        lines.append(_row(f"{kind} ({labelled})", (
            _leak_cell(scores[n].kinds.get(kind), kind in unsupported.get(n, ())) for n in names), width))
        if kind in _FRAGMENT_KINDS:
            lines.append(_row("  +fragment", (
                _pct(scores[n].kinds.get(kind, KindScore(kind)).fragment_rate) for n in names), width))
    structured = [s.group(STRUCTURED_KINDS & set(s.kinds)) for s in scores.values()]
    cells = (_leak_cell(group, False) for group in structured)
    lines.append(_row(f"structured ({structured[0].labelled})", cells, width))
    lines.append("")
    lines.append(f"over-redaction on the {first.over.messages} messages without personal data")
    lines.append(_row("messages changed", (
        f"{s.over.changed_messages} {_pct(s.over.message_rate)}" for s in scores.values()), width))
    lines.append(_row("tokens changed", (_pct(s.over.token_rate) for s in scores.values()), width))
    return "\n".join(lines)


def _language_cell(score: Score, lang: str) -> str:
    kinds = score.kinds_by_lang.get(lang, {})
    everything = _sum_kinds("all", kinds.values())
    structured = _sum_kinds("structured", [v for k, v in kinds.items() if k in STRUCTURED_KINDS])
    over = score.over_by_lang.get(lang, OverRedaction())
    return f"{_pct(everything.leak_rate)} / {_pct(structured.leak_rate)} / {_pct(over.message_rate)}"


def format_languages(scores: Mapping[str, Score]) -> str:
    """Per language: leak rate over all labels / over structured labels / clean messages changed."""
    names = list(scores)
    first = next(iter(scores.values()))
    lines = ["per language: leak rate all / structured / clean messages changed",
             _row("lang (labelled)", names, 30)]
    for lang in sorted({lang for s in scores.values() for lang in s.over_by_lang}):
        labelled = _sum_kinds("all", first.kinds_by_lang.get(lang, {}).values()).labelled
        lines.append(_row(f"{lang} ({labelled})", (_language_cell(scores[n], lang) for n in names), 30))
    return "\n".join(lines)


def format_leaks(score: Score, limit: int = 40) -> str:
    """The first `limit` leaks and the changed clean messages, for debugging an engine."""
    lines = []
    for leak in score.leaks[:limit]:
        fragment = f" (fragment {leak.fragment!r})" if leak.fragment else ""
        lines.append(f"{leak.record_id:<8} {leak.kind:<11} {leak.value!r}{fragment}")
    if len(score.leaks) > limit:
        lines.append(f"... {len(score.leaks) - limit} more")
    if score.changed_clean_ids:
        lines.append("clean messages changed: " + ", ".join(score.changed_clean_ids))
    return "\n".join(lines)
