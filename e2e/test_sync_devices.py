"""Sync between devices (issue 21), end to end on the real parts: two (then three) browser profiles
running PouchDB 9 and web/worker/sync-engine.js + sync-envelope.js, the CouchDB-protocol server of
sync-server/ started on loopback, and the Python core's merge rules (openmasq.sync, called from the
page). Create on one device, see it on the other; the same card edited on both while offline
converges to the documented merge; an edit beats a delete; a device paired late catches up; the
server's stored documents hold no real value, no fake, no title, no record name; a tampered
ciphertext is refused and reported, not applied; a wrong sync key, a wrong password and an
unreachable server are each refused with their own error.

The engine runs in the page of a plain static server (no app shell): the app's wiring of it (the sync
screen, the egress policy) is not part of this test (docs/sync.md, "Status")."""

from __future__ import annotations

import copy
import functools
import http.server
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from openmasq.sync import merge_card, merge_record
from openmasq.testing.syncserver import ADMIN, SyncServer, running_sync_server

REPO = Path(__file__).resolve().parents[1]
PASSWORD = "alice-password"
T0 = 1_750_000_000_000
# Real values, the fakes the vault gave them, a title: none may reach the server in clear.
REAL = ("Marie Dupont", "marie.dupont@karl-studio.fr", "Atelier Torbel", "Zoë Ångström")
FAKES = ("Lucie Garnier", "lucie.garnier@ostrel.fr")
TITLE = "Contrat Atelier Torbel"


