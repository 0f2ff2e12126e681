"""Builds the attachment test documents in tests/data/attachments/ with LibreOffice headless, from
source text written here (flat OpenDocument XML: .fodt, .fods, .fodp), and writes manifest.json:
each file's sha256 and the real values it holds (invented people, IBANs valid mod 97, e-mails,
phones), so that the tests never need LibreOffice. Run on demand; the outputs are committed:

    apt-get install -y libreoffice-writer=4:7.4.7-1+deb12u14 libreoffice-calc=4:7.4.7-1+deb12u14 \\
        libreoffice-impress=4:7.4.7-1+deb12u14
    PYTHONPATH=py python scripts/build_test_documents.py             # every document
    PYTHONPATH=py python scripts/build_test_documents.py report.pdf  # only the 20-page report

(`./scripts/build-test-documents` installs the pinned packages first.)

What LibreOffice writes from the sources:
- contract.docx and contract.odt: three pages, a header and a footer, a table, a comment (an
  annotation by Solène Drouard), a tracked insertion and a tracked deletion (by Mathis Leclercq;
  the deleted sentence holds a phone number that only `deleted_values` lists: readers leave it out);
- contract.pdf: the same contract with its changes accepted (a PDF has no tracked changes), several
  pages, a table, a two-column section and a footer on every page;
- clients.xlsx and clients.ods: two sheets (Clients, Paiements) with a birth-date column;
- review.pptx: three slides with speaker notes;
- scanned.pdf: a page that is only an image of text (LibreOffice's PNG of a page, put back in a PDF):
  no text layer;
- report.pdf: a 20-page report (a chapter per page naming the same people and values, tables), the
  document bench/attachments.py reads in the browser;
- encrypted.pdf (a user password, AES-256) and owner-only.pdf (an owner password only, RC4: anyone
  may read it) are contract.pdf encrypted by pypdf (`PdfWriter.encrypt`), not by LibreOffice.

Nothing here is edited by hand: every feature above is written by LibreOffice itself from the flat
XML (tracked changes and annotations are ODF elements it converts to w:ins, w:del and comments)."""

# ruff: noqa: E501  (the flat OpenDocument templates keep their XML elements on one line each)
from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from xml.sax.saxutils import escape

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "data" / "attachments"
LIBREOFFICE = {"libreoffice-writer": "4:7.4.7-1+deb12u14", "libreoffice-calc": "4:7.4.7-1+deb12u14",
               "libreoffice-impress": "4:7.4.7-1+deb12u14"}


# --- the invented values ------------------------------------------------------------------------


def iban(country: str, bban: str) -> str:
    """An IBAN whose check digits are valid (ISO 13616 mod 97), grouped by four."""
    digits = "".join(str(int(ch, 36)) for ch in bban + country + "00")
    check = 98 - int(digits) % 97
    raw = f"{country}{check:02d}{bban}"
    return " ".join(raw[i : i + 4] for i in range(0, len(raw), 4))


def french_bban(bank: str, branch: str, account: str) -> str:
    """A French BBAN with its RIB key (97 - (89 bank + 15 branch + 3 account) mod 97)."""
    key = 97 - (89 * int(bank) + 15 * int(branch) + 3 * int(account)) % 97
    return f"{bank}{branch}{account}{key:02d}"


PEOPLE = {
    "client": "Héloïse Marchetti",
    "manager": "Baptiste Quenneville",
    "reviewer": "Solène Drouard",
    "editor": "Mathis Leclercq",
    "german": "Jonas Hartmann",
    "accountant": "Capucine Vasseur",
}
V = {
    "client_email": "heloise.marchetti@marchetti-conseil.fr",
    "manager_email": "baptiste.quenneville@atelier-verrand.fr",
    "contact_email": "contact@atelier-verrand.fr",
    "german_email": "jonas.hartmann@hartmann-logistik.de",
    "client_phone": "+33 6 47 28 91 35",
    "manager_phone": "06 71 84 29 53",
    "german_phone": "+49 151 23456789",
    "deleted_phone": "06 19 83 27 46",
    "client_iban": iban("FR", french_bban("30004", "01234", "00012345678")),
    "company_iban": iban("FR", french_bban("20041", "01005", "05001234567")),
    "german_iban": iban("DE", "37040044" + "0532013000"),
    "company": "Atelier Verrand SARL",
    "address": "14 rue des Tanneurs, 69002 Lyon",
    "client_birth": "14/03/1987",
}


