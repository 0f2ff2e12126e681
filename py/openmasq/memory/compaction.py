"""Fact compaction (reference 4): a card is updated, not appended to forever, and nothing is
silently lost: what a new fact replaces or evicts moves to the card's history, restorably."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from ..patterns import deferred
from ..redact import lexicon
from .memo import Memo
from .model import MAX_FACTS_CHARS, MAX_HISTORY, Card, Evidence, Origin, Sentence, Superseded, SupersededReason
from .normalise import normalise

# French function words removed before comparing two sentences, stored NORMALISED (reference 12
# item 2: the reference listed "était" with its accent, after folding accents, so it never matched).
# Negations are deliberately absent: "N'aime pas le café" is not "Aime le café".
GLUE_WORDS = frozenset({
    "est", "sont", "etait", "etaient", "ete", "etre", "sera", "seront", "ai", "as", "ont", "avait",
    "avaient", "le", "la", "les", "un", "une", "des", "de", "du", "au", "aux", "en", "pour", "par",
    "sur", "avec", "dans", "qui", "que", "qu", "il", "elle", "ils", "elles", "on", "comme", "et",
    "ou", "son", "sa", "ses", "leur", "leurs", "ce", "cette", "ces", "se", "lui",
})
TYPE_WORDS = frozenset({"personne", "organisation", "projet"})
MONTHS = frozenset({
    "janvier", "fevrier", "mars", "avril", "mai", "juin", "juillet", "aout", "septembre", "octobre",
    "novembre", "decembre", "january", "february", "april", "june", "july", "august", "september",
    "october", "november", "december",
})
# A negation that one side has and the other lacks reverses the meaning: never a restatement.
NEGATIONS = frozenset({"pas", "plus", "jamais", "non", "aucun", "aucune", "sans", "ni", "not", "no", "never"})

# Words that make two sentences compete: a new deadline replaces the old deadline. Matched as WHOLE
# words of the normalised text (reference 12 item 3: "role" is not in "controle", "poste" not in
# "postes" or "imposteur", "contact" not in "contacter").
ATTRIBUTE_WORDS: tuple[str, ...] = (
    "deadline", "echeance", "date limite", "date de livraison", "budget", "prix", "tarif", "montant",
    "email", "e mail", "adresse", "telephone", "portable", "contact", "poste", "role", "fonction",
    "statut", "delai", "salaire", "travaille chez", "employeur",
)

_FRAMING = deferred(
    r"\b(?:dans le cadre (?:de la|de l|du|des|de|d)|au sein (?:de la|de l|du|des|de|d)|en tant que?)\b"
)
_SENTENCE_END = deferred(r"[.!?]\s")
_CLAUSE_BREAK = deferred(r"[,;]\s{1,8}|\s{1,8}[-–—]\s{1,8}")
_END_PUNCT = ".!?"


# --- fast normalisation ------------------------------------------------------------------------

# Cleanup reads every sentence of the store on every change: a cache smaller than the store
# misses on every access (a least-recently-used cache thrashes under repeated full scans), so
# these hold a 10,000-card store (about 40,000 texts) with room to spare.
TEXT_CACHE = 1 << 17

_ACCENTS = deferred("[\u0300-\u036f]")
_LONE_DOT = deferred(r"(?<![A-Za-z0-9])\.|\.(?![A-Za-z0-9])")
# On bytes: `bytes.translate` reads a 256-byte table, several times faster than `str.translate`.
_ASCII_FOLD = bytes(code if chr(code).isalnum() or chr(code) in "@." else 32 for code in range(128))
_ASCII_FOLD += bytes(range(128, 256))  # never read: the text is ASCII by then


def _is_separator(ch: str) -> bool:
    """A character `normalise` turns into a space (neither letter, digit nor combining mark)."""
    return not ch.isalnum() and not unicodedata.category(ch).startswith("M")


_NORMALISED: Memo[str, str] = Memo(TEXT_CACHE)


def normalise_fast(text: str) -> str:
    """`normalise`, computed with C-level string operations whenever the folded text is ASCII
    letters and digits plus any punctuation (Latin text with accents, "€", "’", "«»"), and by
    `normalise` itself otherwise. Cleanup reads every card on every change: this keeps it fast
    (tests pin the equality)."""
    found = _NORMALISED.get(text)
    return found if found is not None else _NORMALISED.remember(text, _normalise_fast(text))


def _normalise_fast(text: str) -> str:
    folded = text.lower()
    if not folded.isascii():
        folded = _ACCENTS.sub("", unicodedata.normalize("NFKD", folded))
        if not folded.isascii():
            others = {ch for ch in folded if ord(ch) > 127}
            if not all(_is_separator(ch) for ch in others):
                return normalise(text)
            folded = folded.translate({ord(ch): " " for ch in others})
    return _without_lone_dots(folded.encode("ascii").translate(_ASCII_FOLD).decode("ascii"))  # ASCII by now


def _without_lone_dots(folded: str) -> str:
    """The end of `normalise_fast` on ASCII folded text: lone dots and runs of spaces out."""
    if "." in folded:
        # A dot before a space or at the end is lone (the usual sentence ends): no regex needed.
        # Blanking a lone dot never changes whether another dot is lone (both are non-alnum).
        folded = folded.replace(". ", "  ")
        if folded[-1] == ".":
            folded = folded[:-1]
        if "." in folded:
            folded = _LONE_DOT.sub(" ", folded)
    return " ".join(folded.split())


# --- sentences -------------------------------------------------------------------------------

def _is_abbreviation(text: str, start: int, dot: int) -> bool:
    """"M. Dupont", "J. Martin", "Dr. Roux": a period after an initial or an honorific ends no sentence."""
    word_start = max(text.rfind(" ", start, dot), text.rfind("\n", start, dot), start - 1) + 1
    word = text[word_start:dot + 1]
    return (len(word) == 2 and word[0].isalpha()) or lexicon.is_honorific(word)


_SPLIT: Memo[str, tuple[str, ...]] = Memo(TEXT_CACHE)


def split_sentences(text: str) -> tuple[str, ...]:
    """Split after `.`, `!` or `?` followed by whitespace (the punctuation stays with its sentence),
    never after an initial or an honorific; pieces trimmed, empties dropped."""
    found = _SPLIT.get(text)
    return found if found is not None else _SPLIT.remember(text, _split_sentences(text))


def _split_sentences(text: str) -> tuple[str, ...]:
    if not _SENTENCE_END.search(text):
        stripped = text.strip()
        return (stripped,) if stripped else ()
    pieces: list[str] = []
    start = 0
    last = len(text) - 1
    for i, ch in enumerate(text):
        if ch in _END_PUNCT and i < last and text[i + 1].isspace():
            if ch == "." and _is_abbreviation(text, start, i):
                continue
            piece = text[start:i + 1].strip()
            if piece:
                pieces.append(piece)
            start = i + 1
    tail = text[start:].strip()
    if tail:
        pieces.append(tail)
    return tuple(pieces)


def sentences_from_text(text: str, *, noted_at: int, origin: Origin = "user", evidence: Evidence | None = None,
                        cap: int = MAX_FACTS_CHARS) -> list[Sentence]:
    """One Sentence per sentence of a (trimmed, capped) text, all sharing provenance; a line break
    ends a sentence too (facts typed one per line need no final period)."""
    return [Sentence(piece, noted_at, origin, evidence)
            for line in text.strip()[:cap].splitlines() for piece in split_sentences(line)]


def explode(sentences: Iterable[Sentence]) -> list[Sentence]:
    """One sentence per Sentence (a record holding "A. B." becomes two with its provenance)."""
    out: list[Sentence] = []
    for sentence in sentences:
        pieces = split_sentences(sentence.text)
        if len(pieces) == 1 and pieces[0] == sentence.text:
            out.append(sentence)
        else:
            out.extend(replace(sentence, text=piece) for piece in pieces)
    return out


def joined_length(sentences: Sequence[Sentence]) -> int:
    return sum(len(s.text) for s in sentences) + max(len(sentences) - 1, 0)


def facts_text(sentences: Iterable[Sentence]) -> str:
    return " ".join(s.text for s in sentences)


# --- words -----------------------------------------------------------------------------------

def is_signal(word: str) -> bool:
    """A word whose change is an update, never a rephrasing: a number, a month, a negation."""
    if word in MONTHS or word in NEGATIONS:
        return True
    return not word.isalpha() and any(ch.isdigit() for ch in word)


def same_stem(a: str, b: str) -> bool:
    """Equal, or both at least 6 letters with the same first 6 ("associe" ~ "associee")."""
    return a == b or (len(a) >= 6 and len(b) >= 6 and a[:6] == b[:6])


_SINGLE_ATTRIBUTES = frozenset(a for a in ATTRIBUTE_WORDS if " " not in a)
_PHRASE_ATTRIBUTES = tuple((a.split()[0], a) for a in ATTRIBUTE_WORDS if " " in a)
_PHRASE_FIRSTS = frozenset(first for first, _ in _PHRASE_ATTRIBUTES)


class _Analysis(NamedTuple):
    """What compaction compares of one sentence, computed once: its content words, their stems
    (for O(1) coverage tests) and its attribute words. One is cached per distinct sentence, so
    it holds only tuples, strings and a dict of strings: the garbage collector stops tracking
    such objects, where each set or class instance kept alive would add to every full
    collection (a 10,000-card cleanup caches some 20,000 analyses)."""

    words: tuple[str, ...]
    # `word[:6]` of each word (the word itself when shorter), as the keys of one dict. Two words
    # are the same stem (`same_stem`) iff these are equal: a word under 6 letters is its own
    # key, and no key of a longer word is that short. So a word is covered iff its key is here,
    # and two sentences share a stem iff their keys meet.
    stems: dict[str, None]
    attributes: tuple[str, ...]  # sorted: the key of its shared frozenset in _ATTRIBUTE_SETS

_DROPPED_WORDS = GLUE_WORDS | TYPE_WORDS
_SIGNAL_WORDS = MONTHS | NEGATIONS
# The few distinct sets of attribute words (subsets of ATTRIBUTE_WORDS, in practice a handful).
_ATTRIBUTE_SETS: dict[tuple[str, ...], frozenset[str]] = {(): frozenset()}


_ANALYSES: Memo[str, _Analysis] = Memo(TEXT_CACHE)


def _analyse(text: str) -> _Analysis:
    found = _ANALYSES.get(text)
    return found if found is not None else _ANALYSES.remember(text, _analysis(text))


def _analysis(text: str) -> _Analysis:
    norm = normalise_fast(text)
    all_words = norm.split()
    framed = _FRAMING.sub(" ", norm).split() if ("cadre" in norm or "sein" in norm or "tant" in norm) else all_words
    # A list first: `dict.fromkeys` over a list is faster than over a generator.
    words = tuple(dict.fromkeys([w for w in framed if len(w) > 1 and w not in _DROPPED_WORDS]))
    attribute_key = _attribute_key(norm, all_words)
    stems = dict.fromkeys([w[:6] for w in words])
    return _Analysis(words, stems, attribute_key)


def _attribute_key(norm: str, all_words: list[str]) -> tuple[str, ...]:
    """The sorted attribute words of a normalised text (a key of _ATTRIBUTE_SETS)."""
    if _SINGLE_ATTRIBUTES.isdisjoint(all_words) and _PHRASE_FIRSTS.isdisjoint(all_words):
        return ()  # most sentences: two C-level scans of the word list, no set built
    present = set(all_words)
    attributes = present & _SINGLE_ATTRIBUTES
    for first, phrase in _PHRASE_ATTRIBUTES:
        if first in present and f" {phrase} " in f" {norm} ":
            attributes.add(phrase)
    attribute_key = tuple(sorted(attributes))
    if attribute_key not in _ATTRIBUTE_SETS:
        _ATTRIBUTE_SETS[attribute_key] = frozenset(attribute_key)
    return attribute_key


def content_words(text: str) -> tuple[str, ...]:
    """Normalised words that carry meaning: framing locutions ("dans le cadre de", "en tant que"),
    glue words, one-letter words and the type words (personne, organisation, projet) removed."""
    return _analyse(text).words


def attribute_words(text: str) -> frozenset[str]:
    """The attribute words (ATTRIBUTE_WORDS) the sentence holds as whole words."""
    return _ATTRIBUTE_SETS[_analyse(text).attributes]


def _has_signal(words: Sequence[str]) -> bool:
    """`is_signal` for any of the words (a set lookup first: most words are letters only)."""
    return any(w in _SIGNAL_WORDS or (not w.isalpha() and is_signal(w)) for w in words)


def _uncovered(words: Sequence[str], other: _Analysis) -> list[str]:
    stems = other.stems  # a word is covered iff word[:6] is here: the innermost loop of folding
    return [w for w in words if w[:6] not in stems]


_RESTATES: Memo[tuple[str, str], bool] = Memo(TEXT_CACHE)


def restates(a: str, b: str) -> bool:
    """Two sentences say the same thing: no changed number, month or negation, and either one is
    covered by the other, or each has at most one word of its own over a shared core of three."""
    found = _RESTATES.get((a, b))
    return found if found is not None else _RESTATES.remember((a, b), _restates(a, b))


def _restates(a: str, b: str) -> bool:
    stems_a, stems_b = _analyse(a), _analyse(b)
    if not stems_a.words or not stems_b.words:
        return False
    own_a, own_b = _uncovered(stems_a.words, stems_b), _uncovered(stems_b.words, stems_a)
    if _has_signal(own_a) or _has_signal(own_b):
        return False
    if not own_a or not own_b:
        return True
    return len(own_a) <= 1 and len(own_b) <= 1 and len(stems_a.words) - len(own_a) >= 3


def covers(big: str, small: str) -> bool:
    """Every content word of `small` is in `big` (so `big` says at least all of it)."""
    words_small = content_words(small)
    return bool(words_small) and not _uncovered(words_small, _analyse(big))


# --- merging one fact --------------------------------------------------------------------------

@dataclass(frozen=True)
class FactMerge:
    """The live sentences after a merge and what left them (most recent first)."""

    sentences: tuple[Sentence, ...]
    superseded: tuple[Superseded, ...]
    changed: bool  # the live text differs (a restatement that keeps the old wording is no change)


@dataclass
class _Work:
    live: list[Sentence]
    placed: list[Sentence]
    removed: list[Superseded]
    now: int

    placed_ids: set[int] = field(default_factory=set)  # identities of `placed`, for O(1) tests

    def is_placed(self, sentence: Sentence) -> bool:
        return id(sentence) in self.placed_ids

    def place(self, sentence: Sentence) -> None:
        self.placed.append(sentence)
        self.placed_ids.add(id(sentence))

    def clear_placed(self) -> None:
        self.placed = []
        self.placed_ids = set()

    def supersede(self, sentence: Sentence, reason: SupersededReason) -> None:
        self.removed.append(Superseded(sentence, self.now, reason))


def _split_off_attribute(old: Sentence, new: Sentence, attrs: frozenset[str]) -> list[Sentence]:
    """What of `old` survives when `new` takes over its attribute: the clauses that carry none of
    the attributes, when they say something of their own (two content words, no number or month
    that likely belonged to the old value, not already in the new fact). "Refonte du site du
    client, deadline fin septembre." keeps "Refonte du site du client." (reference 12 item 3)."""
    clauses = [c.strip().rstrip(_END_PUNCT).strip() for c in _CLAUSE_BREAK.split(old.text)]
    rest = [c for c in clauses if c and not (attribute_words(c) & attrs)]
    if len(rest) == len(clauses) or not rest:
        return []
    text = ", ".join(rest)
    words = content_words(text)
    if len(words) < 2 or any(is_signal(w) for w in words) or covers(new.text, text):
        return []
    return [replace(old, text=text[0].upper() + text[1:] + ".")]


