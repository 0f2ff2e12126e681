"""The generated training data of the on-device NER model (models/ner_train.py): texts of many shapes (chat,
lower case, forms, signatures, e-mail headers, rosters, CSV, markdown tables, code and log lines, lists) in
fr/en/de/es/it, with private people (PER), private organisations (ORG) and places (LOC) from Faker's locales and
the engine's place lists, and negatives labelled O (famous people, brands, public bodies, countries, homographs,
products). Deterministic for a seed. One held-out tenth of every name and place pool never appears in training:
the held-out set is made of it, so its figures measure names the model never saw.

Labelling rule: PER = any private person's name or part of it (lone first name, lone surname, initials + surname),
in any case; famous people = O. ORG = private organisations (companies, shops, schools, clinics, firms,
associations); famous brands and public bodies = O. LOC = cities, towns, regions, districts; countries = O."""

from __future__ import annotations

import importlib
import random
import re
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))

from openmasq.redact import lexicon  # noqa: E402

LANGS = ("fr", "en", "de", "es", "it")
# Faker locales per language (the texts' own people), and of other origins (people everywhere have them).
OWN_LOCALES = {
    "fr": ("fr_FR", "fr_CH", "fr_CA"), "en": ("en_US", "en_GB", "en_AU", "en_IE", "en_NZ"),
    "de": ("de_DE", "de_AT", "de_CH"), "es": ("es_ES", "es_MX", "es_AR", "es_CO"), "it": ("it_IT",),
}
OTHER_LOCALES = ("tr_TR", "pl_PL", "vi_VN", "zh_CN", "hi_IN", "nl_NL", "pt_BR", "pt_PT", "ja_JP", "id_ID",
                 "ro_RO", "hu_HU", "cs_CZ", "sv_SE", "fi_FI", "da_DK", "en_IN", "en_NG", "yo_NG", "sw",
                 "fr_DZ", "hr_HR", "el_GR", "ru_RU")
# Romanised Arabic and Maghreb names (Faker's Arabic lists are in Arabic script), written the French way.
ARABIC_FIRST = ("Karim", "Mohamed", "Mohammed", "Ahmed", "Youssef", "Yasmine", "Samir", "Nadia", "Rachid", "Leïla",
                "Fatima", "Amine", "Mehdi", "Sofiane", "Bilal", "Hamza", "Nassim", "Inès", "Salma", "Walid",
                "Farid", "Nabil", "Khadija", "Malika", "Zineb", "Omar", "Ilyes", "Anis", "Yacine", "Rayan",
                "Hakim", "Djamel", "Kader", "Souad", "Amina", "Imane", "Mourad", "Tarek", "Layla", "Hassan")
ARABIC_LAST = ("Benali", "Haddad", "Belkacem", "Bouzid", "Mansouri", "Cherif", "Saidi", "Benyahia", "Amrani",
               "El Idrissi", "Boukhari", "Ziani", "Rahmani", "Khelifi", "Meziane", "Belhadj", "Hamdi", "Brahimi",
               "Benmoussa", "Chaouch", "Lahlou", "Tazi", "Bennani", "Alaoui", "Ouali", "Messaoudi", "Slimani")
TOWN_COUNTRIES = {
    "fr": ("FR", "FR", "FR", "BE", "CH", "CA", "MA", "DZ"), "en": ("GB", "US", "US", "AU", "IE", "CA", "IN", "NZ"),
    "de": ("DE", "DE", "DE", "AT", "CH"), "es": ("ES", "ES", "ES", "MX", "AR", "CO"), "it": ("IT", "IT", "IT", "CH"),
}
LABELS = ("PER", "ORG", "LOC")


def held_out(value: str) -> bool:
    """One value in ten is kept for the held-out set (by a hash of its folded form: stable across runs)."""
    return zlib.crc32(lexicon.lexicon_key(value).encode()) % 10 == 0


def _provider(kind: str, locale: str) -> type | None:
    try:
        return importlib.import_module(f"faker.providers.{kind}.{locale}").Provider  # type: ignore[no-any-return]
    except ImportError:
        return None


def _names(provider: type | None, *attributes: str) -> list[str]:
    out: list[str] = []
    for attribute in attributes:
        values = getattr(provider, attribute, None) if provider else None
        if values:
            out.extend(str(v) for v in values)
    return [v for v in out if re.fullmatch(r"[^\W\d_][^\W\d_'’ -]*(?:[-' ’][^\W\d_]+)*", v) and len(v) > 1]


@dataclass
class Pool:
    """Values split into training and held-out halves."""

    train: list[str] = field(default_factory=list)
    test: list[str] = field(default_factory=list)

    def add(self, values: list[str]) -> None:
        seen = set(self.train) | set(self.test)
        for value in values:
            if value in seen:
                continue
            seen.add(value)
            (self.test if held_out(value) else self.train).append(value)

    def pick(self, rng: random.Random, test: bool) -> str:
        values = self.test if test and self.test else self.train
        return rng.choice(values)


@cache
def pools() -> dict[str, dict[str, Pool]]:
    """Per language: first names, surnames, other-origin first names and surnames, towns, regions."""
    out: dict[str, dict[str, Pool]] = {}
    other_first, other_last = Pool(), Pool()
    for locale in OTHER_LOCALES:
        provider = _provider("person", locale)
        other_first.add(_names(provider, "first_romanized_names", "first_names_male", "first_names_female",
                               "first_names")
                        if locale not in ("zh_CN", "ja_JP", "ru_RU", "el_GR") else
                        _names(provider, "first_romanized_names"))
        other_last.add(_names(provider, "last_romanized_names", "last_names")
                       if locale not in ("zh_CN", "ja_JP", "ru_RU", "el_GR") else
                       _names(provider, "last_romanized_names"))
    other_first.add(list(ARABIC_FIRST))
    other_last.add(list(ARABIC_LAST))
    other_first.train = [n for n in other_first.train if n.isascii() or n[0].isalpha()]
    towns = _towns()
    regions = _regions()
    for lang in LANGS:
        first, last = Pool(), Pool()
        for locale in OWN_LOCALES[lang]:
            provider = _provider("person", locale)
            first.add(_names(provider, "first_names_male", "first_names_female", "first_names"))
            last.add(_names(provider, "last_names"))
        town = Pool()
        for country in dict.fromkeys(TOWN_COUNTRIES[lang]):
            town.add(towns.get(country, []))
        for locale in OWN_LOCALES[lang]:
            address = _provider("address", locale)
            # Sorted: some Faker address lists are built from sets, whose order follows the hash seed.
            town.add(sorted(_names(address, "cities", "city_names")))
        region = Pool()
        region.add(regions)
        out[lang] = {"first": first, "last": last, "other_first": other_first, "other_last": other_last,
                     "town": town, "region": region}
    return out