# --- flat OpenDocument sources ------------------------------------------------------------------

NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
      'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
      'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
      'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
      'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
      'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
      'xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:dc="http://purl.org/dc/elements/1.1/" '
      'xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0" '
      'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
      'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
      'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" office:version="1.3"')


def p(text: str, style: str = "") -> str:
    attr = f' text:style-name="{style}"' if style else ""
    return f"<text:p{attr}>{escape(text)}</text:p>"


def contract_fodt(*, with_changes: bool) -> str:
    """The contract: three pages, header, footer, a table; with its comment and tracked changes, or accepted."""
    c, m = PEOPLE["client"], PEOPLE["manager"]
    changes = ""
    inserted = f"Le paiement est dû sous 30 jours, par virement à l'ordre de {m}."
    if with_changes:
        changes = (
            "<text:tracked-changes>"
            '<text:changed-region text:id="ct1"><text:insertion><office:change-info>'
            f"<dc:creator>{PEOPLE['editor']}</dc:creator><dc:date>2026-03-02T10:15:00</dc:date>"
            "</office:change-info></text:insertion></text:changed-region>"
            '<text:changed-region text:id="ct2"><text:deletion><office:change-info>'
            f"<dc:creator>{PEOPLE['editor']}</dc:creator><dc:date>2026-03-02T10:16:00</dc:date>"
            "</office:change-info>"
            f"{p('Ancienne ligne directe du dossier : ' + V['deleted_phone'] + '.')}"
            "</text:deletion></text:changed-region>"
            "</text:tracked-changes>")
        payment = (f'<text:p>Conditions. <text:change-start text:change-id="ct1"/>{escape(inserted)}'
                   '<text:change-end text:change-id="ct1"/></text:p><text:p><text:change text:change-id="ct2"/>'
                   "Toute modification fait l'objet d'un avenant.</text:p>")
        comment = ('<text:p>Coordonnées bancaires de la cliente : '
                   f'<office:annotation><dc:creator>{PEOPLE["reviewer"]}</dc:creator>'
                   "<dc:date>2026-03-01T09:00:00</dc:date>"
                   f"{p('Vérifier cet IBAN avec ' + c + ' avant la signature.')}</office:annotation>"
                   f"IBAN {escape(V['client_iban'])}.</text:p>")
    else:
        payment = p(f"Conditions. {inserted}") + p("Toute modification fait l'objet d'un avenant.")
        comment = p(f"Coordonnées bancaires de la cliente : IBAN {V['client_iban']}.")
    rows = [("Nom", "E-mail", "Téléphone"), (c, V["client_email"], V["client_phone"]),
            (m, V["manager_email"], V["manager_phone"]), (PEOPLE["german"], V["german_email"], V["german_phone"])]
    table = '<table:table table:name="Contacts"><table:table-column table:number-columns-repeated="3"/>' + "".join(
        "<table:table-row>" + "".join(f"<table:table-cell office:value-type=\"string\">{p(cell)}</table:table-cell>"
                                      for cell in row) + "</table:table-row>" for row in rows) + "</table:table>"
    page1 = (p("Contrat de prestation de services", "Title")
             + p(f"Entre {V['company']}, {V['address']}, représentée par {m}, et Madame {c}, "
                 f"joignable au {V['client_phone']} ou à l'adresse {V['client_email']}.")
             + p(f"La cliente, Madame {c}, est née le {V['client_birth']}.")
             + comment + payment + p("Les contacts du projet sont les suivants :") + table)
    page2 = (p("Annexe A — Partenaire en Allemagne", "Break")
             + p(f"Herr {PEOPLE['german']} (Hartmann Logistik GmbH) übernimmt den Transport. Telefon "
                 f"{V['german_phone']}, E-Mail {V['german_email']}, Bankverbindung IBAN {V['german_iban']}.")
             + p(f"Les factures du prestataire sont réglées sur le compte {V['company_iban']} de {V['company']}."))
    columns = " ".join([f"La comptable, Madame {PEOPLE['accountant']}, reçoit les relevés chaque mois."] * 6)
    page3 = (p("Annexe B — Suivi comptable", "Break")
             + '<text:section text:style-name="Sect1" text:name="Colonnes">' + p(columns)
             + p(f"Pour toute question, écrire à {V['manager_email']} ou appeler le {V['manager_phone']}.")
             + "</text:section>")
    header = p(f"{V['company']} — Confidentiel — dossier {c}")
    footer = (f"<text:p>{escape(V['company'])}, {escape(V['address'])} — {escape(V['contact_email'])} — page "
              "<text:page-number text:select-page=\"current\">1</text:page-number></text:p>")
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document {NS} office:mimetype="application/vnd.oasis.opendocument.text">
<office:styles>
 <style:style style:name="Title" style:family="paragraph"><style:text-properties fo:font-size="18pt" fo:font-weight="bold"/></style:style>
 <style:style style:name="Break" style:family="paragraph"><style:paragraph-properties fo:break-before="page"/><style:text-properties fo:font-size="14pt" fo:font-weight="bold"/></style:style>
