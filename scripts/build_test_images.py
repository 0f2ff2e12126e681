"""Builds the image test files in tests/data/images/ with LibreOffice headless (the pinned packages of
scripts/build_test_documents.py, whose invented people and values it reuses), and writes manifest.json: each
file's sha256, size, pixel size and the real values it shows, so that the tests never need LibreOffice.
Run on demand; the outputs are committed:

    PYTHONPATH=py python scripts/build_test_images.py

- letter.png: an A4 page (1240 x 1754 px, 150 dpi: a phone scan) of a short French letter naming two people,
  an e-mail, a phone and an IBAN, in 13 pt type: the image e2e/test_attach_images.py attaches and masks;
- page.png: a dense A4 page of the contract's prose (the same size): what bench/ocr.py reads;
- photo.png: a drawing of shapes without a letter of text (a photo OCR finds nothing in);
- letter-exif.jpg: letter.png as a JPEG (LibreOffice's export) with an EXIF block naming the client as
  its artist and an XMP-free comment, written here byte by byte after the JPEG's SOI marker (the format
  of a camera's APP1 segment): the masked image must not carry it.

Pixel sizes come from Draw's PNG/JPEG export filter options (PixelWidth/PixelHeight); a Writer page goes
through a PDF first (Writer's own PNG export stays at 96 dpi)."""

# ruff: noqa: E501
from __future__ import annotations

import hashlib
import json
import struct
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_test_documents import LIBREOFFICE, NS, PEOPLE, V, convert, p, versions

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "data" / "images"
WIDTH, HEIGHT = 1240, 1754  # A4 at 150 dpi


def page_fodt(body: str, size: str = "13pt") -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document {NS} office:mimetype="application/vnd.oasis.opendocument.text">
<office:styles><style:default-style style:family="paragraph"><style:paragraph-properties fo:margin-bottom="0.25cm"/><style:text-properties style:font-name="Liberation Sans" fo:font-family="'Liberation Sans'" fo:font-size="{size}"/></style:default-style>
<style:style style:name="Title" style:family="paragraph"><style:text-properties fo:font-size="20pt" fo:font-weight="bold"/></style:style></office:styles>
<office:automatic-styles><style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" fo:margin-top="2cm" fo:margin-bottom="2cm" fo:margin-left="2.2cm" fo:margin-right="2.2cm"/></style:page-layout></office:automatic-styles>
<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1"/></office:master-styles>
<office:body><office:text>{body}</office:text></office:body>
</office:document>
"""


def letter_body() -> str:
    c, m = PEOPLE["client"], PEOPLE["manager"]
    return (p("Attestation de paiement", "Title")
            + p("Lyon, le 3 novembre 2026")
            + p(f"Je soussignée {c}, gérante de la société {V['company']}, atteste avoir reçu de")
            + p(f"{m} la somme de 1 250 euros pour la rénovation de l'atelier.")
            + p("Pour toute question, écrivez-moi à l'adresse suivante :")
            + p(V["client_email"])
            + p(f"ou appelez le {V['client_phone']} en semaine.")
            + p(f"Le virement a été reçu sur le compte IBAN {V['client_iban']}.")
            + p("Cette attestation est établie pour servir et valoir ce que de droit.")
            + p(c))


def dense_body() -> str:
    c, m, a = PEOPLE["client"], PEOPLE["manager"], PEOPLE["accountant"]
    paragraphs = [
        f"Entre les soussignés : {V['company']}, représentée par {m}, ci-après le prestataire, et {c}, ci-après la cliente, il a été convenu ce qui suit.",
        "Article 1. Objet. Le présent contrat a pour objet la rénovation complète de l'atelier situé au rez-de-chaussée, comprenant la reprise des sols, la mise aux normes de l'installation électrique, le remplacement des menuiseries et la peinture des murs et plafonds.",
        "Article 2. Durée. Les travaux commenceront le 12 janvier 2027 et s'achèveront au plus tard le 30 avril 2027. Tout retard imputable au prestataire donnera lieu à une pénalité de cinquante euros par jour calendaire, plafonnée à dix pour cent du prix total.",
        f"Article 3. Prix et paiement. Le prix forfaitaire est de 18 400 euros hors taxes. Un acompte de trente pour cent est versé à la signature sur le compte {V['company_iban']}, le solde à la réception des travaux, après levée des réserves éventuelles.",
        f"Article 4. Suivi. La cliente désigne {a}, expert-comptable, pour recevoir les factures. Les échanges se font par courriel à {V['manager_email']} ou par téléphone au {V['manager_phone']}.",
        "Article 5. Assurance. Le prestataire justifie d'une assurance de responsabilité civile professionnelle et d'une garantie décennale couvrant l'ensemble des travaux décrits à l'article premier.",
        "Article 6. Résiliation. En cas de manquement grave de l'une des parties à ses obligations, l'autre partie pourra résilier le contrat par lettre recommandée avec accusé de réception, quinze jours après une mise en demeure restée sans effet.",
        "Article 7. Litiges. Le présent contrat est soumis au droit français. Tout différend relatif à son interprétation ou à son exécution sera porté devant le tribunal judiciaire de Lyon, après une tentative de règlement amiable.",
        "Fait à Lyon en deux exemplaires originaux, le 3 novembre 2026.",
    ]
    return p("Contrat de prestation de services", "Title") + "".join(p(text) for text in paragraphs)


PHOTO_FODG = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document {NS} office:mimetype="application/vnd.oasis.opendocument.graphics">
<office:automatic-styles>
<style:style style:name="sky" style:family="graphic"><style:graphic-properties draw:fill="solid" draw:fill-color="#7fb2e5" draw:stroke="none"/></style:style>
<style:style style:name="hill" style:family="graphic"><style:graphic-properties draw:fill="solid" draw:fill-color="#3f8f4f" draw:stroke="none"/></style:style>
<style:style style:name="sun" style:family="graphic"><style:graphic-properties draw:fill="solid" draw:fill-color="#f5c542" draw:stroke="none"/></style:style>
<style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="16cm" fo:page-height="12cm" fo:margin-top="0cm" fo:margin-bottom="0cm" fo:margin-left="0cm" fo:margin-right="0cm"/></style:page-layout>
</office:automatic-styles>
<office:master-styles><style:master-page style:name="Default" style:page-layout-name="pm1"/></office:master-styles>
<office:body><office:drawing><draw:page draw:name="photo" draw:master-page-name="Default">
<draw:rect draw:style-name="sky" svg:x="0cm" svg:y="0cm" svg:width="16cm" svg:height="12cm"/>
<draw:ellipse draw:style-name="hill" svg:x="-4cm" svg:y="7cm" svg:width="14cm" svg:height="10cm"/>
<draw:ellipse draw:style-name="hill" svg:x="6cm" svg:y="8cm" svg:width="14cm" svg:height="9cm"/>
<draw:ellipse draw:style-name="sun" svg:x="11cm" svg:y="1.5cm" svg:width="3cm" svg:height="3cm"/>
</draw:page></office:drawing></office:body>
</office:document>
"""


