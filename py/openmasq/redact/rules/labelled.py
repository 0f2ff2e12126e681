"""Structured values by context: a value in the shape of an IBAN, card, national or tax ID,
bank account or record number right after its label ("Mon IBAN : FR76 ...", "carte 4970 ...",
"NIR 1 84 12 ...", "MRN: 00458213") is masked whatever its check digits say: a typo is still
the user's number. Unlabelled numbers keep their checksum validation (finance.py, ids.py), so
order numbers, amounts and references stay as they are.

A label is a word or phrase of one of five languages; between it and the value only a few
filler words and punctuation ("n°", "est", "de la", ":"). The value is read with the shapes
of the label's family, in order; the first that fits gives the kind (score 0.8, below the
checksum detectors' 1.0, which win on the same span)."""

from __future__ import annotations

from collections.abc import Callable

from ...patterns import deferred
from ..checksums import compact
from ._base import Hit, lowered
from .finance import IBAN_LENGTHS

LABELLED_SCORE = 0.8

# A digit run with single separators, of `low` to `high` digits, not cut inside a longer run.
def _digits(low: int, high: int, seps: str = r" .\-") -> str:
    return rf"\d(?:[{seps}]?\d){{{low - 1},{high - 1}}}(?![\w]|[{seps}]\d)"


_SHAPES: dict[str, str] = {
    "iban": r"[A-Z]{2} ?\d{2}(?:[ -]?[A-Z0-9]){10,32}(?![a-z0-9])",
    "rib": r"\d{5}[ ]?\d{5}[ ]?[0-9A-Z]{11}[ ]?\d{2}(?![\w])",
    "card": r"\d{4}(?:[ -]?\d{3,6}){2,4}(?![\w])|\d{13,19}(?![\w])",
    "nir": r"\d[ .-]?\d{2}[ .-]?\d{2}[ .-]?(?:\d{2}|2[ABab])[ .-]?\d{3}[ .-]?\d{3}(?:[ .-]?\d{2})?(?![\w]|[ .-]\d)",
    "dni": r"\d{2}\.?\d{3}\.?\d{3}[ -]?[A-Za-z](?![\w])",
    "nie": r"[XYZxyz][ -]?\d{7}[ -]?[A-Za-z](?![\w])",
    "nif": r"[KLMklm][ -]?\d{7}[ -]?[A-Za-z](?![\w])",
    "cif": r"[A-HJNP-SUVW][ -]?\d{7}[ -]?[0-9A-J](?![\w])",
    # Sixteen characters, in groups as people write them ("RSS MRA 85T10 A562S"): the layout is checked on
    # the compact form.
    "codice_fiscale": r"(?i:[A-Z0-9](?:[ ]?[A-Z0-9]){15})(?![\w])",
    "svnr": r"\d{2}[ ]?\d{6}[ ]?[A-Za-z][ ]?\d{3}(?![\w])",
    "ssn": _digits(8, 10, " .-"),  # a digit dropped or doubled is still the number
    "nino": r"[A-Za-z]{2}[ ]?\d{2}[ ]?\d{2}[ ]?\d{2}(?:[ ]?[A-Da-d])?(?![\w])",
    "steuer_id": _digits(11, 11, " /"),
    "siren": _digits(9, 9, " ."),
    "siret": _digits(14, 14, " ."),
    "fr_vat": r"FR[ ]?[0-9A-Z]{2}[ ]?\d{3}[ ]?\d{3}[ ]?\d{3}(?![\w]|[ ]\d)",
    "eu_vat": r"(?:[A-Z]{2}[ ]?)?\d{9,12}(?![\w])",
    "ein": r"\d{2}-\d{7}(?![\w]|-\d)|\d{9}(?![\w])",
    "abn": _digits(11, 11, " "),
    "tfn": _digits(8, 9, " "),
    "tax_number": _digits(10, 13, " /"),
    "sort_code": r"\d{2}[- ]\d{2}[- ]\d{2}(?![\w]|[- ]\d)|\d{6}(?![\w])",
    "account": _digits(6, 12, " -"),
    "passport": r"\d{2}[ ]?[A-Z]{2}[ ]?\d{5}(?![\w])|[A-Z]{1,3}[ ]?\d{6,8}(?![\w])|[A-Z0-9]{8,10}(?![\w])",
    "id_card": (r"[A-Z0-9]{9,12}(?![\w])|\d{3}[ ]?\d{3}[ ]?\d{3}[ ]?\d{3}(?![\w])"
                r"|[A-Z]{2}[ ]?\d{5,7}[ ]?[A-Z]{2}(?![\w])"),  # the Italian CIE, "CA 48213 FF"
    # A vehicle identification number: 17 letters and digits, never I, O or Q.
    "vin": r"[A-HJ-NPR-Z0-9]{17}(?![\w])",
    # A booking's reference (a PNR): six letters and digits in capitals.
    "booking": r"[A-Z0-9]{6}(?![\w])",
    # A licence plate: letter and digit groups with single separators ("AB-123-CD", "M-AB 1234", "1234 BCD").
    "plate": r"[A-Z0-9]{1,4}(?:[ -][A-Z0-9]{1,4}){1,3}(?![\w]|[ -][A-Z0-9])|[A-Z0-9]{5,8}(?![\w])",
    "record": r"[A-Za-z0-9](?:[A-Za-z0-9]|[-/.](?=[A-Za-z0-9])){2,24}(?![\w])",
    # Groups of digits with single spaces, a letter or two after ("4829 517 306 MK": a health card).
    "spaced_record": r"\d{2,6}(?: \d{1,6}){1,4}(?: [A-Z]{1,2})?(?![\w]| \d)",  # a check digit alone at the end
    # A German court's file number: chamber, register letters, number and year ("3 O 123/24", "1 BvR 2354/13").
    "court_file": r"\d{1,3} [A-Z][A-Za-z]{0,3} \d{1,5}/\d{2,4}(?![\w]|/\d)",
    # A long number with separators, letters allowed at either end ("20-38472910-6", "527 318 904").
    "long_id": r"(?:[A-Z]{1,2}[ -]?)?\d(?:[ ./-]?\d){6,19}(?:[ -]?[A-Z]{1,2})?(?![\w]|[ ./-]\d)",
}
_SHAPE_PATTERNS = {name: deferred(source) for name, source in _SHAPES.items()}

