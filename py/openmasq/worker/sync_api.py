"""The page's door to multi-device sync (issue 21, docs/sync.md): the account's state as sync records
(openmasq.sync.records), the merge the replication engine asks for (the core's rules), and applying the
records another device changed, all or nothing: the result must load as a state document, or nothing
is applied and the error says why."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..store import DOCUMENT_VERSION, StateFormatError, document_from_json
from ..store.document import document_to_dict
from ..sync import SyncRecordError, join_records, merge_record, split_document
from . import embeddings as ml
from . import records as rec

if TYPE_CHECKING:
    from .app import App


SYNC_RECORD = "sync"  # this device's sync settings: a record of its own, never replicated
CONFIG_FIELDS: dict[str, type] = {"url": str, "user": str, "password": str, "code": str, "with_api_keys": bool}
MAX_FIELD_CHARS = 2000


def config_from(value: object) -> dict[str, Any]:
    """A sync configuration as the page gives it, checked: a http(s) database URL (or none yet), strings,
    the API-keys opt-in a boolean. Raises ValueError with what is wrong."""
    if not isinstance(value, dict):
        raise ValueError("the sync settings must be a JSON object")
    config: dict[str, Any] = {"url": "", "user": "", "password": "", "code": "", "with_api_keys": False,
                              "last_sync": None}
    for name, kind in CONFIG_FIELDS.items():
        if name in value:
            if not isinstance(value[name], kind) or (kind is str and len(value[name]) > MAX_FIELD_CHARS):
                raise ValueError(f"sync setting {name!r} must be a {kind.__name__}")
            config[name] = value[name].strip() if kind is str and name != "password" else value[name]
    if config["url"] and not config["url"].startswith(("http://", "https://")):
        raise ValueError("the sync server's address must start with http:// or https://")
    last = value.get("last_sync")
    if isinstance(last, int) and not isinstance(last, bool):
        config["last_sync"] = last
    return config


class SyncApi:
    """The sync methods on one App (dispatch.py calls them by SYNC_METHODS)."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def sync_config(self) -> dict[str, Any]:
        """This device's sync settings (stored encrypted with the account, never replicated)."""
        text = await self.app.opened.records.get(SYNC_RECORD)
        try:
            return config_from(json.loads(text) if text else {})
        except ValueError:
            return config_from({})

    async def save_sync_config(self, value: dict[str, Any]) -> dict[str, Any]:
        from .app import AppError
        try:
            config = config_from(value)
        except ValueError as error:
            raise AppError("BadRequest", str(error)) from None
        await self.app.opened.records.put(SYNC_RECORD, json.dumps(config, ensure_ascii=False))
        return config

    async def sync_records(self, with_api_keys: bool = False) -> dict[str, Any]:
        """name -> body of every record of the unlocked account; API keys only when asked."""
        return split_document(document_to_dict(self.app.opened.document), with_api_keys=bool(with_api_keys))

    async def sync_merge(self, name: str, base: Any, ours: Any, theirs: Any) -> Any:
        from .app import AppError
        try:
            return merge_record(str(name), base, ours, theirs)
        except SyncRecordError as error:
            raise AppError("BadRequest", str(error)) from None

    async def sync_apply(self, changed: dict[str, Any]) -> dict[str, Any]:
        """Apply records (name -> body, None: deleted) another device changed; returns what changed."""
        from .app import AppError
        app, account = self.app, self.app.opened
        if not isinstance(changed, dict):
            raise AppError("BadRequest", "sync changes must map record names to bodies")
        if app.sending:
            raise AppError("Busy", "A reply is being written: sync changes are applied after it.")
        local_keys = {p.id: p.api_key for p in account.document.providers}
        records = split_document(document_to_dict(account.document), with_api_keys=False)
        for name, body in changed.items():
            if body is None:
                records.pop(str(name), None)
            elif isinstance(body, dict):
                records[str(name)] = body
            else:
                raise AppError("BadRequest", f"sync record {name!r} must be a JSON object or null")
        try:
            document = document_from_json(json.dumps(join_records(records, version=DOCUMENT_VERSION,
                                                                  local_api_keys=local_keys)))
        except (StateFormatError, ValueError, KeyError, TypeError) as error:
            raise AppError("BadRequest", f"sync changes refused, nothing applied: {error}") from None
        before = {c.id for c in account.document.conversations}
        account.document = document
        account.index = None  # the memory is a new store: its index is rebuilt on next use
        for key, value in rec.all_records(document, account.app).items():
            await account.records.put(key, value)
        gone = before - {c.id for c in document.conversations}
        for conversation_id in sorted(gone):
            await account.records.delete(rec.conv_key(conversation_id))
        app.touch()
        ml.schedule_sync(app)  # the memory's search index follows the cards that came in
        return {"applied": sorted(str(n) for n in changed), "conversations": len(document.conversations),
                "cards": len(document.memory.cards)}


SYNC_METHODS: dict[str, str] = {
    "syncConfig": "sync_config",
    "saveSyncConfig": "save_sync_config",
    "syncRecords": "sync_records",
    "syncMerge": "sync_merge",
    "syncApply": "sync_apply",
}