def _absorb(work: _Work, new: Sentence, reason: SupersededReason) -> None:
    """Drop the live sentences the new one says entirely. Nothing is lost, so nothing is logged,
    unless the new one negates them ("Aime le café" -> "N'aime plus le café"): that is a change."""
    kept: list[Sentence] = []
    for old in work.live:
        if old is new or work.is_placed(old) or not covers(new.text, old.text):
            kept.append(old)
        elif set(_uncovered(content_words(new.text), _analyse(old.text))) & NEGATIONS:
            work.supersede(old, reason)
    work.live = kept


def _replace_attribute_holders(work: _Work, piece: Sentence, reason: SupersededReason) -> bool:
    """The new fact takes over its attributes: the first sentence holding one is replaced in
    place (its other clauses may stay), any other holder leaves too. False: no holder."""
    attrs = attribute_words(piece.text)
    if not attrs:
        return False
    holders = [s for s in work.live if s is not piece and not work.is_placed(s) and attribute_words(s.text) & attrs]
    if not holders:
        return False
    rebuilt: list[Sentence] = []
    for sentence in work.live:
        if sentence is holders[0]:
            rebuilt.extend(_split_off_attribute(sentence, piece, attrs))
            if not any(s is piece for s in work.live):
                rebuilt.append(piece)
        elif any(sentence is h for h in holders):
            continue
        else:
            rebuilt.append(sentence)
    work.live = rebuilt
    for holder in holders:
        work.supersede(holder, reason)
    return True


