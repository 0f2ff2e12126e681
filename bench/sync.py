"""How long sync takes between two browser profiles on loopback (issue 21's targets): the first sync
of 1,000 cards and 200 conversations (the first device sealing and sending everything, the second
receiving and opening everything), and an edit made on one device visible on the other (one round on
each: sync by hand; live replication is not built). The real parts: Chromium, PouchDB 9 with
web/worker/sync-engine.js and sync-envelope.js, the CouchDB-protocol server of sync-server/. The pages
are served by a plain static server (the engine alone, without the app shell).

Run in the dev venv:  $VENV/bin/python bench/sync.py  [--cards 1000] [--conversations 200]"""

from __future__ import annotations

import argparse
import functools
import http.server
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))

from openmasq.sync import merge_record  # noqa: E402
from openmasq.testing.syncserver import running_sync_server  # noqa: E402

FIRST_SYNC_TARGET_S = 30.0
EDIT_TARGET_S = 3.0
T0 = 1_767_225_600_000
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]


def records(cards: int, conversations: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i in range(cards):
        out[f"card:c{i:05d}"] = {
            "id": f"c{i:05d}", "entity": f"Personne{i:04d} Nom", "category": "personne", "aliases": [],
            "sentences": [{"text": f"Fait numéro {i}, travaille à Lyon depuis {2000 + i % 25}.", "noted_at": T0,
                           "origin": "user"}],
            "history": [], "status": "confirmed", "scope": None, "source": "user", "created_at": T0,
            "updated_at": T0, "reviewed_at": T0}
    for i in range(conversations):
        messages = [{"id": f"m{i}-{j}", "role": "user" if j % 2 == 0 else "assistant",
                     "content": f"Message {j} de la conversation {i}. " * 8, "at": T0 + j} for j in range(10)]
        out[f"conversation:v{i:04d}"] = {
            "id": f"v{i:04d}", "title": f"Conversation {i}", "created_at": T0, "updated_at": T0,
            "vault": {"version": 1, "key": "ab" * 16, "mode": "fake", "entries": [], "words": {}, "org_cores": {},
                      "counters": {}}, "messages": messages}
    return out


def static_site(root: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    (root / "worker").mkdir()
    (root / "vendor").mkdir()
    for name in ("sync-engine.js", "sync-envelope.js"):
        shutil.copy(ROOT / "web" / "worker" / name, root / "worker" / name)
    shutil.copy(ROOT / "node_modules" / "pouchdb" / "dist" / "pouchdb.min.js", root / "vendor" / "pouchdb.min.js")
    (root / "index.html").write_text("<!doctype html><title>sync bench</title>", encoding="utf-8")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


SETUP = """async ([remote, code]) => {
  await import("./vendor/pouchdb.min.js");
  const env = await import("./worker/sync-envelope.js");
  const { SyncEngine } = await import("./worker/sync-engine.js");
  const keys = await env.syncKeys(env.codeToKey(code || env.keyToCode(env.newSyncKey())));
  window.records = {};
  window.engine = new SyncEngine({ PouchDB: self.PouchDB, local: "bench", remote,
    credentials: { username: "alice", password: "pw" }, keys,
    merge: (name, base, ours, theirs) => window.pyMerge(name, base, ours, theirs) });
  return code || null;
}"""
SYNC = """async () => {
  const { changed } = await engine.syncOnce(window.records);
  for (const [name, body] of Object.entries(changed)) {
    if (body === null) delete window.records[name]; else window.records[name] = body;
  }
  return Object.keys(changed).length;
}"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--conversations", type=int, default=200)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    data = records(args.cards, args.conversations)
    with tempfile.TemporaryDirectory() as tmp:
        site, url = static_site(Path(tmp))
        with running_sync_server(origins=(url,)) as server, sync_playwright() as pw:
            remote = server.add_user("alice", "pw")
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            pages = []
            for _ in range(2):
                page = browser.new_context().new_page()
                page.expose_function("pyMerge", lambda n, b, o, t: merge_record(n, b, o, t))
                page.goto(f"{url}/index.html")
                pages.append(page)
            a, b = pages
            code = a.evaluate("async () => (await import('./worker/sync-envelope.js')).keyToCode("
                              "(await import('./worker/sync-envelope.js')).newSyncKey())")
            a.evaluate(SETUP, [remote, code])
            b.evaluate(SETUP, [remote, code])
            a.evaluate("(data) => { window.records = data; }", data)

            start = time.perf_counter()
            a.evaluate(SYNC)
            sent = time.perf_counter() - start
            start = time.perf_counter()
            received = b.evaluate(SYNC)
            got = time.perf_counter() - start
            assert received == len(data), f"the second device received {received} of {len(data)} records"

            a.evaluate("() => { window.records['card:c00000'] = {...window.records['card:c00000'],"
                       " entity: 'Renommée', updated_at: window.records['card:c00000'].updated_at + 1}; }")
            start = time.perf_counter()
            a.evaluate(SYNC)
            b.evaluate(SYNC)
            edit = time.perf_counter() - start
            assert b.evaluate("() => window.records['card:c00000'].entity") == "Renommée"
            browser.close()
        site.shutdown()

    first = sent + got
    verdict = "MET" if first <= FIRST_SYNC_TARGET_S else "NOT MET"
    print(f"records: {args.cards} cards + {args.conversations} conversations = {len(data)}")
    print(f"first sync: first device seals and sends {sent:.1f} s, second receives and opens {got:.1f} s,"
          f" total {first:.1f} s (target <= {FIRST_SYNC_TARGET_S:.0f} s: {verdict})")
    print(f"an edit visible on the other device (one round on each): {edit:.2f} s"
          f" (target <= {EDIT_TARGET_S:.0f} s: {'MET' if edit <= EDIT_TARGET_S else 'NOT MET'};"
          " rounds run by hand, no live replication)")


if __name__ == "__main__":
    main()
