"""The extraction prompt contract (reference 3.4) in French or English (the UI language), the wire
turns and the corrective retry; the JSON keys stay French in both (the parser's contract)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

Language = Literal["fr", "en"]

SILENT_LIMIT = 6
EXPLICIT_LIMIT = 25
MAX_EXCLUDED_NAMES = 60
RETRY_TAIL_CHARS = 4000  # the faulty reply is echoed back, its last 4000 characters only

_SCHEMA = (
    '{"profil": string|null, "faits": [{"entite": string, "alias": string|null, '
    '"cat": "personne"|"organisation"|"projet"|"autre", "fait": string}]}'
)
_EMPTY = '{"profil": null, "faits": []}'

_HEAD = {
    "fr": (
        "Tu extrais des faits DURABLES pour la mémoire à long terme d'un assistant. "
        "Réponds UNIQUEMENT par un objet JSON de la forme :\n" + _SCHEMA + "\nRègles :"
    ),
    "en": (
        "You extract DURABLE facts for an assistant's long-term memory. "
        "Answer ONLY with a JSON object of the form:\n" + _SCHEMA + "\nRules:"
    ),
}

_RULES = {
    "fr": (
        "Uniquement des faits durables : préférences, rôles, décisions, contexte stable. "
        "Jamais un état passager ni le sujet du jour.",
        '"entite" : le nom copié EXACTEMENT comme il est écrit dans le texte. "alias" : un AUTRE nom '
        "employé dans le texte pour la même entité (prénom seul, sigle, surnom, e-mail), copié "
        "exactement, sinon null.",
        '"fait" : une phrase courte sur l\'entité.',
        '"profil" : seulement si l\'utilisateur se décrit explicitement lui-même (métier, langue, '
        "préférences), sinon null. Toute personne ou organisation nommée dans le profil doit AUSSI "
        "figurer comme un fait à part entière.",
        "Maximum {limit} faits. Rien à retenir : " + _EMPTY + ".",
        "Jamais de mots de passe, de clés, d'IBAN ni de numéros de carte.",
        "Deux entités DIFFÉRENTES qui partagent un prénom ou un nom (homonymes, un projet et une "
        "société du même nom) restent deux faits distincts, chacun avec son nom complet : ne les "
        "fusionne pas et n'en omets aucune.",
    ),
    "en": (
        "Durable facts only: preferences, roles, decisions, stable context. Never a passing state "
        "or the topic of the day.",
        '"entite": the name copied EXACTLY as written in the text. "alias": ANOTHER name used in '
        "the text for the same entity (first name alone, acronym, nickname, e-mail), copied "
        "exactly, else null.",
        '"fait": one short sentence about the entity.',
        '"profil": only if the user explicitly describes themself (job, language, preferences), '
        "else null. Any person or organisation named in the profile must ALSO appear as a fact "
        "of its own.",
        "Maximum {limit} facts. Nothing to keep: " + _EMPTY + ".",
        "Never passwords, keys, IBANs or card numbers.",
        "Two DIFFERENT entities sharing a first or last name (namesakes, a project and a company "
        "with the same name) stay two distinct facts, each with its full name: never merge them "
        "and never leave one out.",
    ),
}

_EXCLUDE = {
    "fr": (
        "DÉJÀ EN MÉMOIRE : {names}. N'en répète pas ce qui est déjà connu : ne donne un fait sur "
        "elles que s'il est nouveau, et concentre-toi sur ce qui manque."
    ),
    "en": (
        "ALREADY IN MEMORY: {names}. Do not repeat what is already known about them: give a fact "
        "about them only if it is new, and focus on what is missing."
    ),
}

_EXPLICIT = {
    "fr": (
        "L'utilisateur a demandé explicitement de retenir quelque chose. Trouve QUOI dans les "
        "messages précédents (réponse de l'assistant comprise), uniquement à partir de ce texte, "
        "jamais de tes propres connaissances. Si aucun nom propre ne convient, mets dans "
        '"entite" un titre descriptif COURT (2 à 4 mots) avec "cat": "autre".'
    ),
    "en": (
        "The user explicitly asked to remember something. Find WHAT in the previous messages "
        "(the assistant's reply included), only from this text, never from your own knowledge. "
        'If no proper noun fits, put a SHORT descriptive title (2 to 4 words) in "entite" with '
        '"cat": "autre".'
    ),
}

_CORRECTIVE = {
    "fr": (
        "Ta réponse n'était pas un objet JSON valide. Réponds UNIQUEMENT l'objet JSON demandé — "
        "aucune prose, aucune balise."
    ),
    "en": (
        "Your answer was not a valid JSON object. Answer ONLY with the requested JSON object — "
        "no prose, no tags."
    ),
}

_LABELS = {
    "fr": {"user": "Utilisateur : ", "assistant": "Assistant : "},
    "en": {"user": "User: ", "assistant": "Assistant: "},
}


def fact_limit(explicit: bool) -> int:
    return EXPLICIT_LIMIT if explicit else SILENT_LIMIT


def _one_line(name: str) -> str:
    return " ".join(name.split())


def system_prompt(*, explicit: bool, exclude: Sequence[str] = (), language: Language = "fr") -> str:
    """The extraction instructions. Clauses are numbered in the order they appear (the
    reference numbered the exclusion clause 9 before clause 8: reference 12 item 17)."""
    clauses = [rule.replace("{limit}", str(fact_limit(explicit))) for rule in _RULES[language]]
    names = [n for n in (_one_line(name) for name in exclude) if n][:MAX_EXCLUDED_NAMES]
    if names:
        clauses.append(_EXCLUDE[language].replace("{names}", ", ".join(names)))
    if explicit:
        clauses.append(_EXPLICIT[language])
    numbered = "\n".join(f"{i}. {clause}" for i, clause in enumerate(clauses, start=1))
    return f"{_HEAD[language]}\n{numbered}"


def label_turn(role: str, text: str, language: Language = "fr") -> str:
    """An explicit-mode wire turn: "Utilisateur : ..." or "Assistant : ..."."""
    return _LABELS[language]["assistant" if role == "assistant" else "user"] + text


def join_turns(turns: Sequence[str]) -> str:
    """Turns of the wire, separated by blank lines."""
    return "\n\n".join(turns)


def corrective_messages(wire: str, faulty_reply: str, language: Language = "fr") -> list[dict[str, str]]:
    """The retry after an illegible reply: the same wire, the reply's tail as the assistant's
    turn, then the request to answer with the JSON object only."""
    return [
        {"role": "user", "content": wire},
        {"role": "assistant", "content": faulty_reply[-RETRY_TAIL_CHARS:]},
        {"role": "user", "content": _CORRECTIVE[language]},
    ]
