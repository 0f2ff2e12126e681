"""The page's door to conversation backups (issue 18, item 7): export one or all of the account's
conversations as JSON or Markdown, import a JSON backup without overwriting anything (chat/backup.py and
chat/restore.py decide; this shell reads the account and saves what it adds). A whole-account export also
carries every persona, the providers used (never a key) and the account's system prompt and prices; one
conversation's carries the persona it speaks with and the providers it names."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..chat.backup import (
    AccountPart,
    BackupError,
    NewerBackupError,
    ProviderRef,
    export_json,
    export_markdown,
    plan_import,
    read_backup,
)
from ..chat.restore import match_providers, plan_account, plan_personas, providers_used, remap_conversation
from . import records as rec

if TYPE_CHECKING:
    from ..store import Provider
    from .app import App

FORMATS = ("json", "md")


def _file_name(now: int, fmt: str, count: int) -> str:
    day = datetime.fromtimestamp(now / 1000, UTC).date().isoformat()
    return f"openmasq-conversations-{count}-{day}.{fmt}"


class BackupApi:
    """The backup methods on one App (dispatch.py calls them by BACKUP_METHODS)."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def export_conversations(self, ids: list[str] | None = None, fmt: str = "json",
                                   labels: dict[str, str] | None = None, untitled: str = "") -> dict[str, Any]:
        return await export_conversations(self.app, ids, fmt, labels, untitled)

    async def import_conversations(self, text: str) -> dict[str, Any]:
        return await import_conversations(self.app, text)


BACKUP_METHODS: dict[str, str] = {
    "exportConversations": "export_conversations",
    "importConversations": "import_conversations",
}


async def export_conversations(app: App, ids: list[str] | None = None, fmt: str = "json",
                               labels: dict[str, str] | None = None, untitled: str = "") -> dict[str, Any]:
    """{name, text, count}: the conversations named (all of the account when `ids` is None), newest first."""
    from .app import AppError

    if fmt not in FORMATS:
        raise AppError("BadRequest", f"format must be one of {', '.join(FORMATS)}")
    app.touch()
    everything = sorted(app.opened.document.conversations, key=lambda c: c.updated_at, reverse=True)
    chosen = everything if ids is None else [c for c in everything if c.id in set(ids)]
    if ids is not None and len(chosen) != len(set(ids)):
        raise AppError("NotFound", "a conversation to export is not in this account")
    now = app.host.now()
    text = (_export_json(app, chosen, whole=ids is None) if fmt == "json"
            else export_markdown(chosen, labels=labels, untitled=untitled or "Untitled"))
    return {"name": _file_name(now, fmt, len(chosen)), "text": text, "count": len(chosen)}


def _ref(provider: Provider) -> ProviderRef:
    return ProviderRef(provider.id, provider.api, provider.base_url, provider.preset, provider.label)


def _export_json(app: App, chosen: list[Any], whole: bool) -> str:
    document = app.opened.document
    settings = document.settings
    personas = document.personas if whole else [p for p in document.personas if p.id in {c.persona for c in chosen}]
    account = AccountPart(settings.system_prompt, dict(settings.prices), settings.currency) if whole else None
    used = providers_used(chosen, personas, account.prices if account else ())
    providers = [_ref(p) for p in app._providers() if p.id in used]
    return export_json(chosen, app.host.now(), personas, providers, account)


async def import_conversations(app: App, text: str) -> dict[str, Any]:
    """Adds the backup's conversations and personas that are not here yet, and the account's prompt and prices
    where this account has none; a foreign, damaged or newer file changes nothing."""
    from .app import AppError

    app.touch()
    try:
        backup = read_backup(str(text))
    except NewerBackupError as error:
        raise AppError("NewerBackup", str(error)) from None
    except BackupError as error:
        raise AppError("BadFile", str(error)) from None
    document = app.opened.document
    settings = document.settings
    referenced = providers_used(backup.conversations, backup.personas,
                                backup.account.prices if backup.account else ())
    providers = match_providers(backup.providers, [_ref(p) for p in app._providers()], referenced)
    personas = plan_personas(document.personas, backup.personas, providers, app.new_id)
    account = plan_account(settings.system_prompt, settings.prices, settings.currency, backup.account, providers)
    plan = plan_import(document.conversations, backup.conversations, app.new_id)
    document.personas.extend(personas.added)
    if account.system_prompt is not None:
        settings.system_prompt = account.system_prompt
    settings.prices = account.prices
    if account.currency is not None:
        settings.currency = account.currency
    if personas.added or account.system_prompt is not None or account.prices_added:
        await app._save(rec.SETTINGS)
    for conv in plan.added:
        remap_conversation(conv, providers, personas.ids)
        document.conversations.insert(0, conv)
        await app._save_conversation(conv)
    named = {p.id: p for p in backup.providers}
    return {"added": [{"id": c.id, "title": c.title} for c in plan.added],
            "skipped": [{"id": s.id, "title": s.title, "why": s.why, "existing_id": s.existing_id}
                        for s in plan.skipped],
            "renamed": len(plan.renamed),
            "personas": {"added": len(personas.added), "same": personas.same, "unmatched": personas.unmatched},
            "account": None if backup.account is None else {
                "system_prompt": account.prompt, "prices_added": account.prices_added,
                "prices_kept": account.prices_kept, "prices_unmatched": account.prices_unmatched},
            "providers_missing": sorted(named[p].label or named[p].base_url for p, here in providers.items()
                                        if here is None and p in named)}
