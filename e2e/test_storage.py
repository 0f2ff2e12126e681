"""Encrypted accounts in a real Chromium (storage.js under py-worker): create, lock, unlock, a wrong
passphrase that decrypts nothing, two accounts that cannot see each other, "remember on this
device" with a non-extractable key, deletion, and a raw IndexedDB dump free of plaintext."""

from __future__ import annotations

import json
from typing import Any

from test_worker_browser import (  # the fixtures are shared with the worker tests
    API_KEY,
    EMAIL,
    NAME,
    PASSPHRASE,
    SEND_JS,
    TEXT,
    WorkerPage,
    app_server,
    egress_provider,
    fresh_account,
    use_provider,
    worker_page,
)

__all__ = ["app_server", "egress_provider", "worker_page"]

# Every IndexedDB database of the origin, every store, every record, bytes as latin-1 text so a
# UTF-8 plaintext would show up as its own bytes. Key objects are described, not read.
DUMP_IDB_JS = """async () => {
  const req = (r) => new Promise((res, rej) => { r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
  const show = (v) => {
    if (v instanceof CryptoKey) return { cryptoKey: { extractable: v.extractable, usages: v.usages } };
    if (v instanceof Uint8Array || v instanceof ArrayBuffer) {
      const bytes = v instanceof Uint8Array ? v : new Uint8Array(v);
      let s = ""; for (const b of bytes) s += String.fromCharCode(b); return { bytes: s };
    }
    if (Array.isArray(v)) return v.map(show);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, show(x)]));
    return v;
  };
  const out = [];
  for (const info of await indexedDB.databases()) {
    const db = await req(indexedDB.open(info.name));
    for (const store of db.objectStoreNames) {
      const s = db.transaction(store).objectStore(store);
      const keys = await req(s.getAllKeys());
      const values = await req(s.getAll());
      keys.forEach((k, i) => out.push({ db: info.name, store, key: String(k), value: show(values[i]) }));
    }
    db.close();
  }
  return out;
}"""


def dump(page: WorkerPage) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = page.call(DUMP_IDB_JS)
    return records


def contains(records: list[dict[str, Any]], secret: str) -> list[str]:
    """Where `secret` appears, as text or as its UTF-8 bytes."""
    forms = {secret, secret.encode("utf-8").decode("latin-1")}
    return [f"{r['db']}/{r['store']}/{r['key']}" for r in records
            if any(form in json.dumps(r["value"], ensure_ascii=False) or form in r["key"] for form in forms)]


def locked_error(page: WorkerPage) -> Any:
    return page.attempt("() => api.getSettings()")


def test_create_lock_and_unlock_an_account(worker_page: WorkerPage) -> None:
    account = fresh_account(worker_page, "Cycle")
    assert account["label"] == "Cycle" and account["remembered"] is False
    worker_page.call("() => api.updateSettings({theme: 'dark'})")
    assert worker_page.call("() => api.current()")["id"] == account["id"]
    worker_page.call("() => api.lock()")
    assert worker_page.call("() => api.current()") is None
    assert locked_error(worker_page)["error"]["name"] == "Locked"
    worker_page.call("([id, pass]) => api.unlock(id, pass, false)", [account["id"], PASSPHRASE])
    assert worker_page.call("() => api.getSettings()")["theme"] == "dark"
    listed = worker_page.call("() => api.listAccounts()")
    assert account["id"] in [a["id"] for a in listed]


def test_a_wrong_passphrase_decrypts_nothing_and_says_so(worker_page: WorkerPage) -> None:
    account = fresh_account(worker_page, "Erreur")
    worker_page.call("() => api.lock()")
    answer = worker_page.attempt("([id]) => api.unlock(id, 'not the passphrase', false)", [account["id"]])
    assert answer["error"]["name"] == "WrongPassphrase"
    assert "Wrong passphrase" in answer["error"]["message"]
    assert worker_page.call("() => api.current()") is None
    assert locked_error(worker_page)["error"]["name"] == "Locked"


def test_two_accounts_cannot_see_each_other(worker_page: WorkerPage, egress_provider: Any) -> None:
    first = fresh_account(worker_page, "Alice")
    use_provider(worker_page, egress_provider)
    worker_page.call(SEND_JS, [TEXT])
    assert len(worker_page.call("() => api.listConversations()")) == 1
    second = fresh_account(worker_page, "Bruno")
    assert worker_page.call("() => api.listConversations()") == []
    assert [p["kind"] for p in worker_page.call("() => api.listProviders()")] == ["local"]
    worker_page.call("() => api.lock()")
    # One database each, and one account's key does not open the other's records.
    names = {r["db"] for r in dump(worker_page)}
    assert {f"openmasq-acct-{first['id']}", f"openmasq-acct-{second['id']}"} <= names
    worker_page.call("([id, pass]) => api.unlock(id, pass, false)", [first["id"], PASSPHRASE])
    assert len(worker_page.call("() => api.listConversations()")) == 1


def test_the_indexeddb_dump_holds_no_plaintext(worker_page: WorkerPage, egress_provider: Any) -> None:
    fresh_account(worker_page, "Coffre")
    use_provider(worker_page, egress_provider)
    sent = worker_page.call(SEND_JS, [TEXT])
    assert sent["result"] == {"status": "done"}
    records = dump(worker_page)
    assert any(r["store"] == "records" and r["key"].startswith("conv:") for r in records)
    for secret in (NAME, "Vasseur", EMAIL, API_KEY, PASSPHRASE, "pour confirmer jeudi", "Reçu : "):
        assert contains(records, secret) == [], secret
    # The fakes the model saw are not stored in clear either (they would tie the vault to the text).
    wire = sent["events"][0]["message"]["wire"]
    assert contains(records, wire) == []


def test_remember_on_this_device_uses_a_key_that_cannot_be_exported(worker_page: WorkerPage) -> None:
    account = worker_page.call("([pass]) => api.createAccount('Appareil', pass, true)", [PASSPHRASE])
    assert account["remembered"] is True
    worker_page.call("() => api.updateSettings({autolock_minutes: 3})")
    worker_page.reload()
    worker_page.call("(id) => api.unlockRemembered(id)", account["id"])
    assert worker_page.call("() => api.getSettings()")["autolock_minutes"] == 3
    device = [r for r in dump(worker_page) if r["db"] == f"openmasq-acct-{account['id']}" and r["key"] == "device-key"]
    assert device and device[0]["value"]["cryptoKey"]["extractable"] is False
    # Unlocking with the passphrase and remember=false forgets the device.
    worker_page.call("([id, pass]) => api.unlock(id, pass, false)", [account["id"], PASSPHRASE])
    answer = worker_page.attempt("([id]) => api.unlockRemembered(id)", [account["id"]])
    assert answer["error"]["name"] == "NotRemembered"


def test_deleting_an_account_deletes_its_database(worker_page: WorkerPage) -> None:
    account = fresh_account(worker_page, "Éphémère")
    worker_page.call("() => api.createConversation({title: 'à effacer'})")
    worker_page.call("(id) => api.deleteAccount(id)", account["id"])
    assert account["id"] not in [a["id"] for a in worker_page.call("() => api.listAccounts()")]
    assert f"openmasq-acct-{account['id']}" not in {r["db"] for r in dump(worker_page)}
    databases = worker_page.call("() => indexedDB.databases().then(d => d.map(x => x.name))")
    assert f"openmasq-acct-{account['id']}" not in databases
    assert worker_page.call("() => localStorage.length") == 0
