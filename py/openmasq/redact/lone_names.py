"""Persons named by one word, or in a shape the full-name scanner (names.py) does not read: small recognisers,
one per signal, each returning person spans (source "lexicon"); the policy weighs them with the others.

- a first name alone: "Karim a validé le devis", "ma fille Chloé", "merci à léa", "tell Emily", "Will's going";
- a full name typed in lower case or in capitals: "jean-pierre martin", "EMILY JOHNSON";
- a civility before a name in any case: "m. leroy", "Herr kowalczuk";
- initials before a surname: "J.-L. Martin", "A. Kowalski";
- the value of a form field: "NOM : DURAND", "Prénom : Alice", "Last name: O'Neill".

How much a word needs around it depends on the word: a capitalised first name that is no everyday word, place,
brand or famous person's name is a person on its own; one that is ("Rose", "Will", "Florence") needs a word
before it that introduces a person (person_cues.txt: kinship and roles, greetings and thanks, verbs of
addressing someone); one typed in lower case needs such a word too, or a surname after it, or, when it is
none of the commonest words (frequent_words.txt), a conjunction or preposition before it (person_links.txt)
or to open a line."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..patterns import deferred
from . import lexicon, places
from .spans import Span
from .words import Words

# Ranked with the lexicon detectors (policy._SOURCE_RANK): on a tie, the full-name scanner (names.py) wins.
SOURCE = "lexicon"
SCORE = 0.6
MAX_NAME_WORDS = 4

# Words right before a cue's name that may stand between the cue and the name ("merci à Léa", "say hi to
# Tom", "danke an Jonas").
_LINK_WORDS = frozenset({"a", "à", "to", "an", "al", "au"})
# A name word right after these is what the place or the thing is named after ("rue Victor Hugo", "lycée
# Jules Ferry", "Saint Louis").
_NAMED_AFTER = frozenset({
    "rue", "avenue", "boulevard", "bd", "place", "allee", "impasse", "quai", "square", "street", "road",
    "lane", "strasse", "str", "platz", "weg", "via", "viale", "piazza", "corso", "calle", "plaza",
    "paseo", "ecole", "lycee", "college", "school", "hopital", "hospital", "clinique", "saint", "sainte", "st",
    "ste", "san", "santa", "sankt", "santo", "sao", "pont", "port", "mont", "monte", "fort", "cap", "lake", "mount",
    "salle", "stade", "gymnase", "centre", "center", "prix", "prize", "award", "loi", "law", "syndrome",
    "maladie", "theoreme", "theorem", "effet", "effect",
})
_FORM_LABELS = deferred(
    r"(?im)^[ \t*•\-|]*(?:nom(?: de famille| complet| et prénom)?|pr[ée]nom(?:\(s\))?|name|first[ -]?name|"
    r"last[ -]?name|family name|surname|full name|given name|vorname|nachname|familienname|nombre(?: completo)?|"
    r"apellidos?|nome(?: completo)?|cognome|titulaire(?: du compte)?|account holder|patient(?:e)?|paciente|"
    r"paziente|employ[ée]e?|salari[ée]e?|mitarbeiter(?:in)?|dipendente|empleado|candidat(?:e)?|candidate|"
    r"contact|contacto|contatto|interlocuteur|referent|référent|ansprechpartner(?:in)?|client(?:e)?|"
    r"kunde|kundin|signataire|signed|unterschrift|firmado|firmato)[ \t]*[:：][ \t]*"
    r"(?P<value>[^\W\d_][^\n\r,;:@/\d]{0,60}?)[ \t]*(?=$|[\r\n,;|(])"
)
_HONORIFIC = deferred(
    r"(?i)(?<![\w.])(?:m\.|mme\.?|mlle\.?|monsieur|madame|mademoiselle|mr\.?|mrs\.?|ms\.?|dr\.?|herrn?|frau|"
    r"sr\.|sra\.|srta\.|señor|señora|sig\.(?:ra|na)?|signor(?:a|ina)?|dott\.(?:ssa)?)[ \t]+"
    r"(?P<value>[^\W\d_][\w'’-]*(?:[ \t]+[^\W\d_][\w'’-]*){0,2})"
)
# "his name is X", "elle s'appelle X", "er heißt X", "se llama X", "si chiama X": whatever the word, a person.
_NAMING = deferred(
    r"(?i:\bname(?:'s| is| was)|\bcalled|\bnamed|s'appell?e(?:nt)?|s’appell?e(?:nt)?|\bnommée?|\bprénommée?|"
    r"\bheißt|\bheisst|\bnamens|\bse llama|\bllamad[oa]|\bsi chiama|\bchiamat[oa])[ \t]+"
    r"(?P<value>[A-ZÀ-ÖØ-Þ][^\W\d_]+(?:[-'’][^\W\d_]+)?(?:[ \t]+[A-ZÀ-ÖØ-Þ][^\W\d_]+(?:[-'’][^\W\d_]+)?){0,2})"
)
# A family named by its surname ("Familie Schneider", "la famille Martin", "the Okafor family" is left to names.py):
# a capitalised surname after the word, not an everyday word ("Familie Feuerstein" in a cartoon stays a name).
_FAMILY = deferred(
    r"(?<![\w])(?i:famille|familie|family|familia|famiglia|fam\.)[ \t]+"
    r"(?P<value>[A-ZÀ-ÖØ-Þ][^\W\d_]+(?:[-'’][A-ZÀ-ÖØ-Þ][^\W\d_]+)?)"
)
# A name written in a script without capitals (Chinese, Japanese, Korean, Arabic, Hebrew, Thai, Devanagari)
# inside a text in the Latin script: one to three words of it.
_FOREIGN_LETTERS = (
    "\u4e00-\u9fff\u3400-\u4dbf\u3040-\u30ff\uac00-\ud7af\u0600-\u06ff\u0750-\u077f\u0590-\u05ff"
    "\u0e00-\u0e7f\u0900-\u097f"
)
_FOREIGN_RUN = deferred(f"[{_FOREIGN_LETTERS}]+(?:[ \t][{_FOREIGN_LETTERS}]+){{0,2}}")
_LATIN_LETTER = deferred(r"[A-Za-zÀ-ÖØ-öø-ÿ]")
_FOREIGN_MAX_CHARS = 24
_OPENING_QUOTES = frozenset("«“\"'‘「『")
_INITIALS = deferred(
    r"(?<![\w.])(?P<value>(?:[A-Z]\.[ \t]?-?[ \t]?){1,3}[ \t]*[A-Z][^\W\d_]+(?:[-'’][^\W\d_]+)?)"
)


def _is_cue(key: str, *, weak: bool) -> bool:
    return key in lexicon.list_keys("person_cues.txt") or (weak and key in lexicon.list_keys("person_links.txt"))


def _is_excluded(word: str) -> bool:
    """A word that is never a lone name: an everyday word, function word, place, country, brand, famous
    person, request verb or an ambiguous name of the wider world's lists."""
    return (lexicon.is_common_word(word) or lexicon.is_stopword(word) or lexicon.is_homograph(word)
            or lexicon.is_weak_first_name(word) or lexicon.is_place(word) or lexicon.is_country(word)
            or lexicon.is_request_verb(word) or lexicon.is_famous_person(word)
            or lexicon.is_notorious(word, "company", commercial=True, people=True)
            or places.place_key_kind(lexicon.lexicon_key(word)) in ("famous", "region")
            or places.is_calendar_word(word)
            # A first name of the wider world's lists that is one of the commonest words ("Tore", the
            # German goals; "Precious"): a word first. Our own languages' names ("Pierre") stay names.
            or (lexicon.is_frequent_word(word) and not lexicon.is_core_first_name(word)))


