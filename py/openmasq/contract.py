"""The values the page and the workers share, with Python as their one source: the enums the engine
reports (entity kinds, skip reasons, error kinds, card statuses...), the kinds' labels and colours, the
provider presets and kinds, and the limits the page enforces before the engine does.

`openmasq build` writes `values()` into the site as `app/contract.js` (site/contract_js.py), with the
worker's RPC method list; the page and py-worker import it instead of repeating these values. Pure data:
no I/O, nothing but the engine's own tables read.
"""

from __future__ import annotations

from typing import get_args

from .chat.codecs.errors import ERROR_KINDS
from .chat.codecs.models import PRESETS
from .memory.journal import Action, JournalOrigin
from .memory.model import CATEGORIES, MAX_PROFILE_CHARS, ProposedInjection, Status
from .memory.select import ForcedKind, SkipReason
from .redact.kinds import CATEGORY_OF_KIND, category_of

# The interface's languages (web/app/i18n.js LANGS): every label below exists in each.
LANGUAGES = ("fr", "en")

# Colour family of each policy category (web/styles: `.fam-<family>`). A kind's colour follows its category,
# so a kind the engine adds is coloured as it is masked; an unknown category is a secret (fail closed).
FAMILY_OF_CATEGORY: dict[str, str] = {
    "name": "person", "username": "person",
    "company": "org", "company_id": "org",
    "email": "contact", "phone": "contact",
    "address": "place", "location": "place",
    "iban": "money", "card": "money", "number": "money",
    "national_id": "id", "dob": "id", "date": "id",
    "url": "tech", "ip": "tech", "path": "tech",
    "secret": "secret", "apikey": "secret",
}
FALLBACK_FAMILY = "secret"
FALLBACK_KIND = "other"  # the label a kind unknown to this build shows

# Every kind a span can carry: the detectors' fine kinds and the values the memory forces.
KINDS: tuple[str, ...] = tuple(dict.fromkeys([*CATEGORY_OF_KIND, *get_args(ForcedKind)]))

# kind -> (French, English): what a highlighted value's title and the previews call it.
KIND_LABELS: dict[str, tuple[str, str]] = {
    "person": ("Nom", "Name"), "username": ("Identifiant", "Username"), "org": ("Organisation", "Organisation"),
    "project": ("Projet", "Project"), "note": ("Note", "Note"),
    "email": ("E-mail", "E-mail"), "phone": ("Téléphone", "Phone"),
    "iban": ("IBAN", "IBAN"), "bic": ("BIC", "BIC"), "card": ("Carte bancaire", "Card number"),
    "nir": ("N° de sécurité sociale", "Social security no."), "dni": ("DNI", "DNI"), "nie": ("NIE", "NIE"),
    "nino": ("NINO", "NINO"), "ssn": ("SSN", "SSN"), "codice_fiscale": ("Codice fiscale", "Codice fiscale"),
    "steuer_id": ("N° fiscal allemand", "German tax ID"),
    "svnr": ("N° de sécurité sociale allemand", "German social security no."),
    "id_card": ("N° de carte d’identité", "ID card number"), "passport": ("N° de passeport", "Passport number"),
    "nif": ("NIF", "NIF"), "tfn": ("TFN", "TFN"), "tax_id": ("N° fiscal", "Tax number"),
    "record_id": ("N° de dossier", "Record number"),
    "siren": ("SIREN", "SIREN"), "siret": ("SIRET", "SIRET"), "vat": ("N° de TVA", "VAT number"),
    "cif": ("CIF", "CIF"), "ein": ("EIN", "EIN"), "abn": ("ABN", "ABN"),
    "sort_code": ("Code guichet", "Sort code"), "account_number": ("N° de compte", "Account number"),
    "url": ("Adresse web", "Web address"), "domain": ("Domaine", "Domain"), "site": ("Site web", "Website"),
    "profile": ("Profil en ligne", "Online profile"),
    "ipv4": ("Adresse IP", "IP address"), "ipv6": ("Adresse IP", "IP address"), "mac": ("Adresse MAC", "MAC address"),
    "apikey": ("Clé d’API", "API key"), "jwt": ("Jeton", "Token"), "private_key": ("Clé privée", "Private key"),
    "password": ("Mot de passe", "Password"), "token": ("Secret", "Secret"),
    "address": ("Adresse", "Address"), "location": ("Lieu", "Place"), "dob": ("Date de naissance", "Date of birth"),
    "date": ("Date", "Date"), "path": ("Chemin", "Path"), "amount": ("Montant", "Amount"),
    "number": ("Nombre", "Number"), FALLBACK_KIND: ("Donnée sensible", "Sensitive value"),
}

