"""Structured values by context: after its label a value in the right shape is masked whatever
its check digits say; without a label, the checksum still decides. Phones of ranges the phone
library does not know, by their unambiguous shape. Round trips through redact and restore."""

from __future__ import annotations

import pytest

from openmasq.redact import RedactOptions, Vault, pseudonymise
from openmasq.redact.restore import Restorer
from openmasq.redact.rules import detect_labelled, detect_rules
from openmasq.redact.stream import StreamRestorer

KEY = bytes(range(32))


def kinds_at(text: str, value: str) -> set[str]:
    start = text.index(value)
    return {s.kind for s in detect_rules(text) if (s.start, s.end) == (start, start + len(value))}


# (text, value, kind): every value fails its check (or the phone library), every one has its label.
LABELLED = [
    # fr
    ("Mon IBAN : FR76 3000 6000 0112 3456 7890 188", "FR76 3000 6000 0112 3456 7890 188", "iban"),
    ("Mon NAS c'est 527 318 904, je dois le donner ?", "527 318 904", "record_id"),
    # keys of logs and exports, health cards, identifiers after an acronym no family knows
    ("payment-svc: card declined for customer_id=88120456 email=x", "88120456", "record_id"),
    ('{"patientId": "A-448812"}', "A-448812", "record_id"),
    ("Kundennummer 7730012 bitte angeben", "7730012", "record_id"),
    ("health card 4829 517 306 MK, 88 Lakeshore Rd", "4829 517 306 MK", "record_id"),
    ("Medicare card 2123 45670 1, expires 2027", "2123 45670 1", "record_id"),  # the check digit alone
    ("mi tarjeta sanitaria es BBBB123456789012, caducada", "BBBB123456789012", "record_id"),
    ("Mon NUMEN est 07E0512345ABC, je suis prof", "07E0512345ABC", "record_id"),
    ("mon identifiant France Travail 1234567A ne marche plus", "1234567A", "record_id"),
    ("Aktenzeichen 3 O 123/24 beim Landgericht", "3 O 123/24", "record_id"),
    ("che, mi CUIL es 20-38472910-6 y laburo", "20-38472910-6", "record_id"),
    ("mijn BSN is 123456782", "123456782", "record_id"),
    ("AHV-Nr. 756.4829.1036.54, Arbeitgeber", "756.4829.1036.54", "record_id"),
    ("owner Rajesh Kumar Iyer (PAN AKCPI4821M) and", "AKCPI4821M", "record_id"),
    ("Mi mamá, cédula 43.512.887, necesita una carta", "43.512.887", "record_id"),
    ("el número de la Seguridad Social, el mío es 46 10293847 53", "46 10293847 53", "record_id"),
    ("Ausweisnummer verlangt, meine ist L01X48T29 – muss", "L01X48T29", "id_card"),
    ("RIB : 30006 00001 12345678901 89", "30006 00001 12345678901 89", "iban"),
    ("carte 4970 1012 3456 7891", "4970 1012 3456 7891", "card"),
    ("payé par CB 4970101234567891 hier", "4970101234567891", "card"),
    ("NIR 1 84 12 75 108 234 55", "1 84 12 75 108 234 55", "nir"),
    ("mon n° de sécu est le 184127510823455", "184127510823455", "nir"),
    ("SIREN : 732 829 321", "732 829 321", "siren"),
    ("SIRET 732 829 320 00075", "732 829 320 00075", "siret"),
    ("TVA FR45 732829320", "FR45 732829320", "vat"),
    ("numéro fiscal 3023217600054", "3023217600054", "tax_id"),
    ("passeport n° 12AB34567", "12AB34567", "passport"),
    ("matricule 4521-B", "4521-B", "record_id"),
    ("n° patient : 778812", "778812", "record_id"),
    ("n° adhérent 2024-5581", "2024-5581", "record_id"),
    ("dossier patient 00458213", "00458213", "record_id"),
    # en
    ("card number 4970 1012 3456 7891", "4970 1012 3456 7891", "card"),
    ("SSN: 666-12-3456", "666-12-3456", "ssn"),
    ("NI number: QQ 12 34 56 C", "QQ 12 34 56 C", "nino"),
    ("passport number 123456789", "123456789", "passport"),
    ("EIN 12-3456789", "12-3456789", "ein"),
    ("ABN 51 824 753 557", "51 824 753 557", "abn"),
    ("TFN 123 456 783", "123 456 783", "tfn"),
    ("sort code 12-34-56, account number 12345678", "12-34-56", "sort_code"),
    ("sort code 12-34-56, account number 12345678", "12345678", "account_number"),
    ("MRN: 00458213", "00458213", "record_id"),
    ("employee ID E-20931", "E-20931", "record_id"),
    ("student number S1234567", "S1234567", "record_id"),
    # de
    ("Kartennummer 4970 1012 3456 7891", "4970 1012 3456 7891", "card"),
    ("IBAN: DE89 3704 0044 0532 0130 01", "DE89 3704 0044 0532 0130 01", "iban"),
    ("Steuer-ID: 12 345 678 901", "12 345 678 901", "steuer_id"),
    ("Personalausweis: T220001294", "T220001294", "id_card"),
    ("Reisepass C01X00T47", "C01X00T47", "passport"),
    ("SV-Nummer 15 070649 C 104", "15 070649 C 104", "svnr"),
    ("Personalnummer 004711", "004711", "record_id"),
    # es
    ("tarjeta 4970 1012 3456 7891", "4970 1012 3456 7891", "card"),
    ("DNI 12345678A", "12345678A", "dni"),
    ("NIE X1234567A", "X1234567A", "nie"),
    ("NIF K1234567A", "K1234567A", "nif"),
    ("pasaporte PAA123456", "PAA123456", "passport"),
    ("número de historia clínica 558812", "558812", "record_id"),
    # it
    ("carta di credito 4970 1012 3456 7891", "4970 1012 3456 7891", "card"),
    ("codice fiscale RSSMRA85T10A562X", "RSSMRA85T10A562X", "codice_fiscale"),
    ("passaporto YA1234567", "YA1234567", "passport"),
    ("codice fiscale: RSS MRA 85T10 A562S", "RSS MRA 85T10 A562S", "codice_fiscale"),
    ("il mio IBAN è IT 60 X 05428 11101 000000123456", "IT 60 X 05428 11101 000000123456", "iban"),
    ("USt-IdNr. DE123456789", "DE123456789", "vat"),
    ("Krankenversichertennummer A123456789", "A123456789", "record_id"),
    ("Número de afiliación 28 1234567840", "28 1234567840", "record_id"),
    ("ITIN 912-70-1234", "912-70-1234", "ssn"),
    ("ssn is 531-84-02977 wait no", "531-84-02977", "ssn"),
    ("Belgian national number 85.07.30-033.28", "85.07.30-033.28", "record_id"),
    ("my license plate is 7ABC123", "7ABC123", "record_id"),
    ("numero di matricola 88123", "88123", "record_id"),
    # driving licences, licence plates and insurance policies, in the five languages
    ("Führerschein-Nr. B072RRE2I55", "B072RRE2I55", "record_id"),
    ("my driver's license number is D1234-56789-01234", "D1234-56789-01234", "record_id"),
    ("n° de permis 12AB34567890", "12AB34567890", "record_id"),
    ("plaque AB-123-CD", "AB-123-CD", "record_id"),
    ("Kennzeichen: M-AB 1234", "M-AB 1234", "record_id"),
    ("la matrícula es 1234 BCD", "1234 BCD", "record_id"),
    ("targa GH 512 KL, multa", "GH 512 KL", "record_id"),
    ("policy number POL-2023-558812", "POL-2023-558812", "record_id"),
    ("número de póliza 88-4410293", "88-4410293", "record_id"),
    # a national or tax number in none of its family's layouts: another country's, or grouped otherwise
    ("Filipa's NIF is 231 456 789 and her mobile", "231 456 789", "record_id"),
    ("UK passport no. 5481 02937 — hang on", "5481 02937", "record_id"),
    # a case file, an elided article in the gap
    ("mi ha mandato una diffida, numero pratica 2219/B. Cosa rispondo?", "2219/B", "record_id"),
    ("Oggetto: Paziente n. 2024/00381", "2024/00381", "record_id"),
    ("la targa dell'altra macchina è FG 482 KL, abito a Cinisello", "FG 482 KL", "record_id"),
    # the bare word "account" before its number; four filler words between label and value
    ("Sort code 40-11-62, account 31926819, name on account: Ms K. Obi", "31926819", "account_number"),
    ("El CIF de mi empresa es A-58818501, ¿está bien?", "A-58818501", "cif"),
    # a contract's number, a letter's own reference
    ("contrat n° 5582019, je veux résilier", "5582019", "record_id"),
    ("Your ref: JD/KL/44120. Dear Sir", "JD/KL/44120", "record_id"),
    ("Ihr Zeichen: 2024-KR-118, unser Schreiben vom", "2024-KR-118", "record_id"),
    # a vehicle's number, a booking's reference, a meter, a bare "acct", an English "tax code"
    ("VIN: 1HGCM82633A004352, 2009 Accord", "1HGCM82633A004352", "record_id"),
    ("Booking reference: K7PQ2M, flight on Friday", "K7PQ2M", "record_id"),
    ("meter number E10BG12345 on the bill", "E10BG12345", "record_id"),
    ("routing number 021000021, acct 4401927731", "4401927731", "account_number"),
    ("tax code for my freelance work: 12-3456789", "12-3456789", "ein"),
    # the rest of the number on the next line
    ("Versichertennr.: M481\n553210 (steht so auf der Karte)", "M481\n553210", "record_id"),
    ("n° de sécu 2 91 03 13 055\n218 44 (le reste)", "2 91 03 13 055\n218 44", "record_id"),
]