# After the label of a national or tax identifier, a value in none of the family's layouts (another country's
# number, a digit dropped, groups the family does not write: "NIF is 231 456 789", "CIF B-87452190",
# "passport no. 5481 02937") is still the number the label names.
_IDENTIFIER_FALLBACK = (("long_id", "record_id"), ("spaced_record", "record_id"))
_WITH_FALLBACK = frozenset({
    "idcard", "nir", "ssn", "nino", "dni", "nie", "nif", "cif", "codice_fiscale", "steuer_id", "tax", "svnr", "ein",
    "abn", "tfn", "siren", "siret", "vat", "passport",
})

# Each family: its labels (lower-case regex) and the (shape, kind) pairs tried in order.
_FAMILIES: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "idcard": (
        r"personalausweis(?:nummer|-?nr\.?)?|ausweis(?:nummer|-?nr\.?)?|id-?karte|"
        r"cartes? (?:nationale )?d['’]identit[ée]|cni|carta (?:d['’]|di )identit[àa]|"
        r"identity card(?: number| no\.?)?|id card(?: number| no\.?)?|documento de identidad",
        (("dni", "dni"), ("nie", "nie"), ("id_card", "id_card")),
    ),
    "iban": (
        r"iban|rib|relev[ée] d['’]identit[ée] bancaire|bankverbindung|kontoverbindung|c[oó]digo iban",
        (("iban", "iban"), ("rib", "iban")),
    ),
    "account": (
        r"account (?:number|no\.?|n°|#)|acc(?:oun)?t\.? no\.?|acc\.? no\.?|acct\.?|a/c(?: no\.?)?|bank account|"
        r"kontonummer|"
        r"konto-?nr\.?|kto\.?-?nr\.?|num[ée]ro de compte(?: bancaire)?|n° de compte(?: bancaire)?|"
        r"n[úu]mero de cuenta|numero di conto(?: corrente)?|numero conto|conto corrente|"
        # the bare word, before a number of six digits or more ("account 83920145", "Konto 1234567")
        r"account|compte|cuenta|konto|conto",
        (("iban", "iban"), ("rib", "iban"), ("account", "account_number")),
    ),
    "sort_code": (r"sort[ -]?code|s/c", (("sort_code", "sort_code"),)),
    "card": (
        r"cartes? bancaires?|cartes? de cr[ée]dit|carte(?! (?:vitale|grise|sim|de s[ée]jour|d['’]identit))|"
        r"cb|credit card|debit card|card(?: number| no\.?| n°)?|kartennummer|kreditkarte(?:nnummer)?|"
        r"karte|tarjeta(?! sanitaria)(?: de cr[ée]dito| de d[ée]bito)?|carta(?: di credito| di debito| prepagata)?|"
        r"visa|mastercard|amex",
        (("card", "card"),),
    ),
    "nir": (
        r"nir|n° (?:de )?s[ée]cu(?:rit[ée] sociale)?|num[ée]ro (?:de )?s[ée]cu(?:rit[ée] sociale)?|"
        r"s[ée]curit[ée] sociale|s[ée]cu|carte vitale|insee|n° ss|num[ée]ro ss",
        (("nir", "nir"),),
    ),
    "ssn": (
        r"ssn|social security(?: number| no\.?| #)?|soc\.? sec\.?(?: no\.?)?|ss#|itin|social",  # "my social is ..."
        (("ssn", "ssn"),),
    ),
    "nino": (r"national insurance(?: number| no\.?)?|ni number|ni no\.?|nino", (("nino", "nino"),)),
    "dni": (r"dni|d\.n\.i\.?", (("dni", "dni"), ("nie", "nie"))),
    "nie": (r"nie|n\.i\.e\.?|n[úu]mero de identidad de extranjero", (("nie", "nie"), ("dni", "dni"))),
    "nif": (
        r"nif|n\.i\.f\.?",
        (("dni", "dni"), ("nie", "nie"), ("nif", "nif"), ("cif", "cif"), ("tax_number", "tax_id")),
    ),
    "cif": (r"cif|c\.i\.f\.?", (("cif", "cif"),)),
    "codice_fiscale": (
        r"codice fiscale|cod\.? ?fisc(?:ale)?\.?|c\.f\.|cf",
        (("codice_fiscale", "codice_fiscale"),),
    ),
    "steuer_id": (
        r"steuer-?id(?:entifikationsnummer)?|steuer-?idnr\.?|steueridentifikationsnummer|"
        r"steuerliche identifikationsnummer|identifikationsnummer|idnr\.?",
        (("steuer_id", "steuer_id"),),
    ),
    "tax": (
        r"num[ée]ro fiscal(?: de r[ée]f[ée]rence)?|n° fiscal|identifiant fiscal|spi|"
        r"num[ée]ro d['’]identification fiscale|steuernummer|steuer-?nr\.?|tax id(?: number)?|tin|tax code|"
        r"taxpayer id(?:entification number)?",
        (("ein", "ein"), ("steuer_id", "steuer_id"), ("codice_fiscale", "codice_fiscale"), ("tax_number", "tax_id")),
    ),
    "svnr": (
        r"sozialversicherungs-?nummer|sv-?nummer|sv-?nr\.?|svnr|rentenversicherungs-?nummer|rv-?nummer|"
        r"versicherungsnummer",
        (("svnr", "svnr"), ("record", "record_id")),
    ),
    "ein": (
        r"ein|fein|employer identification number|employer id(?:entification)?(?: number| no\.?)?",
        (("ein", "ein"),),
    ),
    "abn": (r"abn|australian business number", (("abn", "abn"),)),
    "tfn": (r"tfn|tax file number", (("tfn", "tfn"),)),
    "siren": (r"siren", (("siren", "siren"),)),
    "siret": (r"siret", (("siret", "siret"),)),
    "vat": (
        r"tva(?: intra(?:communautaire)?)?|vat(?: number| no\.?| id)?|num[ée]ro de tva|"
        r"p\.? ?iva|partita iva|ust-?id(?:nr\.?)?|umsatzsteuer-?id(?:entifikationsnummer)?",
        (("fr_vat", "vat"), ("eu_vat", "vat")),
    ),
    "passport": (
        r"passeports?|passports?|reisepass(?:nummer|-?nr\.?)?|pass-?nr\.?|passnummer|pasaportes?|passaport[oi]",
        (("passport", "passport"),),
    ),
    "record": (
        r"mrn|medical record(?: number| no\.?)?|patient(?: id| number| no\.?| n°| #)|"
        r"patienten-?(?:nummer|nr\.?|id)|n° (?:de )?patient|num[ée]ro (?:de )?patient|"
        r"dossier (?:patient|m[ée]dical)|ipp|personalnummer|personal-?nr\.?|mitarbeiter-?(?:nummer|nr\.?|id)|"
        r"matricule|matrikel-?(?:nummer|nr\.?)|employee (?:id|number|no\.?|#)|staff (?:id|number|no\.?)|"
        r"student (?:id|number|no\.?)|num[ée]ro (?:d['’])?[ée]tudiant|n° (?:d['’])?[ée]tudiant|"
        r"n° (?:d['’])?adh[ée]rent|num[ée]ro (?:d['’])?adh[ée]rent|membership (?:number|no\.?)|"
        r"member (?:id|number|no\.?)|mitglieds-?(?:nummer|nr\.?)|"
        r"n[úu]mero de (?:socio|empleado|historia(?: cl[íi]nica)?|paciente)|historia cl[íi]nica|nhc|"
        r"numero (?:di )?(?:matricola|tessera|paziente|cartella(?: clinica)?)|matricola|cartella clinica|"
        r"nhs (?:number|no\.?)|(?:kranken)?versichertennummer|(?:kranken)?versicherten-?nr\.?|"
        r"krankenversicherungsnummer|ine|numen|"
        # the identifier a public service gives ("identifiant France Travail 1234567A", "n° allocataire")
        r"identifiant(?: france travail| p[ôo]le emploi| caf| ameli)?|(?:n°|num[ée]ro) (?:d['’])?identifiant|"
        r"n[úu]mero de afiliaci[óo]n|afiliaci[óo]n|national (?:id )?number|national id(?: number| no\.?)?|"
        # keys of code, logs and exports ("customer_id=88120456", "patientId"), customer numbers
        r"(?:customer|client|user|patient|employee|member|account|student|contact|person|staff)[_ -]?"
        r"(?:id|no|nr|num|number)|"
        r"kunden-?(?:nummer|nr\.?|id)|(?:n°|num[ée]ro|no\.?) (?:de )?client|n[úu]mero de cliente|"
        r"codice cliente|"
        # an electricity or gas supply point or meter: it names one household
        r"(?:codice )?pod|(?:codice )?pdr|pdl|prm|point de livraison|(?:n°|num[ée]ro) de compteur|"
        r"z[äa]hler-?(?:nummer|nr\.?)|meter (?:number|no\.?|serial(?: number)?)|(?:numero (?:del )?)?contatore|"
        r"n[úu]mero de contador|cups|"
        # national numbers of other countries, said by their name
        r"ahv(?:-?nr\.?|-?nummer)?|avs(?: n°)?|pan(?: card| no\.?| number)?|aadhaar(?: no\.?| number)?|"
        r"c[ée]dula(?: de ciudadan[íi]a| de identidad)?|curp|rut|dpi|rfc|"
        r"num[ée]ro national|n° national|registre national|rijksregisternummer|"
        r"n[úu]mero de la seguridad social|seguridad social|nuss|nss|"
        r"tessera (?:elettorale|sanitaria)|numero (?:della )?tessera|"
        r"bsn|burgerservicenummer|pesel|tckn|personnummer|henkilötunnus",
        (("long_id", "record_id"), ("record", "record_id")),
    ),
    "licence": (
        r"permis(?: de conduire)?(?: n°| no\.?)?|n° (?:de )?permis|num[ée]ro (?:de )?permis|"
        r"f[üu]hrerschein(?:-?nr\.?|nummer)?|driv(?:er|ing)['’]?s? licen[cs]e(?: number| no\.?| #)?|"
        r"licen[cs]e (?:number|no\.?)|dl(?: no\.?| #)?|"
        r"(?:permiso|carn[ée]t?|licencia) de conduc(?:ir|ción)|patente(?: di guida)?|n[úu]mero de licencia",
        (("long_id", "record_id"), ("record", "record_id")),
    ),
    "vin": (
        r"vin|vehicle identification number|fahrgestell-?(?:nummer|nr\.?)|fin|num[ée]ro de s[ée]rie du v[ée]hicule|"
        r"num[ée]ro vin|n[úu]mero de bastidor|bastidor|numero di telaio|telaio",
        (("vin", "record_id"),),
    ),
    "booking": (
        r"booking (?:reference|ref\.?|code|number)|reservation (?:code|number)|confirmation (?:code|number)|pnr|"
        r"(?:num[ée]ro|code|r[ée]f[ée]rence) de r[ée]servation|dossier de r[ée]servation|"
        r"buchungs-?(?:nummer|code|nr\.?)|localizador|c[óo]digo de reserva|n[úu]mero de reserva|"
        r"codice (?:di )?prenotazione|numero (?:di )?prenotazione",
        (("booking", "record_id"), ("record", "record_id")),
    ),
    "plate": (
        r"plaques? (?:d['’])?immatriculation|plaques?|immatriculation|immat\.?|kennzeichen|nummernschild|"
        r"kfz-?kennzeichen|amtliches kennzeichen|matr[íi]cula|targa|licen[cs]e plate|number plate|"
        r"registration(?: number| no\.?| plate)?|reg(?: no\.?| number| plate)?",
        (("plate", "record_id"),),
    ),
    "policy": (
        r"policy (?:number|no\.?|#)|police (?:n°|no\.?)|n° (?:de )?police|"
        r"num[ée]ro de (?:police|contrat d['’]assurance)|"
        r"versicherungsschein(?:nummer|-?nr\.?)?|policen-?(?:nummer|nr\.?)|vertragsnummer|"
        r"n[úu]mero de p[óo]liza|p[óo]liza(?: n[°º])?|(?:numero di )?polizza(?: n[°º.])?|"
        # a contract's number names the person's contract (an insurance, a lease, a subscription)
        r"contrat (?:n[°º]|no\.?|num[ée]ro)|(?:n[°º]|num[ée]ro) (?:de )?contrat|contract (?:number|no\.?|#)|"
        r"vertrags-?nr\.?|n[úu]mero de contrato|contrato n[°º.]?|numero (?:di |del )?contratto|contratto n[°º.]?",
        (("long_id", "record_id"), ("record", "record_id")),
    ),
    "case_file": (
        r"(?:numero|n\.|n[°º]) (?:di |della )?pratica|pratica n[°º.]?|aktenzeichen|az\.|gesch[äa]ftszeichen|"
        r"(?:n[úu]mero de )?expediente(?: n[°º.])?|case (?:number|no\.?|ref(?:erence)?)|"
        r"paziente n[°º.]?|pazienti n[°º.]?|n[°º] (?:de )?dossier (?:m[ée]dical|patient|contentieux)|"
        # a letter's own references ("Our ref: CL/HB/22817", "V/Réf.", "Ihr Zeichen")
        r"(?:our|your) ref(?:erence)?\.?|(?:notre|votre|n/|v/) ?r[ée]f(?:[ée]rence)?\.?|unser zeichen|ihr zeichen|"
        r"(?:nuestra|su|vuestra) (?:ref(?:erencia)?\.?)|(?:ns|vs|nostro|vostro)\.? rif(?:erimento)?\.?",
        (("court_file", "record_id"), ("long_id", "record_id"), ("record", "record_id")),
    ),
    "health_card": (
        r"health (?:card|insurance)(?: number| no\.?| #)?|ohip(?: number| no\.?)?|carte (?:santé|soleil)|"
        r"tarjeta sanitaria|tessera sanitaria|gesundheitskarte|medicare(?: number| no\.?)?",
        (("spaced_record", "record_id"), ("record", "record_id")),
    ),
}
# Short labels that are also words ("ein" in German, "cf." for "confer", "nie" "never"): only
# in capitals.
_CAPITALS_ONLY = frozenset({
    "ein", "cf", "cb", "tin", "itin", "nie", "rib", "abn", "tfn", "mrn", "ipp", "ine", "nhc", "spi", "cni", "fein",
    "nif", "cif", "dni", "nir", "nino", "svnr", "pan", "rut", "dpi", "rfc", "nss", "avs", "bsn", "pod", "pdr",
    "pdl", "prm", "vin", "fin", "pnr", "cups", "numen",
})
_LABEL = deferred(
    r"(?<![\w])(?:" + "|".join(f"(?P<{name}>{labels})" for name, (labels, _) in _FAMILIES.items()) + r")(?![\w])"
)
_LABEL_PROBE = deferred(r"\d")
# Between a label and its value: spaces, one line break, punctuation and up to four short words.
_GAP = deferred(r"(?:[ \t]{1,3}|\r?\n|[:=#°º.,()\-–\"']|[^\W\d_]{1,12}(?:['’][^\W\d_]{1,12})?(?=[ \t:°º.,]))*")
_GAP_MAX = 36
_GAP_WORDS_MAX = 4  # "El CIF de mi sociedad es B-87452190"
_GAP_WORDS = deferred(r"[^\W\d_]+(?:['’][^\W\d_]+)?")  # an elided article and its word count once
# A gap naming another thing: the value after it is that thing's ("CB, commande n° 4970...").
_OTHER_THINGS = frozenset({
    "commande", "order", "facture", "invoice", "réf", "ref", "référence", "reference", "bestellung",
    "rechnung", "pedido", "factura", "ordine", "fattura", "ticket", "contrat", "contract", "suivi",
    "tracking", "colis", "parcel", "dossier", "montant", "amount", "betrag", "importe", "importo",
    "total", "prix", "price", "code", "version", "date",
})