</office:styles>
<office:automatic-styles>
 <style:style style:name="Sect1" style:family="section"><style:section-properties><style:columns fo:column-count="2" fo:column-gap="0.5cm"/></style:section-properties></style:style>
 <style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" fo:margin-top="2cm" fo:margin-bottom="2cm" fo:margin-left="2cm" fo:margin-right="2cm"/><style:header-style/><style:footer-style/></style:page-layout>
</office:automatic-styles>
<office:master-styles>
 <style:master-page style:name="Standard" style:page-layout-name="pm1">
  <style:header>{header}</style:header>
  <style:footer>{footer}</style:footer>
 </style:master-page>
</office:master-styles>
<office:body><office:text>{changes}{page1}{page2}{page3}</office:text></office:body>
</office:document>
"""


REPORT_PAGES = 20


def report_fodt() -> str:
    """A 20-page report (bench/attachments.py reads it in the browser): a chapter per page, each of
    some 2,500 characters of prose naming the dossier's people and values in turn, a table of contacts
    every fifth page, the header and footer of the contract on every page."""
    people = list(PEOPLE.values())
    facts = [f"joignable au {V['client_phone']}", f"à l'adresse {V['client_email']}", f"IBAN {V['client_iban']}",
             f"Telefon {V['german_phone']}", f"E-Mail {V['german_email']}", f"compte {V['company_iban']}",
             f"ligne directe {V['manager_phone']}", f"courriel {V['manager_email']}", f"Konto {V['german_iban']}"]
    filler = ("Le comité a relu les livrables du trimestre, comparé les délais prévus et les délais tenus, puis "
              "arrêté les priorités de la période suivante. Les écarts constatés restent dans les marges du contrat "
              "et ne justifient pas d'avenant. ")
    chapters = []
    for n in range(1, REPORT_PAGES + 1):
        who, other = people[n % len(people)], people[(n + 2) % len(people)]
        body = [p(f"Chapitre {n} — Suivi du lot {n}", "Title" if n == 1 else "Break")]
        for k in range(4):
            fact = facts[(n + k) % len(facts)]
            body.append(p(f"{filler}Pour le lot {n}, {who} ({fact}) a validé l'étape {k + 1} avec {other} de "
                          f"{V['company']}. {filler}"))
        if n % 5 == 0:
            rows = [("Nom", "E-mail", "Téléphone"), (PEOPLE["client"], V["client_email"], V["client_phone"]),
                    (PEOPLE["manager"], V["manager_email"], V["manager_phone"])]
            body.append('<table:table table:name="Contacts' + str(n) + '"><table:table-column '
                        'table:number-columns-repeated="3"/>' + "".join(
                            "<table:table-row>" + "".join(f'<table:table-cell office:value-type="string">{p(c)}'
                                                          "</table:table-cell>" for c in row) + "</table:table-row>"
                            for row in rows) + "</table:table>")
        chapters.append("".join(body))
    header = p(f"{V['company']} — Rapport annuel — dossier {PEOPLE['client']}")
    footer = (f"<text:p>{escape(V['company'])}, {escape(V['address'])} — page "
              "<text:page-number text:select-page=\"current\">1</text:page-number></text:p>")
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document {NS} office:mimetype="application/vnd.oasis.opendocument.text">
<office:styles>
 <style:style style:name="Title" style:family="paragraph"><style:text-properties fo:font-size="18pt" fo:font-weight="bold"/></style:style>
 <style:style style:name="Break" style:family="paragraph"><style:paragraph-properties fo:break-before="page"/><style:text-properties fo:font-size="14pt" fo:font-weight="bold"/></style:style>
</office:styles>
<office:automatic-styles>
 <style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" fo:margin-top="2cm" fo:margin-bottom="2cm" fo:margin-left="2cm" fo:margin-right="2cm"/><style:header-style/><style:footer-style/></style:page-layout>
</office:automatic-styles>
<office:master-styles>
 <style:master-page style:name="Standard" style:page-layout-name="pm1">
  <style:header>{header}</style:header>
  <style:footer>{footer}</style:footer>
 </style:master-page>
</office:master-styles>
<office:body><office:text>{"".join(chapters)}</office:text></office:body>
</office:document>
"""