def _in_place_name(words: Words, i: int) -> bool:
    """Word i is part of a town's or region's name of several words ("New York", "Saint Louis")."""
    for first in range(max(0, i - 2), i + 1):
        for last in range(max(i, first + 1), min(words.count, first + 3)):
            if all(words.joined(k) for k in range(first, last)):
                key = lexicon.lexicon_key(" ".join(words.texts[first : last + 1]))
                if places.place_key_kind(key):
                    return True
    return False


def _cued(words: Words, i: int, *, weak: bool = False) -> bool:
    """A word introducing a person right before word i, past "à"/"to" ("merci à léa", "say hi to Tom"), or
    before a comma ("Hi, Tom")."""
    k = i - 1
    if k >= 0 and words.joined(k) and words.texts[k].lower() in _LINK_WORDS:
        k -= 1
    if k < 0:
        return False
    gap = words.text[words.ends[k] : words.starts[k + 1]]
    return (words.joined(k) or gap.strip() == ",") and _is_cue(lexicon.lexicon_key(words.texts[k]), weak=weak)


def _verb_follows(words: Words, i: int) -> bool:
    """A verb a person does right after word i ("sara said", "romain a payé")."""
    if not words.joined(i) or words.texts[i + 1].lower() in ("à", "è", "é"):  # folded, they read as verbs
        return False
    return lexicon.lexicon_key(words.texts[i + 1]) in lexicon.list_keys("person_verbs.txt")


