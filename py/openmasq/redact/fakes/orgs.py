"""Synthetic organisation names: legal form, descriptors (Atelier, Cabinet, Groupe...) and
connectors kept, the distinctive words replaced by invented brand-like words of similar length."""

from __future__ import annotations

import random

from ...patterns import deferred
from ..text import strip_accents
from ._shape import UPPER, distinct, match_case, scramble

# Legal forms, compared without dots and case ("S.A.R.L." = "SARL").
LEGAL_FORMS = frozenset(strip_accents(_f.replace(".", "")).casefold() for _f in [
    "SARL", "SAS", "SASU", "SA", "EURL", "SCI", "SNC", "SCOP", "SCM", "SCP", "SELARL", "SELAS", "GIE",
    "EI", "EIRL", "SEM", "Sàrl", "GmbH", "AG", "KG", "OHG", "UG", "GbR", "eV", "mbH", "Ltd", "Limited",
    "LLC", "Inc", "Corp", "Corporation", "Co", "PLC", "LLP", "LP", "SL", "SLU", "SpA", "Srl", "BV", "NV",
    "Oy", "AB", "AS", "A/S", "ApS", "SE", "Pty", "Cie", "Fils", "Associés", "Sons", "KGaA", "Sagl", "SNC",
    "SCRL", "SPRL", "SRL", "ASBL", "VZW",
])
# Words that say what kind of organisation it is, not which one: kept.
DESCRIPTORS = frozenset(strip_accents(_d).casefold() for _d in [
    "Atelier", "Ateliers", "Cabinet", "Studio", "Studios", "Groupe", "Group", "Maison", "Société", "Ste",
    "Boulangerie", "Pâtisserie", "Garage", "Pharmacie", "Librairie", "Agence", "Laboratoire",
    "Laboratoires", "Labo", "Clinique", "Institut", "Association", "Fondation", "Banque", "Hôtel", "Hotel",
    "Restaurant", "Café", "Boutique", "Centre", "Center", "Compagnie", "Entreprise", "Entreprises",
    "Établissements", "Ets", "Transports", "Transport", "Menuiserie", "Plomberie", "Imprimerie",
    "Éditions", "Editions", "Ferme", "Domaine", "Château", "Auberge", "Brasserie", "Bureau", "Conseil",
    "Conseils", "Consulting", "Consultants", "Solutions", "Technologies", "Technology", "Tech", "Systems",
    "Systèmes", "Services", "Service", "Partners", "Partenaires", "Associates", "Holding", "Industries",
    "Industrie", "Labs", "Lab", "Digital", "Software", "Media", "Médias", "Communication", "Immobilier",
    "Informatique", "Assurances", "Assurance", "Finance", "Capital", "Ventures", "Logistique", "Logistics",
    "Energy", "Énergie", "Énergies", "Santé", "Health", "Pharma", "Design", "Architecture", "Architectes",
    "Avocats", "Notaires", "Expertise", "Audit", "Formation", "Formations", "Sport", "Sports", "Jardins",
    "Coiffure", "Optique", "Travaux", "Bâtiment", "BTP", "Électricité", "Auto", "Automobiles", "Motors",
    "Foods", "Food", "Traiteur", "Fromagerie", "Boucherie", "Épicerie", "Cave", "Vins", "Wines", "Brewery",
    "Bakery", "Shop", "Store", "Market", "Coopérative", "Mutuelle", "École", "School", "Academy",
    "Académie", "Université", "University", "Collège", "Lycée", "Hôpital", "Hospital", "Clinic", "Office",
    "Agency", "Network", "Réseau", "Club", "Team", "Foundation", "Trust", "Society", "Institute",
    "Gallery", "Galerie", "Productions", "Production", "Films", "Records", "Music", "Musique", "Events",
    "Événements", "Voyages", "Travel", "Interim", "Intérim", "Nettoyage", "Sécurité", "Security",
    "Construction", "Constructions", "Bois", "Métal", "Métallerie", "Verrerie", "Textile", "Mode",
    "Beauté", "Bio", "Nature", "Environnement", "Group", "Holdings", "International", "Europe", "France",
    "Ingénierie", "Engineering", "Études", "Recherche", "Research", "Data", "Cloud", "Net", "Web",
    "Online", "Mobile", "Games", "Studio", "Creative", "Marketing", "Immobilière", "Foncière", "Gestion",
    "Management",
])
CONNECTORS = frozenset([
    "de", "du", "des", "d'", "la", "le", "les", "l'", "et", "&", "and", "of", "the", "und", "von", "der",
    "die", "das", "y", "di", "del", "della", "e",
])
# Famous brands and acronyms an invented word must never spell.
FAMOUS = frozenset([
    "total", "orange", "renault", "peugeot", "citroen", "michelin", "danone", "airbus", "thales", "safran",
    "vinci", "engie", "veolia", "alstom", "sanofi", "loreal", "chanel", "dior", "hermes", "cartier", "bic",
    "decathlon", "carrefour", "auchan", "leclerc", "lidl", "aldi", "amazon", "google", "apple",
    "microsoft", "meta", "tesla", "nike", "adidas", "puma", "zara", "ikea", "nestle", "nivea", "sony",
    "canon", "nikon", "intel", "oracle", "cisco", "dell", "lenovo", "samsung", "nokia", "siemens", "bosch",
    "bayer", "basf", "audi", "opel", "fiat", "ferrari", "lancia", "volvo", "skoda", "seat", "kia", "mazda",
    "honda", "toyota", "nissan", "lexus", "visa", "mastercard", "paypal", "uber", "lyft", "airbnb",
    "netflix", "spotify", "deezer", "ubisoft", "atos", "capgemini", "sodexo", "accor", "orano", "sncf",
    "ratp", "fnac", "darty", "boulanger", "sephora", "kiabi", "axa", "allianz", "generali", "aviva",
    "zurich", "hsbc", "barclays", "lloyds", "santander", "bbva", "unicredit", "natixis", "revolut",
    "qonto", "alan", "doctolib", "blablacar", "vinted", "deliveroo", "mirakl", "criteo", "dassault",
    "arkema", "legrand", "schneider", "valeo", "forvia", "lactalis", "bonduelle", "ricard", "pernod",
    "moet", "hennessy", "vuitton", "kering", "gucci", "prada", "armani", "versace", "fendi", "rolex",
    "omega", "swatch", "lego", "mattel", "hasbro", "pepsi", "coca", "evian", "volvic", "perrier", "vittel",
    "milka", "kinder", "ferrero", "nutella", "haribo", "mars", "twix", "oreo", "heinz", "kellogg",
    "unilever", "lipton", "knorr", "maggi", "dove", "gillette", "colgate", "pampers", "ariel", "tide",
    "durex", "velux", "rexel", "sonepar", "bouygues", "eiffage", "colas", "areva", "total", "ibm", "bnp",
    "edf", "gdf", "hp", "amd", "bmw", "sfr", "lvmh", "kpmg", "pwc", "ey", "bbc", "cnn", "nasa", "esa",
    "cnrs", "inserm", "onu", "otan", "nato", "un", "eu", "ue", "fbi", "cia", "nsa", "sncb", "rtl", "tf1",
    "lcl", "cic", "bpce", "maif", "macif", "maaf", "gmf", "rer", "tgv", "kfc", "ups", "dhl", "tnt", "cgt",
    "cfdt", "medef", "cnil", "urssaf", "caf", "cpam", "insee", "apec", "afpa", "smic", "pme", "tpe",
    "mgen", "cnp", "ovh", "sap", "sas", "ing", "abb", "ge", "gm", "vw", "ab", "ba", "af", "klm",
])

