"""Values by their column: in a Markdown table or a delimited block (CSV, semicolons, tabs), the header says
what a column's cells are. "| Mitarbeiter | Personalnr. |" makes "Li Wei" a person and "40211" an identifier,
though neither would be read so in prose ("40211" is any number, and "Li Wei" no name of our lists).

Pure: text in, spans out (on the text's offsets). Three steps, each a small function: find the tables
(`find_tables`), name each column's kind from its header (`column_kind`), keep the cells that fit that kind
(`_fits`)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..patterns import deferred
from . import lexicon
from .rules.labelled import record_shaped
from .spans import Span

SOURCE = "context"
SCORES = {"person": 0.7, "record_id": 0.8, "username": 0.8, "dob": 0.8, "location": 0.7, "phone": 0.8}
MAX_CELL_WORDS = 4
MAX_HEADER_CHARS = 40


@dataclass(frozen=True)
class Cell:
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Table:
    """A header row and the data rows below it, cells with their offsets in the text."""

    header: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]


# Header words, compared lower-case without accents or punctuation.
_ID_WORDS = frozenset({
    "id", "nr", "no", "n", "nº", "num", "number", "nummer", "numero", "matricola", "matricule", "matrikel",
    "personalnr", "personalnummer", "kundennr", "kundennummer", "mitgliedsnr", "badge", "tessera", "dni", "nie",
    "nir", "ssn", "nino", "iban", "mrn", "ipp", "nhc", "pesel", "bsn", "cf", "nif", "cpf", "curp", "ahv", "nss",
    "nuss", "passport", "passeport", "pasaporte", "passaporto", "reisepass",
})
# A column of things' numbers, not of people's: "Order ID", "N° facture", "Produkt-Nr.".
_THING_WORDS = frozenset({
    "order", "commande", "bestellung", "pedido", "ordine", "invoice", "facture", "rechnung", "factura", "fattura",
    "product", "produit", "produkt", "producto", "prodotto", "article", "artikel", "articulo", "articolo", "sku",
    "ref", "reference", "item", "ticket", "issue", "version", "build", "release", "line", "ligne", "zeile", "row",
    "page", "seite", "pagina", "tracking", "colis", "paket", "lot", "batch", "serial", "serie", "room", "salle",
    "raum", "table", "step", "etape", "schritt", "paso", "passo", "task", "tache", "aufgabe", "chapter",
})
# Headers whose cells are people, whatever the cells look like.
_PERSON_ROLES = frozenset({
    "employee", "employe", "employee name", "salarie", "mitarbeiter", "mitarbeiterin", "empleado", "empleada",
    "dipendente", "client", "cliente", "customer", "kunde", "kundin", "patient", "paciente", "paziente",
    "contact", "contacto", "contatto", "ansprechpartner", "teacher", "professeur", "enseignant", "lehrer",
    "lehrerin", "profesor", "docente", "student", "etudiant", "eleve", "schuler", "schueler", "alumno", "alumna",
    "studente", "participant", "participante", "partecipante", "teilnehmer", "teilnehmerin", "member", "membre",
    "mitglied", "socio", "manager", "responsable", "responsabile", "owner", "assignee", "tenant", "locataire",
    "mieter", "inquilino", "guest", "invite", "gast", "invitado", "ospite", "person", "persona", "personne",
    "staff", "worker", "driver", "chauffeur", "fahrer", "conductor", "autista", "candidate", "candidat",
    "bewerber", "candidato", "parent", "child", "enfant", "kind", "nino", "bambino", "benevole", "volunteer",
    "intervenant", "speaker", "redner", "ponente", "relatore", "trainer", "coach", "formateur", "medecin",
    "doctor", "arzt", "medico", "agent", "commercial", "vendeur", "seller", "verkaufer",
    # a part of a person's name: no product has a first name
    "prenom", "vorname", "nachname", "apellido", "apellidos", "cognome", "surname", "first name", "last name",
    "full name", "nom complet", "nombre completo", "nome completo", "vollstandiger name", "nom de famille",
    "familienname", "given name", "family name",
})
# Headers whose cells are names of anything (a product's, a file's): a cell must look like a person's name.
_NAME_WORDS = frozenset({
    "name", "names", "nom", "noms", "nombre", "nombres", "nome", "nomi", "qui", "who", "wer", "quien", "chi",
})
# Headers of birth dates: their cells are dates of birth.
_BIRTH_DATE_WORDS = frozenset({
    "dob", "date of birth", "birth date", "birthdate", "birthday", "born", "date naissance", "date de naissance",
    "naissance", "ne le", "geburtsdatum", "geboren", "geburtstag", "fecha nacimiento", "fecha de nacimiento",
    "fecha nac", "nacimiento", "data nascita", "data di nascita", "nato il", "nascita",
})
_DATE_CELL = deferred(r"\d{1,4}[./-]\d{1,2}[./-]\d{1,4}|\d{1,2}\.? [^\W\d_]{3,10}\.? \d{4}")
# Headers of towns: their cells are places (a client's town, a patient's).
_PLACE_WORDS = frozenset({
    "ort", "wohnort", "stadt", "city", "town", "ville", "localite", "commune", "ciudad", "localidad", "municipio",
    "poblacion", "citta", "comune", "localita", "place of residence", "lieu", "lieu de residence",
})
_USER_WORDS = frozenset({"user", "username", "login", "utilisateur", "usuario", "utente", "benutzer", "handle"})
# Headers of phone numbers: any cell of seven digits or more in a phone's characters is one, whatever the
# phone library says of its range ("(415) 555-0193").
_PHONE_WORDS = frozenset({
    "phone", "telephone", "tel", "telefon", "telefono", "mobile", "mobil", "cell", "cellphone", "handy", "portable",
    "cellulare", "movil", "gsm", "fax", "phone number", "numero de telephone", "telefonnummer", "numero di telefono",
    "numero de telefono", "whatsapp",
})
_PHONE_CELL = deferred(r"\+?[\d ().\-/]{7,24}")

_HEADER_WORD = deferred(r"[^\W_]+")
_MD_ROW = deferred(r"^[ \t]*\|.*\|[ \t]*$", re.MULTILINE)
_MD_RULE = deferred(r"^[ \t]*\|(?:[ \t]*:?-{2,}:?[ \t]*\|)+[ \t]*$")
_DELIMITERS = (",", ";", "\t")
_CELL_WORD = deferred(r"[^\W\d_](?:[^\W\d_]|['’.-](?=[^\W\d_]))*\.?")


def detect_table_values(text: str) -> list[Span]:
    """People, identifiers, user names, birth dates and towns in the columns whose header names them."""
    if "\n" not in text:
        return []
    spans: list[Span] = []
    for table in find_tables(text):
        kinds = [column_kind(header) for header in table.header]
        if "person" in kinds:  # "nom" beside "prénom" is a surname, not a product's name
            kinds = ["person" if kind == "name" else kind for kind in kinds]
        for row in table.rows:
            for kind, cell in zip(kinds, row, strict=False):
                if kind is not None and _fits(kind, cell.text):
                    kind_name = "person" if kind in ("person", "name") else kind
                    spans.append(Span(cell.start, cell.end, cell.text, kind_name, SOURCE, SCORES[kind_name]))
    return spans


def find_tables(text: str) -> list[Table]:
    """Markdown tables (a header, a rule of dashes, rows), then delimited blocks outside them."""
    tables = list(_markdown_tables(text))
    taken = [(t.rows[0][0].start, t.rows[-1][-1].end) for t in tables if t.rows]
    for table in _delimited_tables(text):
        first, last = table.rows[0][0].start, table.rows[-1][-1].end
        if not any(start <= first <= end or start <= last <= end for start, end in taken):
            tables.append(table)
    return tables


def _markdown_tables(text: str) -> Iterator[Table]:
    lines = list(_lines(text))
    i = 0
    while i + 2 < len(lines):
        start, line = lines[i]
        if _MD_ROW.match(line) and _MD_RULE.match(lines[i + 1][1]):
            j = i + 2
            rows = []
            while j < len(lines) and _MD_ROW.match(lines[j][1]):
                rows.append(_split_cells(lines[j][0], lines[j][1], "|", edges=True))
                j += 1
            header = tuple(cell.text for cell in _split_cells(start, line, "|", edges=True))
            if rows:
                yield Table(header, tuple(rows))
            i = j
            continue
        i += 1


def _delimited_tables(text: str) -> Iterator[Table]:
    """Runs of two lines or more that each hold the same number of one delimiter, under a header of short
    cells without digits (prose with commas rarely keeps one count over several lines under such a line)."""
    lines = list(_lines(text))
    i = 0
    while i + 1 < len(lines):
        found = False
        for delimiter in _DELIMITERS:
            count = _count_outside_quotes(lines[i][1], delimiter)
            if count == 0:
                continue
            j = i + 1
            while j < len(lines) and _count_outside_quotes(lines[j][1], delimiter) == count:
                j += 1
            header = _split_cells(lines[i][0], lines[i][1], delimiter)
            if j - i >= 2 and _is_header(header):
                rows = tuple(_split_cells(start, line, delimiter) for start, line in lines[i + 1 : j])
                yield Table(tuple(cell.text for cell in header), rows)
                i, found = j, True
                break
        if not found:
            i += 1


def _is_header(cells: tuple[Cell, ...]) -> bool:
    return all(cell.text and len(cell.text) <= MAX_HEADER_CHARS and len(cell.text.split()) <= 3
               and not any(ch.isdigit() or ch in ".!?'’" for ch in cell.text.rstrip(".")) for cell in cells)


def _lines(text: str) -> Iterator[tuple[int, str]]:
    offset = 0
    for line in text.split("\n"):
        yield offset, line
        offset += len(line) + 1


def _count_outside_quotes(line: str, delimiter: str) -> int:
    return sum(1 for i in _delimiter_positions(line, delimiter))


def _delimiter_positions(line: str, delimiter: str) -> Iterator[int]:
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch == delimiter and not quoted:
            yield i


def _split_cells(offset: int, line: str, delimiter: str, *, edges: bool = False) -> tuple[Cell, ...]:
    """The cells of one row, stripped of spaces and quotes, on text offsets; `edges`: the row opens and closes
    with the delimiter ("| a | b |")."""
    cuts = [-1, *_delimiter_positions(line, delimiter), len(line)]
    cells = []
    for left, right in itertools.pairwise(cuts):
        raw = line[left + 1 : right]
        inner = raw.strip().strip('"').strip()
        lead = raw.find(inner) if inner else 0
        cells.append(Cell(offset + left + 1 + lead, offset + left + 1 + lead + len(inner), inner))
    if edges:
        cells = cells[1:-1]
    return tuple(cells)


def column_kind(header: str) -> str | None:
    """"person" (the cells are people), "name" (names of anything: a cell must look like a person's),
    "record_id", "username", "dob", "location", "phone", or None for any other column."""
    words = [lexicon.lexicon_key(word) for word in _HEADER_WORD.findall(header)]
    if not words or len(header) > MAX_HEADER_CHARS:
        return None
    phrase = " ".join(words)
    if any(word in _THING_WORDS for word in words):
        return None
    if phrase in _PERSON_ROLES or (len(words) == 2 and words[0] in _PERSON_ROLES and words[1] in _NAME_WORDS):
        return "person"
    if phrase in _NAME_WORDS:
        return "name"
    if phrase in _USER_WORDS:
        return "username"
    if phrase in _BIRTH_DATE_WORDS:
        return "dob"
    if phrase in _PLACE_WORDS:
        return "location"
    if phrase in _PHONE_WORDS:
        return "phone"
    if any(word in _ID_WORDS or word.endswith(("nr", "nummer")) for word in words):
        return "record_id"
    return None


def _fits(kind: str, cell: str) -> bool:
    if kind == "record_id":
        return record_shaped(cell)
    if kind == "dob":
        return bool(_DATE_CELL.fullmatch(cell))
    if kind == "location":
        return 1 < len(cell) <= 40 and cell[0].isupper() and not any(ch.isdigit() for ch in cell)
    if kind == "phone":
        return bool(_PHONE_CELL.fullmatch(cell)) and sum(ch.isdigit() for ch in cell) >= 7
    if kind == "username":
        return 2 < len(cell) <= 40 and " " not in cell and any(ch.isalpha() for ch in cell)
    words = cell.split()
    if not 0 < len(words) <= MAX_CELL_WORDS or not all(_CELL_WORD.fullmatch(word) for word in words):
        return False
    if kind == "person":
        return True
    return any(lexicon.is_first_name(word) or lexicon.is_surname(word) for word in words) and any(
        word[0].isupper() for word in words)