def _opens_line(words: Words, i: int) -> bool:
    line_start = words.text.rfind("\n", 0, words.starts[i]) + 1
    return not words.text[line_start : words.starts[i]].strip(" \t-*•>\"'«“")


def _named_after(words: Words, i: int) -> bool:
    return lexicon.lexicon_key(words.texts[i - 1]) in _NAMED_AFTER if i > 0 and words.joined(i - 1) else False


def _is_first_name(word: str) -> bool:
    """In a name list, and with a vowel when written in Latin letters ("mdp", "pwd" are abbreviations)."""
    return len(word) >= 3 and lexicon.is_first_name(word) and (not word.isascii() or _VOWEL.search(word) is not None)


_VOWEL = deferred(r"(?i)[aeiouy]")


def _surname_follows(words: Words, i: int, *, lower: bool) -> bool:
    if not words.joined(i):
        return False
    following = words.texts[i + 1]
    if lower and not following.islower():
        return False
    return _is_name_part(following)


def _is_name_part(word: str) -> bool:
    """A word that goes on a name typed in lower case after a first name: a surname or first name that is no
    function word nor a known homograph ("martin", "johnson" yes; "rose", "blanc", "king" no)."""
    if not (lexicon.is_surname(word) or lexicon.is_first_name(word)) or lexicon.is_stopword(word):
        return False
    return not lexicon.is_homograph(word)


def _starts_person(words: Words, i: int) -> bool:
    """Word i is a first name used as a person's name."""
    word = words.texts[i]
    if not _is_first_name(word) or _named_after(words, i) or _introduces_next_name(words, i):
        return False
    shape = "upper" if word.isupper() and len(word) > 1 else "capital" if word[0].isupper() else "lower"
    if shape == "upper" and words.text.upper() == words.text:
        # a text in capitals throughout: capitals say nothing, and every name reads as one that is also a word
        # ("MIA MADRE ASSUNTA"): a word introducing a person or a verb a person does still says it is one
        return ((_cued(words, i) or (_verb_follows(words, i) and not words.sentence_initial(i)))
                and not lexicon.is_stopword(word))
    if _is_excluded(word):
        if shape == "lower":
            return _cued(words, i) and _no_dictionary_word(word)
        return ((_cued(words, i) or (_verb_follows(words, i) and not words.sentence_initial(i)))
                and not lexicon.is_stopword(word))
    if shape == "upper":
        # An acronym ("IVA", "ANNA" in a heading) unless a person is introduced, a name word is next to it or,
        # for a name of four letters or more, a person's verb follows ("KEVIN a encore oublié").
        return (_cued(words, i, weak=True) or _name_word_beside(words, i)
                or (len(word) >= _UPPER_NAME_WITH_VERB and _verb_follows(words, i)
                    and (words.sentence_initial(i) or _opens_line(words, i))))
    if shape == "capital":
        return not (lexicon.is_frequent_word(word) and _coordinated_with_a_word(words, i))
    if _cued(words, i) or _surname_follows(words, i, lower=True) or _verb_follows(words, i):
        return True
    # A weaker sign ("avec karim", a line that opens on "karim") only for a name that is no frequent word
    # ("y azul", "léa" are left: both are among the commonest words).
    return not lexicon.is_frequent_word(word) and (_cued(words, i, weak=True) or _opens_line(words, i))


_UPPER_NAME_WITH_VERB = 4


def _introduces_next_name(words: Words, i: int) -> bool:
    """Word i is a word introducing a person that is also a name of the wider world's lists ("niña", "nena"),
    and a first name follows it ("mi niña valeria"): the cue, not the name's first word."""
    return (words.joined(i) and _is_cue(lexicon.lexicon_key(words.texts[i]), weak=False)
            and _is_first_name(words.texts[i + 1]))