def _towns() -> dict[str, list[str]]:
    by_country: dict[str, list[str]] = {}
    path = ROOT / "py" / "openmasq" / "redact" / "data" / "places" / "towns.txt"
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        fields = line.split("\t")
        name = fields[0]
        if len(name) > 2 and not any(ch.isdigit() or ch in "/()," for ch in name) and len(name.split()) <= 4:
            by_country.setdefault(fields[1], []).append(name)
    return by_country


def _regions() -> list[str]:
    path = ROOT / "py" / "openmasq" / "redact" / "data" / "places" / "regions.txt"
    out: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            out += [entry.strip() for entry in line.split(",") if entry.strip()]
    return out


def _list(name: str) -> list[str]:
    """A comma-separated lexicon list, title-cased (the files are folded)."""
    path = ROOT / "py" / "openmasq" / "redact" / "data" / "lexicon" / name
    out: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            out += [entry.strip() for entry in line.split(",") if entry.strip()]
    return out


def _title(value: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in value.split(" "))


@cache
def negatives() -> dict[str, list[str]]:
    famous = [_title(v) for v in _list("notorious_people.txt") if len(v) > 3]
    brands = [v if len(v) <= 3 and v.isupper() else (v.upper() if len(v) <= 3 else _title(v))
              for v in _list("brands.txt")]
    bodies = [v.upper() if len(v) <= 5 and " " not in v else _title(v) for v in _list("state_bodies.txt")]
    bodies += [_title(v) for v in _list("organisations.txt") if len(v) > 4]
    countries = [_title(v) for v in _list("countries.txt") if len(v) > 3]
    homographs = [v for v in _list("homographs.txt") if " " not in v]
    return {"famous": famous, "brand": brands, "body": bodies, "country": countries, "homograph": homographs}


# --- organisations -------------------------------------------------------------------------------

DESCRIPTORS = {
    "fr": ("Transports", "Conseil", "Immobilier", "Assurances", "Menuiserie", "Plomberie", "Électricité",
           "Boulangerie", "Pharmacie", "Garage", "Cabinet", "Agence", "Studio", "Imprimerie", "Traiteur",
           "Bâtiment", "Informatique", "Logistique", "Distribution", "Rénovation", "Optique", "Architecture",
           "Expertise", "Formation", "Paysages", "Couverture", "Nettoyage", "Services", "Industries",
           "Technologies", "Groupe", "Laboratoires", "Holding", "Finance", "Patrimoine", "Avocats", "Notaires"),
    "en": ("Freight", "Analytics", "Consulting", "Holdings", "Logistics", "Partners", "Solutions", "Systems",
           "Bakery", "Pharmacy", "Dental", "Plumbing", "Builders", "Interiors", "Media", "Labs", "Studio",
           "Capital", "Ventures", "Motors", "Realty", "Landscaping", "Engineering", "Accountants", "Legal",
           "Group", "Services", "Software", "Design", "Catering", "Electrical", "Roofing", "Associates"),
    "de": ("Spedition", "Bäckerei", "Apotheke", "Kanzlei", "Praxis", "Autohaus", "Elektro", "Sanitär",
           "Immobilien", "Beratung", "Logistik", "Maschinenbau", "Druckerei", "Schreinerei", "Metallbau",
           "Steuerberatung", "Versicherungen", "Gruppe", "Technik", "Systeme", "Bau", "Handel", "Dienstleistungen",
           "Gartenbau", "Software", "Werke", "Holding", "Consulting", "Partner"),
    "es": ("Transportes", "Construcciones", "Asesoría", "Inmobiliaria", "Farmacia", "Panadería", "Talleres",
           "Distribuciones", "Consultores", "Abogados", "Seguros", "Grupo", "Ingeniería", "Logística",
           "Servicios", "Clínica", "Óptica", "Reformas", "Instalaciones", "Tecnologías", "Gestoría", "Hermanos"),
    "it": ("Trasporti", "Costruzioni", "Studio", "Farmacia", "Panificio", "Officina", "Immobiliare",
           "Consulenze", "Assicurazioni", "Gruppo", "Ingegneria", "Logistica", "Servizi", "Impianti",
           "Tecnologie", "Ristorante", "Clinica", "Ottica", "Edilizia", "Commerciale", "Industrie", "Legale"),
}
LEGAL = {
    "fr": ("SARL", "SAS", "SA", "EURL", "SASU", "SCI", "S.A.S.", "SNC"),
    "en": ("Ltd", "Ltd.", "LLC", "Inc.", "PLC", "LLP", "Limited", "Corp.", "Pty Ltd"),
    "de": ("GmbH", "AG", "KG", "GmbH & Co. KG", "UG", "e.V.", "OHG", "GbR"),
    "es": ("S.L.", "S.A.", "SL", "SA", "S.L.U.", "S.C."),
    "it": ("S.r.l.", "S.p.A.", "Srl", "SpA", "S.n.c.", "S.a.s."),
}
PLACES_OF = {  # kinds of organisation whose name follows the word: school, clinic, association, shop
    "fr": ("École", "Lycée", "Collège", "Clinique", "Association", "Cabinet", "Boulangerie", "Restaurant",
           "Hôtel", "Librairie", "Fondation", "Crèche", "Institut", "Atelier", "Maison", "Domaine", "Café",
           "Agence", "Étude", "Centre dentaire"),
    "en": ("St", "The", "Academy", "Clinic", "Café", "Hotel", "Bakery", "Books", "School", "Club", "Foundation",
           "Trust", "Society", "Studio", "Kitchen", "Nursery", "Surgery"),
    "de": ("Praxis", "Kanzlei", "Schule", "Gasthaus", "Hotel", "Café", "Bäckerei", "Verein", "Stiftung",
           "Kita", "Atelier", "Restaurant", "Buchhandlung", "Zahnarztpraxis", "Autohaus"),
    "es": ("Colegio", "Clínica", "Asociación", "Panadería", "Restaurante", "Hotel", "Bar", "Librería",
           "Fundación", "Academia", "Bufete", "Taller", "Centro Médico", "Escuela"),
    "it": ("Scuola", "Clinica", "Associazione", "Ristorante", "Trattoria", "Hotel", "Bar", "Libreria",
           "Fondazione", "Studio Legale", "Officina", "Pasticceria", "Istituto", "Agenzia"),
}
NAME_WORDS = {  # everyday words shops and small firms are named with
    "fr": ("Le Bon Grain", "Les Trois Chênes", "La Belle Époque", "Le Petit Atelier", "Les Tilleuls",
           "Saint-Exupéry", "Jean Moulin", "Les Lilas", "La Source", "Le Moulin", "Les Coquelicots", "L'Étoile",
           "Horizon", "Bel Air", "Les Cèdres", "Le Clos Fleuri", "La Fontaine", "Les Mimosas", "Montaigne"),
    "en": ("Blue Harbour", "Oakwood", "Riverside", "Greenfield", "Silver Birch", "Redbrick", "Northgate",
           "Willow Tree", "Kingsley", "Brightwater", "Kestrel", "Foxglove", "Meadowbank", "Hilltop", "Ashford",
           "Crown & Anchor", "Little Acorns", "Stonebridge", "Harbourside", "Bluebell"),
    "de": ("Am Markt", "Zur Linde", "Sonnenschein", "Lindenhof", "Am Park", "Rosengarten", "Bergblick",
           "Am Rathaus", "Zum Hirschen", "Waldblick", "Kleeblatt", "Morgenrot", "Elbtal", "Rheinblick"),
    "es": ("La Torre", "El Olivo", "San Teodoro", "Los Álamos", "La Estrella", "El Faro", "Santa Clara",
           "La Esperanza", "Las Palmeras", "El Roble", "La Alameda", "Sol de Mayo", "Miramar"),
    "it": ("San Teodoro", "Il Girasole", "La Quercia", "Bella Vista", "Il Faro", "Santa Chiara", "La Fontana",
           "Il Borgo", "Le Vigne", "La Rosa", "Sole e Luna", "Il Melograno", "Monte Bianco"),
}
SYLLABLES = ("va", "nel", "tis", "os", "trel", "ka", "ro", "mi", "lux", "ven", "dor", "ar", "te", "lis", "qua",
             "zen", "bri", "no", "vo", "sa", "ly", "mar", "ex", "pha", "ri", "xo", "cel", "ta", "on", "ia", "ber",
             "gal", "fi", "ne", "sto", "ral", "ky", "ze", "um", "ax", "ol", "en", "ir", "da")