@pytest.mark.parametrize(("text", "value", "kind"), LABELLED)
def test_value_in_shape_after_its_label_is_found_whatever_its_check(text: str, value: str, kind: str) -> None:
    assert kind in kinds_at(text, value)


# Without a label, a failed check leaves the value alone: order numbers, amounts, references.
UNLABELLED = [
    "commande n° 4970101234567891",
    "order 4970 1012 3456 7891 shipped",
    "FR76 3000 6000 0112 3456 7890",
    "1 84 12 75 108 234 55",
    "Rechnung 12 345 678 901",
    "ref A58818502",
    "12345678A",
    "Facture 2024-5581 : 1 250,00 €",
    "version 4.12.1, build 20240312",
    "sha 4970101234567891abcdef",
    "ISBN 978-2-07-036822-8 du livre",
    "commande PO 4500012345 livrée",
    "HTTP 5031234 error",
    "total EUR 1234567 HT",
    "The plaque commemorates the 1998 victory",
    "registration 2024 opens on Monday",
    "permis B depuis 2010",
    "joined on customer_id, for 2023 only",
    "my account was closed in 2023",
    "contrat de travail signé le 12",
    "the booking code was sent by email",
]


@pytest.mark.parametrize("text", UNLABELLED)
def test_unlabelled_value_failing_its_check_is_left_alone(text: str) -> None:
    structured = {"iban", "card", "nir", "steuer_id", "cif", "dni", "codice_fiscale", "record_id", "phone"}
    assert not [s for s in detect_rules(text) if s.kind in structured]


