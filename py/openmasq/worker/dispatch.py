"""The App API at the JS boundary: camelCase method names, JSON text in and out, errors as
{"error": {name, message}} so the page gets a JS Error with a `name` it can test."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .app import App, AppError
from .attach_api import ATTACH_METHODS, AttachApi, AttachmentRefused
from .backup_api import BACKUP_METHODS, BackupApi
from .instructions_api import INSTRUCTION_METHODS, InstructionsApi
from .memory_api import MEMORY_METHODS, memory_api
from .ocr_api import OCR_METHODS, OcrApi
from .sync_api import SYNC_METHODS, SyncApi

# page method -> App method; the ones marked True take the page's event callback as last argument.
METHODS: dict[str, tuple[str, bool]] = {
    "getSettings": ("get_settings", False),
    "updateSettings": ("update_settings", False),
    "listProviders": ("list_providers", False),
    "saveProvider": ("save_provider", False),
    "removeProvider": ("remove_provider", False),
    "testProvider": ("test_provider", False),
    "listModels": ("list_models", False),
    "egressOrigins": ("egress_origins", False),
    "listConversations": ("list_conversations", False),
    "createConversation": ("create_conversation", False),
    "getConversation": ("get_conversation", False),
    "renameConversation": ("rename_conversation", False),
    "updateConversation": ("update_conversation", False),
    "deleteConversation": ("delete_conversation", False),
    "undoDelete": ("undo_delete", False),
    "send": ("send", True),
    "sendPreviewed": ("send_previewed", True),
    "sendAttached": ("send_attached", True),
    "preview": ("preview", False),
    "restoreTexts": ("restore_texts", False),
    "wireLog": ("wire_log", False),
    "retry": ("retry", True),
    "editMessage": ("edit_message", True),
    "regenerate": ("regenerate", True),
    "switchVersion": ("switch_version", False),
    "stop": ("stop", False),
    "activity": ("activity", False),
    "waitIdle": ("wait_idle", False),
    "sendTimings": ("send_timings", False),
}


# Every page method -> (group, method of the group's object, whether it takes the page's event callback).
# The one table the dispatch routes by and the build writes into the page's contract (site/contract_js.py).
GROUPS: dict[str, Callable[[App], Any]] = {
    "app": lambda app: app,
    "memory": memory_api,  # the Mémoire's methods (memory_api.py)
    "backup": BackupApi,  # conversation backups (backup_api.py)
    "instructions": InstructionsApi,  # personas, system prompts, usage (instructions_api.py)
    "image": OcrApi,  # masking an attached image (ocr_api.py)
    "attach": AttachApi,  # attached files staged in the composer (attach_api.py)
    "sync": SyncApi,  # multi-device sync's records, merges and changes (sync_api.py, docs/sync.md)
}


def _routes() -> dict[str, tuple[str, str, bool]]:
    tables: list[tuple[str, dict[str, tuple[str, bool]]]] = [
        ("app", METHODS),
        *((group, {page: (name, False) for page, name in table.items()}) for group, table in (
            ("memory", MEMORY_METHODS), ("backup", BACKUP_METHODS), ("instructions", INSTRUCTION_METHODS),
            ("image", OCR_METHODS), ("attach", ATTACH_METHODS), ("sync", SYNC_METHODS))),
    ]
    routes: dict[str, tuple[str, str, bool]] = {}
    for group, table in tables:
        for page, (name, takes_events) in table.items():
            if page in routes:  # one name, one method: a second would be unreachable
                raise ValueError(f"page method {page!r} is listed in both {routes[page][0]!r} and {group!r}")
            routes[page] = (group, name, takes_events)
    return routes


ROUTES = _routes()


def method_table() -> dict[str, dict[str, object]]:
    """page method -> {group, events}: what the page's contract lists (py-worker builds its API from it)."""
    return {page: {"group": group, "events": takes_events} for page, (group, _, takes_events) in sorted(ROUTES.items())}


async def call(app: App, method: str, args_json: str, emit: Callable[[str], object] | None = None) -> str:
    """Runs one page call; `emit` receives each event of a send as JSON text."""
    if method not in ROUTES:
        return _error("BadRequest", f"unknown method {method!r}")
    group, name, takes_events = ROUTES[method]
    target: Any = GROUPS[group](app)
    try:
        args = json.loads(args_json) if args_json else []
        if not isinstance(args, list):
            raise AppError("BadRequest", "arguments must be a JSON list")
        if takes_events:
            args.append(_events(emit))
        result: Any = await getattr(target, name)(*args)
    except AppError as error:
        return _error(error.name, error.message)
    except AttachmentRefused as error:
        return refused(error)
    except (TypeError, ValueError) as error:  # arguments of the wrong shape
        return _error("BadRequest", str(error))
    return json.dumps({"ok": result}, ensure_ascii=False)


def _events(emit: Callable[[str], object] | None) -> Callable[[dict[str, Any]], None]:
    def on_event(event: dict[str, Any]) -> None:
        if emit is not None:
            emit(json.dumps(event, ensure_ascii=False))

    return on_event


def _error(name: str, message: str) -> str:
    return json.dumps({"error": {"name": name, "message": message}}, ensure_ascii=False)


def refused(error: AttachmentRefused) -> str:
    """A file refused: the page reads its reason from the message (JSON) and says it in its language."""
    detail = {"reason": error.reason, "message": error.message}
    return _error("AttachmentRefused", json.dumps(detail, ensure_ascii=False))
