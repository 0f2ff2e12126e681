"""Person names found without a model: a lexicon first name with its surnames, the name after an
honorific, a first name in a strong context, and later echoes of a name already seen."""

from __future__ import annotations

import re
from collections.abc import Iterable

from . import lexicon
from .spans import Span
from .text import ZERO_WIDTH

# --- the text as the detectors read it --------------------------------------------------------------

_SPACES = str.maketrans(dict.fromkeys(
    "\u00a0\u202f\u2007\u2009\u200a\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2008\u205f\u3000\u1680", " "
))
_INVISIBLE = re.compile("[" + "".join(sorted(ZERO_WIDTH)) + "]")
_ODD_SPACE = re.compile("[\u00a0\u202f\u2007\u2009\u200a\u2000-\u2006\u2008\u205f\u3000\u1680]")


class TextView:
    """The text the detectors read: zero-width characters dropped (read as a space when they glue
    a lower-case letter to an upper-case one, "Jean\u200bDupont"), every Unicode space a plain
    space. `span()` maps a range of the view back to the original text."""

    __slots__ = ("origin", "original", "text")

    def __init__(self, original: str) -> None:
        self.original = original
        self.origin: list[int] | None = None
        if not _INVISIBLE.search(original):
            self.text = original.translate(_SPACES) if _ODD_SPACE.search(original) else original
            return
        kept: list[str] = []
        origin: list[int] = []
        for i, ch in enumerate(original):
            if ch in ZERO_WIDTH:
                glues_two_words = bool(kept) and kept[-1].islower() and _next_visible(original, i).isupper()
                if glues_two_words:
                    kept.append(" ")
                    origin.append(i)
                continue
            kept.append(ch)
            origin.append(i)
        self.text = "".join(kept).translate(_SPACES)
        self.origin = origin

    def span(self, start: int, end: int, kind: str, source: str, score: float) -> Span:
        if self.origin is not None:
            start, end = self.origin[start], self.origin[end - 1] + 1
        return Span(start, end, self.original[start:end], kind, source, score)


def _next_visible(text: str, index: int) -> str:
    for ch in text[index + 1 : index + 9]:
        if ch not in ZERO_WIDTH:
            return ch
    return ""


# --- words ---------------------------------------------------------------------------------------

# Letters (combining accents included: the text may be decomposed), joined by hyphens or apostrophes.
_WORD = re.compile(r"(?:[^\W\d_]|[\u0300-\u036f])+(?:[-‐‑'’ʼ](?:[^\W\d_]|[\u0300-\u036f])+){0,6}")
_ELISION = re.compile(r"(?:[ldjmnstcLDJMNSTC]|[Qq]u)['’ʼ]")
_JOINED_GAP = re.compile(r"[ \t]{1,3}")


def _is_link(text: str, end: int, next_start: int, word: str) -> bool:
    if end == next_start:
        return word[-1] in "'’ʼ"
    return (next_start - end == 1 and text[end] == " ") or bool(_JOINED_GAP.fullmatch(text, end, next_start))