def invented(rng: random.Random) -> str:
    word = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))
    return word.capitalize()


def organisation(rng: random.Random, lang: str, test: bool) -> str:
    p = pools()[lang]
    last = p["last"].pick(rng, test)
    shape = rng.random()
    descriptor = rng.choice(DESCRIPTORS[lang])
    legal = rng.choice(LEGAL[lang])
    stem = invented(rng) if rng.random() < 0.6 else last
    if shape < 0.15:
        return f"{descriptor} {last}"
    if shape < 0.28:
        return f"{last} {descriptor}"
    if shape < 0.40:
        return f"{stem} {legal}"
    if shape < 0.50:
        return f"{stem} {descriptor} {legal}"
    if shape < 0.60:
        return f"{rng.choice(PLACES_OF[lang])} {rng.choice(NAME_WORDS[lang])}"
    if shape < 0.68:
        return f"{rng.choice(PLACES_OF[lang])} {last}"
    if shape < 0.75:
        joiner = {"fr": "&", "en": "&", "de": "&", "es": "y", "it": "&"}[lang]
        return f"{last} {joiner} {p['last'].pick(rng, test)}"
    if shape < 0.80:
        tail = {"fr": "et Fils", "en": "& Sons", "de": "& Söhne", "es": "e Hijos", "it": "& Figli"}[lang]
        return f"{descriptor} {last} {tail}"
    if shape < 0.88:
        return invented(rng) if rng.random() < 0.5 else f"{invented(rng)} {descriptor}"
    if shape < 0.94:
        return f"{rng.choice(NAME_WORDS[lang])} {descriptor}"
    return f"{invented(rng).upper() if rng.random() < 0.5 else invented(rng)}{rng.choice(['', ' ' + legal])}"


# --- people --------------------------------------------------------------------------------------

def first_name(rng: random.Random, lang: str, test: bool) -> str:
    p = pools()[lang]
    pool = p["other_first"] if rng.random() < 0.22 else p["first"]
    name = pool.pick(rng, test)
    if lang == "fr" and rng.random() < 0.06:
        name = f"{name}-{p['first'].pick(rng, test)}"
    return name


def surname(rng: random.Random, lang: str, test: bool) -> str:
    p = pools()[lang]
    pool = p["other_last"] if rng.random() < 0.2 else p["last"]
    name = pool.pick(rng, test)
    if lang == "es" and rng.random() < 0.3:
        name = f"{name} {p['last'].pick(rng, test)}"
    return name


def person(rng: random.Random, lang: str, test: bool) -> str:
    first, last = first_name(rng, lang, test), surname(rng, lang, test)
    shape = rng.random()
    if shape < 0.62:
        return f"{first} {last}"
    if shape < 0.70:
        return f"{first[0]}. {last}"
    if shape < 0.76:
        return f"{first} {last.upper()}"
    if shape < 0.80:
        return f"{last.upper()} {first}"
    if shape < 0.86:
        return f"{first} {first_name(rng, lang, test)} {last}"
    if shape < 0.90:
        particle = {"fr": "de", "en": "van", "de": "von", "es": "de", "it": "di"}[lang]
        return f"{first} {particle} {last}"
    if shape < 0.94:
        return f"{first} {last}-{surname(rng, lang, test)}"
    return f"{first} {last[0]}."