# An acronym none of the families knows ("CUIL", "NAS", "BSN", "PESEL") before a long number is that number's
# label: an identifier (record_id). Not these, which name numbers of things, not of people.
_ACRONYM = deferred(r"(?<![\w-])[A-Z]{2,6}(?![\w-])")
_THING_ACRONYMS = frozenset({
    "ISBN", "ISSN", "EAN", "UPC", "GTIN", "SKU", "ASIN", "DOI", "HTTP", "HTTPS", "CVE", "RFC", "ISO", "DIN", "EN",
    "PO", "REF", "ORD", "INV", "FAC", "SO", "PR", "TVA", "VAT", "HT", "TTC", "EUR", "USD", "GBP", "CHF", "CAD",
    "AUD", "MXN", "ARS", "COP", "CLP", "BRL", "JPY", "CNY", "INR", "KB", "MB", "GB", "TB", "KW", "KWH", "MW", "CO",
    "PIB", "GDP", "BIP", "PIL", "IVA", "CA", "UTC", "GMT", "CET", "CEST", "ID", "PDF", "API", "SQL", "CPU", "GPU",
    "RAM", "SSD", "OS", "QR", "NFC", "IP", "TCP", "UDP", "DNS", "URL", "DE", "FR", "UK", "US", "ES", "IT", "EU",
})