class Words:
    """The words of a text view with their offsets. An elided article is its own word ("d'" +
    "Artagnan", "l'" + "entreprise"; "D'Angelo" and "L'Oréal" stay whole) and an English
    possessive is not part of the word ("Dupont's" -> "Dupont")."""

    __slots__ = ("count", "ends", "links", "starts", "text", "texts")

    def __init__(self, text: str) -> None:
        self.text = text
        starts: list[int] = []
        ends: list[int] = []
        texts: list[str] = []
        for match in _WORD.finditer(text):
            start, word = match.start(), match.group()
            if "'" in word or "’" in word or "ʼ" in word:
                elision = _ELISION.match(word)
                if elision and len(word) > elision.end() and (word[0].islower() or word[elision.end()].islower()):
                    starts.append(start)
                    ends.append(start + elision.end())
                    texts.append(word[: elision.end()])
                    start, word = start + elision.end(), word[elision.end() :]
                if len(word) > 3 and word[-2] in "'’" and word[-1] in "sS" and word[0].isupper():
                    word = word[:-2]
            starts.append(start)
            ends.append(start + len(word))
            texts.append(word)
        self.starts, self.ends, self.texts = starts, ends, texts
        self.count = len(texts)
        self.links = [_is_link(text, ends[k], starts[k + 1], texts[k]) for k in range(len(texts) - 1)]

    def __len__(self) -> int:
        return self.count

    def joined(self, i: int) -> bool:
        """Word i and word i+1 are parts of one name: a few spaces (or an elision) between them."""
        return 0 <= i < self.count - 1 and self.links[i]

    def initial_joined(self, i: int) -> bool:
        """Word i is an initial ("F.") followed by spaces and word i+1."""
        if i + 1 >= self.count or len(self.texts[i]) != 1 or not self.texts[i].isupper():
            return False
        end = self.ends[i]
        return self.text[end : end + 1] == "." and bool(
            _JOINED_GAP.fullmatch(self.text, end + 1, self.starts[i + 1])
        )

    def sentence_initial(self, i: int) -> bool:
        """Only opening punctuation between the previous sentence end (or the line start) and
        word i."""
        pos = self.starts[i] - 1
        limit = pos - 12
        while pos >= 0 and self.text[pos] in " \t\"'«»“”‘’([{*•–—->":
            if pos == limit:
                return False
            pos -= 1
        return pos < 0 or self.text[pos] in ".!?…:;\n\r"

    def previous_key(self, i: int) -> str:
        """The lookup key of word i-1 when only spaces separate it from word i."""
        if i == 0 or not self.joined(i - 1):
            return ""
        return lexicon.lexicon_key(self.texts[i - 1])

    def line_rest_is_empty(self, end: int) -> bool:
        """Only spaces and closing punctuation from `end` to the end of the line."""
        newline = self.text.find("\n", end)
        rest = self.text[end : newline if newline >= 0 else len(self.text)]
        return not rest.strip(" \t\r.,;!)")


# --- word classes --------------------------------------------------------------------------------

_PARTICLES = frozenset({
    "de", "du", "des", "d'", "van", "von", "vom", "zu", "zur", "ter", "ten", "da", "di", "del", "della",
    "dello", "dei", "degli", "dos", "das", "do",
})
_PARTICLE_SPELLINGS = _PARTICLES | {"d’", "dʼ"}
# Second words of two-word particles ("de la", "van der", "von dem").
_PARTICLE_TAILS = frozenset({"la", "l'", "le", "der", "den", "dem", "de", "het"})
# Capitalised particles only count before a capitalised name word ("Marine Le Pen").
_CAPITAL_PARTICLES = frozenset({
    "le", "la", "de", "du", "des", "van", "von", "da", "di", "del", "della", "dos", "das",
})
# A street, a school or a prize is named after the person: it is a place, not the person.
_NAMED_AFTER = frozenset({
    "rue", "avenue", "av", "bd", "boulevard", "place", "allee", "impasse", "chemin", "quai", "route",
    "cours", "square", "passage", "lycee", "college", "ecole", "universite", "hopital", "clinique",
    "stade", "gare", "station", "metro", "pont", "parc", "residence", "institut", "fondation", "prix",
    "salle", "amphi", "amphitheatre", "centre", "espace", "musee", "theatre", "bibliotheque",
    "mediatheque", "street", "road", "lane", "school", "hospital", "university", "strasse", "platz",
    "calle", "avenida", "plaza", "via", "viale", "piazza", "rua", "praca", "straat", "laan", "plein",
})
_LOCATIVES = frozenset({
    "a", "au", "en", "de", "du", "depuis", "vers", "pres", "sur", "in", "to", "from", "at", "near",
    "the", "of", "nach", "bei", "aus", "le", "la", "el", "il", "per", "para", "via",
})
# Months and days that are also first names.
_MONTH_NAMES = frozenset({
    "avril", "mai", "april", "may", "june", "august", "julio", "domingo", "domenica", "juni",
})
_DATE_WORDS = frozenset({
    "en", "in", "de", "d'", "of", "au", "debut", "fin", "mi", "since", "until", "depuis", "jusqu'en",
    "im", "am", "ab", "bis", "seit", "desde", "hasta", "di", "da", "em", "sinds", "tot", "this",
    "next", "last", "ce", "cet", "prochain", "dernier", "early", "late", "mid", "le", "du", "each",
})
# Legal forms that are never part of a person's name, whatever their spelling ("Sarl").
_ORG_AFFIX_KEYS = frozenset({
    "sarl", "sas", "sasu", "eurl", "gmbh", "inc", "ltd", "llc", "plc", "corp", "bv", "nv",
})
_VOWELS = frozenset("AEIOUYÀÂÄÉÈÊËÎÏÔÖÙÛÜ")
# Endings of common nouns, never of a surname we do not know ("Anna Kuchen" aside).
_NOUN_ENDINGS = (
    "tion", "sion", "ique", "isme", "ismus", "ung", "heit", "keit", "schaft", "ness", "ship", "itat",
)