def _merge_piece(work: _Work, piece: Sentence, prefer_new: bool, reason: SupersededReason) -> None:
    same = next((s for s in work.live if s.text == piece.text), None)
    if same is not None:  # already said word for word: the first record (and its evidence) stays
        work.place(same)
        return
    for i, old in enumerate(work.live):
        if restates(old.text, piece.text):
            if prefer_new or len(content_words(piece.text)) >= len(content_words(old.text)):
                work.live[i] = piece
                work.place(piece)
                if prefer_new:  # a restore or the user displaces a wording: keep it restorable
                    work.supersede(old, reason)
                _replace_attribute_holders(work, piece, reason)
                _absorb(work, piece, reason)
            return
    if not _replace_attribute_holders(work, piece, reason):
        work.live.append(piece)
    work.place(piece)
    _absorb(work, piece, reason)


def clamp(sentences: Sequence[Sentence], protected: Sequence[Sentence] = (),
          cap: int = MAX_FACTS_CHARS) -> tuple[list[Sentence], list[Sentence]]:
    """Evict whole sentences, oldest first (by noted time, then position), never a protected one
    while another remains, until the joined text fits; a single sentence still too long is cut."""
    kept = list(sentences)
    evicted: list[Sentence] = []
    while joined_length(kept) > cap and len(kept) > 1:
        candidates = [i for i, s in enumerate(kept) if not any(s is p for p in protected)]
        if not candidates:
            candidates = list(range(len(kept) - 1))  # only new sentences left: keep the last one
        oldest = min(candidates, key=lambda i: (kept[i].noted_at, i))
        evicted.append(kept.pop(oldest))
    if len(kept) == 1 and len(kept[0].text) > cap:
        kept[0] = replace(kept[0], text=kept[0].text[:cap])
    return kept, evicted