def pixel_filter(export: str, width: int, height: int) -> str:
    options = {"PixelWidth": {"type": "long", "value": str(width)}, "PixelHeight": {"type": "long", "value": str(height)}}
    return f"{export}:{json.dumps(options, separators=(',', ':'))}"


def exif_segment(artist: str, comment: str) -> bytes:
    """An APP1 Exif segment (big-endian TIFF) with Artist (0x013B) and ImageDescription (0x010E), as a camera
    or an editor writes them."""
    entries = [(0x010E, comment.encode("utf-8") + b"\0"), (0x013B, artist.encode("utf-8") + b"\0")]
    ifd_size = 2 + 12 * len(entries) + 4
    data_at = 8 + ifd_size
    ifd, blob = struct.pack(">H", len(entries)), b""
    for tag, value in entries:
        ifd += struct.pack(">HHII", tag, 2, len(value), data_at + len(blob))
        blob += value
    tiff = b"MM\0*" + struct.pack(">I", 8) + ifd + struct.pack(">I", 0) + blob
    body = b"Exif\0\0" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body


def with_exif(jpeg: bytes, segment: bytes) -> bytes:
    if not jpeg.startswith(b"\xff\xd8"):
        raise SystemExit("LibreOffice did not write a JPEG")
    return jpeg[:2] + segment + jpeg[2:]


def png_size(data: bytes) -> tuple[int, int]:
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def main() -> int:
    installed = versions()
    if installed != LIBREOFFICE:
        print(f"LibreOffice packages differ from the pinned ones: {installed} (pinned {LIBREOFFICE})", file=sys.stderr)
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        profile = work / "profile"
        (work / "letter.fodt").write_text(page_fodt(letter_body()), encoding="utf-8")
        (work / "page.fodt").write_text(page_fodt(dense_body(), "11pt"), encoding="utf-8")
        (work / "photo.fodg").write_text(PHOTO_FODG, encoding="utf-8")
        # Writer's own PNG export keeps 96 dpi whatever it is asked: the page goes through a PDF, which Draw
        # opens and exports at the pixel size asked.
        png = pixel_filter("png:draw_png_Export", WIDTH, HEIGHT)
        letter_pdf = convert(work / "letter.fodt", "pdf:writer_pdf_Export", work, profile)
        page_pdf = convert(work / "page.fodt", "pdf:writer_pdf_Export", work, profile)
        (OUT / "letter.png").write_bytes(convert(letter_pdf, png, work, profile).read_bytes())
        (OUT / "page.png").write_bytes(convert(page_pdf, png, work, profile).read_bytes())
        (OUT / "photo.png").write_bytes(convert(work / "photo.fodg", pixel_filter("png:draw_png_Export", 960, 720),
                                                work, profile).read_bytes())
        jpeg = convert(letter_pdf, pixel_filter("jpg:draw_jpg_Export", WIDTH, HEIGHT), work, profile)
        segment = exif_segment(PEOPLE["client"], f"Scan pour {PEOPLE['manager']}")
        (OUT / "letter-exif.jpg").write_bytes(with_exif(jpeg.read_bytes(), segment))
    write_manifest(installed)
    return 0


def write_manifest(installed: dict[str, str]) -> None:
    letter = [PEOPLE["client"], PEOPLE["manager"], V["client_email"], V["client_phone"], V["client_iban"], V["company"]]
    dense = [PEOPLE["client"], PEOPLE["manager"], PEOPLE["accountant"], V["company"], V["company_iban"],
             V["manager_email"], V["manager_phone"]]
    values = {"letter.png": letter, "letter-exif.jpg": letter, "page.png": dense, "photo.png": []}
    files = {}
    for name, shown in values.items():
        data = (OUT / name).read_bytes()
        entry: dict[str, object] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "values": shown}
        if name.endswith(".png"):
            entry["pixels"] = list(png_size(data))
        files[name] = entry
    files["letter-exif.jpg"]["metadata_values"] = [PEOPLE["client"], PEOPLE["manager"]]
    manifest = {
        "comment": "Built by scripts/build_test_images.py with LibreOffice headless (versions below) from text written "
                   "in the scripts; invented people and values. `values`: the real values each image shows; "
                   "`metadata_values`: in the file's EXIF block only.",
        "libreoffice": installed,
        "people": list(PEOPLE.values()),
        "files": files,
    }
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
