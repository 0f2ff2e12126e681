"""The bridges of bridge.py over the JS objects py-worker.js hands in (records from storage.js, the
egress port clients, notices to the page). Imported in Pyodide only; the logic stays in app.py."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from .app import App
from .attach_api import read_call
from .bridge import Chunk, EgressMessage, End, Failure, Head, Route
from .dispatch import call


class JsRecords:
    """storage.js's records(): get/put/delete/keys, each a Promise."""

    def __init__(self, js: Any) -> None:
        self.js = js

    async def get(self, key: str) -> str | None:
        value = await self.js.get(key)
        return None if value is None else str(value)

    async def put(self, key: str, value: str) -> None:
        await self.js.put(key, value)

    async def delete(self, key: str) -> None:
        await self.js.delete(key)

    async def keys(self) -> list[str]:
        return [str(key) for key in (await self.js.keys())]


class JsStream:
    """One request on a port (py-worker.js's PortClient): next() resolves to the port's messages."""

    def __init__(self, js: Any) -> None:
        self.js = js

    async def next(self) -> EgressMessage:
        message = await self.js.next()
        kind = str(message.type)
        if kind == "head":
            return Head(int(message.status), dict(message.headers.to_py()))
        if kind == "chunk":
            return Chunk(bytes(message.bytes.to_bytes()))
        if kind == "end":
            return End()
        return Failure(str(getattr(message, "kind", None) or "network"), str(getattr(message, "message", None) or ""))

    def abort(self) -> None:
        self.js.abort()


class JsEgress:
    def __init__(self, js: Any) -> None:
        self.js = js  # {open(route, specJson) -> stream, online() -> bool}

    def open(self, route: Route, spec: dict[str, Any]) -> JsStream:
        return JsStream(self.js.open(route, json.dumps(spec, ensure_ascii=False)))

    def online(self) -> bool:
        return bool(self.js.online())


class LoopTimer:
    def __init__(self, handle: asyncio.TimerHandle) -> None:
        self.handle = handle

    def cancel(self) -> None:
        self.handle.cancel()


class JsHost:
    def __init__(self, notify: Callable[[str], object]) -> None:
        self._notify = notify

    def now(self) -> int:
        return int(time.time() * 1000)

    def call_later(self, delay_ms: int, callback: Callable[[], Any]) -> LoopTimer:
        return LoopTimer(asyncio.get_event_loop().call_later(delay_ms / 1000, callback))

    def random_bytes(self, count: int) -> bytes:
        return os.urandom(count)  # crypto.getRandomValues under Pyodide

    def notify(self, notice: dict[str, Any]) -> None:
        self._notify(json.dumps(notice, ensure_ascii=False))


class Worker:
    """What py-worker.js holds: open/close an account, and `call` for every other method."""

    def __init__(self, egress: Any, notify: Callable[[str], object]) -> None:
        self.app = App(JsEgress(egress), JsHost(notify))

    async def open(self, records: Any) -> str:
        return json.dumps(await self.app.open(JsRecords(records)))

    def close(self) -> None:
        self.app.close()

    async def call(self, method: str, args_json: str, emit: Callable[[str], object] | None = None) -> str:
        return await call(self.app, method, args_json, emit)

    async def read_attachment(self, key: str, name: str, media_type: str, data: Any,
                              emit: Callable[[str], object] | None = None) -> str:
        """readAttachment: the file's bytes (a JS Uint8Array) copied once into Python, read in steps."""
        return await read_call(self.app, key, name, media_type, bytes(data.to_bytes()), emit)


def start(egress: Any, notify: Callable[[str], object]) -> Worker:
    return Worker(egress, notify)


# The engine's heavy modules: imported at boot rather than at the first send (and the ones the
# site's wheels carry bytecode for: openmasq.site.bytecode).
ENGINE_MODULES = ("openmasq.redact", "openmasq.chat.send", "openmasq.memory.extract")


def import_engine() -> str:
    """Imports the engine; says (JSON) how many of openmasq's modules are loaded and how many of
    them from bytecode the site shipped (a wrong interpreter's would be compiled again, silently)."""
    for name in ENGINE_MODULES:
        importlib.import_module(name)
    ours = [module for name, module in list(sys.modules.items()) if name.split(".")[0] == "openmasq"]
    return json.dumps({"modules": len(ours), "from_bytecode": sum(map(_loaded_from_bytecode, ours))})


def _loaded_from_bytecode(module: Any) -> bool:
    cached = getattr(getattr(module, "__spec__", None), "cached", None)
    if not cached or not os.path.isfile(cached):
        return False
    with open(cached, "rb") as pyc:
        return pyc.read(4) == importlib.util.MAGIC_NUMBER