HONORIFICS = {
    "fr": ("M.", "Mme", "Monsieur", "Madame", "Dr", "Me", "Maître", "Mlle", "Pr"),
    "en": ("Mr", "Mrs", "Ms", "Dr", "Mr.", "Mrs.", "Prof.", "Miss"),
    "de": ("Herr", "Frau", "Dr.", "Herrn", "Prof."),
    "es": ("Sr.", "Sra.", "don", "doña", "Dr.", "Dra."),
    "it": ("Sig.", "Sig.ra", "Dott.", "Dott.ssa", "Avv.", "Ing.", "signor", "signora"),
}


# --- templates -----------------------------------------------------------------------------------
# Slots: P person, F first name, L surname, H honorific + surname, O organisation, C town, R region (labelled);
# X famous person, B brand, G public body, K country, W homograph word, E e-mail, T phone, D date, N number,
# J job title (O). One template a line; "|" is a line break.

CHAT = {
    "fr": """Peux-tu m'aider à rédiger un mail de relance pour {P} ? Elle devait renvoyer le contrat avant {D}.
Note CRM : appel avec {P}, directeur achats chez {O}, le {D}. Rappeler au {T}.
Bonjour, je suis {F} et je travaille chez {O} à {C}. Pouvez-vous m'aider ?
merci à {F} pour le devis, on valide avec {O} demain
J'ai rendez-vous avec {H} à {C} jeudi prochain.
{F} m'a dit que {O} allait fermer son agence de {C}.
Rédige une lettre de recommandation pour {P}, qui a travaillé 3 ans chez {O}.
On déménage de {C} à {C} en septembre, tu connais des écoles près de {R} ?
Est-ce que {F} peut passer voir {F} à l'agence {O} de {C} ?
Résume cet échange : {F} demande à {P} le budget de {O} pour {D}.
ma sœur {F} habite à {C} et bosse pour {O}
Le dossier de {P} (né à {C}) est suivi par {H}.
Compte rendu : présents {P}, {P} et {P} ({O}). Absent : {F}.
Je dois écrire à {H} du cabinet {O} au sujet du bail à {C}.
{X} a parlé hier de la réforme, mais {F} {L} n'était pas d'accord.
Peux-tu traduire ce message de {F} en anglais ? « Salut, je serai à {C} lundi. »
Envoie le planning à {F} et à {F} avant {D}, merci.
Chez {O}, c'est {P} qui gère les commandes depuis {C}.
Facture n° {N} adressée à {O}, {N} rue des Lilas, {C}.
Tu peux relire le CV de {P} ? Il postule chez {O} à {C}.
Rappel : réunion avec {O} à {C}, demander {F} à l'accueil.
Salut {F}, tu as des nouvelles de {L} ? Il devait appeler {O}.
Mon médecin, le {H}, exerce à la clinique {O} à {C}.
{P} et {P} se marient à {C} en {R} cet été !
Je cherche un plombier vers {C} ({R}), {O} m'a été conseillé par {F}.
J'utilise {B} pour envoyer les fichiers à {P}.
Bonjour {H}, suite à notre échange, je vous confirme la livraison à {C}.
Le stage de {F} chez {O} commence le {D} à {C}.
Peux-tu résumer le compte rendu du {Q} ? {F} veut l'offre {Q} avant {D}.
On passe sur {Q} pour le projet, {F} s'occupe de la migration avec {O}.
Objet : {Q} - relance {O}|Bonjour {F},|Suite à notre appel, voici le devis.|{F} {L}
j'ai vu {F} hier, elle bosse plus chez {O} mais chez {O} à {C}
Rendez-vous {D} avec {H} ({O}) pour le dossier {Q}.
""",
    "en": """Can you help me write a follow-up email to {P} at {O}? She promised the signed NDA by {D}.
CRM note: spoke with {P} (Head of Ops, {O}) on Tuesday. Call back on {T}.
Hi, I'm {F} from {O} in {C}. Could you review this?
thanks {F} for the quote, we'll confirm with {O} tomorrow
I have a meeting with {H} in {C} next Thursday.
{F} told me {O} is closing its {C} office.
Write a reference letter for {P}, who worked at {O} for three years.
We're moving from {C} to {C} in September, any good schools near {R}?
Can {F} drop by and see {F} at the {O} branch in {C}?
Summarise this thread: {F} asks {P} for the {O} budget for {D}.
my sister {F} lives in {C} and works for {O}
The file of {P} (born in {C}) is handled by {H}.
Minutes: present {P}, {P} and {P} ({O}). Apologies: {F}.
I need to write to {H} at {O} about the lease in {C}.
{X} spoke about it yesterday, but {F} {L} disagreed.
Please translate this message from {F}: "Hi, I'll be in {C} on Monday."
Send the rota to {F} and {F} before {D}, thanks.
At {O}, {P} handles orders out of {C}.
Invoice #{N} billed to {O}, {N} High Street, {C}.
Can you proofread {P}'s CV? He's applying to {O} in {C}.
Reminder: meeting at {O} in {C}, ask for {F} at reception.
Hey {F}, any news from {L}? He was supposed to call {O}.
My GP, {H}, works at {O} in {C}.
{P} and {P} are getting married in {C}, {R} this summer!
Looking for a plumber near {C}, {F} recommended {O}.
I use {B} to send the files to {P}.
Dear {H}, following our call, I confirm delivery to {C}.
{F}'s internship at {O} starts on {D} in {C}.
Can you summarise the {Q} notes? {F} wants the {Q} plan before {D}.
We're moving to {Q} for the project, {F} handles the migration with {O}.
Subject: {Q} - follow-up {O}|Hi {F},|As discussed, please find the quote attached.|{F} {L}
saw {F} yesterday, she's not at {O} anymore, she joined {O} in {C}
Meeting on {D} with {H} ({O}) about the {Q} rollout.
""",
    "de": """Kannst du mir helfen, eine Erinnerung an {P} ({E}) zu schreiben? Sie wollte den Vertrag bis {D} schicken.
CRM-Notiz: Telefonat mit {P}, Einkaufsleiter bei {O}. Rückruf unter {T}.
Hallo, ich bin {F} von {O} aus {C}. Kannst du das prüfen?
danke an {F} für das angebot, wir bestätigen morgen mit {O}
Ich habe nächsten Donnerstag einen Termin mit {H} in {C}.
{F} hat mir erzählt, dass {O} die Filiale in {C} schließt.
Schreib ein Arbeitszeugnis für {P}, der drei Jahre bei {O} war.
Wir ziehen im September von {C} nach {C}, kennst du Schulen in {R}?
Protokoll: anwesend {P}, {P} und {P} ({O}). Entschuldigt: {F}.
Ich muss {H} von der Kanzlei {O} wegen der Wohnung in {C} schreiben.
{X} hat gestern darüber gesprochen, aber {F} {L} war dagegen.
Schick den Plan bitte an {F} und {F} vor {D}.
Bei {O} kümmert sich {P} von {C} aus um die Bestellungen.
Rechnung Nr. {N} an {O}, Hauptstraße {N}, {C}.
Kannst du den Lebenslauf von {P} lesen? Er bewirbt sich bei {O} in {C}.
Hi {F}, hast du was von {L} gehört? Er wollte {O} anrufen.
Meine Hausärztin, {H}, arbeitet in der {O} in {C}.
{P} und {P} heiraten diesen Sommer in {C}!
Ich nutze {B}, um die Dateien an {P} zu schicken.
Sehr geehrte {H}, wie besprochen liefern wir nach {C}.
Das Praktikum von {F} bei {O} beginnt am {D} in {C}.
""",
    "es": """¿Me ayudas a escribir un correo de recordatorio a {P} ({E})? Tenía que devolver el contrato antes del {D}.
Nota CRM: llamada con {P}, jefe de compras de {O}. Volver a llamar al {T}.
Hola, soy {F} de {O} en {C}. ¿Puedes revisar esto?
gracias a {F} por el presupuesto, confirmamos mañana con {O}
Tengo una cita con {H} en {C} el jueves que viene.
{F} me dijo que {O} va a cerrar la oficina de {C}.
Escribe una carta de recomendación para {P}, que trabajó tres años en {O}.
Nos mudamos de {C} a {C} en septiembre, ¿conoces colegios en {R}?
Acta: presentes {P}, {P} y {P} ({O}). Ausente: {F}.
Tengo que escribir a {H} del despacho {O} sobre el piso de {C}.
{X} habló ayer de eso, pero {F} {L} no estaba de acuerdo.
Envía el horario a {F} y a {F} antes del {D}, gracias.
En {O}, {P} lleva los pedidos desde {C}.
Factura n.º {N} a nombre de {O}, calle Mayor {N}, {C}.
¿Puedes revisar el CV de {P}? Se presenta a {O} en {C}.
Oye {F}, ¿sabes algo de {L}? Tenía que llamar a {O}.
Mi médica, la {H}, trabaja en {O} en {C}.
¡{P} y {P} se casan en {C} este verano!
Uso {B} para mandar los archivos a {P}.
Estimada {H}: tal como hablamos, confirmamos la entrega en {C}.
Las prácticas de {F} en {O} empiezan el {D} en {C}.
""",
    "it": """Mi aiuti a scrivere un sollecito a {P} ({E})? Doveva rimandarci il contratto entro {D}.
Nota CRM: chiamata con {P}, responsabile acquisti di {O}. Richiamare al {T}.
Ciao, sono {F} di {O} a {C}. Puoi controllare questo?
grazie a {F} per il preventivo, confermiamo domani con {O}
Ho un appuntamento con {H} a {C} giovedì prossimo.
{F} mi ha detto che {O} chiude la sede di {C}.
Scrivi una lettera di referenze per {P}, che ha lavorato tre anni da {O}.
Ci trasferiamo da {C} a {C} a settembre, conosci scuole in {R}?
Verbale: presenti {P}, {P} e {P} ({O}). Assente: {F}.
Devo scrivere all'{H} dello studio {O} per l'affitto a {C}.
{X} ne ha parlato ieri, ma {F} {L} non era d'accordo.
Manda il calendario a {F} e a {F} entro {D}, grazie.
Da {O} è {P} che segue gli ordini da {C}.
Fattura n. {N} intestata a {O}, via Roma {N}, {C}.
Puoi rileggere il CV di {P}? Si candida da {O} a {C}.
Ehi {F}, hai notizie di {L}? Doveva chiamare {O}.
Il mio medico, il {H}, lavora alla {O} di {C}.
{P} e {P} si sposano a {C} quest'estate!
Uso {B} per mandare i file a {P}.
Gentile {H}, come concordato confermiamo la consegna a {C}.
Lo stage di {F} presso {O} inizia il {D} a {C}.
""",
}