# Strong contexts: the words right before a name (compared folded, word by word).
_INTRO_ANY_PHRASES = (
    "je m'appelle", "moi c'est", "mon prénom est", "mon nom est", "mon prénom c'est", "mon nom c'est",
    "my name is", "my name's", "call me", "ich heiße", "mein name ist", "me llamo", "mi nombre es",
    "mi chiamo", "il mio nome è", "chamo-me", "meu nome é", "ik heet", "mijn naam is",
)
_INTRO_FIRST_NAME_PHRASES = (
    "i'm", "i am", "je suis", "ich bin", "soy", "sono", "sou", "ik ben", "this is", "c'est",
)
_GREETING_PHRASES = (
    "bonjour", "bonsoir", "salut", "coucou", "hello", "hi", "hey", "dear", "cher", "chère", "merci",
    "merci beaucoup", "thanks", "thank you", "hallo", "liebe", "lieber", "hola", "querido", "querida",
    "estimado", "estimada", "ciao", "caro", "cara", "gentile", "olá", "oi", "beste", "hoi", "cc", "cci",
    "c/c", "signé", "signed", "de la part de", "bises", "bisous", "bye", "bravo", "félicitations",
    "congrats", "welcome", "bienvenue",
)
_CLOSING_LINE = re.compile(
    r"[ \t>]*(?:(?:bien )?cordialement|bien [àa] vous|sinc[èe]rement|amicalement|amiti[ée]s|bises|bisous|"
    r"[àa] bient[ôo]t|merci(?: beaucoup| d'avance)?|bonne (?:journ[ée]e|soir[ée]e)|best(?: regards)?|"
    r"(?:kind |warm |best )?regards|cheers|thanks|thank you|many thanks|sincerely|"
    r"yours(?: sincerely| truly)?|"
    r"all the best|mit freundlichen gr(?:ü|ue)(?:ß|ss)en|mfg|(?:viele|liebe|beste) gr(?:ü|ue)(?:ß|ss)e|"
    r"saludos|un saludo|atentamente|un abrazo|cordiali saluti|saluti|distinti saluti|un abbraccio|"
    r"atenciosamente|cumprimentos|abra[çc]os|met vriendelijke groet(?:en)?|groeten|--|—)"
    r"[ \t]*[,.!]?[ \t]*",
    re.IGNORECASE,
)
_INTRO_GAP = re.compile(r"[ \t]{0,3}:?[ \t]{1,3}")
_GREETING_GAP = re.compile(r"[ \t]{0,3}[:,]?[ \t]{1,3}")
_PHRASE_GAP = re.compile(r"[ \t,]{1,3}")
_LIST_LINK = re.compile(r"[ \t]*(?:,|&|\+|et|and|und|y|e|en)[ \t]+", re.IGNORECASE)
_LEGAL_FORM_AFTER = re.compile(r",?[ \t]{1,3}([^\s,;:!?()]{1,12})")


