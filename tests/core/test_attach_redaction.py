"""An attachment redacted with the message's engine and vault, before the message (reference 6.8),
its file name faked when it names someone: on the real documents, nothing of what the manifest lists
is left in what would be sent, and the message and the file give one person one fake."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openmasq.attach import (
    Attachment,
    AttachmentError,
    Extracted,
    extract,
    limits,
    redact_file_name,
    redact_with_attachments,
)
from openmasq.redact import RedactOptions, Vault, restore

DATA = Path(__file__).resolve().parent.parent / "data" / "attachments"
MANIFEST = json.loads((DATA / "manifest.json").read_text(encoding="utf-8"))
READABLE = sorted(name for name in MANIFEST["files"] if name not in ("encrypted.pdf", "scanned.pdf"))
OPTIONS = RedactOptions()


def vault() -> Vault:
    return Vault.new(b"attachments-tests-key-0123456789")


def left_in(text: str, values: list[str]) -> list[str]:
    return [value for value in values if value.lower() in text.lower()]


@pytest.mark.parametrize("name", READABLE)
def test_no_real_value_of_a_document_is_left_in_what_is_sent(name: str):
    extracted = extract((DATA / name).read_bytes(), name)
    result = redact_with_attachments([Attachment(name, extracted)], "Résume ce document.", vault(), OPTIONS)
    sent = "\n".join(result.parts)
    assert left_in(sent, MANIFEST["files"][name]["values"] + MANIFEST["people"]) == []
    assert result.parts[0].startswith(f"[Attachment: {name}]\n[")
    # and the vault gives the user back the real document from what the model saw (a name the PDF's layout
    # broke over two lines comes back on one)
    restored = restore(result.parts[0].split("\n", 1)[1], result.vault)
    assert restored.split() == extracted.text.split()


def test_the_message_and_its_file_give_one_person_one_fake():
    extracted = extract((DATA / "contract.docx").read_bytes(), "contract.docx")
    result = redact_with_attachments([Attachment("contract.docx", extracted)],
                                     "Que doit payer Héloïse Marchetti ?", vault(), OPTIONS)
    fake = result.vault.substitute_of("Héloïse Marchetti")
    assert fake and fake in result.attachments[0].part and result.message.text == f"Que doit payer {fake} ?"


def test_the_file_is_redacted_before_the_message():
    """The reference's order: the file's values are in the vault when the typed text is redacted, so a
    surname typed alone is already known ("Marchetti" alone is no name the detectors would find)."""
    extracted = extract((DATA / "review.pptx").read_bytes(), "review.pptx")
    result = redact_with_attachments([Attachment("review.pptx", extracted)], "Et Marchetti, elle a payé ?",
                                     vault(), OPTIONS)
    assert "Marchetti" not in result.message.text
    alone = redact_with_attachments([], "Et Marchetti, elle a payé ?", vault(), OPTIONS)
    assert alone.message.text == "Et Marchetti, elle a payé ?"  # without the file first, the surname stays


def test_the_vault_given_is_not_changed():
    given = vault()
    extracted = extract((DATA / "clients.xlsx").read_bytes(), "clients.xlsx")
    result = redact_with_attachments([Attachment("clients.xlsx", extracted)], "ok", given, OPTIONS)
    assert given.entries == {} and result.vault.entries


@pytest.mark.parametrize(("name", "real"), [
    ("Contrat_Héloïse_Marchetti.docx", "Marchetti"),
    ("CV-Baptiste-Quenneville-2026.pdf", "Quenneville"),
    ("heloise.marchetti@marchetti-conseil.fr.eml", "marchetti"),
])
def test_a_file_name_that_names_someone_is_faked_with_its_own_separators(name: str, real: str):
    sent, redaction = redact_file_name(name, vault(), OPTIONS)
    assert real.lower() not in sent.lower() and redaction.replacements
    assert sent.endswith(name[name.rindex("."):])
    if "_" in name:
        assert " " not in sent and sent.count("_") >= 2


@pytest.mark.parametrize("name", ["rapport annuel 2026.pdf", "clients.xlsx", "notes_de_reunion.md", "README"])
def test_a_file_name_without_personal_data_is_sent_as_given(name: str):
    assert redact_file_name(name, vault(), OPTIONS)[0] == name


def test_a_file_name_gets_the_fake_its_text_gave_the_same_person():
    extracted = extract((DATA / "contract.odt").read_bytes(), "contract.odt")
    result = redact_with_attachments([Attachment("Contrat Héloïse Marchetti.odt", extracted)], "", vault(), OPTIONS)
    fake = result.vault.substitute_of("Héloïse Marchetti")
    assert result.attachments[0].name == f"Contrat {fake}.odt" and result.attachments[0].name_changed
    assert result.parts[0].startswith(f"[Attachment: Contrat {fake}.odt]\n")
    assert len(result.parts) == 1  # no typed text: only the file's part


def test_two_files_and_a_message_share_the_vault():
    files = [Attachment(name, extract((DATA / name).read_bytes(), name)) for name in ("clients.ods", "review.pptx")]
    result = redact_with_attachments(files, "Rappelle Héloïse Marchetti.", vault(), OPTIONS)
    fake = result.vault.substitute_of("Héloïse Marchetti")
    assert all(fake in part for part in result.parts)
    assert len(result.parts) == 3


def test_the_text_of_one_messages_files_is_bounded_together():
    big = Extracted("Héloïse Marchetti. " * (limits.MAX_MESSAGE_TEXT_CHARS // 38 + 1), "text")
    with pytest.raises(AttachmentError) as caught:
        redact_with_attachments([Attachment("a.txt", big), Attachment("b.txt", big)], "", vault(), OPTIONS)
    assert caught.value.reason == "too_large"