def merge_fact(existing: Sequence[Sentence], fact: Sentence, *, now: int, cap: int = MAX_FACTS_CHARS,
               prefer_new: bool = False, reason: SupersededReason = "replaced") -> FactMerge:
    """Fold one new fact (one or more sentences) into a card's live sentences (reference 4, fixed):
    a restatement keeps the richer wording (the new one if `prefer_new`) and logs nothing; else a
    fact carrying an attribute word replaces the sentences holding that attribute (the first in
    place, keeping its clauses without the attribute), which move to the history; else it is
    appended. Sentences the fact says entirely are absorbed. Then the card is clamped to `cap`,
    the new sentences protected, evicted ones moved to the history."""
    before = facts_text(existing)
    work = _Work(explode(existing), [], [], now)
    pieces = [p for p in explode([replace(fact, text=fact.text.strip()[:cap])]) if p.text]
    for piece in pieces:
        _merge_piece(work, piece, prefer_new, reason)
    kept, evicted = clamp(work.live, work.placed, cap)
    for sentence in evicted:
        work.supersede(sentence, "evicted")
    return FactMerge(tuple(kept), tuple(work.removed), facts_text(kept) != before)


def append_clamped(existing: Sequence[Sentence], added: Sequence[Sentence],
                   cap: int = MAX_FACTS_CHARS) -> tuple[list[Sentence], list[Sentence]]:
    """Concatenate and clamp, evicting the oldest first, nothing protected (the card merge)."""
    return clamp([*explode(existing), *explode(added)], (), cap)