def find_labelled(text: str) -> list[Hit]:
    """Values in the shape of their label's family, right after the label (score 0.8), and long numbers right
    after an acronym no family knows."""
    if not _LABEL_PROBE.search(text):
        return []
    hits: list[Hit] = []
    for label in _LABEL.finditer(lowered(text)):
        family = label.lastgroup
        if family is None or not _label_written_so(text, label.start(), label.end()):
            continue
        hit = _value_after(text, label.end(), _shapes_of(family))
        if hit is not None:
            hits.append(hit)
    for acronym in _ACRONYM.finditer(text):
        if acronym.group() not in _THING_ACRONYMS and not _LABEL.fullmatch(acronym.group().lower()):
            hit = _value_after(text, acronym.end(), (("long_id", "record_id"),))
            if hit is not None:
                hits.append(hit)
    return hits


def _shapes_of(family: str) -> tuple[tuple[str, str], ...]:
    shapes = _FAMILIES[family][1]
    return shapes + _IDENTIFIER_FALLBACK if family in _WITH_FALLBACK else shapes


def _label_written_so(text: str, start: int, end: int) -> bool:
    word = text[start:end]
    return word.lower() not in _CAPITALS_ONLY or word.isupper()


def _value_after(text: str, label_end: int, shapes: tuple[tuple[str, str], ...]) -> Hit | None:
    """The first value of the family's shapes after the label's gap."""
    gap = _GAP.match(text, label_end)
    gap_end = gap.end() if gap else label_end
    # The gap's words may include the value's first letters ("FR76", "X1234567L"): every word
    # start within the gap is a possible value start, the latest first tried last.
    starts = [label_end + i for i, ch in enumerate(text[label_end:gap_end + 1]) if _starts_value(text, label_end + i)]
    for start in starts:
        if start - label_end > _GAP_MAX or not _plain_gap(text[label_end:start]):
            break
        hit = _value_at(text, start, shapes) or _value_at(_one_line(text, start), start, shapes)
        if hit is not None:
            return hit
    return None