def cell(value: str, kind: str = "string") -> str:
    if kind == "date":
        day, month, year = value.split("/")
        return (f'<table:table-cell table:style-name="ce1" office:value-type="date" '
                f'office:date-value="{year}-{month}-{day}">{p(value)}</table:table-cell>')
    if kind == "float":
        return f'<table:table-cell office:value-type="float" office:value="{value}">{p(value)}</table:table-cell>'
    return f'<table:table-cell office:value-type="string">{p(value)}</table:table-cell>'


def clients_fods() -> str:
    clients = [
        [("Nom",), ("E-mail",), ("Téléphone",), ("IBAN",), ("Date de naissance",), ("Ville",)],
        [(PEOPLE["client"],), (V["client_email"],), (V["client_phone"],), (V["client_iban"],),
         (V["client_birth"], "date"), ("Lyon",)],
        [(PEOPLE["german"],), (V["german_email"],), (V["german_phone"],), (V["german_iban"],),
         ("02/11/1979", "date"), ("Hamburg",)],
        [(PEOPLE["accountant"],), ("capucine.vasseur@cabinet-vasseur.fr",), ("07 58 31 64 92",),
         (V["company_iban"],), ("23/06/1991", "date"), ("Villeurbanne",)],
    ]
    payments = [
        [("Date",), ("Client",), ("Montant",), ("Référence",)],
        [("05/01/2026", "date"), (PEOPLE["client"],), ("1250.5", "float"), ("FAC-2026-001",)],
        [("12/02/2026", "date"), (PEOPLE["german"],), ("830", "float"), ("FAC-2026-002",)],
    ]

    def sheet(name: str, rows: list[list[tuple[str, ...]]]) -> str:
        return (f'<table:table table:name="{name}">' + "".join(
            "<table:table-row>" + "".join(cell(*c) for c in row) + "</table:table-row>" for row in rows)
                + "</table:table>")

    return f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document {NS} office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
<office:automatic-styles>
 <number:date-style style:name="N37"><number:day number:style="long"/><number:text>/</number:text><number:month number:style="long"/><number:text>/</number:text><number:year number:style="long"/></number:date-style>
 <style:style style:name="ce1" style:family="table-cell" style:data-style-name="N37"/>