# Texts with no private entity at all (everything O): famous people, brands, public bodies, countries, homographs,
# capitalised sentence starts, products.
NEGATIVE = {
    "fr": """Que pense {X} de la situation en {K} ?
J'ai un souci avec {B} depuis la mise à jour, tu sais comment faire ?
Comment déclarer mes revenus à la {G} quand on vit en {K} ?
Nice work ! Le rapport est clair.
La {W} est ma fleur préférée, j'en ai planté dans le jardin.
Merci pour le retour, c'est parfait. Bonne journée !
Quelle est la différence entre {B} et {B} pour un petit budget ?
Explique-moi la théorie de {X} simplement.
Orange ou SFR, lequel a la meilleure couverture ?
Le Président a rencontré {X} hier soir.
Résume la biographie de {X} en trois phrases.
Pourquoi le ciel est bleu ? Réponds simplement.
Écris un poème sur la mer et le vent.
La réunion est décalée à mardi. Pense à prendre le projecteur.
Mon {B} ne s'allume plus, que faire ?
""",
    "en": """What does {X} think about the situation in {K}?
I have an issue with {B} since the update, any idea?
How do I file my taxes with the {G} if I live in {K}?
Nice work! The report is clear.
The {W} is my favourite flower, I planted some in the garden.
Thanks for the feedback, it's perfect. Have a good day!
What's the difference between {B} and {B} on a small budget?
Explain the theory of {X} simply.
Write a short poem about the sea and the wind.
The President met {X} last night.
Summarise {X}'s biography in three sentences.
Why is the sky blue? Keep it simple.
Meeting moved to Tuesday. Remember the projector.
My {B} won't turn on, what should I do?
Great job on the release, Python 3.13 and Docker images are out.
""",
    "de": """Was denkt {X} über die Lage in {K}?
Ich habe seit dem Update ein Problem mit {B}, hast du eine Idee?
Wie mache ich die Steuererklärung beim {G}, wenn ich in {K} wohne?
Danke für das Feedback, passt perfekt. Schönen Tag noch!
Was ist der Unterschied zwischen {B} und {B} bei kleinem Budget?
Erklär mir die Theorie von {X} einfach.
Schreib ein kurzes Gedicht über das Meer und den Wind.
Fasse die Biografie von {X} in drei Sätzen zusammen.
Das Meeting ist auf Dienstag verschoben. Denk an den Beamer.
Mein {B} geht nicht mehr an, was tun?
""",
    "es": """¿Qué opina {X} de la situación en {K}?
Tengo un problema con {B} desde la actualización, ¿alguna idea?
¿Cómo hago la declaración con la {G} si vivo en {K}?
Gracias por los comentarios, está perfecto. ¡Buen día!
¿Qué diferencia hay entre {B} y {B} con poco presupuesto?
Explícame la teoría de {X} de forma sencilla.
Escribe un poema corto sobre el mar y el viento.
Resume la biografía de {X} en tres frases.
La reunión se pasa al martes. Acuérdate del proyector.
Mi {B} no se enciende, ¿qué hago?
""",
    "it": """Cosa pensa {X} della situazione in {K}?
Ho un problema con {B} dopo l'aggiornamento, qualche idea?
Come faccio la dichiarazione all'{G} se vivo in {K}?
Grazie per il riscontro, è perfetto. Buona giornata!
Che differenza c'è tra {B} e {B} con poco budget?
Spiegami la teoria di {X} in modo semplice.
Scrivi una breve poesia sul mare e sul vento.
Riassumi la biografia di {X} in tre frasi.
La riunione è spostata a martedì. Ricordati il proiettore.
Il mio {B} non si accende più, cosa faccio?
""",
}

