"""Synthetic project names: the words that say it is a project (Projet, Project, Operation...),
connectors and version tags kept, each name word replaced by an invented codename ("Orion" ->
"Kestrion", "Projet Merlebleu" -> "Projet Valdoris")."""

from __future__ import annotations

import random

from ...patterns import deferred
from .. import lexicon
from ._shape import UPPER, distinct, fold_key, match_case, scramble
from .orgs import CONNECTORS, DESCRIPTORS, FAMOUS, LEGAL_FORMS

# Words that say what kind of undertaking it is, in the languages of the UI: kept as written.
TYPE_WORDS = frozenset(fold_key(word) for word in [
    "Projet", "Project", "Projekt", "Proyecto", "Progetto", "Projeto", "Programme", "Program", "Programm",
    "Programa", "Programma", "Opération", "Operation", "Operación", "Operazione", "Operação", "Mission",
    "Misión", "Missione", "Missão", "Chantier", "Initiative", "Iniciativa", "Iniziativa", "Campagne",
    "Campaign", "Kampagne", "Campaña", "Campagna", "Plan", "Plano", "Piano", "Dossier", "Sprint", "Release",
    "Lot", "Phase", "Fase", "Étape", "Stage", "Pilote", "Pilot", "Prototype", "Prototyp", "Prototipo",
    "Проект", "Программа", "Операция", "Миссия", "Projekti", "Projet", "Proje", "Projekat", "Projektas",
])
# A version or an ordinal is not what identifies a project: "v2", "2.0", "2026", "MVP", "beta".
_VERSION = deferred(r"(?i)^(?:v?\d+(?:[.\-]\d+)*[a-z]?|mvp|poc|pov|beta|bêta|alpha|rc\d*|[ivx]{1,4})$")
_TOKENS = deferred(r"\s+|[^\s]+")

# Codenames read as names in any Latin-script language: no accents, no everyday word (the model
# may write "aria" in a reply, and restoring would turn it into the real project), an onset, an
# optional middle and a codename ending. 50 x 12 x 26 words: a conversation never runs short.
_ONSETS = (
    "Al", "Ar", "Ast", "Bel", "Bor", "Cael", "Cal", "Cor", "Cy", "Dra", "Dun", "El", "Ery", "Fal", "Fen",
    "Gal", "Hal", "Hel", "Is", "Ith", "Jun", "Kal", "Kes", "Lum", "Lyr", "Mar", "Mer", "Nex", "Nov", "Ny",
    "Ol", "Oph", "Or", "Pel", "Per", "Quil", "Ral", "Rhe", "Sel", "Sol", "Syl", "Tal", "Thal", "Tor", "Tyr",
    "Ul", "Val", "Ves", "Vor", "Zan",
)
_MIDDLES = ("", "", "", "", "a", "e", "i", "o", "y", "an", "er", "is")
_ENDINGS = (
    "ion", "ara", "ora", "ys", "ix", "on", "is", "eon", "ax", "ius", "ia", "enne", "ante", "ium", "aris",
    "os", "iel", "yx", "ova", "ire", "una", "ethe", "orn", "ade", "oris", "elle",
)
_ACRONYM_LETTERS = UPPER.replace("Q", "").replace("X", "").replace("W", "")
MAX_PROJECT_LENGTH = 200  # longer: a plain scramble (linear on hostile input)


def _codename(rng: random.Random) -> str:
    while True:
        onset, middle, ending = rng.choice(_ONSETS), rng.choice(_MIDDLES), rng.choice(_ENDINGS)
        if middle and middle[0] in "aeiouy" and onset[-1] in "aeiouy":
            middle = middle[1:]
        if (middle or onset)[-1] in "aeiouy" and ending[0] in "aeiouy":
            ending = ending[1:] or ending
        word = onset + middle + ending
        if 4 <= len(word) <= 12 and word.casefold() not in FAMOUS and not lexicon.is_common_word(word):
            return word


def codename(length: int, rng: random.Random) -> str:
    """An invented codename ("Kestrion", "Valdoris") whose length is near `length`."""
    best = _codename(rng)
    for _ in range(16):
        if len(best) == length:
            break
        candidate = _codename(rng)
        if abs(len(candidate) - length) < abs(len(best) - length):
            best = candidate
    return best


def _is_acronym(word: str) -> bool:
    letters = word.replace(".", "")
    return letters.isalpha() and letters.isupper() and 2 <= len(letters) <= 4


def _acronym(length: int, rng: random.Random) -> str:
    """Random capitals, never a famous name nor a company word ("SAGL", "GMBH": the project would
    read as a company)."""
    while True:
        word = "".join(rng.choice(_ACRONYM_LETTERS) for _ in range(length))
        key = word.casefold()
        if key not in FAMOUS and key not in LEGAL_FORMS and key not in DESCRIPTORS:
            return word


def _role(word: str) -> str:
    key = fold_key(word)
    if not key or key in TYPE_WORDS or word.casefold() in CONNECTORS or _VERSION.match(word.strip(",;:()")):
        return "kept"
    return "name"


def _fake_name_word(word: str, rng: random.Random, *, all_caps: bool) -> str:
    """A codename for one name word; an acronym stays an acronym (unless the whole name is in
    capitals: "PROJET ORION" is shouted, not abbreviated), hyphen parts each get their own
    codename, trailing punctuation stays."""
    stripped = word.rstrip(",;:")
    tail = word[len(stripped):]
    if _is_acronym(stripped) and not all_caps:
        letters = _acronym(len(stripped.replace(".", "")), rng)
        return (".".join(letters) + "." if "." in stripped else letters) + tail
    parts = stripped.split("-")
    fakes = [codename(len(part), rng) if part else part for part in parts]
    return "-".join(match_case(p, f) if p else f for p, f in zip(parts, fakes, strict=True)) + tail


def fake_project(real: str, rng: random.Random, *, locale: str | None = None) -> str:
    """"Projet Merlebleu v2" -> "Projet Valdoris v2": type words, connectors and version tags
    kept, each name word replaced by a codename of similar length, casing mirrored. A name with
    nothing but kept words gets a codename after its type word ("Projet 2" -> "Projet Kestrion
    2"), or becomes one. `locale` is accepted for symmetry with the name fakes; codenames suit
    any language."""
    if len(real) > MAX_PROJECT_LENGTH:
        return scramble(real, rng)
    tokens = _TOKENS.findall(real)
    roles = ["space" if token.isspace() else _role(token) for token in tokens]
    letters = [ch for ch in real if ch.isalpha()]
    all_caps = len(letters) > 1 and all(ch.isupper() for ch in letters)

    def make(r: random.Random) -> str:
        if "name" not in roles:
            return _named(tokens, r)
        pairs = zip(tokens, roles, strict=True)
        return "".join(_fake_name_word(t, r, all_caps=all_caps) if role == "name" else t for t, role in pairs)

    return distinct(real, rng, make)


def _named(tokens: list[str], rng: random.Random) -> str:
    """A codename for a name made of kept words only: after its first type word, else alone."""
    for i, token in enumerate(tokens):
        if fold_key(token) in TYPE_WORDS:
            name = match_case(token, codename(6, rng))
            return "".join([*tokens[: i + 1], " ", name, *tokens[i + 1 :]])
    text = "".join(tokens).strip()
    return match_case(text, codename(len(text), rng))