def _no_dictionary_word(word: str) -> bool:
    """A first name in lower case that the small dictionary of everyday words does not hold, whatever else it
    is ("jordan" the country, "precious" the adjective of the wider world's name lists): after a word that
    introduces a person ("tell jordan", "ma fille india"), the person. "rose" and "will" are words."""
    return not (lexicon.is_common_word(word) or lexicon.is_stopword(word) or lexicon.is_homograph(word))


_COORDINATORS = frozenset({"o", "ou", "or", "y", "e", "et", "and", "oder", "und", "ni", "nor", "vs", "versus"})


def _coordinated_with_a_word(words: Words, i: int) -> bool:
    """Word i, a name that is also a word, listed with a word in lower case ("Jean ou chino", "blu o Viola",
    "Rose, blanc ou vert"): the word it also is. Past a comma only in a list ("Marie, merci" is a greeting)."""
    for step in (1, -1):
        j = i + step
        if not 0 <= j < words.count:
            continue
        if words.texts[j].lower() in _COORDINATORS:
            j += step
        elif not (_comma_between(words, min(i, j)) and _coordinator_beside(words, j, step)):
            continue
        if 0 <= j < words.count and _plain_lower_word(words.texts[j]):
            return True
    return False


def _comma_between(words: Words, k: int) -> bool:
    return words.text[words.ends[k] : words.starts[k + 1]].strip() == ","


def _coordinator_beside(words: Words, j: int, step: int) -> bool:
    k = j + step
    return 0 <= k < words.count and words.texts[k].lower() in _COORDINATORS


def _plain_lower_word(word: str) -> bool:
    """A word in lower case that is no pronoun or other function word ("Pierre ou moi" is a person)."""
    return (len(word) >= 3 and word.isalpha() and word.islower() and not lexicon.is_stopword(word)
            and (lexicon.is_frequent_word(word) or not lexicon.is_first_name(word)))


def _name_word_beside(words: Words, i: int) -> bool:
    before = words.texts[i - 1] if i > 0 and words.joined(i - 1) else ""
    after = words.texts[i + 1] if words.joined(i) else ""
    return any(w.isupper() and (lexicon.is_surname(w) or lexicon.is_first_name(w)) for w in (before, after) if w)


def _name_end(words: Words, i: int) -> int:
    """The last word of the name that starts at word i: the following name words of the same case, up to a
    first name after a surname, which starts the next name ("Marie Dupont Jean Dupont" is two); in lower case or
    in capitals, a word of the name lists only ("MIA MADRE ASSUNTA RIGUARDO": "RIGUARDO" is no name)."""
    first = words.texts[i]
    lower = first.islower()
    j = i
    while j + 1 < words.count and j - i + 1 < MAX_NAME_WORDS and words.joined(j):
        following = words.texts[j + 1]
        if _starts_next_name(words.texts[j], following):
            break
        if lower or (first.isupper() and len(first) > 1):  # in one case throughout, only a listed name word
            fits = (following.islower() if lower else following.isupper()) and _is_name_part(following)
        else:
            acronym = not first.isupper() and following.isupper() and len(following) <= 3
            fits = following[:1].isupper() and not acronym and not lexicon.is_stopword(following) and not (
                lexicon.is_common_word(following) and not lexicon.is_surname(following))
        if not fits:
            break
        j += 1
    return j


def _starts_next_name(word: str, following: str) -> bool:
    return not lexicon.is_first_name(word) and lexicon.is_first_name(following)


def _in_famous_name(words: Words, i: int) -> bool:
    """Word i is part of a famous person's name of up to four words, particles included ("Victor Hugo",
    "Simone de Beauvoir", "Gabriel García Márquez")."""
    for first in range(max(0, i - 3), i + 1):
        if any(not words.joined(k) for k in range(first, i)):
            continue
        for last in range(i, min(words.count, first + 4)):
            if last > i and not words.joined(last - 1):
                break
            if last > first and lexicon.is_famous_person(" ".join(words.texts[first : last + 1])):
                return True
    return False


def _first_name_spans(text: str, words: Words) -> Iterator[Span]:
    i = 0
    while i < words.count:
        if _starts_person(words, i) and not _in_famous_name(words, i) and not _in_place_name(words, i):
            j = _name_end(words, i)
            start, end = words.starts[i], words.ends[j]
            if not lexicon.is_famous_person(text[start:end]):
                yield Span(start, end, text[start:end], "person", SOURCE, SCORE)
            i = j + 1
            continue
        i += 1