# A label then something else: no value of the label's kind.
LABEL_NEAR_MISSES = [
    "carte vitale perdue le 12/03/2024",
    "CB, commande n° 4970101234567891",
    "la carte coûte 1 250 000 €",
    "carte 12 345",
    "patient de 45 ans",
    "matricule inconnu",
    "IBAN à venir",
    "DNI pendiente",
    "ein 12345678 Stück",  # German "ein" is no EIN
    "cf. page 12",
    "tel que 12 %",
    "passport photos: 2 for 12 €",
    "NIF pendiente, te lo mando mañana",
]


def test_a_spanish_account_in_its_printed_layout_is_found_without_a_label() -> None:
    text = "mi cuenta de siempre era la 2100-0418-45-0200051332, ¿cómo saco el IBAN?"
    assert "account_number" in kinds_at(text, "2100-0418-45-0200051332")


def test_a_labelled_value_does_not_run_into_the_next_line_of_text() -> None:
    text = "N° client : 552811\n12 rue des Lilas"
    assert "record_id" in kinds_at(text, "552811")


@pytest.mark.parametrize("text", LABEL_NEAR_MISSES)
def test_label_without_a_value_of_its_shape_finds_nothing(text: str) -> None:
    assert detect_labelled(text) == []


# --- phones -------------------------------------------------------------------------------------

SHAPE_PHONES = [
    "06 39 12 34 56",  # a French mobile range the library does not know
    "06.39.12.34.56",
    "+33 6 39 12 34 56",
    "(283) 555-0147",  # an unassigned US area code
    "283-555-0147",
    "07000 123456",  # UK 07
    "0151 2345678",  # German mobiles
    "612 34 56 78",  # Spanish mobiles
    "712 34 56 78",
    "333 123 4567",  # Italian mobiles
]


@pytest.mark.parametrize("phone", SHAPE_PHONES)
def test_phone_of_an_unambiguous_shape_is_found_without_a_label(phone: str) -> None:
    text = f"Joignable au {phone} demain."
    assert "phone" in kinds_at(text, phone)


@pytest.mark.parametrize(("label", "phone"), [
    ("tél :", "06 39 12 34"), ("Tel.", "0639 12 34 56"), ("portable", "0639 12 34 567"),
    ("Handy:", "0152 1234 56"), ("móvil", "600 000 00"), ("cellulare", "300 1234 567"), ("phone", "1234 5678 90"),
])
def test_any_phone_shaped_run_after_a_phone_label_is_a_phone(label: str, phone: str) -> None:
    text = f"{label} {phone}"
    assert "phone" in kinds_at(text, phone)


NOT_PHONES = [
    "06 39 12 34",  # four pairs, no label
    "commande 283-555-0147",
    "le 12/03/2024 à 14h30",
    "Montant : 612 345 678 €",
    "ISBN 978-2-07-036822-8",
]


@pytest.mark.parametrize("text", NOT_PHONES)
def test_no_phone_in_references_dates_and_amounts(text: str) -> None:
    assert not [s for s in detect_rules(text) if s.kind == "phone"]


# --- round trips --------------------------------------------------------------------------------

ROUND_TRIPS = [text for text, _, _ in LABELLED] + [f"Joignable au {phone} demain." for phone in SHAPE_PHONES]


@pytest.mark.parametrize("level", ["standard", "renforce", "strict"])
@pytest.mark.parametrize("text", ROUND_TRIPS)
def test_labelled_value_is_masked_at_every_level_and_restored(text: str, level: str) -> None:
    result = pseudonymise(text, Vault.new(KEY), RedactOptions(level=level))
    assert result.text != text
    assert Restorer(result.vault).restore(result.text) == text
    stream = StreamRestorer(result.vault)
    streamed = "".join(stream.feed(result.text[i : i + 3]) for i in range(0, len(result.text), 3)) + stream.flush()
    assert streamed == text