def _value_at(text: str, start: int, shapes: tuple[tuple[str, str], ...]) -> Hit | None:
    for shape, kind in shapes:
        m = _SHAPE_PATTERNS[shape].match(text, start)
        if m is None:
            continue
        end = _VALIDATE.get(shape, _any_digits)(m.group(0))
        if end:
            return Hit(start, _continued(text, start + end), kind, LABELLED_SCORE)
    return None


_LINE_CUT_REACH = 16


def _one_line(text: str, start: int) -> str:
    """`text` with the line break that cuts a value soon after `start` read as a space ("Numéro de passeport :
    19AV\n52841"); offsets are unchanged. Tried only when the value fits no shape as written."""
    cut = text.find("\n", start, start + _LINE_CUT_REACH)
    if cut <= start or not text[cut + 1 : cut + 2].isalnum():
        return text
    return text[:cut] + " " + text[cut + 1 :]


# The rest of a number the line cut ("Versichertennr.: K220\n123456 (in zwei Zeilen)"): a line of digit groups
# alone, or before a bracket or a dash, right after the value.
_CONTINUATION = deferred(r"[ \t]*\r?\n\d{1,6}(?: \d{1,6}){0,3}(?=[ \t]*(?:$|\r?\n|[(\[—–,;]))")


def _continued(text: str, end: int) -> int:
    m = _CONTINUATION.match(text, end)
    return m.end() if m else end