def _name_value(value: str, *, any_case: bool) -> str:
    """The name words at the start of `value` (a form field's or a civility's), "" when none reads as a
    name: a value of everyday words ("Nom : à compléter") is no name."""
    parts = value.split()
    kept: list[str] = []
    for part in parts[:MAX_NAME_WORDS]:
        if kept and lexicon.is_stopword(part) and part.lower() not in {"de", "van", "von", "da", "di", "del", "le"}:
            break
        if kept and kept[0][:1].isupper() and part.islower() and not lexicon.is_stopword(part):
            break  # "Herr Kowalczuk wartet": the name was capitalised, the next word is not
        kept.append(part)
    while kept and lexicon.is_stopword(kept[-1]):
        kept.pop()
    if not kept:
        return ""
    names = [p for p in kept if lexicon.is_first_name(p) or lexicon.is_surname(p)]
    everyday = [p for p in kept if lexicon.is_common_word(p) and p not in names]
    if everyday and not names:
        return ""
    if not any_case and not any(p[:1].isupper() for p in kept):
        return ""
    return " ".join(kept)


def _pattern_spans(text: str, pattern: re.Pattern[str], *, any_case: bool) -> Iterator[Span]:
    for match in pattern.finditer(text):
        value = _name_value(match.group("value"), any_case=any_case)
        if value:
            start = match.start("value")
            yield Span(start, start + len(value), value, "person", SOURCE, SCORE)


def _initials_spans(text: str) -> Iterator[Span]:
    for match in _INITIALS.finditer(text):
        value = match.group("value")
        surname = re.split(r"[.\s]+", value)[-1]
        known = lexicon.is_surname(surname) or not lexicon.is_common_word(surname)
        if known and not lexicon.is_stopword(surname):
            yield Span(match.start("value"), match.end("value"), value, "person", SOURCE, SCORE)


def _foreign_script_spans(text: str) -> Iterator[Span]:
    """Short runs of a script without capitals in a text mostly in the Latin script ("Réunion avec 王伟 demain",
    "puis محمد علي"): a name, most often; a longer passage in that script is a text of its own, not a name."""
    runs = list(_FOREIGN_RUN.finditer(text))
    if not runs:
        return
    foreign = sum(len(run.group()) for run in runs)
    if len(_LATIN_LETTER.findall(text)) < 2 * foreign:
        return
    for run in runs:
        quoted = text[max(0, run.start() - 2) : run.start()].strip()[-1:] in _OPENING_QUOTES
        if len(run.group()) <= _FOREIGN_MAX_CHARS and not quoted:  # a quoted word is one to translate
            yield Span(run.start(), run.end(), run.group(), "person", SOURCE, SCORE)


def _unlisted_word(word: str) -> bool:
    """A capitalised word no list of ours holds, neither word, place, brand nor name: a nickname or a rare
    first name ("Bex", "Dunc", "Kalle")."""
    return (len(word) >= 2 and word.isalpha() and word[0].isupper() and not word.isupper()
            and _in_no_list(word))


def _in_no_list(word: str) -> bool:
    return not (lexicon.is_frequent_word(word) or lexicon.is_everyday_form(word) or lexicon.is_surname(word)
                or lexicon.is_first_name(word) or _is_excluded(word))


# Possessives before a word that introduces a person ("my brother", "mon collègue", "mi hermana", "meine Tochter").
_POSSESSIVES = frozenset({
    "my", "our", "your", "his", "her", "their", "mon", "ma", "mes", "notre", "nos", "ton", "ta", "tes", "son", "sa",
    "ses", "mi", "mis", "tu", "tus", "su", "sus", "nuestro", "nuestra", "mein", "meine", "meinem", "meinen",
    "meiner", "unser", "unsere", "dein", "deine", "sein", "seine", "ihr", "ihre", "mio", "mia", "miei", "mie",
    "tuo", "tua", "suo", "sua", "nostro", "nostra",
})