# --- history -----------------------------------------------------------------------------------

def push_history(history: Sequence[Superseded], entries: Iterable[Superseded]) -> list[Superseded]:
    """New entries in front (most recent first), cut to MAX_HISTORY."""
    return [*entries, *history][:MAX_HISTORY]


def apply_fact(card: Card, fact: Sentence, *, now: int, prefer_new: bool = False,
               reason: SupersededReason = "replaced") -> FactMerge:
    """Merge a fact into a card in place (sentences and history; timestamps are the caller's)."""
    merged = merge_fact(card.sentences, fact, now=now, prefer_new=prefer_new, reason=reason)
    card.sentences = list(merged.sentences)
    card.history = push_history(card.history, merged.superseded)
    return merged


def restore_sentence(card: Card, index: int, *, now: int) -> FactMerge | None:
    """Bring a superseded sentence back (it wins against its competitor even when poorer); what
    it displaces moves to the history, so a restore can itself be restored. None: no such entry."""
    if not 0 <= index < len(card.history):
        return None
    entry = card.history[index]
    remaining = [*card.history[:index], *card.history[index + 1:]]
    merged = merge_fact(card.sentences, entry.sentence, now=now, prefer_new=True, reason="restored-over")
    displaced = [s for s in merged.superseded if s.sentence is not entry.sentence]
    card.sentences = list(merged.sentences)
    card.history = push_history(remaining, displaced)
    return merged