def _starts_value(text: str, i: int) -> bool:
    return i < len(text) and text[i].isalnum() and (i == 0 or not text[i - 1].isalnum())


def _plain_gap(gap: str) -> bool:
    words = [w.lower() for w in _GAP_WORDS.findall(gap)]
    return len(words) <= _GAP_WORDS_MAX and not any(w in _OTHER_THINGS for w in words) and "\n\n" not in gap


def _any_digits(value: str) -> int:
    return len(value) if any(ch.isdigit() for ch in value) else 0


def _iban_end(value: str) -> int:
    """The longest cut at a separator whose compact length suits the country (one character
    more or less: a typo may drop or double one), else 0."""
    expected = IBAN_LENGTHS.get(value[:2])
    lengths = range(expected - 1, expected + 2) if expected else range(15, 35)
    cuts = [len(value)] + [i for i in range(len(value) - 1, 4, -1) if value[i] in " -"]
    for cut in cuts:
        if len(compact(value[:cut])) in lengths:
            return len(value[:cut].rstrip(" -"))
    return 0


def _card_end(value: str) -> int:
    return len(value) if 13 <= len(compact(value)) <= 19 else 0


def _letters_and_digits(min_digits: int) -> Callable[[str], int]:
    def check(value: str) -> int:
        digits = sum(ch.isdigit() for ch in value)
        return len(value) if digits >= min_digits and value.upper() == value else 0
    return check