</office:automatic-styles>
<office:body><office:spreadsheet>{sheet("Clients", clients)}{sheet("Paiements", payments)}</office:spreadsheet></office:body>
</office:document>
"""


def review_fodp() -> str:
    slides = [
        ("Revue du dossier Marchetti", [f"Cliente : {PEOPLE['client']}", f"Contact : {V['client_email']}"],
         f"Rappeler {PEOPLE['client']} au {V['client_phone']} avant vendredi."),
        ("Facturation", [f"Compte : {V['company_iban']}", f"Responsable : {PEOPLE['manager']}"],
         f"{PEOPLE['accountant']} prépare le relevé."),
        ("Partenaire allemand", [f"{PEOPLE['german']}, {V['german_phone']}"],
         f"Écrire à {V['german_email']} pour le transport."),
    ]

    def frame(y: str, cls: str, lines: list[str]) -> str:
        return (f'<draw:frame presentation:class="{cls}" svg:x="1cm" svg:y="{y}" svg:width="24cm" svg:height="4cm">'
                f"<draw:text-box>{''.join(p(line) for line in lines)}</draw:text-box></draw:frame>")

    pages = "".join(
        f'<draw:page draw:name="page{i}" draw:master-page-name="Default">'
        + frame("1cm", "title", [title]) + frame("6cm", "outline", body)
        + f'<presentation:notes>{frame("15cm", "notes", [notes])}</presentation:notes></draw:page>'
        for i, (title, body, notes) in enumerate(slides, start=1))
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document {NS} office:mimetype="application/vnd.oasis.opendocument.presentation">
<office:automatic-styles><style:page-layout style:name="PM1"><style:page-layout-properties fo:page-width="28cm" fo:page-height="15.75cm"/></style:page-layout></office:automatic-styles>
<office:master-styles><style:master-page style:name="Default" style:page-layout-name="PM1"/></office:master-styles>
<office:body><office:presentation>{pages}</office:presentation></office:body>
</office:document>
"""


def scan_source_fodt() -> str:
    body = (p("Attestation", "Title") + p(f"Je soussignée {PEOPLE['client']}, IBAN {V['client_iban']},")
            + p(f"atteste avoir reçu la somme de 1 250 euros de {V['company']}."))
    return contract_like(body)