def _owned_cue_before(words: Words, i: int) -> bool:
    """A possessive, then a word that introduces a person, right before word i ("my brother jide")."""
    return (i >= 2 and words.joined(i - 2) and words.joined(i - 1) and words.texts[i - 2].lower() in _POSSESSIVES
            and _is_cue(lexicon.lexicon_key(words.texts[i - 1]), weak=False))


def known_to_the_writer(text: str, start: int) -> bool:
    """A possessive and a word that introduces a person right before `start` ("ma sœur Emily Dickinson", "my boss
    Herman Melville"): someone the writer knows, whatever their name."""
    words = Words(text[max(0, start - _KNOWN_WINDOW) : start] + "X")
    return _owned_cue_before(words, words.count - 1)


_KNOWN_WINDOW = 60


def _unlisted_lower_word(word: str) -> bool:
    """The same in lower case, three letters or more ("my brother jide"): a name typed the way chat is."""
    return len(word) >= 3 and word.isalpha() and word.islower() and _in_no_list(word)


def _cued_nickname_spans(text: str, words: Words) -> Iterator[Span]:
    """A word no list holds right after a word that introduces a person ("tell Bex", "merci à Nounou"), and the
    same kind of word coordinated with it ("tell Bex and Dunc"): a person the lists cannot know."""
    i = 0
    while i < words.count:
        word = words.texts[i]
        if (_unlisted_word(word) or (_unlisted_lower_word(word) and _owned_cue_before(words, i))) and _cued(
                words, i) and not words.sentence_initial(i):
            yield Span(words.starts[i], words.ends[i], words.texts[i], "person", SOURCE, SCORE)
            j = i + 2
            while (j < words.count and words.joined(j - 2) and words.joined(j - 1)
                   and words.texts[j - 1].lower() in _COORDINATORS and _unlisted_word(words.texts[j])):
                yield Span(words.starts[j], words.ends[j], words.texts[j], "person", SOURCE, SCORE)
                j += 2
            i = j - 1
        i += 1


# "Will's going to kill me", "Mo's bringing the grill": a contracted "is" or "has" and a verb after it (English).
_CONTRACTED_VERB = deferred(
    r"['’]s[ \t]+(?:[a-z]{2,}ing|gonna|got|been|back|late|off|not|never|always|still|just|already)\b"
)
_SEASONS = frozenset({"summer", "winter", "spring", "autumn", "fall"})


def _contraction_subject_spans(text: str, words: Words) -> Iterator[Span]:
    """A capitalised name as the subject of a contracted verb: a first name of the lists however common ("Will":
    a modal takes no "'s going"), or inside a sentence a word no list holds or a short one ("Bex", "Mo"). Months
    and seasons take it too, and are left."""
    for i, word in enumerate(words.texts):
        if not (word[0].isupper() and not word.isupper() and word.isalpha()):
            continue
        listed = lexicon.is_first_name(word) or lexicon.is_homograph(word) or lexicon.is_weak_first_name(word)
        if not listed and (words.sentence_initial(i) or not (_unlisted_word(word) or len(word) <= 3)):
            continue
        if (places.is_calendar_word(word) or word.lower() in _SEASONS or lexicon.is_famous_person(word)
                or (lexicon.is_stopword(word) and not lexicon.is_homograph(word))):  # "It's", "Let's"; not "Will"
            continue
        if contracted_verb_follows(text, words.ends[i]):
            yield Span(words.starts[i], words.ends[i], word, "person", SOURCE, SCORE)


def contracted_verb_follows(text: str, end: int) -> bool:
    return _CONTRACTED_VERB.match(text, end) is not None


def detect_lone_names(text: str) -> list[Span]:
    """Person spans of every recogniser above (overlaps included: the policy resolves them)."""
    words = Words(text)
    spans = list(_first_name_spans(text, words))
    spans += _cued_nickname_spans(text, words)
    spans += _contraction_subject_spans(text, words)
    spans += _pattern_spans(text, _FORM_LABELS, any_case=True)
    spans += _pattern_spans(text, _HONORIFIC, any_case=True)
    spans += (span for span in _pattern_spans(text, _FAMILY, any_case=False) if lexicon.is_surname(span.value))
    spans += _initials_spans(text)
    spans += _foreign_script_spans(text)
    spans += (Span(m.start("value"), m.end("value"), m.group("value"), "person", SOURCE, SCORE)
              for m in _NAMING.finditer(text) if not lexicon.is_famous_person(m.group("value")))
    return spans
