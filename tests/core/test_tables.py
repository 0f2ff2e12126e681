"""Values by their column: a header naming people, identifiers or user names makes its cells those, in
Markdown tables and delimited blocks; columns of things stay as they are."""

from __future__ import annotations

from openmasq.redact import RedactOptions, Vault, pseudonymise
from openmasq.redact.tables import column_kind, detect_table_values, find_tables


def _masked(text: str) -> str:
    return pseudonymise(text, Vault.new("77" * 32), RedactOptions()).text


def test_a_markdown_table_of_staff_masks_names_and_staff_numbers() -> None:
    text = "| Mitarbeiter | Personalnr. |\n|---|---|\n| Li Wei | 40211 |\n| Darius Kazemi | 40212 |\nSortieren?"
    masked = _masked(text)
    assert "Li Wei" not in masked and "40211" not in masked and "40212" not in masked
    assert masked.startswith("| Mitarbeiter | Personalnr. |\n|---|---|\n")


def test_a_csv_export_masks_the_id_and_name_columns_and_keeps_the_others() -> None:
    text = "matricola,nome,reparto\n40211,Thi Lan Nguyen,Logistica\n40212,Emeka Obi,Magazzino\nconvertilo in JSON"
    masked = _masked(text)
    assert "40211" not in masked and "Thi Lan Nguyen" not in masked and "Emeka Obi" not in masked
    assert "Logistica" in masked and "Magazzino" in masked


def test_a_table_of_products_and_orders_is_left_alone() -> None:
    text = "| Name | Price | Order ID |\n|---|---|---|\n| Widget Pro | 12.50 | 4500123 |\n| Gadget | 9.99 | 4500124 |"
    assert detect_table_values(text) == []


def test_prose_with_commas_is_no_table() -> None:
    text = "Bonjour, merci pour hier, c'était bien.\nÀ demain, on verra, je pense."
    assert find_tables(text) == []


def test_headers_name_their_columns() -> None:
    assert column_kind("Nº empleado") == "record_id"
    assert column_kind("Employee ID") == "record_id"
    assert column_kind("Client") == "person"
    assert column_kind("Nom") == "name"
    assert column_kind("Order ID") is None
    assert column_kind("Prix") is None


def test_cells_keep_their_offsets_in_the_text() -> None:
    text = 'id;"Kunde";Stadt\n88120;"Jana Novak";Graz\n88121;"Ole Berg";Linz'
    for span in detect_table_values(text):
        assert text[span.start : span.end] == span.value
    assert {span.value for span in detect_table_values(text)} >= {"88120", "Jana Novak", "Ole Berg"}


def test_birth_dates_and_surnames_beside_first_names_are_masked() -> None:
    text = "nom;prenom;classe;date_naissance\nDIALLO;Mamadou;4eB;03/09/2010\nKowalczyk;Zofia;4eB;21/12/2010\n\ntrie"
    masked = _masked(text)
    for real in ("DIALLO", "Mamadou", "Kowalczyk", "Zofia", "03/09/2010", "21/12/2010"):
        assert real not in masked
    assert "4eB" in masked


def test_a_town_column_masks_the_towns() -> None:
    text = "kundennr;name;vorname;ort\nK-100482;Hartmann;Sabine;Freiburg\nK-100517;Adeyemi;Chinedu;Lörrach\n\nImport?"
    masked = _masked(text)
    for real in ("K-100482", "Hartmann", "Sabine", "Freiburg", "Lörrach", "Adeyemi"):
        assert real not in masked
