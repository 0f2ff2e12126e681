"""Conversation backups in the real page (issue 18, item 7): an account's conversations exported from
Settings (JSON, passphrase-encrypted in the Mémoire export's file format, and Markdown) come back in a
fresh account with their restored texts; importing the same file again adds nothing and says so; a
foreign file is refused with a reason and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_chat import (
    MESSAGE,
    REAL_VALUES,
    add_provider,
    create_account,
    new_conversation,
    open_app,
    send,
    wait_for_reply,
)

FILE_PASSPHRASE = "sauvegarde-2026"


def export(page: Any, action: str, folder: Path) -> Path:
    with page.expect_download() as download:
        page.click(f"[data-action={action}]")
    target = folder / download.value.suggested_filename
    download.value.save_as(target)
    return target


def test_conversations_exported_from_one_account_come_back_in_a_fresh_one_once_and_never_twice(
    context: Any, site_server: Any, provider: Any, tmp_path: Path, shoot: Any
) -> None:
    page = open_app(context, site_server.url)
    create_account(page, "Source")
    add_provider(page, provider.base_url)
    page.click("[data-route=chat]")
    new_conversation(page)
    send(page, MESSAGE)
    reply = wait_for_reply(page).locator(".markdown").inner_text()
    title = page.locator(".conv.current .conv-title, .conv.current strong").first.inner_text()

    page.click("[data-route=settings]")
    page.locator("[data-testid=backup-settings]").wait_for()
    markdown = export(page, "backup-md", tmp_path).read_text(encoding="utf-8")
    assert markdown.startswith("# ") and "**Vous**" in markdown and REAL_VALUES[0] in markdown
    plain = export(page, "backup-json", tmp_path)
    assert json.loads(plain.read_text(encoding="utf-8"))["format"] == "openmasq-conversations"
    page.check("#backup-encrypt")
    page.fill("#backup-pass", FILE_PASSPHRASE)
    locked = export(page, "backup-json", tmp_path)
    assert locked.name.endswith(".enc.json") and REAL_VALUES[0] not in locked.read_text(encoding="utf-8")

    page.get_by_role("button", name="Changer de compte").click()
    create_account(page, "Destination")
    page.click("[data-route=settings]")
    panel = page.locator("[data-testid=backup-settings]")
    # A foreign file (the Mémoire's own export is no conversation backup): refused, said, nothing added.
    foreign = tmp_path / "foreign.json"
    foreign.write_text(json.dumps({"format": "openmasq-memory", "version": 3}), encoding="utf-8")
    page.set_input_files("#backup-file", str(foreign))
    panel.locator(".field-error", has_text="no OpenMasq conversation backup").wait_for()
    # The encrypted file, opened with its passphrase.
    page.set_input_files("#backup-file", str(locked))
    page.fill("#backup-import-pass", FILE_PASSPHRASE)
    page.click("[data-action=backup-decrypt]")
    panel.locator("[data-testid=backup-report]", has_text="1 conversation ajoutée").wait_for()
    # The same conversations again, unencrypted: already here, nothing added, and said.
    page.set_input_files("#backup-file", str(plain))
    report = panel.locator("[data-testid=backup-report]", has_text="0 conversation ajoutée")
    report.wait_for()
    assert "la même conversation" in report.inner_text()
    shoot(page, "backup-import", full_page=False)

    page.click("[data-route=chat]")
    listed = page.locator(".conv")
    listed.first.wait_for()
    assert listed.count() == 1
    listed.first.click()
    shown = wait_for_reply(page).locator(".markdown").inner_text()
    assert shown == reply and title
    assert page.ui_errors == []