FIELDS = {  # name, first name, surname, city, company, phone, email, subject, regards, to, from
    "fr": ("Nom", "Prénom", "Nom de famille", "Ville", "Société", "Tél", "Email", "Objet", "Cordialement", "À", "De"),
    "en": ("Name", "First name", "Last name", "City", "Company", "Phone", "Email", "Subject", "Best regards",
           "To", "From"),
    "de": ("Name", "Vorname", "Nachname", "Ort", "Firma", "Tel.", "E-Mail", "Betreff", "Mit freundlichen Grüßen",
           "An", "Von"),
    "es": ("Nombre", "Nombre", "Apellidos", "Ciudad", "Empresa", "Tel.", "Correo", "Asunto", "Saludos", "Para", "De"),
    "it": ("Nome", "Nome", "Cognome", "Città", "Azienda", "Tel.", "Email", "Oggetto", "Cordiali saluti", "A", "Da"),
}
JOBS = {
    "fr": ("Directrice commerciale", "Chef de projet", "Comptable", "Responsable RH", "Gérant", "Ingénieur"),
    "en": ("Sales Director", "Project Manager", "Accountant", "HR Manager", "Managing Director", "Engineer"),
    "de": ("Vertriebsleiterin", "Projektleiter", "Buchhalter", "Personalleiterin", "Geschäftsführer"),
    "es": ("Directora comercial", "Jefe de proyecto", "Contable", "Responsable de RR. HH.", "Gerente"),
    "it": ("Direttrice commerciale", "Project manager", "Contabile", "Responsabile HR", "Amministratore"),
}


def structured(rng: random.Random, lang: str) -> str:
    """A template of a structured shape: form, signature, e-mail header, roster, CSV, markdown table, log,
    code, JSON, list."""
    f = FIELDS[lang]
    shape = rng.randrange(12)
    if shape == 0:
        sep = rng.choice([" : ", ": ", " - ", "\t", " = "])
        lines = [f"{f[1]}{sep}{{F}}", f"{f[2]}{sep}{{L}}", f"{f[3]}{sep}{{C}}", f"{f[4]}{sep}{{O}}",
                 f"{f[5]}{sep}{{T}}"]
        rng.shuffle(lines)
        if rng.random() < 0.5:
            lines = [line.upper() if rng.random() < 0.3 else line for line in lines]
        return "|".join(lines[: rng.randint(2, 5)])
    if shape == 1:
        return f"{f[0]} : {{P}}|{f[3]} : {{C}}" if lang == "fr" else f"{f[0]}: {{P}}|{f[3]}: {{C}}"
    if shape == 2:
        return f"{f[8]},||{{F}} {{L}}|{{J}}|{{O}}|{{C}}|{{T}}"
    if shape == 3:
        return f"{f[10]}: {{P}} <{{E}}>|{f[9]}: {{P}} <{{E}}>|{f[7]}: {{O}} / {{C}}"
    if shape == 4:
        bullet = rng.choice(["- ", "* ", "• ", "1. ", ""])
        return "|".join(f"{bullet}{{P}}" + rng.choice(["", " ({O})", " - {C}", ", {J}"])
                        for _ in range(rng.randint(2, 6)))
    if shape == 5:
        header = ",".join(h.lower() for h in (f[2], f[1], f[3], f[4]))
        return header + "|" + "|".join("{L},{F},{C},{O}" for _ in range(rng.randint(1, 4)))
    if shape == 6:
        rows = "|".join("| {P} | {C} | {O} |" for _ in range(rng.randint(1, 4)))
        return f"| {f[0]} | {f[3]} | {f[4]} ||---|---|---||{rows}"
    if shape == 7:
        return rng.choice([
            "2024-03-{N} 10:22:{N} INFO user {F} {L} logged in from {C}",
            "[WARN] payment failed for customer {P} ({O})",
            "ERROR: invoice {N} for {O} rejected, contact {P}",
            "{D} 08:00 - {F} - livraison {C} OK",
        ])
    if shape == 8:
        return rng.choice([
            'customer = {"name": "{P}", "city": "{C}", "company": "{O}"}',
            "client_name = '{P}'  # TODO ask {F}",
            "INSERT INTO clients VALUES ({N}, '{L}', '{F}', '{C}');",
            "author: {P} <{E}>",
            "<td>{P}</td><td>{C}</td>",
        ])
    if shape == 9:
        return "{F} {L}|{J} - {O}|{T}"
    if shape == 10:
        return f"{{D}}|{{H}}|{{O}}|{{N}} {{C}}||{f[7]} : {{W}}" if lang == "fr" else "{H}|{O}|{C}"
    return "{L} {F} ; {L} {F} ; {L} {F}"