# A version has short parts ("4.12.1"); "43.512.887" is a number grouped by thousands.
_DATE_OR_VERSION = deferred(r"\d{1,4}([./-])\d{1,2}\1\d{1,4}|v\d+(?:\.\d+){1,3}|\d{1,2}(?:\.\d{1,2}){1,3}")


_YEAR = deferred(r"(?:19|20)\d\d")


def _record_end(value: str) -> int:
    """A record number has three digits or more and is no date, year, version or plain word."""
    if sum(ch.isdigit() for ch in value) < 3 or _DATE_OR_VERSION.fullmatch(value) or _YEAR.fullmatch(value):
        return 0
    return len(value)


def _plate_end(value: str) -> int:
    """A plate mixes letters and digits, five characters or more ("AB-123-CD"), in capitals."""
    chars = compact(value)
    has_both = any(ch.isdigit() for ch in chars) and any(ch.isalpha() for ch in chars)
    return len(value) if has_both and len(chars) >= 5 and value.upper() == value else 0


_CODICE_FISCALE = deferred(r"[A-Z]{6}[0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{3}[A-Z]")


def _codice_fiscale_end(value: str) -> int:
    return len(value) if _CODICE_FISCALE.fullmatch(compact(value).upper()) else 0


_VALIDATE: dict[str, Callable[[str], int]] = {
    "vin": _letters_and_digits(3),
    "booking": lambda value: len(value) if value.isupper() and not value.isdigit() else 0,
    "iban": _iban_end,
    "card": _card_end,
    "passport": _letters_and_digits(4),
    "id_card": _letters_and_digits(3),
    "record": _record_end,
    "plate": _plate_end,
    "spaced_record": _record_end,
    "long_id": _record_end,
    "codice_fiscale": _codice_fiscale_end,
}

