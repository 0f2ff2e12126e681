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


async def call(app: App, method: str, args_json: str, emit: Callable[[str], object] | None = None) -> str:
    """Runs one page call; `emit` receives each event of a send as JSON text."""
    target: Any = app
    if method in MEMORY_METHODS:  # the Mémoire's methods (memory_api.py)
        target, (name, takes_events) = memory_api(app), (MEMORY_METHODS[method], False)
    elif method in BACKUP_METHODS:  # conversation backups (backup_api.py)
        target, (name, takes_events) = BackupApi(app), (BACKUP_METHODS[method], False)
    elif method in INSTRUCTION_METHODS:  # personas, system prompts, usage (instructions_api.py)
        target, (name, takes_events) = InstructionsApi(app), (INSTRUCTION_METHODS[method], False)
    elif method in OCR_METHODS:  # masking an attached image (ocr_api.py)
        target, (name, takes_events) = OcrApi(app), (OCR_METHODS[method], False)
    elif method in ATTACH_METHODS:  # attached files staged in the composer (attach_api.py)
        target, (name, takes_events) = AttachApi(app), (ATTACH_METHODS[method], False)
    elif method in METHODS:
        name, takes_events = METHODS[method]
    else:
        return _error("BadRequest", f"unknown method {method!r}")
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