# --- rendering -----------------------------------------------------------------------------------

_SLOT = re.compile(r"\{(\w)\}")


@dataclass
class Sample:
    lang: str
    text: str
    spans: list[tuple[int, int, str]]  # code-point [start, end) and PER / ORG / LOC


def _fill(rng: random.Random, lang: str, slot: str, test: bool) -> tuple[str, str | None]:
    neg = negatives()
    if slot == "P":
        return person(rng, lang, test), "PER"
    if slot == "F":
        return first_name(rng, lang, test), "PER"
    if slot == "L":
        return surname(rng, lang, test), "PER"
    if slot == "O":
        return organisation(rng, lang, test), "ORG"
    if slot == "C":
        return (pools()[lang]["town"].pick(rng, test), "LOC") if rng.random() < 0.88 else \
            (pools()[lang]["region"].pick(rng, test), "LOC")
    if slot == "R":
        return pools()[lang]["region"].pick(rng, test), "LOC"
    if slot == "X":
        return rng.choice(neg["famous"]), None
    if slot == "B":
        return rng.choice(neg["brand"]), None
    if slot == "G":
        return rng.choice(neg["body"]), None
    if slot == "K":
        return rng.choice(neg["country"]), None
    if slot == "W":
        return rng.choice(neg["homograph"]), None
    if slot == "E":
        user = lexicon.lexicon_key(first_name(rng, lang, test)).replace(" ", "")[:12]
        return f"{user}.{rng.choice(['contact', 'info', 'pro'])}@{invented(rng).lower()}.{lang}", None
    if slot == "T":
        return " ".join(f"{rng.randrange(100):02d}" for _ in range(5)), None
    if slot == "D":
        return f"{rng.randint(1, 28)}/{rng.randint(1, 12):02d}/{rng.randint(2019, 2026)}", None
    if slot == "N":
        return str(rng.randint(1, 9999)), None
    if slot == "J":
        return rng.choice(JOBS[lang]), None
    if slot == "Q":
        return rng.choice(JARGON), None
    raise KeyError(slot)


def lowerable(value: str) -> bool:
    """A name typed in lower case is still a name only when none of its words is an everyday word: "karim" is
    a name, "rose" or "will" in lower case is a word (the model reads that from the frequent-word flag)."""
    return not any(lexicon.is_frequent_word(w) or lexicon.is_common_word(w) for w in value.split())


def render(rng: random.Random, lang: str, template: str, test: bool) -> Sample:
    parts: list[str] = []
    spans: list[tuple[int, int, str]] = []
    position = 0
    entity_case = rng.random()
    for piece in re.split(r"(\{\w\})", template.replace("|", "\n")):
        slot = _SLOT.fullmatch(piece)
        if slot is None:
            parts.append(piece)
            position += len(piece)
            continue
        if slot.group(1) == "H":
            honorific = rng.choice(HONORIFICS[lang])
            parts.append(honorific + " ")
            position += len(honorific) + 1
            value, label = (surname(rng, lang, test) if rng.random() < 0.7 else person(rng, lang, test)), "PER"
        else:
            value, label = _fill(rng, lang, slot.group(1), test)
        if label and entity_case < 0.25 and rng.random() < 0.35:
            if rng.random() < 0.25:
                value = value.upper()
            elif lowerable(value):
                value = value.lower()
        parts.append(value)
        if label:
            spans.append((position, position + len(value), label))
        position += len(value)
    return Sample(lang, "".join(parts), spans)


def _case(rng: random.Random, sample: Sample) -> Sample:
    """Whole-text case variants: users type in lower case (and sometimes in capitals)."""
    r = rng.random()
    if r < 0.15:
        return Sample(sample.lang, sample.text.lower(), sample.spans)
    if r < 0.21:
        return Sample(sample.lang, sample.text.upper(), sample.spans)
    return sample


def _templates(lang: str, kind: str) -> list[str]:
    source = CHAT if kind == "chat" else NEGATIVE
    return [line for line in source[lang].splitlines() if line.strip()]


LOREM = {"fr": "fr_FR", "en": "en_US", "de": "de_DE", "es": "es_ES", "it": "it_IT"}


@cache
def _lorem(lang: str) -> tuple[str, ...]:
    provider = _provider("lorem", LOREM[lang])
    return tuple(str(w) for w in getattr(provider, "word_list", ()))


def filler(rng: random.Random, lang: str) -> Sample:
    """Everyday words only (all O): a sentence with its capitalised start, or a heading in Title Case."""
    words = [rng.choice(_lorem(lang)) for _ in range(rng.randint(3, 14))]
    if rng.random() < 0.3:
        text = " ".join(w.capitalize() for w in words[:6])
    else:
        text = " ".join(words).capitalize() + rng.choice((".", ".", "?", "!", " :", ""))
    return Sample(lang, text, [])


# Capitalised words that name no private entity: products, tools, jargon, events, departments (all O).
JARGON = ("Premium", "CRM", "NDA", "PDF", "Excel", "Teams", "Zoom", "RGPD", "GDPR", "Q3", "KPI", "SEO", "API",
          "Python", "Docker", "Kubernetes", "Notion", "Slack", "Jira", "Confluence", "Black Friday", "Noël",
          "Pâques", "Ressources Humaines", "Direction Générale", "Service Client", "Comité de Direction", "Bureau",
          "Support", "Marketing", "Finance", "Board", "Sprint", "Release", "Beta", "Pro", "Plus", "Max", "Wi-Fi",
          "Bluetooth", "USB-C", "Android", "iOS", "Linux", "SQL", "JSON", "Visa", "Mastercard", "Uber", "Airbnb",
          "Weihnachten", "Ostern", "Navidad", "Natale", "Lundi", "Monday", "Montag", "Lunes", "Lunedì", "Janvier",
          "January", "Januar", "Enero", "Gennaio", "TVA", "VAT", "MwSt", "IVA", "SAV", "DRH", "CEO", "CTO", "PDG")