class _Scan:
    """One detection pass over a text: the words, the strong-context positions and what was
    found so far."""

    def __init__(self, view: TextView, known: Iterable[str]) -> None:
        self.view = view
        self.words = Words(view.text)
        # Starts of the first names that continue a greeted list ("Bonjour Marie et Paul").
        self.greeted: set[int] = set()
        self.found: list[tuple[int, int, str, float]] = []  # word range [i, j), source, score
        self.name_word_memo: dict[tuple[int, bool], bool] = {}
        # End of the last Title Case heading seen: none of its words starts a name.
        self.heading_end = 0
        self.known: set[str] = set()
        for value in known:
            self.known.update(_name_keys(value))

    # --- word predicates --------------------------------------------------------------------

    def is_capitalised(self, i: int) -> bool:
        return self.words.texts[i][0].isupper()

    def is_all_caps(self, i: int) -> bool:
        word = self.words.texts[i]
        return word.isupper() and sum(ch.isalpha() for ch in word) >= 2

    def is_month_use(self, i: int) -> bool:
        """A month-like word used as a date ("en avril", "in May 2024", "3 June")."""
        words = self.words
        if lexicon.lexicon_key(words.texts[i]) not in _MONTH_NAMES:
            return False
        text = words.text
        after = text[words.ends[i] : words.ends[i] + 3].lstrip(" \t")
        before = text[max(0, words.starts[i] - 3) : words.starts[i]].rstrip(" \t")
        if after[:1].isdigit() or before[-1:].isdigit():
            return True
        return words.previous_key(i) in _DATE_WORDS

    def is_ambiguous_first_name(self, i: int) -> bool:
        """A first name that is also an everyday word here: it needs a known or ALL-CAPS surname."""
        word = self.words.texts[i]
        if lexicon.is_homograph(word) or self.is_month_use(i):
            return True
        if lexicon.is_generic_term(word) and not lexicon.is_calendar_abbreviation(word):
            return True  # "Jan" is a month only when written as a date
        if lexicon.is_stopword(word) and self.words.sentence_initial(i):
            return True
        if lexicon.is_place(word):
            return self.words.sentence_initial(i) or self.words.previous_key(i) in _LOCATIVES
        return False

    def is_name_word(self, i: int, *, after_particle: bool = False) -> bool:
        """A capitalised word that can be part of a person's name (a surname, another first
        name, an unknown name), not a function word, label, place, legal form or title."""
        key = (i, after_particle)
        known = self.name_word_memo.get(key)
        if known is None:
            known = self.name_word_memo[key] = self._is_name_word(i, after_particle=after_particle)
        return known

    def _is_name_word(self, i: int, *, after_particle: bool) -> bool:
        word = self.words.texts[i]
        if not word[0].isupper() or sum(ch.isalpha() for ch in word) < 2:
            return False
        if lexicon.is_legal_form(word) or lexicon.is_honorific(word) or lexicon.is_country(word):
            return False
        if self.is_month_use(i) or lexicon.lexicon_key(word).replace(" ", "") in _ORG_AFFIX_KEYS:
            return False
        if after_particle and lexicon.is_place(word):
            return False
        if lexicon.is_surname(word) or lexicon.is_first_name(word):
            return not lexicon.is_stopword(word) or len(word) >= 4
        if lexicon.is_stopword(word) or lexicon.is_generic_term(word) or lexicon.is_place(word):
            return False
        return not lexicon.lexicon_key(word).endswith(_NOUN_ENDINGS)

    def all_caps_between(self, i: int, end: int) -> bool:
        return all(self.is_all_caps(k) for k in range(i, end) if self.is_capitalised(k))

    def is_strong_surname(self, i: int) -> bool:
        return self.is_all_caps(i) or lexicon.is_surname(self.words.texts[i])

    def particles_at(self, i: int) -> int:
        """How many words from i form a name particle ("de", "de la", "van der", "d'", "Le"),
        0 when none or when no name word follows."""
        words = self.words
        key = lexicon.lexicon_key(words.texts[i])
        count = 0
        if words.texts[i][0].islower() and key in _PARTICLES:
            count = 1
            next_key = lexicon.lexicon_key(words.texts[i + 1]) if i + 1 < words.count else ""
            if words.joined(i) and next_key in _PARTICLE_TAILS:
                count = 2
        elif words.texts[i][0].isupper() and key in _CAPITAL_PARTICLES:
            count = 1
        else:
            return 0
        last = i + count - 1
        if last + 1 < words.count and words.joined(last) and self.is_name_word(last + 1, after_particle=True):
            return count
        return 1 if count == 2 and words.joined(i) and self.is_name_word(i + 1, after_particle=True) else 0

    # --- name shapes --------------------------------------------------------------------------

    def name_tail(self, i: int, *, limit: int = 3) -> tuple[int, int, bool]:
        """The name words from word i: returns (end word index, number of name words, whether one
        of them is a known surname, in ALL CAPS or after a particle). Particles are taken only
        before a name word, an initial only after first names ("John F. Kennedy", not "Dupont M.
        Durand"); more than `limit` name words is a Title Case heading, not a name."""
        words = self.words
        j, end, count, strong, only_first_names = i, i, 0, False, True
        while j < words.count:
            particles = self.particles_at(j)
            if particles:
                j += particles
            elif only_first_names and words.initial_joined(j) and self.is_name_word(j + 1):
                j += 1
            if j >= words.count or not self.is_name_word(j, after_particle=particles > 0):
                break
            count += 1
            # A particle before a capitalised word is as telling as a known surname.
            strong = strong or particles > 0 or self.is_strong_surname(j)
            only_first_names = only_first_names and lexicon.is_first_name(words.texts[j])
            j = end = j + 1
            if count > limit:
                self.heading_end = max(self.heading_end, self.run_end(j))
                return i, 0, False
            if not words.joined(j - 1):
                break
        return (end, count, strong) if count else (i, 0, False)

    def run_end(self, j: int) -> int:
        """The end of the run of joined name words through word j."""
        words = self.words
        while j < words.count and words.joined(j - 1) and self.is_name_word(j):
            j += 1
        return j

    def full_name_at(self, i: int) -> tuple[int, float] | None:
        """A lexicon first name and one to three surname-like words ("Jean Dupont", "Jean de La
        Fontaine", "Jean DUPONT", "Grace Kelly"): (end word index, score)."""
        words = self.words
        word = words.texts[i]
        if not lexicon.is_first_name(word) or not words.joined(i) or self.is_month_use(i):
            return None
        if words.previous_key(i) in _NAMED_AFTER:
            return None
        end, count, strong = self.name_tail(i + 1)
        if count == 0 or (self.is_all_caps(i) and not self.all_caps_between(i, end)):
            return None  # "JEAN Dupont": an ALL-CAPS first name goes with ALL-CAPS surnames
        if self.is_ambiguous_first_name(i) and not strong:
            return None
        if self.legal_form_follows(end - 1):
            return None
        return end, 0.95 if strong else 0.85

    def surname_first_at(self, i: int) -> tuple[int, float] | None:
        """An ALL-CAPS surname then first names ("DUPONT Jean", "MÜLLER Anna-Lena")."""
        words = self.words
        word = words.texts[i]
        if not self.is_all_caps(i) or not words.joined(i) or not self.is_name_word(i):
            return None
        if not lexicon.is_surname(word) and (len(word) < 3 or not any(ch in _VOWELS for ch in word)):
            return None  # an acronym, not a surname
        if i > 0 and words.joined(i - 1) and self.is_all_caps(i - 1):
            return None  # an ALL-CAPS heading
        j = i + 1
        while j < words.count and j - i <= 2 and words.texts[j][0].isupper() and not self.is_all_caps(j):
            if not lexicon.is_first_name(words.texts[j]) or lexicon.is_stopword(words.texts[j]):
                break
            j += 1
            if not words.joined(j - 1):
                break
        if j == i + 1 or self.legal_form_follows(j - 1):
            return None
        return j, 0.9

    def after_honorific(self, i: int) -> bool:
        """Word i comes right after a civility or title ("M. Dupont", "Mme Lefèvre", "le docteur
        Martin", "Herr Dr. Müller", "Sig.ra Rossi")."""
        text = self.words.text
        pos = self.words.starts[i]
        gap_start = pos
        while gap_start > 0 and pos - gap_start < 3 and text[gap_start - 1] in " \t":
            gap_start -= 1
        if gap_start == pos:
            return False
        chunk_start = gap_start
        while chunk_start > 0 and gap_start - chunk_start < 10 and not text[chunk_start - 1].isspace():
            chunk_start -= 1
        chunk = text[chunk_start:gap_start].lstrip("([«\"'“")
        return _is_honorific_chunk(chunk)

    def is_honorific_word(self, i: int) -> bool:
        """Word i (with its dots) is itself a civility, as in "M." or "Sig.ra"."""
        text = self.words.text
        end = self.words.ends[i]
        while end < len(text) and end - self.words.ends[i] < 4 and not text[end].isspace():
            end += 1
        return _is_honorific_chunk(text[self.words.starts[i] : end])

    def honorific_name_at(self, i: int) -> tuple[int, float] | None:
        """The name after an honorific, known to the lexicon or not ("M. Dupont", "Maître
        Garnier", "Mme de La Tour"): never the honorific itself."""
        if self.words.previous_key(i) in _NAMED_AFTER:
            return None
        end, count, _ = self.name_tail(i, limit=4)
        if count == 0 or self.legal_form_follows(end - 1):
            return None
        return end, 0.9

    def legal_form_follows(self, j: int) -> bool:
        """A legal form right after word j: "Jean Dupont SARL" is a company."""
        match = _LEGAL_FORM_AFTER.match(self.words.text, self.words.ends[j])
        if not match:
            return False
        chunk = match.group(1)
        return lexicon.is_legal_form(chunk) or lexicon.is_legal_form(chunk.removesuffix("."))

    # --- context -------------------------------------------------------------------------------

    def context_name_at(self, i: int) -> tuple[int, float] | None:
        """A name in a strong context: an introduction ("je m'appelle X", "my name is X"), a
        greeting or sign-off ("Bonjour X,", "Dear X", "cc X", "signé X"), or a signature line
        after a closing ("Cordialement,\nX")."""
        words = self.words
        if self.phrase_before(i, _INTRO_ANY, _INTRO_GAP):
            end, count, _ = self.name_tail(i)
            return (end, 0.85) if count else None
        if self.after_closing_line(i):
            return self.signature_at(i)
        greeted = words.starts[i] in self.greeted or self.phrase_before(i, _GREETING, _GREETING_GAP)
        if not greeted and not self.phrase_before(i, _INTRO_FIRST_NAME, _INTRO_GAP):
            return None
        if not lexicon.is_first_name(words.texts[i]) or self.is_all_caps(i):
            return None
        if self.is_ambiguous_first_name(i) and not self.ends_phrase(i):
            return None
        return i + 1, 0.85

    def phrase_before(self, i: int, phrases: frozenset[str], gap: re.Pattern[str]) -> bool:
        """One of `phrases` ends right before word i ("je m'appelle", "Bonjour,")."""
        words = self.words
        if i == 0 or not gap.fullmatch(words.text, words.ends[i - 1], words.starts[i]):
            return False
        if lexicon.lexicon_key(words.texts[i - 1]) not in _PHRASE_ENDS:
            return False
        keys: list[str] = []
        k = i - 1
        while k >= 0 and len(keys) < _LONGEST_PHRASE:
            keys.insert(0, lexicon.lexicon_key(words.texts[k]))
            if " ".join(keys) in phrases:
                return True
            if k == 0 or not (words.ends[k - 1] == words.starts[k] or _PHRASE_GAP.fullmatch(
                words.text, words.ends[k - 1], words.starts[k]
            )):
                return False
            k -= 1
        return False

    def after_closing_line(self, i: int) -> bool:
        """Word i opens a line that follows a closing line ("Cordialement,", "Best regards")."""
        text = self.words.text
        line_start = self.words.starts[i]
        while line_start > 0 and text[line_start - 1] in " \t":
            line_start -= 1
        if line_start == 0 or text[line_start - 1] != "\n":
            return False
        previous_end = line_start - 1
        for _ in range(3):  # up to two blank lines between the closing and the name
            previous_start = text.rfind("\n", max(0, previous_end - 60), previous_end) + 1
            line = text[previous_start:previous_end].rstrip("\r")
            if line.strip():
                return previous_end - previous_start <= 60 and bool(_CLOSING_LINE.fullmatch(line))
            if previous_start == 0:
                return False
            previous_end = previous_start - 1
        return False

    def signature_at(self, i: int) -> tuple[int, float] | None:
        """A signature line: one to three name words filling the line, the first a known first
        name unless there are several words ("Cordialement,\\nKarlo Vexmir")."""
        end, count, _ = self.name_tail(i)
        if count == 0 or not self.words.line_rest_is_empty(self.words.ends[end - 1]):
            return None
        if count == 1 and not lexicon.is_first_name(self.words.texts[i]):
            return None
        return end, 0.8

    def ends_phrase(self, i: int) -> bool:
        """Word i is followed by punctuation, a line break or the end of the text."""
        after = self.words.text[self.words.ends[i] : self.words.ends[i] + 3].lstrip(" \t")
        return not after or after[0] in ",.;:!?)\n\r"

    def extend_list(self, end: int) -> None:
        """"Bonjour Marie et Paul," / "cc Anna, Ben": the next first name of the list gets the
        same context."""
        words = self.words
        link = _LIST_LINK.match(words.text, words.ends[end - 1])
        if not link:
            return
        k = end
        while k < words.count and words.starts[k] < link.end():
            k += 1
        if k < words.count and words.starts[k] == link.end() and lexicon.is_first_name(words.texts[k]):
            self.greeted.add(words.starts[k])

    # --- passes --------------------------------------------------------------------------------

    def find_names(self) -> None:
        """First pass, left to right: honorific names, full names, surname-first names, names
        in strong contexts. Every word of a name found becomes known for the second pass."""
        words = self.words
        i = 0
        while i < words.count:
            if not words.texts[i][0].isupper() and not self.particle_after_honorific(i):
                i += 1
                continue
            match, source = self.name_at(i)
            if match is None:
                i = max(i + 1, self.heading_end)
                continue
            end, score = match
            self.found.append((i, end, source, score))
            self.known.update(_word_keys(words.texts[i:end]))
            if source == "context":
                self.extend_list(end)
            i = end

    def particle_after_honorific(self, i: int) -> bool:
        """"Mevr. de Jong", "M. de Villepin": a lower-case particle opens the name."""
        return self.words.texts[i] in _PARTICLE_SPELLINGS and self.after_honorific(i)

    def name_at(self, i: int) -> tuple[tuple[int, float] | None, str]:
        if self.is_honorific_word(i) and self.next_is_capitalised(i):
            return None, ""
        if self.after_honorific(i):
            return self.honorific_name_at(i), "context"
        match = self.full_name_at(i) or self.surname_first_at(i)
        if match:
            return match, "lexicon"
        return self.context_name_at(i), "context"

    def next_is_capitalised(self, i: int) -> bool:
        words = self.words
        if i + 1 >= words.count:
            return False
        gap = words.text[words.ends[i] : words.starts[i + 1]]
        return len(gap) <= 6 and not gap.strip(" \t.") and words.texts[i + 1][0].isupper()

    def find_echoes(self) -> None:
        """Second pass: a capitalised word already known as part of a name (in this text or given
        as `known`) is that person ("Dupont", "DUPONT", "Dupont's"); adjacent ones form one span."""
        if not self.known:
            return
        words = self.words
        taken = self.taken_words()
        i = 0
        while i < words.count:
            if i in taken or not self.is_echo(i):
                i += 1
                continue
            end = i + 1
            while end < words.count and end not in taken and words.joined(end - 1) and self.is_echo(end):
                end += 1
            self.found.append((i, end, "lexicon", 0.8))
            i = end

    def taken_words(self) -> set[int]:
        return {k for start, end, _, _ in self.found for k in range(start, end)}

    def is_echo(self, i: int) -> bool:
        word = self.words.texts[i]
        if not word[0].isupper() or lexicon.lexicon_key(word) not in self.known or self.is_month_use(i):
            return False
        if self.is_honorific_word(i) and self.next_is_capitalised(i):
            return False
        if lexicon.is_stopword(word) or lexicon.is_generic_term(word):
            # "Will", "Page": only mid-sentence and in Title case.
            return not self.words.sentence_initial(i) and not word.isupper()
        return True

    def spans(self) -> list[Span]:
        words = self.words
        out: list[Span] = []
        for start, end, source, score in sorted(self.found):
            out.append(self.view.span(words.starts[start], words.ends[end - 1], "person", source, score))
        return out