_ONSETS = (
    "Ver", "Tor", "Mal", "Cal", "Bre", "Dal", "Fen", "Gal", "Kor", "Lum", "Mar", "Nor", "Ost", "Pal", "Quen",
    "Ren", "Sal", "Tal", "Val", "Zen", "Bel", "Cor", "Dor", "Eli", "Fal", "Gor", "Hal", "Ils", "Jor", "Kel",
    "Lor", "Mor", "Nal", "Or", "Per", "Ral", "Sel", "Tel", "Ul", "Vel", "Wen", "Ar", "Bar", "Cer", "Del",
    "Er", "Fir", "Hel", "Is", "Lan", "Mel", "Nev", "Ol", "Pra", "Ros", "Sor", "Tre", "Vor", "Xan", "Zor",
    "Cas", "Bor", "Mon", "Lin", "Ser", "Tav", "Bra", "Cla", "Fla", "Gla", "Pla", "Sta", "Tra", "Vri", "Dra",
    "Kra", "Pre", "Gre", "Av", "Em", "Ev", "Al", "Cre", "Fre", "Bri", "Lo", "Mi", "Ne", "Ri", "Sa", "Te",
)
# Empty middles weigh four times: most invented words are onset + coda ("Verlac").
_MIDDLES = ("", "", "", "", "a", "e", "i", "o", "an", "en", "in", "or", "el", "ar", "il", "on", "al", "ri")
_CODAS = (
    "lac", "bel", "nex", "tis", "vane", "dor", "mont", "rive", "ane", "ys", "ium", "ora", "eo", "al", "ix",
    "on", "ea", "ance", "elle", "ine", "ac", "ec", "ard", "and", "ier", "ois", "ens", "ante", "ise", "ode",
    "ure", "ax", "ova", "ino", "ara", "ema", "ide", "ette", "is", "um", "ia", "ic", "ar", "en", "et", "ot",
    "as", "os", "ex", "yn", "aro", "ena", "ilo", "ence", "orra", "ais", "ont", "ay", "eau", "ac", "vin",
)
_ACRONYM_LETTERS = UPPER.replace("Q", "").replace("X", "")
MAX_ORG_LENGTH = 200  # longer: a plain scramble (linear on hostile input)
_TOKENS = deferred(r"\s+|&|[^\s&]+")