@pytest.fixture(scope="module")
def static_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site's layout for the two modules and PouchDB's bundle (as the build vendors it)."""
    root = tmp_path_factory.mktemp("sync-static")
    (root / "worker").mkdir()
    (root / "vendor").mkdir()
    for name in ("sync-engine.js", "sync-envelope.js"):
        shutil.copy(REPO / "web" / "worker" / name, root / "worker" / name)
    shutil.copy(REPO / "node_modules" / "pouchdb" / "dist" / "pouchdb.min.js", root / "vendor" / "pouchdb.min.js")
    (root / "index.html").write_text("<!doctype html><meta charset=utf-8><title>sync</title>", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def static_url(static_root: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(static_root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server(static_url: str) -> Iterator[SyncServer]:
    with running_sync_server(origins=(static_url,)) as running:
        yield running


def _merge(name: str, base: Any, ours: Any, theirs: Any) -> Any:
    return merge_record(name, base, ours, theirs)


class Device:
    """One browser profile holding its records (what the app would hold) and a SyncEngine."""

    def __init__(self, browser: Any, static_url: str, remote: str, code: str, password: str = PASSWORD) -> None:
        self.context = browser.new_context()
        self.page = self.context.new_page()
        self.page.expose_function("pyMerge", _merge)
        self.page.goto(f"{static_url}/index.html")
        self.page.evaluate(
            """async ([remote, code, password]) => {
                await import("./vendor/pouchdb.min.js");
                const env = await import("./worker/sync-envelope.js");
                const { SyncEngine } = await import("./worker/sync-engine.js");
                const keys = await env.syncKeys(env.codeToKey(code));
                window.records = {};
                window.engine = new SyncEngine({ PouchDB: self.PouchDB, local: "openmasq-sync", remote,
                  credentials: { username: "alice", password }, keys,
                  merge: (name, base, ours, theirs) => window.pyMerge(name, base, ours, theirs) });
            }""",
            [remote, code, password],
        )

    def set(self, name: str, body: Any) -> None:
        self.page.evaluate("([name, body]) => { window.records[name] = body; }", [name, body])

    def drop(self, name: str) -> None:
        self.page.evaluate("(name) => { delete window.records[name]; }", name)

    def records(self) -> dict[str, Any]:
        return dict(self.page.evaluate("() => window.records"))

    def save_offline(self) -> int:
        """What the app does while the server is out of reach: the change is sealed locally."""
        return int(self.page.evaluate(
            "async () => engine.push(window.records, Object.keys(await engine.records()))"))

    def sync(self) -> dict[str, Any]:
        """One round; the changed records are applied as the app would apply them."""
        return dict(self.page.evaluate(
            """async () => {
                const { changed, status } = await engine.syncOnce(window.records);
                for (const [name, body] of Object.entries(changed)) {
                    if (body === null) delete window.records[name]; else window.records[name] = body;
                }
                return { changed: Object.keys(changed).sort(), status };
            }"""))

    def sync_error(self) -> dict[str, str]:
        return dict(self.page.evaluate(
            "async () => { try { await engine.syncOnce(window.records); return {}; }"
            " catch (e) { return { name: e.name, message: e.message }; } }"))

    def close(self) -> None:
        self.context.close()


def new_code(page: Any) -> str:
    return str(page.evaluate(
        "async () => { const env = await import('./worker/sync-envelope.js');"
        " return env.keyToCode(env.newSyncKey()); }"))


def a_card(card_id: str, entity: str, sentence: str, at: int = T0) -> dict[str, Any]:
    return {"id": card_id, "entity": entity, "category": "personne", "aliases": [], "status": "confirmed",
            "sentences": [{"text": sentence, "noted_at": at, "origin": "user"}], "history": [], "scope": None,
            "source": "user", "created_at": at, "updated_at": at, "reviewed_at": at}


def a_conversation() -> dict[str, Any]:
    return {"id": "conv1", "title": TITLE, "space": None, "created_at": T0, "updated_at": T0,
            "vault": {"version": 1, "key": "ab" * 16, "mode": "fake",
                      "entries": [[FAKES[0], REAL[0], "person", False], [FAKES[1], REAL[1], "email", False]],
                      "words": {}, "org_cores": {}, "counters": {}},
            "messages": [{"id": "m1", "role": "user", "content": f"Écris à {REAL[0]} ({REAL[1]})", "at": T0,
                          "wire": f"Écris à {FAKES[0]} ({FAKES[1]})", "redactions": 2}],
            "memory_watermark": 0, "memory_off": False, "redact_categories": {}, "revealed_values": [],
            "forced_redactions": []}


@pytest.fixture
def devices(browser: Any, static_url: str, server: SyncServer) -> Iterator[tuple[Device, Device, str, str]]:
    remote = server.add_user("alice", PASSWORD)
    made: list[Device] = []
    first = Device(browser, static_url, remote, "0" * 52)  # replaced below by a fresh key's code
    made.append(first)
    code = new_code(first.page)
    first.close()
    a, b = Device(browser, static_url, remote, code), Device(browser, static_url, remote, code)
    made += [a, b]
    try:
        yield a, b, remote, code
    finally:
        for device in made[1:]:
            device.close()


def test_a_card_and_a_conversation_made_on_one_device_appear_on_the_other_and_the_server_holds_no_clear_text(
    devices: tuple[Device, Device, str, str], server: SyncServer,
) -> None:
    a, b, _, _ = devices
    a.set("card:c1", a_card("c1", REAL[0], f"Écrit depuis {REAL[1]}, travaille chez {REAL[2]}."))
    a.set("card:c2", a_card("c2", REAL[3], "Cliente depuis 2021."))
    a.set("conversation:conv1", a_conversation())
    a.set("account", {"settings": {"level": "renforce", "coffre": [REAL[2]]}, "providers": [], "spaces": [],
                      "personas": []})
    pushed = a.sync()
    assert pushed["status"]["state"] == "ok" and pushed["changed"] == []
    got = b.sync()
    assert got["changed"] == ["account", "card:c1", "card:c2", "conversation:conv1"]
    assert b.records() == a.records()

    stored = server.raw_dump("openmasq-alice")
    for clear in (*REAL, *FAKES, TITLE, "card:", "conversation:", "Écris", "renforce"):
        assert clear not in stored, f"{clear!r} is on the server in clear"
    docs = [d for d in server.documents("openmasq-alice") if d["_id"].startswith("r")]
    assert len(docs) == 4 and all(set(d) >= {"_id", "_rev", "v", "c"} for d in docs)
    sizes = {len(d["c"]) for d in docs}
    assert len(sizes) <= 2, f"padded sizes fall in few buckets, got {sorted(sizes)}"


def test_the_same_card_edited_on_both_devices_offline_converges_to_the_documented_merge(
    devices: tuple[Device, Device, str, str],
) -> None:
    a, b, _, _ = devices
    base = a_card("c1", REAL[0], "Designer à Lyon.")
    a.set("card:c1", base)
    a.sync()
    b.sync()
    ours = copy.deepcopy(base)
    ours.update(entity=f"{REAL[0]} (Torbel)", updated_at=T0 + 10)
    theirs = copy.deepcopy(base)
    theirs["sentences"].append({"text": "Préfère le téléphone.", "noted_at": T0 + 20, "origin": "user"})
    theirs.update(status="proposed", updated_at=T0 + 20)
    a.set("card:c1", ours)
    b.set("card:c1", theirs)
    assert a.save_offline() == 1 and b.save_offline() == 1
    a.sync()
    outcome = b.sync()
    a.sync()
    assert outcome["status"]["conflictsResolved"] == 1
    expected = merge_card(base, ours, theirs)
    assert expected is not None and expected["entity"] == f"{REAL[0]} (Torbel)"
    assert [s["text"] for s in expected["sentences"]] == ["Designer à Lyon.", "Préfère le téléphone."]
    assert a.records()["card:c1"] == b.records()["card:c1"] == expected


def test_a_card_deleted_on_one_device_and_edited_on_the_other_is_kept_with_the_edit(
    devices: tuple[Device, Device, str, str],
) -> None:
    a, b, _, _ = devices
    base = a_card("c2", REAL[3], "Cliente depuis 2021.")
    a.set("card:c2", base)
    a.sync()
    b.sync()
    edited = copy.deepcopy(base)
    edited["sentences"].append({"text": "Paie à 30 jours.", "noted_at": T0 + 5, "origin": "user"})
    edited["updated_at"] = T0 + 5
    a.drop("card:c2")
    b.set("card:c2", edited)
    a.save_offline()
    b.save_offline()
    b.sync()
    a.sync()
    b.sync()
    assert a.records().get("card:c2") == b.records().get("card:c2") == edited


def test_a_third_device_paired_late_catches_up(
    devices: tuple[Device, Device, str, str], browser: Any, static_url: str,
) -> None:
    a, b, remote, code = devices
    a.set("card:c1", a_card("c1", REAL[0], "Designer."))
    a.set("conversation:conv1", a_conversation())
    a.sync()
    b.set("card:c3", a_card("c3", REAL[2], "Fournisseur."))
    b.sync()
    a.sync()
    late = Device(browser, static_url, remote, code)
    try:
        assert late.sync()["changed"] == ["card:c1", "card:c3", "conversation:conv1"]
        assert late.records() == a.records() == b.records()
    finally:
        late.close()


def test_a_tampered_ciphertext_is_refused_and_reported_not_applied(
    devices: tuple[Device, Device, str, str], server: SyncServer,
) -> None:
    a, b, remote, _ = devices
    a.set("card:c1", a_card("c1", REAL[0], "Designer."))
    a.sync()
    b.sync()
    before = b.records()
    doc = next(d for d in server.documents("openmasq-alice") if d["_id"].startswith("r"))
    forged = {**doc, "c": doc["c"][:-8] + ("AAAAAAA=" if not doc["c"].endswith("AAAAAAA=") else "BBBBBBB=")}
    answer = httpx.put(f"{remote}/{doc['_id']}", json=forged, auth=ADMIN)
    assert answer.status_code == 201
    outcome = b.sync()
    assert [r["id"] for r in outcome["status"]["refused"]] == [doc["_id"]]
    assert "Nothing of it was applied" in outcome["status"]["refused"][0]["message"]
    assert b.records() == before


def test_a_wrong_sync_key_a_wrong_password_and_an_unreachable_server_are_refused_each_by_name(
    devices: tuple[Device, Device, str, str], browser: Any, static_url: str, server: SyncServer,
) -> None:
    a, _, remote, _ = devices
    a.set("card:c1", a_card("c1", REAL[0], "Designer."))
    a.sync()
    count = len(server.documents("openmasq-alice"))
    stranger = Device(browser, static_url, remote, new_code(a.page))
    wrong_password = Device(browser, static_url, remote, "0" * 52, password="not-it")
    with socket.socket() as probe:  # a port nobody listens on: bound, then closed
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/openmasq-alice"
    unreachable = Device(browser, static_url, closed, "0" * 52)
    try:
        stranger.set("card:x", a_card("x", "Quelqu'un", "Rien."))
        refused = stranger.sync_error()
        assert refused["name"] == "WrongSyncKey" and "nothing was sent" in refused["message"]
        assert len(server.documents("openmasq-alice")) == count
        assert stranger.records() == {"card:x": a_card("x", "Quelqu'un", "Rien.")}
        assert wrong_password.sync_error()["name"] == "BadCredentials"
        offline = unreachable.sync_error()
        assert offline["name"] == "Unreachable" and "kept here" in offline["message"]
    finally:
        for device in (stranger, wrong_password, unreachable):
            device.close()


def test_the_dump_search_finds_a_value_the_server_holds_in_clear(server: SyncServer) -> None:
    """The control of the dump searches above: the same dump shows a clear value when one is stored."""
    remote = server.add_user("alice", PASSWORD)
    httpx.put(f"{remote}/plain", json={"name": REAL[3]}, auth=("alice", PASSWORD)).raise_for_status()
    assert REAL[3] in server.raw_dump("openmasq-alice")