# For contact.py: the words after which any phone-shaped run of digits is a phone.
PHONE_LABELS = deferred(
    r"(?<![\w])(?:t[ée]l(?:[ée]phone|efon(?:o|nummer)?)?|phone(?: number)?|mobile?|mobil(?:nummer|telefon)?|"
    r"portable|cell(?:ulare|phone)?|fax|m[óo]vil|tel[ée]fono|tlf|gsm|handy(?:nummer)?|whats ?app|"
    r"rufnummer|cellulaire|natel|numéro de (?:t[ée]l[ée]phone|portable|mobile)|phone no\.?|"
    # contact words and verbs of calling ("Contacto: 91 730 22 84", "call arvind on 9812 044 617")
    r"contact(?:o)?|kontakt|contatto|call|ring|text|appelle[rz]?|ll[aá]ma(?:me|le)?|chiama(?:mi|lo|la)?|"
    r"anrufen|ruf(?:e)?)(?![\w])"
)


def phone_label_before(text: str, start: int) -> bool:
    """True when a phone label ends right before `start`, with only a plain gap between."""
    low = lowered(text)
    window_start = max(0, start - 48)
    for label in PHONE_LABELS.finditer(low, window_start, start):
        gap = text[label.end() : start]
        m = _GAP.match(text, label.end(), start)
        if m is not None and m.end() == start and len(gap) <= _GAP_MAX and _plain_gap(gap):
            return True
    return False




def record_shaped(value: str) -> bool:
    """A whole value in the shape of a record number (tables.py: a cell of an identifiers' column)."""
    return any(_SHAPE_PATTERNS[shape].fullmatch(value) and _record_end(value)
               for shape in ("record", "spaced_record", "long_id"))