# --- recompaction ------------------------------------------------------------------------------

def fold(sentences: Sequence[Sentence], *, now: int) -> FactMerge:
    """Fold each sentence into the ones noted before it (restatements, attributes), then clamp.
    When the same sentences survive, the card is unchanged and keeps its order."""
    live = explode(sentences)
    before = facts_text(sentences)
    if len(live) < 2:
        return FactMerge(tuple(live), (), facts_text(live) != before)
    chronological = sorted(live, key=lambda s: s.noted_at)  # stable: ties keep their order
    work = _Work([chronological[0]], [], [], now)
    for sentence in chronological[1:]:
        work.clear_placed()  # each sentence is "the new fact" in turn
        _merge_piece(work, sentence, False, "replaced")
    kept, evicted = clamp(work.live, work.placed)
    if not evicted and sorted(s.text for s in kept) == sorted(s.text for s in live):
        return FactMerge(tuple(live), (), facts_text(live) != before)
    for sentence in evicted:
        work.supersede(sentence, "evicted")
    return FactMerge(tuple(kept), tuple(reversed(work.removed)), facts_text(kept) != before)


def _may_fold(sentences: Sequence[Sentence]) -> bool:
    """Whether folding could change anything: two sentences sharing a stem (a restatement or a
    coverage needs one) or an attribute word, a repeated text, a record holding two sentences,
    or a card over the cap. Cheap, linear in words: most cards are already compact."""
    if joined_length(sentences) > MAX_FACTS_CHARS:
        return True
    texts: set[str] = set()
    attrs: set[str] = set()
    stems: set[str] = set()
    for sentence in sentences:
        text = sentence.text
        if text in texts or split_sentences(text) != (text,):
            return True
        analysis = _analyse(text)
        own_attrs, own_stems = analysis.attributes, analysis.stems
        if not attrs.isdisjoint(own_attrs) or not stems.isdisjoint(own_stems):
            return True
        texts.add(text)
        attrs.update(own_attrs)
        stems.update(own_stems)
    return False