# An error event of a send carries one of the codecs' kinds (a provider's failure, chat/codecs/errors.py) or
# one of the app's: a port's failure (worker/drive.py failure_event: `blocked` by the connection policy,
# `aborted` by the user; the others arrive as network or timeout) or the send flow's (worker/app.py).
APP_ERROR_KINDS = ("blocked", "aborted", "offline", "redaction", "preview_changed")

# Enum values the page shows, and the i18n key prefix of their labels (web/app/*strings.js, i18n.js; the
# kinds' labels come from KIND_LABELS above). tests/host/test_contract.py checks every value has a label.
ENUMS: dict[str, tuple[str, ...]] = {
    "kind": (*KINDS, FALLBACK_KIND),
    "skipReason": get_args(SkipReason),
    "errorKind": (*ERROR_KINDS, *APP_ERROR_KINDS),
    "injectionPolicy": get_args(ProposedInjection),
    "cardStatus": get_args(Status),
    "cardCategory": CATEGORIES,
    "journalAction": get_args(Action),
    "journalOrigin": get_args(JournalOrigin),
}
LABEL_PREFIX: dict[str, str] = {
    "kind": "kind.",
    "skipReason": "caption.skip.",
    "errorKind": "error.",
    "injectionPolicy": "memory.injection.",
    "cardStatus": "memory.status.",
    "cardCategory": "memory.cat.",
    "journalAction": "memory.action.",
    "journalOrigin": "memory.jorigin.",
}

# Journal entries whose before/after texts are enum values (memory/ops.py): the page labels them.
JOURNAL_VALUES: dict[tuple[str, str | None], str] = {
    ("confirm", None): "cardStatus",
    ("reject", None): "cardStatus",
    ("edit", "catégorie"): "cardCategory",
}

# Provider kinds as the page and worker/providers.py name them; `local` is the bundled model.
PROVIDER_KINDS = ("openai", "anthropic", "compatible", "local")
# The OpenAI-compatible servers the provider form offers as one-click presets (chat/codecs/models.py).
PAGE_PRESETS = ("ollama", "lmstudio", "llamacpp")
DEFAULT_BASE_URLS = {kind: PRESETS[kind].base_url for kind in ("openai", "anthropic")}

MAX_REMEMBER_CHARS = 4_000  # a selection longer than this is not a fact to remember ("remember this")


def journal_values(action: str, detail: str | None) -> str | None:
    """The enum a journal entry's before/after texts hold (their labels are the page's), or None: free text."""
    return JOURNAL_VALUES.get((action, detail)) or JOURNAL_VALUES.get((action, None))


def kind_labels() -> dict[str, dict[str, str]]:
    """lang -> {"kind.<kind>": label}: merged into the page's string tables."""
    return {lang: {f"kind.{kind}": labels[i] for kind, labels in KIND_LABELS.items()}
            for i, lang in enumerate(LANGUAGES)}


def kind_families() -> dict[str, str]:
    """kind -> colour family, through the kind's policy category."""
    return {kind: FAMILY_OF_CATEGORY.get(category_of(kind), FALLBACK_FAMILY) for kind in KINDS}


def presets() -> list[dict[str, object]]:
    return [{"id": name, "label": PRESETS[name].label, "base_url": PRESETS[name].base_url,
             "needs_key": PRESETS[name].needs_key} for name in PAGE_PRESETS]


def values() -> dict[str, object]:
    """Everything above as plain JSON data, the shape of the generated module's exports."""
    return {
        "LANGUAGES": list(LANGUAGES),
        "ENUMS": {name: list(items) for name, items in ENUMS.items()},
        "LABEL_PREFIX": LABEL_PREFIX,
        "KIND_LABELS": kind_labels(),
        "KIND_FAMILIES": kind_families(),
        "FALLBACK_FAMILY": FALLBACK_FAMILY,
        "FALLBACK_KIND": FALLBACK_KIND,
        "PROVIDER_KINDS": list(PROVIDER_KINDS),
        "PRESETS": presets(),
        "DEFAULT_BASE_URLS": DEFAULT_BASE_URLS,
        "LIMITS": {"maxProfileChars": MAX_PROFILE_CHARS, "maxRememberChars": MAX_REMEMBER_CHARS},
    }