def _phrase_keys(phrases: Iterable[str]) -> frozenset[str]:
    """Phrases as the scanner sees them: folded words joined by one space ("c'est" -> "c' est")."""
    return frozenset(" ".join(lexicon.lexicon_key(w) for w in Words(p).texts) for p in phrases)


_INTRO_ANY = _phrase_keys(_INTRO_ANY_PHRASES)
_INTRO_FIRST_NAME = _phrase_keys(_INTRO_FIRST_NAME_PHRASES)
_GREETING = _phrase_keys(_GREETING_PHRASES)
_LONGEST_PHRASE = max(p.count(" ") + 1 for p in _INTRO_ANY | _INTRO_FIRST_NAME | _GREETING)
_PHRASE_ENDS = frozenset(p.rsplit(" ", 1)[-1] for p in _INTRO_ANY | _INTRO_FIRST_NAME | _GREETING)


def _is_honorific_chunk(chunk: str) -> bool:
    """A civility written as one chunk; lower-case forms only when spelled out ("le docteur
    Martin", not "me")."""
    if not chunk or not lexicon.is_honorific(chunk):
        return False
    return chunk[0].isupper() or len(chunk) >= 5


def _name_keys(value: str) -> set[str]:
    """The lookup keys of a name's own words: no particles, honorifics, initials or articles."""
    return _word_keys(Words(value).texts)


def _word_keys(words: Iterable[str]) -> set[str]:
    keys: set[str] = set()
    for word in words:
        key = lexicon.lexicon_key(word)
        if len(key) < 2 or key in _PARTICLES or key in _PARTICLE_TAILS or lexicon.is_honorific(word):
            continue
        keys.add(key)
    return keys


def detect_names(text: str, *, known: Iterable[str] = ()) -> list[Span]:
    """Person names in prose, without a model (kind "person"; source "lexicon" for lexicon names
    and echoes, "context" for names after an honorific or in a strong context). `known` holds
    names seen earlier in the conversation: their words count as names here too."""
    scan = _Scan(TextView(text), known)
    scan.find_names()
    scan.find_echoes()
    return scan.spans()