# Sentences per card up to which the pairwise test below runs before folding: it looks at n²/2
# pairs, folding at about as many with more bookkeeping; a card this long is rare (600 characters).
MAX_PAIRWISE = 16


def _some_pair_interacts(sentences: Sequence[Sentence]) -> bool:
    """Whether any two sentences could act on each other in `fold`: a shared attribute word, a
    repeated text, one covering the other (`covers`, which absorbs), or both having at most one
    word the other lacks (all that `restates` needs besides a core and unchanged signals, which
    are not checked: this errs towards folding); or a card over the cap, or a record holding
    several sentences. False means folding keeps every sentence where it is: each would be
    appended in turn, nothing evicted."""
    if len(sentences) > MAX_PAIRWISE or joined_length(sentences) > MAX_FACTS_CHARS:
        return True  # too many pairs to test, or clamping will evict
    seen: list[tuple[str, _Analysis]] = []
    for sentence in sentences:
        text = sentence.text
        if split_sentences(text) != (text,):
            return True
        own = _analyse(text)
        own_attrs, own_stems = _ATTRIBUTE_SETS[own.attributes], own.stems.keys()
        for other_text, other in seen:
            if text == other_text or not own_attrs.isdisjoint(other.attributes):
                return True
            # Uncovered words per side, counted by distinct stems: exact when it is zero (a
            # covering), never more than the words (so "at most one" errs towards folding).
            shared = len(own_stems & other.stems.keys())
            mine, theirs = len(own_stems) - shared, len(other.stems) - shared
            if shared and (not mine or not theirs or (mine <= 1 and theirs <= 1)):
                return True
        seen.append((text, own))
    return False


def _may_change(sentences: Sequence[Sentence]) -> bool:
    """Whether folding could change these sentences: the pairwise test on ordinary cards, the
    linear one on the rare long ones. False is certain."""
    return _some_pair_interacts(sentences) if len(sentences) <= MAX_PAIRWISE else _may_fold(sentences)


# Bump when folding (or `_may_fold`, the cap, sentence splitting) changes what it keeps: marks
# written by an older fold then no longer match, and every card is checked again once.
FOLD_VERSION = 1


def compact_mark(sentences: Sequence[Sentence]) -> str:
    """A digest of what folding reads (each sentence's text and noted time) and of the fold's
    version: equal marks, equal fold result. 64 bits: a stale mark passing for a fresh one is a
    1-in-2^64 event, and would only leave a card unfolded until its next change."""
    payload = "".join([f"{len(s.text)}:{s.text}@{s.noted_at};" for s in sentences])
    return hashlib.sha256(f"fold{FOLD_VERSION};{payload}".encode()).hexdigest()[:16]


def recompact(card: Card, *, now: int) -> bool:
    """Fold a card's sentences in place; True when its live text changed. Folding depends only
    on texts and noted times, and cleanup runs on every change: a card found compact keeps a mark
    of its sentences (`Card.compact_mark`, saved with it), so an unchanged card is not read again,
    even after a reload."""
    if not card.sentences:
        return False
    mark = compact_mark(card.sentences)
    if card.compact_mark == mark:
        return False
    if not _may_change(card.sentences):
        card.compact_mark = mark
        return False
    merged = fold(card.sentences, now=now)
    if not merged.changed:
        card.compact_mark = mark
        return False
    card.sentences = list(merged.sentences)
    card.history = push_history(card.history, merged.superseded)
    return True
