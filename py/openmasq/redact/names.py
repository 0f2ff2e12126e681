"""Person names found without a model: a lexicon first name with its surnames, the name after an
honorific, a first name in a strong context, and later echoes of a name already seen."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from ..patterns import deferred
from . import lexicon, places
from .spans import Span
from .words import TextView, Words

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
# Words right before two or three name words that say they are a person ("avec Zorvan Kelidu",
# "a reference letter for Amira Tolbek", "spoke with Ilse Varno"): meeting, talking,
# writing to or for someone. "to" and "from" only after a word of communication ("trip to" is not).
_PERSON_CUE_PHRASES = (
    "avec", "with", "mit", "con", "pour", "for", "für", "para", "per", "insieme a", "zusammen mit",
    "spoke with", "spoke to", "talked to", "talk to", "speak to", "met", "met with", "meeting with",
    "call with", "interview with", "rencontré", "entretien avec", "réunion avec", "rendez-vous avec",
    "rdv avec", "appel avec", "telefonat mit", "gespräch mit", "treffen mit", "hablé con",
    "reunión con", "llamada con", "entrevista con", "parlato con", "incontro con", "riunione con",
    "chiamata con", "colloquio con", "email to", "e-mail to", "mail to", "message to", "letter to",
    "note to", "reply to", "write to", "send to", "sent to", "forward to", "explain to", "say to",
    "message from", "email from", "e-mail from", "mail from", "call from", "note from",
    "letter from", "on behalf of", "de la part de", "message de", "mail de", "appel de",
    "courrier de", "lettre de", "nachricht von", "mail von", "e-mail von", "anruf von",
    "mensaje de", "correo de", "llamada de", "de parte de", "messaggio di", "mail di",
    "chiamata di", "da parte di", "à l'attention de", "attention", "attn", "z. hd.",
    "félicitations à", "merci à", "bravo à", "thanks to", "congratulations to",
    # the person's relation to the writer or role, right before the name ("candidat : X Y",
    # "ma tante, X Y", "our colleague X Y")
    "candidat", "candidate", "candidata", "candidato", "kandidat", "kandidatin", "stagiaire",
    "collègue", "colleague", "kollege", "kollegin", "collega", "compañero", "compañera", "patient",
    "patiente", "patientin", "paciente", "paziente", "locataire", "tenant", "propriétaire",
    "landlord", "employé", "employée", "salarié", "salariée", "employee", "mitarbeiter",
    "mitarbeiterin", "empleado", "empleada", "dipendente", "élève", "étudiant", "étudiante",
    "student", "interlocuteur", "interlocutrice", "référent", "référente", "ansprechpartner",
    "ansprechpartnerin", "contacto", "referente", "gérant", "gérante", "technicien",
    "technicienne", "chauffeur", "driver", "conseiller", "conseillère", "avocat", "avocate",
    "notaire", "comptable", "infirmière", "infirmier", "nurse", "coach", "formateur", "formatrice",
    "teacher", "tuteur", "tutrice", "fils", "fille", "son", "daughter", "mari", "femme", "épouse",
    "époux", "husband", "wife", "partner", "frère", "sœur", "brother", "sister", "mère", "père",
    "mother", "father", "ami", "amie", "friend", "voisin", "voisine", "neighbour", "neighbor",
    "cousin", "cousine", "oncle", "tante", "uncle", "aunt", "nièce", "neveu", "niece", "nephew",
    "grand-mère", "grand-père", "grandmother", "grandfather", "sohn", "tochter", "bruder",
    "schwester", "mutter", "vater", "freund", "freundin", "hijo", "hija", "hermano", "hermana",
    "madre", "padre", "amigo", "amiga", "figlio", "figlia", "fratello", "sorella", "amico",
    "amica", "contact", "contacts", "manager", "boss", "patron", "patronne", "chef", "cheffe",
)
# Words right before one first name alone that say it is a person: addressing someone
# ("contacter Mathis", "remind Ilse"); "avec Marie" alone is not enough.
_ADDRESS_CUE_PHRASES = (
    "contacter", "contactez", "contacte", "contact", "appeler", "appelez", "appelle", "rappeler",
    "rappelez", "rappelle", "call", "ask", "demander à", "demandez à", "demande à", "écrire à",
    "écrivez à", "écris à", "répondre à", "réponds à", "répondez à", "reply to", "write to",
    "email", "e-mail", "remind", "thank", "remercier", "remercie", "féliciter", "félicite",
    "congratulate", "congratulating", "welcome", "accueillir", "prévenir", "préviens", "prévenez",
    "tell", "dire à", "dis à", "inform", "informer", "relancer", "relance", "chase", "forward to",
    "send to", "envoyer à", "envoie à", "envoyez à", "transférer à", "transfère à", "kontaktieren",
    "anrufen", "schreiben an", "schreib an", "fragen", "frag", "contactar a", "contacta a",
    "llamar a", "llama a", "escribir a", "escribe a", "pregunta a", "preguntar a", "contattare",
    "contatta", "chiamare", "chiama", "scrivere a", "scrivi a", "chiedi a", "chiedere a",
    "ringraziare", "ringrazia", "s'appelle", "s'appelait", "called", "named", "nommé", "nommée",
    "appelé", "appelée", "heißt", "namens", "se llama", "llamado", "llamada", "si chiama",
    "chiamato", "chiamata", "a guy called", "a man called", "a woman called",
)
# Role words in an apposition right after a name ("Zorvan Kelidu, directeur technique",
# "Ilse Varno (Head of Sales", "Amira Tolbek, our new stock manager").
_ROLE_WORDS = frozenset({
    "directeur", "directrice", "dir", "dg", "drh", "daf", "dsi", "pdg", "ceo", "cto", "cfo", "coo",
    "cmo", "cio", "ciso", "dpo", "vp", "svp", "evp", "responsable", "gérant", "gérante", "gerant",
    "gerante", "président", "présidente", "fondateur", "fondatrice", "cofondateur", "cofondatrice",
    "associé", "associée", "chef", "cheffe", "ingénieur", "ingénieure", "développeur",
    "développeuse", "comptable", "avocat", "avocate", "notaire", "consultant", "consultante",
    "chargé", "chargée", "assistant", "assistante", "stagiaire", "alternant", "alternante",
    "candidat", "candidate", "technicien", "technicienne", "commercial", "commerciale", "juriste",
    "secrétaire", "conseiller", "conseillère", "manager", "managers", "head", "director", "lead",
    "leader", "founder", "cofounder", "co-founder", "owner", "partner", "president", "officer",
    "engineer", "developer", "designer", "analyst", "accountant", "lawyer", "solicitor",
    "attorney", "intern", "trainee", "specialist", "coordinator", "administrator", "architect",
    "recruiter", "representative", "supervisor", "executive", "secretary",
    "bookkeeper", "nurse", "doctor", "teacher", "professor", "student", "leiter", "leiterin",
    "geschäftsführer", "geschäftsführerin", "inhaber", "inhaberin", "mitarbeiter", "mitarbeiterin",
    "referent", "referentin", "sachbearbeiter", "sachbearbeiterin", "ansprechpartner",
    "ansprechpartnerin", "gerente", "directora", "jefe", "jefa", "abogado", "abogada",
    "contable", "ingeniero", "ingeniera", "encargado", "encargada", "direttore", "direttrice",
    "responsabile", "titolare", "avvocato", "avvocata", "commercialista", "ingegnere",
    "impiegato", "impiegata", "referente", "amministratore", "amministratrice", "socio", "socia",
})
# Possessives and adjectives that may stand between the comma and the role ("our new", "notre").
_ROLE_FILLERS = frozenset({
    "our", "my", "your", "their", "the", "a", "an", "new", "former", "senior", "junior", "acting",
    "interim", "deputy", "chief", "notre", "nos", "mon", "ma", "votre", "leur", "le", "la", "l'",
    "un", "une", "nouveau", "nouvelle", "ancien", "ancienne", "futur", "future", "unser", "unsere",
    "unserer", "mein", "meine", "der", "die", "neue", "neuer", "nuestro", "nuestra", "el", "nuevo",
    "nueva", "il", "nostro", "nostra", "nuovo", "nuova", "head", "of",
})
# Header fields of a mail whose value is a list of people ("cc: Tran Van Duc, Ilse Varno").
_HEADER_FIELD = deferred(
    r"(?im)^[ \t>]{0,4}(?:cc|cci|bcc|to|from|de|à|a|von|an|para|da|destinataires?|recipients?|"
    r"attendees|participants|présents|teilnehmer|asistentes|partecipanti)[ \t]{0,3}:[ \t]{0,3}"
)
_HEADER_ENTRY = deferred(r"(?:[,;]|[ \t](?:et|and|und|y|e|&)[ \t])[ \t]*(?=[^\s,;])")
_AFFILIATION = deferred(r"[ \t]{1,3}(?:from|at|chez|bei|von|vom|presso|de chez)[ \t]{1,3}([^\W\d_])")
_EMAIL_LOCAL = deferred(r"([\w.+-]{1,64})@[\w-]{1,63}\.")
_LOCAL_PARTS = deferred(r"[._+ -]+")
# A signature's name and its title on one line: "Tamsin Whitlock | Practice Manager", "Maite Urrutia – Directora".
_TITLE_AFTER_NAME = deferred(r"[ \t]{1,2}(?:\||–|—|-|/)[ \t]{1,2}\S|,[ \t]{1,2}\S")
_ROLE_OPENING = deferred(r"[ \t]{0,2}(?:,|\(|–|—|-(?= ))[ \t]{0,2}")
_CLOSING_LINE = deferred(
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
_INTRO_GAP = deferred(r"[ \t]{0,3}:?[ \t]{1,3}")
_GREETING_GAP = deferred(r"[ \t]{0,3}[:,]?[ \t]{1,3}")
_PHRASE_GAP = deferred(r"[ \t,]{1,3}")
_LIST_LINK = deferred(r"[ \t]*(?:,|&|\+|et|and|und|y|e|en)[ \t]+", re.IGNORECASE)
_LEGAL_FORM_AFTER = deferred(r",?[ \t]{1,3}([^\s,;:!?()]{1,12})")


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
        self.namelike_memo: dict[int, bool] = {}
        # Starts of the entries of a mail header list ("cc: Tran Van Duc, Ilse Varno").
        self.listed = _header_entry_starts(self.words.text)

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
        if not _may_be_name_word(self.words.texts[i], after_particle=after_particle):
            return False
        return not self.glued_to_digits(i) and not self.is_month_use(i)

    def glued_to_digits(self, i: int) -> bool:
        """Word i is part of a code ("GB45", "FR76", "A4"), not a word."""
        text, start, end = self.words.text, self.words.starts[i], self.words.ends[i]
        return (end < len(text) and text[end].isdigit()) or (start > 0 and text[start - 1].isdigit())

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
            if particles and count and self.org_follows(j + particles):
                break  # "Jean Moreau de Vexalis Conseil": the particle opens a company's name
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

    def org_follows(self, j: int) -> bool:
        """Word j and the next joined word make a business name ("Vexalis Conseil")."""
        words = self.words
        return j + 1 < words.count and words.joined(j) and lexicon.is_org_descriptor(words.texts[j + 1])

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
        if lexicon.lexicon_key(word) in _PHRASE_WORDS and not lexicon.is_core_first_name(word):
            return None  # "Cher Thomas,": a greeting, though Cher is a name somewhere
        if words.previous_key(i) in _NAMED_AFTER:
            return None
        end, count, strong = self.name_tail(i + 1)
        if count == 0 or (self.is_all_caps(i) and not self.all_caps_between(i, end)):
            return None  # "JEAN Dupont": an ALL-CAPS first name goes with ALL-CAPS surnames
        if count == 1 and words.texts[end - 1] in places.STATE_CODES:
            return None  # "Austin TX", "Fitzroy VIC": a town and its state in an address
        if self.opens_with_place(i, end):
            return None
        if self.is_ambiguous_first_name(i) and not strong:
            return None
        if lexicon.is_weak_first_name(word) and not self.has_plain_surname(i + 1, end):
            return None  # "Golden Gate Bridge": an everyday word that is a name only far away
        if self.legal_form_follows(end - 1):
            return None
        end = self.famous_prefix_end(i, end)
        return end, 0.95 if strong else 0.85

    def has_plain_surname(self, i: int, end: int) -> bool:
        """A known surname that is no everyday word (or one in capitals) among words [i, end)."""
        return any(
            self.is_all_caps(k) or _is_plain_surname(self.words.texts[k]) for k in range(i, end)
        )

    def famous_prefix_end(self, i: int, end: int) -> int:
        """The end of a famous person's name that opens the span ("Angela Merkel" in "Angela
        Merkel Physik studiert"): the next capitalised word is not part of that name."""
        words = self.words
        for cut in range(end - 1, i + 1, -1):
            if lexicon.is_famous_person(words.text[words.starts[i] : words.ends[cut - 1]]):
                return cut
        return end

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
        Martin", "Herr Dr. Müller", "Sig.ra Rossi"): one to three spaces or tabs, and before them
        a chunk of up to ten characters without a space."""
        text = self.words.text
        pos = self.words.starts[i]
        before = text[max(0, pos - 3) : pos]
        gap_start = pos - (len(before) - len(before.rstrip(" \t")))
        if gap_start == pos:
            return False
        window = text[max(0, gap_start - 10) : gap_start]
        if not window or window[-1].isspace():
            return False  # no chunk: _is_honorific_chunk("") is False
        chunk = window.rsplit(None, 1)[-1]
        return _is_honorific_chunk(chunk.lstrip("([«\"'“"))

    def is_honorific_word(self, i: int) -> bool:
        """Word i (with up to four characters after it, up to a space) is itself a civility, as
        in "M." or "Sig.ra"."""
        text = self.words.text
        start, end = self.words.starts[i], self.words.ends[i]
        after = text[end : end + 4]
        glued = after.split(None, 1)[0] if after and not after[0].isspace() else ""
        return _is_honorific_chunk(text[start:end] + glued)

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
        if greeted and not lexicon.is_first_name(words.texts[i]):
            return self.greeted_unknown_name_at(i)
        if not lexicon.is_first_name(words.texts[i]) or self.is_all_caps(i):
            return None
        if self.is_ambiguous_first_name(i) and not self.ends_phrase(i):
            return None
        return i + 1, 0.85

    def phrase_before(self, i: int, phrases: frozenset[str], gap: re.Pattern[str]) -> bool:
        """One of `phrases` ends right before word i ("je m'appelle", "Bonjour,")."""
        words = self.words
        # The cached key lookup first: most words follow no phrase, and the gap's regex costs more.
        if i == 0 or lexicon.lexicon_key(words.texts[i - 1]) not in _PHRASE_ENDS:
            return False
        if not gap.fullmatch(words.text, words.ends[i - 1], words.starts[i]):
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
        """A signature line: one to three name words filling the line or set apart from a title ("Cordialement,
        \\nKarlo Vexmir", "Kind regards,\\nTamsin Whitlock | Practice Manager"); a word alone is a known first name
        ("Cordialement,\\nAcme" may be signed by the sender's company)."""
        end, count, _ = self.name_tail(i)
        if count == 0:
            return None
        name_end = self.words.ends[end - 1]
        if not (self.words.line_rest_is_empty(name_end) or _TITLE_AFTER_NAME.match(self.words.text, name_end)):
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

    # --- names the lexicon does not know ---------------------------------------------------------

    def is_namelike(self, i: int) -> bool:
        """A capitalised word that reads as a person's name word: a known first name or surname,
        or an unknown word that is no everyday word, brand, famous body, org descriptor or
        greeting, written like a name ("Kelidu", "Tolbek", "O'Neill"; not "Roadmap", "Spotify",
        "Logistics", "iPhone")."""
        known = self.namelike_memo.get(i)
        if known is None:
            known = self.namelike_memo[i] = self._is_namelike(i)
        return known

    def _is_namelike(self, i: int) -> bool:
        return self.is_name_word(i) and _reads_as_name_word(self.words.texts[i])

    def is_known_name(self, i: int) -> bool:
        """Word i is in a name list and is no everyday word."""
        word = self.words.texts[i]
        if lexicon.is_first_name(word):
            return not lexicon.is_homograph(word) and not lexicon.is_common_word(word)
        return lexicon.is_surname(word) and not lexicon.is_common_word(word)

    def namelike_tail(self, i: int) -> tuple[int, int, int, bool]:
        """The name words from word i: (end, how many, how many are known names, whether all
        read as name words). A word of a name list that is also an everyday word ("Long", "Hoa")
        may stand in a name holding a known one ("Tran Van Long"). (i, 0, 0, False) when some
        word is neither, or when the run goes on into another capitalised word (a company, a
        product, a heading: "Ilse Varno Consulting")."""
        end, count, _ = self.name_tail(i, limit=4)
        if count == 0:
            return i, 0, 0, False
        names = [k for k in range(i, end) if self.is_capitalised(k) and not self.is_particle_word(k)]
        if self.capitalised_word_follows(end) or not all(self.is_namelike(k) or self.is_listed_name(k) for k in names):
            return i, 0, 0, False
        if any(self.is_all_caps(k) and not self.is_known_name(k) for k in names):
            return i, 0, 0, False  # "RAPPORT ANNUEL DUPONT": a heading in capitals
        known = sum(self.is_known_name(k) for k in names)
        strict = all(self.is_namelike(k) for k in names)
        return (end, len(names), known, strict) if strict or known else (i, 0, 0, False)

    def is_listed_name(self, i: int) -> bool:
        word = self.words.texts[i]
        if not self.is_name_word(i):
            return False
        return not self.is_month_use(i) and (lexicon.is_first_name(word) or lexicon.is_surname(word))

    def is_particle_word(self, i: int) -> bool:
        word = self.words.texts[i]
        return lexicon.lexicon_key(word) in _CAPITAL_PARTICLES or (len(word) == 1 and word.isupper())

    def capitalised_word_follows(self, end: int) -> bool:
        """Word `end` is capitalised and joined to the word before it."""
        words = self.words
        return end < words.count and words.joined(end - 1) and words.texts[end][0].isupper()

    def unknown_name_at(self, i: int) -> tuple[int, float] | None:
        """Names the full-name rule cannot read: two to four name words after a person cue
        ("avec Zorvan Kelidu", "spoke with Ilse Varno", "ma tante, Zorana Kelidu"), before a
        role or an affiliation ("Zorvan Kelidu, directeur technique", "Ilse Varno from
        Brightwave"), beside their e-mail address, in a mail header list ("cc: Tran Van Duc"),
        or two or three holding a known name word in any order ("Zorvan Nkosi", "Morozov
        Pavel"); one first name after an addressing verb ("contacter Mathis") or as a vocative
        ("Lucas, the figures...")."""
        if not (self.is_namelike(i) or self.is_listed_name(i)) or self.words.previous_key(i) in _NAMED_AFTER:
            return None
        if self.continues_capitalised_run(i):
            return None  # "Hong Kong Disneyland": the tail of a longer capitalised name
        end, count, known, _ = self.namelike_tail(i)
        if count == 0 or self.legal_form_follows(end - 1) or self.is_place_value(i, end):
            return None
        if count == 2 and self.words.texts[end - 1] in places.STATE_CODES:
            return None  # "Fitzroy VIC": a town and its state
        listed = self.words.starts[i] in self.listed
        if count == 1:
            return self.single_name_at(i, listed=listed)
        if not self.is_known_name(i) and (lexicon.is_common_word(self.words.texts[i]) or self.full_name_at(i + 1)):
            return None  # "Rappelle Marie Dupont": the name starts at the next word
        if listed or self.person_cue_before(i) or self.email_names(i, end):
            return end, 0.8
        if self.role_follows(end) or self.affiliation_follows(end):
            return end, 0.8
        return (end, 0.75) if known and count <= 3 else None

    def continues_capitalised_run(self, i: int) -> bool:
        """Word i follows a capitalised word it is joined to that is no everyday word, greeting,
        civility or cue: both belong to a longer name (a place, a product: "Hong Kong
        Disneyland"); "Hier Morozov Pavel" is a sentence opening on a name."""
        words = self.words
        if i == 0 or not words.joined(i - 1) or not words.texts[i - 1][0].isupper():
            return False
        before = words.texts[i - 1]
        key = lexicon.lexicon_key(before)
        if key in _PHRASE_WORDS or key in _PHRASE_ENDS or lexicon.is_honorific(before):
            return False
        return not lexicon.is_common_word(before)

    def person_cue_before(self, i: int) -> bool:
        return self.phrase_before(i, _PERSON_CUE, _GREETING_GAP) or self.phrase_before(i, _ADDRESS_CUE, _INTRO_GAP)

    def affiliation_follows(self, end: int) -> bool:
        """"X Y from Brightwave Marine", "X Y chez Zentavio", "X Y bei Holzwerk Brenner"."""
        match = _AFFILIATION.match(self.words.text, self.words.ends[end - 1])
        return match is not None and match.group(1)[0].isupper()

    def email_names(self, i: int, end: int) -> bool:
        """An e-mail address close by whose local part spells one of the name's words
        ("Zorvan Kelidu (z.kelidu@...)")."""
        words = self.words
        text = words.text
        window = text[max(0, words.starts[i] - 80) : words.ends[end - 1] + 80]
        if "@" not in window:
            return False
        keys = {lexicon.lexicon_key(w) for w in words.texts[i:end] if len(w) >= 3}
        for local in _EMAIL_LOCAL.findall(window):
            parts = set(_LOCAL_PARTS.split(lexicon.lexicon_key(local)))
            if keys & parts:
                return True
        return False

    def single_name_at(self, i: int, *, listed: bool) -> tuple[int, float] | None:
        """One word alone: a first name after an addressing verb, as a vocative or in a header
        list; an unknown name word only in a header list."""
        word = self.words.texts[i]
        first_name = lexicon.is_first_name(word) and not self.is_ambiguous_first_name(i)
        if not first_name:
            return (i + 1, 0.7) if listed and not self.is_all_caps(i) else None
        if listed or self.phrase_before(i, _ADDRESS_CUE, _INTRO_GAP) or self.is_vocative(i):
            return i + 1, 0.75
        return None

    def greeted_unknown_name_at(self, i: int) -> tuple[int, float] | None:
        """A greeted name the lexicon does not know, alone before punctuation or the line end
        ("Bonjour Zorvana,", "Hola Amira,", "Dear Ilse Varno,")."""
        end, count, _, strict = self.namelike_tail(i)
        if count == 0 or not strict or self.is_all_caps(i) or not self.ends_phrase(end - 1):
            return None
        return end, 0.75

    def is_vocative(self, i: int) -> bool:
        """A first name opening a sentence (or a quote) and followed by a comma and a lower-case
        word: "Lucas, the figures are wrong", "Marie, peux-tu...". """
        words = self.words
        if not words.sentence_initial(i) or i + 1 >= words.count:
            return False
        gap = words.text[words.ends[i] : words.starts[i + 1]]
        return gap.strip() == "," and words.texts[i + 1][0].islower()

    def role_follows(self, end: int) -> bool:
        """A role right after the name: ", directrice technique", " (Head of Procurement",
        ", our new warehouse manager"."""
        words = self.words
        opening = _ROLE_OPENING.match(words.text, words.ends[end - 1])
        if not opening or opening.end() == words.ends[end - 1]:
            return False
        k = end
        while k < words.count and words.starts[k] < opening.end():
            k += 1
        for _ in range(4):
            if k >= words.count or (k > end and not words.joined(k - 1)):
                return False
            key = lexicon.lexicon_key(words.texts[k])
            if key in _ROLE_WORDS:
                return True
            if key not in _ROLE_FILLERS and not words.texts[k][0].islower():
                return False
            k += 1
        return False

    def is_place_value(self, i: int, end: int) -> bool:
        value = self.words.text[self.words.starts[i] : self.words.ends[end - 1]]
        return lexicon.is_place(value) or self.opens_with_place(i, end)

    def opens_with_place(self, i: int, end: int) -> bool:
        """The first two or three words make a place ("Hong Kong Disneyland", "San Francisco")."""
        words = self.words
        return any(
            lexicon.is_place(words.text[words.starts[i] : words.ends[k]])
            for k in range(i + 1, min(end, i + 3))
            if words.joined(k - 1)
        )

    # --- passes --------------------------------------------------------------------------------

    def find_names(self) -> None:
        """First pass, left to right: honorific names, full names, surname-first names, names
        in strong contexts. Every word of a name found becomes known for the second pass."""
        words = self.words
        i = 0
        while i < words.count:
            word = words.texts[i]
            if not word[0].isupper() and not (word in _PARTICLE_SPELLINGS and self.particle_after_honorific(i)):
                i += 1
                continue
            match, source = (None, "") if _opens_no_name(word) else self.name_at(i)
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
        match = self.context_name_at(i)
        if match:
            return match, "context"
        return self.unknown_name_at(i), "context"

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
            if not words.texts[i][0].isupper() or i in taken or not self.is_echo(i):
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
_PERSON_CUE = _phrase_keys(_PERSON_CUE_PHRASES)
_ADDRESS_CUE = _phrase_keys(_ADDRESS_CUE_PHRASES)
_ALL_PHRASES = _INTRO_ANY | _INTRO_FIRST_NAME | _GREETING | _PERSON_CUE | _ADDRESS_CUE
_LONGEST_PHRASE = max(p.count(" ") + 1 for p in _ALL_PHRASES)
_PHRASE_ENDS = frozenset(p.rsplit(" ", 1)[-1] for p in _ALL_PHRASES)
# Greeting and introduction words are never a name word of their own ("Félicitations Martin").
_PHRASE_WORDS = frozenset(w for p in _INTRO_ANY | _INTRO_FIRST_NAME | _GREETING for w in p.split(" "))
_NAME_SHAPE = deferred(r"(?:Mc|Mac|O['’]|D['’]|De|Di|Da|La|Le|Van|Von)?[^\W\d_][^\W\d_A-Z]*")


@lru_cache(maxsize=16384)
def _may_be_name_word(word: str, *, after_particle: bool) -> bool:
    """`_Scan.is_name_word` read on the word alone, its neighbours aside (glued to digits, a
    month used as a date): cached, as the same words come back in every text."""
    if not word[0].isupper() or (len(word) < 4 and sum(ch.isalpha() for ch in word) < 2):
        return False
    if lexicon.is_legal_form(word) or lexicon.is_honorific(word) or lexicon.is_country(word):
        return False
    if lexicon.lexicon_key(word).replace(" ", "") in _ORG_AFFIX_KEYS:
        return False
    if after_particle and lexicon.is_place(word):
        return False
    if lexicon.is_surname(word) or lexicon.is_first_name(word):
        return not lexicon.is_stopword(word) or len(word) >= 4
    if lexicon.is_stopword(word) or lexicon.is_generic_term(word) or lexicon.is_place(word):
        return False
    return not lexicon.lexicon_key(word).endswith(_NOUN_ENDINGS)


@lru_cache(maxsize=16384)
def _opens_no_name(word: str) -> bool:
    """A capitalised word from which no name starts, whatever its context: no first name, never
    a name word, no particle and no initial. `_Scan.name_at` finds nothing there and leaves the
    heading mark alone (its name tails stop at once); most capitalised words are such ("Bonjour",
    "Merci", "Pouvez"), and this cached test spares them the context tests."""
    if not word[0].isupper() or len(word) < 2 or lexicon.is_first_name(word):
        return False
    return not _may_be_name_word(word, after_particle=False) and lexicon.lexicon_key(word) not in _CAPITAL_PARTICLES


@lru_cache(maxsize=16384)
def _reads_as_name_word(word: str) -> bool:
    """`_Scan.is_namelike` of a name word, read on the word alone (cached): written like a name,
    no org descriptor, greeting word or brand; a first name that is no everyday word, or no
    everyday word at all."""
    if not _has_name_shape(word) or lexicon.is_org_descriptor(word):
        return False
    key = lexicon.lexicon_key(word)
    if key in _PHRASE_WORDS or lexicon.is_notorious(word, "company", commercial=True, people=False):
        return False
    if lexicon.is_first_name(word) and not lexicon.is_homograph(word):
        return True
    return not lexicon.is_common_word(word)


def _is_plain_surname(word: str) -> bool:
    return lexicon.is_surname(word) and not lexicon.is_common_word(word)


def _has_name_shape(word: str) -> bool:
    """Written like a name: capitalised then lower case in each hyphenated part ("Jean-Pierre",
    "McAllister", "O'Neill"), or all in capitals; not "iPhone", "PlayStation" or "eBay"."""
    if word.isupper():
        return True
    return all(_NAME_SHAPE.fullmatch(part) and part[0].isupper() for part in re.split(r"[-‐‑]", word) if part)


def _header_entry_starts(text: str) -> set[int]:
    """Where each entry of a mail header list begins ("cc: Anna Berg, Yaw Boateng" -> 2 starts)."""
    starts: set[int] = set()
    for field in _HEADER_FIELD.finditer(text):
        line_end = text.find("\n", field.end())
        limit = min(line_end if line_end >= 0 else len(text), field.end() + 300)
        starts.add(field.end())
        starts.update(m.end() for m in _HEADER_ENTRY.finditer(text, field.end(), limit))
    return starts


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


# --- user names ------------------------------------------------------------------------------------

# "@zora.kel" in a message (not an e-mail address, a decorator or a CSS rule).
_MENTION = deferred(r"(?<![\w@.+/-])@([A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,38}[A-Za-z0-9_])?)(?![\w@(-])")
# Words after "@" that are code or team-wide mentions, not someone's handle.
_NOT_HANDLES = frozenset({
    "media", "import", "font-face", "keyframes", "charset", "supports", "page", "namespace", "layer",
    "container", "property", "apply", "tailwind", "param", "return", "returns", "throws", "throw",
    "override", "deprecated", "see", "since", "author", "version", "link", "inheritdoc", "todo",
    "type", "typedef", "template", "example", "everyone", "here", "channel", "all", "team",
    "dataclass", "staticmethod", "classmethod", "abstractmethod", "cached_property", "pytest",
    "app", "router", "component", "injectable", "input", "output", "test", "before", "after",
    "beforeeach", "aftereach", "mixin", "include", "extend", "use", "forward", "if", "else",
    "each", "for", "while", "function", "debug", "warn", "error", "latest", "next", "types",
})
# Endings that make "@name.tld" a domain, not a handle.
_DOMAIN_ENDINGS = frozenset({
    "com", "org", "net", "fr", "de", "es", "it", "eu", "io", "co", "uk", "be", "ch", "nl", "pt",
    "ca", "us", "info", "biz", "dev", "app", "ai", "gov", "edu",
})
# A label that names a user name: "login", "username", "identifiant", "pseudo", "Benutzer"...
_HANDLE_LABEL = deferred(
    # a key of code or logs too ("db_user", "\"user\": ", "# author: ")
    r"(?i)(?<![A-Za-z0-9-])(?:log-?in|user ?name|user ?id|user|identifiant|pseudo(?:nyme)?|handle|"
    r"author|auteur|autor|autore|owner|assignee|maintainer|committer|"
    r"nom d['’]utilisateur|utilisateur|benutzer(?:name)?|nutzer(?:name)?|anmeldename|"
    r"nombre de usuario|usuario|nome utente|utente|username|gebruikersnaam|nick(?:name)?|gamertag|"
    # accounts named by their platform ("my steam is d4rkmatt3r_", "mein twitch name ist ...")
    r"(?:twitch|steam|discord|reddit|telegram|instagram|insta|snapchat|snap|tiktok|xbox|psn|riot|github|gitlab)"
    r"(?: ?(?:name|id|handle|user ?name|account|tag|pseudo))?)(?![\w-])"
)
# After the label: a colon or the value itself ("login z.kelidu", "username: jdoe"), or a few
# words then "is" / "est" / "ist" / "è" ("My username on the forum is grey_owl_77").
_HANDLE_AFTER_LABEL = deferred(
    r"[\"']?[ \t]{0,3}(?:[:=][ \t]{0,3}|[ \t](?:[^\s:=.!?;,@]{1,20}[ \t]{1,3}){0,7}?"
    r"(?:is|was|est|c['’ ]?est|était|sera|ist|war|es|era|è|e|sono)[ \t]{1,3}[:=]?[ \t]{0,2}|[ \t]{1,2})"
    r"[\"'«“‘`]?([A-Za-z0-9][A-Za-z0-9._-]{1,39})"
)
# Where logs and paths name an account: a home folder ("/home/abhishek.rao/", "C:\\Users\\n.okonkwo\\"), a login
# in an SSH daemon's or Samba's log ("Failed password for mlefebvre from", "user [kschmidt]").
_HANDLE_IN_LOGS = deferred(
    r"(?:(?<![\w.])/(?:home|Users)/|\b[A-Za-z]:\\+Users\\+)(?P<handle>[A-Za-z0-9][A-Za-z0-9._-]{1,39})(?=[/\\\s>'\"]|$)"
    r"|\b(?:password|publickey|keyboard-interactive/pam) for (?:invalid user )?"
    r"(?P<handle2>[A-Za-z0-9][A-Za-z0-9._-]{1,39}) from\b"
    r"|\buser \[(?P<handle3>[A-Za-z0-9][A-Za-z0-9._-]{1,39})\]"
    # a Reddit user ("u/panzerotto_barese")
    r"|(?<![\w/])u/(?P<handle4>[A-Za-z0-9_-]{3,20})(?![\w/-])"
    # a log's or a query's key ("user=kbenhamou", "login=jdoe", "&username=m.leroy"): any login, named or not
    r"|(?<![\w-])(?:user|login|username|user_?name|uid|account)=(?P<handle5>[A-Za-z0-9][A-Za-z0-9._-]{2,39})"
    # the login of a remote shell or copy, or of an address whose host is an IP ("ssh dkumar@10.14.2.37",
    # "scp f.txt deploy@build01:", "dennis.k@192.168.1.20"): no e-mail address has such a host
    r"|\b(?:ssh|scp|sftp|rsync|mosh|ssh-copy-id)\b[^\n`@]{0,80}?(?<![\w.-])(?P<handle6>[A-Za-z_][A-Za-z0-9._-]{1,31})@"
    r"|(?<![\w.@-])(?P<handle7>[A-Za-z_][A-Za-z0-9._-]{1,31})@(?=\d{1,3}(?:\.\d{1,3}){3}(?![\d.]))"
)
_LOG_HANDLES = ("handle", "handle2", "handle3", "handle4", "handle5", "handle6", "handle7")
# Accounts of the system, not of a person.
_SYSTEM_ACCOUNTS = frozenset({
    "root", "admin", "administrator", "user", "guest", "public", "default", "shared", "ubuntu", "debian", "pi",
    "www-data", "nobody", "postgres", "mysql", "git", "runner", "vagrant", "ec2-user", "centos", "test",
})
_HANDLE_SHAPE = deferred(r"[A-Za-z0-9]*[._\d-][A-Za-z0-9._-]*")
_CAMEL_CASE = deferred(r"[a-z][A-Z]")  # "xXGamerLenaXx"


def detect_handles(text: str) -> list[Span]:
    """User names (kind "username"): "@handle" mentions, and the value after a user-name label
    ("login z.kelidu", "identifiant : zk.compta", "My username on the forum is grey_owl_77",
    "für den Benutzer z.kelidu"). A value needs a handle's shape (a dot, an underscore or a
    digit) or to spell a name ("jgarcia"); e-mail addresses are not handles."""
    view = TextView(text)
    found: dict[tuple[int, int], tuple[str, float]] = {}
    for match in _MENTION.finditer(view.text):
        handle = match.group(1).rstrip(".-")
        if _is_mention(handle):
            found[(match.start(1), match.start(1) + len(handle))] = ("rule", 0.9)
    for match in _HANDLE_IN_LOGS.finditer(view.text):
        group = next(name for name in _LOG_HANDLES if match.group(name))
        handle = match.group(group).rstrip(".-_")
        if len(handle) >= 2 and handle.lower() not in _SYSTEM_ACCOUNTS:
            found.setdefault((match.start(group), match.start(group) + len(handle)), ("context", 0.85))
    for label in _HANDLE_LABEL.finditer(view.text):
        value = _HANDLE_AFTER_LABEL.match(view.text, label.end())
        if not value:
            continue
        handle = value.group(1).rstrip(".-_")
        after = value.start(1) + len(handle)
        if view.text[after : after + 1] == "@" or not _is_handle_value(handle):
            continue
        found.setdefault((value.start(1), after), ("context", 0.85))
    return [view.span(start, end, "username", source, score) for (start, end), (source, score) in sorted(found.items())]


def _is_mention(handle: str) -> bool:
    if len(handle) < 2 or handle.lower() in _NOT_HANDLES or handle.isdigit():
        return False
    last = handle.rsplit(".", 1)
    return len(last) == 1 or last[1].lower() not in _DOMAIN_ENDINGS


def _is_handle_value(value: str) -> bool:
    """A user name's shape, or a lower-case word that spells a name ("jgarcia", "zkelidu")."""
    if len(value) < 3 or value.isdigit() or lexicon.is_stopword(value) or lexicon.is_common_word(value):
        return False
    if _HANDLE_SHAPE.fullmatch(value) or _CAMEL_CASE.search(value):
        return any(ch.isalpha() for ch in value)
    return value.islower() and _spells_a_name(value)


def _spells_a_name(value: str) -> bool:
    """"jgarcia" (an initial and a surname), "garcia", "nathalie", "mariegarcia" (a first name and a surname)."""
    if lexicon.is_first_name(value) or any(lexicon.is_surname(value[cut:]) for cut in (0, 1, 2)):
        return True
    cuts = range(3, len(value) - 2)
    return any(lexicon.is_first_name(value[:cut]) and lexicon.is_surname(value[cut:]) for cut in cuts)
