"""Conversation backups in the real page (issue 18, item 7), at 1280 and 390 px, axe clean: an account's
conversations exported from Settings (JSON, passphrase-encrypted in the Mémoire export's file format,
and Markdown) come back in a fresh account with their restored texts; importing the same file again adds
nothing and says so; a foreign file is refused with a reason and changes nothing. Format 2: the
account's system prompt, a persona, a conversation's own prompt, prices keyed by provider and each
reply's token counts are in the file (read as written) and all come back in a fresh account with the
same server under another id; a file of a newer build is refused in the interface's language."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import pytest
from test_chat import (
    LAPTOP,
    MESSAGE,
    PHONE,
    REAL_VALUES,
    add_provider,
    create_account,
    open_app,
    send,
    wait_for_reply,
)
from test_memory import serious_violations
from test_models import connect, provider_id
from test_prompts_and_personas import (
    ACCOUNT_REALS,
    ACCOUNT_TEXT,
    PERSONA_TEXT,
    PROMPT_TEXT,
    REALS,
    add_persona,
    counted,
    set_account_prompt,
)
from test_prompts_and_personas import new_conversation as new_conversation_at

from openmasq.testing.upstream import ScriptedUpstream

FILE_PASSPHRASE = "sauvegarde-2026"


def export(page: Any, action: str, folder: Path) -> Path:
    with page.expect_download() as download:
        page.click(f"[data-action={action}]")
    target = folder / download.value.suggested_filename
    download.value.save_as(target)
    return target


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_conversations_exported_from_one_account_come_back_in_a_fresh_one_once_and_never_twice(
    context: Any, site_server: Any, provider: Any, tmp_path: Path, shoot: Any, size: str
) -> None:
    page = open_app(context, site_server.url, LAPTOP if size == "laptop" else PHONE)
    create_account(page, "Source")
    add_provider(page, provider.base_url)
    page.click("[data-route=chat]")
    new_conversation_at(page, size)
    send(page, MESSAGE)
    reply = wait_for_reply(page).locator(".markdown").inner_text()
    title = page.locator(".conv.current .conv-title, .conv.current strong").first.text_content()

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
    assert serious_violations(page, site_server.url) == []
    shoot(page, f"backup-import-{size}", full_page=False)

    page.click("[data-route=chat]")
    if size == "phone":
        page.click(".drawer-toggle")
    listed = page.locator(".conv")
    listed.first.wait_for()
    assert listed.count() == 1
    listed.first.locator(".conv-open").click()
    shown = wait_for_reply(page).locator(".markdown").inner_text()
    assert shown == reply and title
    assert page.ui_errors == []


def import_file(page: Any, path: Path) -> Any:
    page.click("[data-route=settings]")
    panel = page.locator("[data-testid=backup-settings]")
    page.set_input_files("#backup-file", str(path))
    return panel


def test_a_backup_brings_back_the_prompts_the_persona_the_prices_and_the_usage_in_a_fresh_account(
    context: Any, site_server: Any, tmp_path: Path, recorder: Any, shoot: Any
) -> None:
    tokens = {"in": 1_000 + secrets.randbelow(90_000), "out": 10 + secrets.randbelow(900)}
    persona_model = f"persona-{secrets.token_hex(3)}"
    with ScriptedUpstream(counted(tokens), cors=True) as upstream:
        page = open_app(context, site_server.url)
        create_account(page, "Source")
        connect(page, "compatible", upstream.base_url, "Scripted")
        source_provider = provider_id(page, "Scripted")
        set_account_prompt(page, ACCOUNT_TEXT)
        add_persona(page, "Secrétariat", PERSONA_TEXT, source_provider, persona_model)
        page.click("[data-route=chat]")
        new_conversation_at(page, "laptop")
        page.click("[data-action=conversation-settings]")
        page.select_option("#conv-persona", label="Secrétariat")
        page.fill("#conv-system-prompt", PROMPT_TEXT)
        page.click("#conv-settings-form button[type=submit]")
        page.locator("#conv-settings-form").wait_for(state="detached")
        send(page, "Bonjour")
        reply = wait_for_reply(page).locator(".markdown").inner_text()
        page.click("[data-route=settings]")
        prices = page.locator("[data-testid=prices]")
        prices.locator("[data-action=add-price]").click()
        page.fill("#price-currency", "EUR")
        page.select_option("#price-provider-0", source_provider)
        page.fill("#price-model-0", persona_model)
        page.fill("#price-in-0", "3")
        page.fill("#price-out-0", "15")
        prices.locator("[data-action=save-prices]").click()
        page.locator(".toast", has_text="Prix enregistrés").wait_for()
        page.click("[data-route=chat]")
        cost = page.locator("[data-testid=conversation-cost]")
        cost.wait_for()
        cost_before = cost.inner_text()

        page.click("[data-route=settings]")
        file = export(page, "backup-json", tmp_path)
        doc = json.loads(file.read_text(encoding="utf-8"))
        # The file itself holds every part, as written.
        conv = doc["conversations"][0]
        assert (conv["system_prompt"], conv["model"]) == (PROMPT_TEXT, persona_model)
        assert [p["instructions"] for p in doc["personas"]] == [PERSONA_TEXT]
        assert conv["persona"] == doc["personas"][0]["id"]
        assert [m["usage"] for m in conv["messages"] if m["role"] == "assistant"] == [
            {"input_tokens": tokens["in"], "output_tokens": tokens["out"]}]
        assert doc["account"] == {"system_prompt": ACCOUNT_TEXT, "currency": "EUR", "prices": [
            {"provider": source_provider, "model": persona_model, "input": 3.0, "output": 15.0}]}
        assert [p["base_url"].rstrip("/") for p in doc["providers"]] == [upstream.base_url.rstrip("/")]
        assert "api_key" not in file.read_text(encoding="utf-8")

        # Wiped: a fresh account, the same server added again (another id). A newer build's file is refused first.
        page.get_by_role("button", name="Changer de compte").click()
        create_account(page, "Destination")
        connect(page, "compatible", upstream.base_url, "Scripted")
        target_provider = provider_id(page, "Scripted")
        assert target_provider != source_provider
        newer = tmp_path / "newer.json"
        newer.write_text(json.dumps(doc | {"version": 99}), encoding="utf-8")
        panel = import_file(page, newer)
        panel.locator(".field-error", has_text="version plus récente d’OpenMasq").wait_for()
        panel = import_file(page, file)
        panel.locator("[data-testid=backup-report]", has_text="1 conversation ajoutée").wait_for()
        parts = panel.locator("[data-testid=backup-parts]").inner_text()
        assert "1 persona ajouté" in parts and "repris du fichier" in parts and "1 prix ajouté" in parts
        assert serious_violations(page, site_server.url) == []
        panel.locator("[data-testid=backup-parts]").scroll_into_view_if_needed()
        shoot(page, "backup-parts", full_page=False)
        # Everything is back where the user looks for it.
        assert page.input_value("#account-system-prompt") == ACCOUNT_TEXT
        page.locator("[data-testid=personas] .persona", has_text="Secrétariat").wait_for()
        page.locator("#price-model-0").wait_for()
        assert page.input_value("#price-model-0") == persona_model
        assert page.input_value("#price-provider-0") == target_provider and page.input_value("#price-currency") == "EUR"
        page.click("[data-route=chat]")
        page.locator(".conv").first.click()
        assert wait_for_reply(page).locator(".markdown").inner_text() == reply
        page.locator("[data-testid=conversation-cost]", has_text=cost_before).wait_for()
        page.locator("[data-testid=answering-model] .model-name", has_text=persona_model).wait_for()
        page.click("[data-action=conversation-settings]")
        assert page.locator("#conv-persona option:checked").inner_text() == "Secrétariat"
        assert page.input_value("#conv-system-prompt") == PROMPT_TEXT
        page.keyboard.press("Escape")
        page.locator("#conv-settings-form").wait_for(state="detached")
        # The same file again: nothing more.
        panel = import_file(page, file)
        panel.locator("[data-testid=backup-report]", has_text="0 conversation ajoutée").wait_for()
        assert "1 persona déjà présent" in panel.locator("[data-testid=backup-parts]").inner_text()
        page.click("[data-route=chat]")
        page.locator(".conv").first.wait_for()
        assert page.locator(".conv").count() == 1
        page.locator(".conv").first.click()
        wait_for_reply(page)
        # The conversation goes on at the server found again, with all three instructions, masked.
        send(page, "Encore une question")
        page.wait_for_function("() => document.querySelectorAll('[data-testid=reply-usage]').length === 2")
        sent = [r for r in upstream.received if r.method == "POST"][-1]
        system = next(m["content"] for m in sent.json()["messages"] if m["role"] == "system")
        assert sent.json()["model"] == persona_model
        assert "Vouvoie-moi toujours." in system and "trois phrases" in system and "Sois cordial." in system
        reals = (*REALS, *ACCOUNT_REALS)
        assert [v for v in reals if v in upstream.wire_text()] == []
        assert [v for v in reals if v in recorder.wire_text()] == []
        assert page.ui_errors == []