CUES = {  # words before a person, an organisation, a place
    "fr": (("avec", "pour", "de la part de", "à", "et"), ("chez", "pour", "de", "avec"),
           ("à", "de", "vers", "près de")),
    "en": (("with", "for", "from", "to", "and"), ("at", "for", "from", "with"), ("in", "from", "to", "near")),
    "de": (("mit", "für", "von", "an", "und"), ("bei", "für", "von", "mit"), ("in", "aus", "nach", "bei")),
    "es": (("con", "para", "de parte de", "a", "y"), ("en", "para", "de", "con"), ("en", "de", "a", "cerca de")),
    "it": (("con", "per", "da parte di", "a", "e"), ("presso", "per", "di", "con"), ("a", "da", "verso", "vicino a")),
}


MONTHS = {
    "fr": ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre",
           "novembre", "décembre", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"),
    "en": ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "de": ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
           "November", "Dezember", "Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"),
    "es": ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre",
           "noviembre", "diciembre", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"),
    "it": ("gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre",
           "ottobre", "novembre", "dicembre", "lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato"),
}
TOOLS = ("postgres", "nginx", "redis", "numpy", "pandas", "sshd", "docker", "git", "kubectl", "npm", "pip",
         "systemd", "cron", "mysql", "kafka", "celery", "gunicorn", "webpack", "eslint", "pytest", "terraform")
IDENT_SUFFIXES = ("-svc", "-api", "_db", "-web", "-worker", ".core", "_utils", "-prod", "-staging", "d", "ctl")


def identifier(rng: random.Random) -> str:
    if rng.random() < 0.4:
        return rng.choice(TOOLS)
    return invented(rng).lower() + rng.choice(IDENT_SUFFIXES)


def negative_item(rng: random.Random, lang: str) -> str:
    """What may follow a cue word without naming anyone: words, dates, jargon, identifiers."""
    r = rng.random()
    if r < 0.35:
        words = [rng.choice(_lorem(lang)) for _ in range(rng.randint(1, 3))]
        return " ".join(w.capitalize() if rng.random() < 0.2 else w for w in words)
    if r < 0.6:
        month = rng.choice(MONTHS[lang])
        return rng.choice((month, f"{rng.randint(1, 28)} {month}", f"{month} {rng.randint(2020, 2027)}",
                           month.capitalize()))
    if r < 0.8:
        return rng.choice(JARGON)
    return identifier(rng)


def code_negative(rng: random.Random) -> str:
    """A command, log or code line with tool and service names only (all O)."""
    ident = identifier(rng)
    return rng.choice((
        f"ERROR {ident}: connection refused", f"kubectl rollout restart deployment/{ident}",
        f"import {ident}", f"sudo systemctl restart {ident}", f"psql -U postgres -d {ident}",
        f"[{ident}] WARN retry 3/5", f"git push origin {ident}", f"docker compose up {ident}",
        f"from {ident} import load", f"{ident}: OK ({rng.randint(1, 900)} ms)",
    ))


def mixed(rng: random.Random, lang: str, test: bool) -> Sample:
    """Everyday words with entities and jargon dropped in after cue words: context beyond the templates."""
    words: list[str] = []
    spans: list[tuple[int, int, str]] = []
    text = ""
    for _ in range(rng.randint(2, 5)):
        words = [rng.choice(_lorem(lang)) for _ in range(rng.randint(1, 6))]
        text += (" " if text else "") + " ".join(words)
        r = rng.random()
        if r < 0.25:
            text += " " + rng.choice(JARGON)
            continue
        kind = rng.choice(("P", "F", "L", "O", "C", "X", "B"))
        cue = rng.choice(CUES[lang][{"P": 0, "F": 0, "L": 0, "X": 0, "O": 1, "B": 1}.get(kind, 2)])
        if rng.random() < 0.35:  # a cue word followed by no entity at all
            text += f" {cue} {negative_item(rng, lang)}"
            continue
        value, label = _fill(rng, lang, kind, test)
        if label and rng.random() < 0.15 and lowerable(value):
            value = value.lower()
        text += f" {cue} "
        if label:
            spans.append((len(text), len(text) + len(value), label))
        text += value
    text = text[:1].upper() + text[1:] + rng.choice((".", "", " ?", "!"))
    return Sample(lang, text, spans)


def sample(rng: random.Random, lang: str, test: bool) -> Sample:
    """One text of one to three segments (chat, structured or negative), joined by spaces or line breaks."""
    segments: list[Sample] = []
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
        r = rng.random()
        if r < 0.08:
            segments.append(filler(rng, lang))
            continue
        if r < 0.2:
            segments.append(mixed(rng, lang, test))
            continue
        if r < 0.24:
            segments.append(Sample(lang, code_negative(rng), []))
            continue
        if r < 0.55:
            template = rng.choice(_templates(lang, "chat"))
        elif r < 0.8:
            template = structured(rng, lang)
        else:
            template = rng.choice(_templates(lang, "negative"))
        segments.append(render(rng, lang, template, test))
    text, spans = "", []
    for index, segment in enumerate(segments):
        if index:
            text += rng.choice((" ", "\n", "\n\n", " "))
        spans += [(a + len(text), b + len(text), label) for a, b, label in segment.spans]
        text += segment.text
    return _case(rng, Sample(lang, text, spans))


def generate(count: int, seed: int, test: bool = False) -> list[Sample]:
    """`count` texts, languages in turn; the held-out pools when `test`."""
    rng = random.Random(seed)
    return [sample(rng, LANGS[i % len(LANGS)], test) for i in range(count)]


Generator = Callable[[int, int], list[Sample]]