def _invented_word(rng: random.Random) -> str:
    while True:
        onset = rng.choice(_ONSETS)
        middle = rng.choice(_MIDDLES)
        coda = rng.choice(_CODAS)
        if middle and middle[0] in "aeiou" and onset[-1] in "aeiou":
            middle = middle[1:]
        if coda[0] in "aeiou" and (middle or onset)[-1:] in ("a", "e", "i", "o"):
            coda = coda[1:] or coda
        word = onset + middle + coda
        if word.casefold() not in FAMOUS and 4 <= len(word) <= 14:
            return word


def invented_word(length: int, rng: random.Random) -> str:
    """A brand-like invented word ("Verlac", "Torbel") whose length is near `length`."""
    best = _invented_word(rng)
    for _ in range(24):
        if abs(len(best) - length) <= 0:
            break
        candidate = _invented_word(rng)
        if abs(len(candidate) - length) < abs(len(best) - length):
            best = candidate
    return best


def _acronym(length: int, rng: random.Random) -> str:
    while True:
        word = "".join(rng.choice(_ACRONYM_LETTERS) for _ in range(length))
        if word.casefold() not in FAMOUS:
            return word


def _key(word: str) -> str:
    return strip_accents(word.replace(".", "")).casefold().strip(",;:()")


def _role(word: str) -> str:
    key = _key(word)
    if word in ("&", "+") or key in CONNECTORS or key.rstrip("'’") + "'" in CONNECTORS:
        return "connector"
    if key in LEGAL_FORMS:
        return "legal"
    if key in DESCRIPTORS or (key[2:] in DESCRIPTORS and key[:2] in ("l'", "d'", "l’", "d’")):
        return "descriptor"
    return "core"


def _is_acronym(word: str) -> bool:
    letters = word.replace(".", "")
    return letters.isalpha() and letters.isupper() and 2 <= len(letters) <= 4


def _fake_core_word(word: str, rng: random.Random) -> str:
    """An invented word for one distinctive word; acronyms stay acronyms, hyphen parts each
    get their own word, trailing punctuation stays."""
    stripped = word.rstrip(",;:")
    tail = word[len(stripped):]
    if _is_acronym(stripped):
        dotted = "." in stripped
        letters = _acronym(len(stripped.replace(".", "")), rng)
        return (".".join(letters) + "." if dotted else letters) + tail
    parts = stripped.split("-")
    fakes = [invented_word(len(p), rng) if p else p for p in parts]
    return "-".join(match_case(p, f) if p else f for p, f in zip(parts, fakes, strict=True)) + tail


def fake_org(real: str, rng: random.Random, *, locale: str | None = None) -> str:
    """"Atelier Torbel SARL" -> "Atelier Verlac SARL": legal form, descriptors and connectors
    kept, each distinctive word replaced by an invented word of similar length, casing mirrored.
    `locale` is accepted for symmetry with the name fakes; the invented words suit any language."""
    if len(real) > MAX_ORG_LENGTH:
        return scramble(real, rng)
    tokens = _TOKENS.findall(real)
    roles = ["space" if t.isspace() else _role(t) for t in tokens]
    if "core" not in roles:
        # Only generic words ("Boulangerie Moderne" aside): invent the last non-legal word.
        generic = ("descriptor", "connector")
        candidates = [i for i, r in enumerate(roles) if r in generic and tokens[i].isalpha()]
        if candidates:
            roles[candidates[-1]] = "core"

    def make(r: random.Random) -> str:
        pairs = zip(tokens, roles, strict=True)
        out = [(_fake_core_word(t, r) if role == "core" else t) for t, role in pairs]
        if out == tokens:
            return invented_word(len(real), r)
        return "".join(out)

    return distinct(real, rng, make)