def contract_like(body: str) -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document {NS} office:mimetype="application/vnd.oasis.opendocument.text">
<office:styles><style:style style:name="Title" style:family="paragraph"><style:text-properties fo:font-size="24pt"/></style:style></office:styles>
<office:body><office:text>{body}</office:text></office:body>
</office:document>
"""


def image_fodt(png: bytes) -> str:
    data = base64.b64encode(png).decode()
    body = ('<text:p><draw:frame draw:name="scan" text:anchor-type="as-char" svg:width="17cm" svg:height="24cm">'
            f"<draw:image><office:binary-data>{data}</office:binary-data></draw:image></draw:frame></text:p>")
    return contract_like(body)


# --- LibreOffice --------------------------------------------------------------------------------


def convert(source: Path, target: str, outdir: Path, profile: Path) -> Path:
    """`soffice --convert-to` one file; returns the file written."""
    command = ["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--norestore",
               "--convert-to", target, "--outdir", str(outdir), str(source)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180)
    written = outdir / f"{source.stem}.{target.split(':', 1)[0]}"
    if not written.is_file():
        raise SystemExit(f"LibreOffice did not write {written.name}")
    return written


def encrypt(source: Path, dest: Path, *, user: str, owner: str, algorithm: str) -> None:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(source))
    writer.encrypt(user_password=user, owner_password=owner, algorithm=algorithm)
    with dest.open("wb") as handle:
        writer.write(handle)


def versions() -> dict[str, str]:
    out = {}
    for package in LIBREOFFICE:
        done = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
        out[package] = done.stdout.strip()
    return out


def main(wanted: list[str]) -> int:
    """Builds every document, or only the ones named (`report.pdf`: the others' bytes stay as committed)."""
    installed = versions()
    if installed != LIBREOFFICE:
        print(f"LibreOffice packages differ from the pinned ones: {installed} (pinned {LIBREOFFICE})", file=sys.stderr)
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        profile = work / "profile"
        sources = {
            "contract.fodt": contract_fodt(with_changes=True),
            "contract-accepted.fodt": contract_fodt(with_changes=False),
            "clients.fods": clients_fods(),
            "review.fodp": review_fodp(),
            "scan-source.fodt": scan_source_fodt(),
            "report.fodt": report_fodt(),
        }
        for name, text in sources.items():
            (work / name).write_text(text, encoding="utf-8")
        if wanted == ["report.pdf"]:
            shutil.copyfile(convert(work / "report.fodt", "pdf:writer_pdf_Export", work, profile), OUT / "report.pdf")
            write_manifest(installed)
            return 0
        built = {
            "report.pdf": convert(work / "report.fodt", "pdf:writer_pdf_Export", work, profile),
            "contract.docx": convert(work / "contract.fodt", 'docx:"MS Word 2007 XML"'.replace('"', ""), work, profile),
            "contract.odt": convert(work / "contract.fodt", "odt", work, profile),
            "contract.pdf": convert(work / "contract-accepted.fodt", "pdf:writer_pdf_Export", work, profile),
            "clients.xlsx": convert(work / "clients.fods", "xlsx:Calc MS Excel 2007 XML", work, profile),
            "clients.ods": convert(work / "clients.fods", "ods", work, profile),
            "review.pptx": convert(work / "review.fodp", "pptx:Impress MS PowerPoint 2007 XML", work, profile),
        }
        png = convert(work / "scan-source.fodt", "png", work, profile).read_bytes()
        (work / "scanned.fodt").write_text(image_fodt(png), encoding="utf-8")
        built["scanned.pdf"] = convert(work / "scanned.fodt", "pdf:writer_pdf_Export", work, profile)
        for name, path in built.items():
            shutil.copyfile(path, OUT / name)
        encrypt(OUT / "contract.pdf", OUT / "encrypted.pdf", user="Secret-2026", owner="Owner-2026",
                algorithm="AES-256")
        encrypt(OUT / "contract.pdf", OUT / "owner-only.pdf", user="", owner="Owner-2026", algorithm="RC4-128")
    write_manifest(installed)
    return 0


def write_manifest(installed: dict[str, str]) -> None:
    people = list(PEOPLE.values())
    contract = [PEOPLE["client"], PEOPLE["manager"], PEOPLE["german"], PEOPLE["accountant"], V["client_email"],
                V["manager_email"], V["contact_email"], V["german_email"], V["client_phone"], V["manager_phone"],
                V["german_phone"], V["client_iban"], V["company_iban"], V["german_iban"], V["company"]]
    values = {
        "contract.docx": [*contract, PEOPLE["reviewer"]],
        "contract.odt": [*contract, PEOPLE["reviewer"]],
        "contract.pdf": contract,
        "owner-only.pdf": contract,
        "encrypted.pdf": contract,
        "clients.xlsx": [PEOPLE["client"], PEOPLE["german"], PEOPLE["accountant"], V["client_email"],
                         V["german_email"], V["client_phone"], V["german_phone"], V["client_iban"], V["german_iban"],
                         V["company_iban"], "capucine.vasseur@cabinet-vasseur.fr", "07 58 31 64 92"],
        "review.pptx": [PEOPLE["client"], PEOPLE["manager"], PEOPLE["german"], PEOPLE["accountant"],
                        V["client_email"], V["german_email"], V["client_phone"], V["german_phone"],
                        V["company_iban"]],
        "scanned.pdf": [PEOPLE["client"], V["client_iban"], V["company"]],
        "report.pdf": [*PEOPLE.values(), V["client_phone"], V["client_email"], V["client_iban"], V["german_phone"],
                       V["german_email"], V["company_iban"], V["manager_phone"], V["manager_email"], V["german_iban"],
                       V["company"]],
    }
    values["clients.ods"] = values["clients.xlsx"]
    files = {}
    for name in sorted(values):
        data = (OUT / name).read_bytes()
        files[name] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "values": values[name]}
    files["contract.docx"]["deleted_values"] = [V["deleted_phone"]]
    files["contract.odt"]["deleted_values"] = [V["deleted_phone"]]
    manifest = {
        "comment": "Built by scripts/build_test_documents.py with LibreOffice headless (versions below) from "
                   "text written in the script; invented people and values. `values`: the real values each "
                   "file holds (scanned.pdf holds them in an image only); `deleted_values`: in a tracked "
                   "deletion only. encrypted.pdf: user password 'Secret-2026'.",
        "libreoffice": installed,
        "people": people,
        "files": files,
    }
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
