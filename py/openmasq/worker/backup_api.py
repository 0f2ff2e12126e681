"""The page's door to conversation backups (issue 18, item 7): export one or all of the account's
conversations as JSON or Markdown, import a JSON backup without overwriting anything (chat/backup.py
decides; this shell reads the account and saves what it adds)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..chat.backup import BackupError, export_json, export_markdown, parse_backup, plan_import

if TYPE_CHECKING:
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
    text = (export_json(chosen, now) if fmt == "json"
            else export_markdown(chosen, labels=labels, untitled=untitled or "Untitled"))
    return {"name": _file_name(now, fmt, len(chosen)), "text": text, "count": len(chosen)}


async def import_conversations(app: App, text: str) -> dict[str, Any]:
    """Adds the backup's conversations that are not here yet; a foreign or damaged file changes nothing."""
    from .app import AppError

    app.touch()
    try:
        incoming = parse_backup(str(text))
    except BackupError as error:
        raise AppError("BadFile", str(error)) from None
    document = app.opened.document
    plan = plan_import(document.conversations, incoming, app.new_id)
    for conv in plan.added:
        document.conversations.insert(0, conv)
        await app._save_conversation(conv)
    return {"added": [{"id": c.id, "title": c.title} for c in plan.added],
            "skipped": [{"id": s.id, "title": s.title, "why": s.why, "existing_id": s.existing_id}
                        for s in plan.skipped],
            "renamed": len(plan.renamed)}
