"""The sync envelope (web/worker/sync-envelope.js), run by node's WebCrypto on the shipped module:
bodies sealed with the document id and revision bound, ids keyed hashes, sizes in buckets, every
tampering refused and named, a wrong sync key refused, the pairing code round-trips."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
REAL = "Marie Dupont, marie.dupont@karl-studio.fr, 06 12 34 56 78"


def run_js(body: str) -> Any:
    """Run `body` (an async function body with the module as `e` and two keys `k`, `k2`) in node;
    its returned value as JSON."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    module = (REPO / "web" / "worker" / "sync-envelope.js").as_uri()
    script = (f"const e = await import('{module}');"
              "const k = await e.syncKeys(e.newSyncKey()); const k2 = await e.syncKeys(e.newSyncKey());"
              "const refused = async (p) => { try { await p; return null; } catch (x) { return x.name; } };"
              f"const out = await (async () => {{ {body} }})(); console.log(JSON.stringify(out));")
    done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_sealed_record_opens_back_and_its_document_holds_no_clear_text() -> None:
    out = run_js(f"const d = await e.seal(k, 'card:c1', {{entity: {json.dumps(REAL)}}});"
                 "const o = await e.open(k, d); return {doc: d, opened: o};")
    assert out["opened"]["name"] == "card:c1" and out["opened"]["body"] == {"entity": REAL}
    stored = json.dumps(out["doc"])
    for clear in ("Marie", "Dupont", "karl-studio", "card:", "06 12"):  # long enough not to occur in base64 by chance
        assert clear not in stored
    assert out["doc"]["_id"].startswith("r") and len(out["doc"]["_id"]) == 33


def test_document_ids_are_keyed_hashes_stable_for_one_key_and_different_for_another() -> None:
    same, other = run_js("return [(await e.docIdOf(k, 'card:c1')) === (await e.docIdOf(k, 'card:c1')),"
                         " (await e.docIdOf(k, 'card:c1')) === (await e.docIdOf(k2, 'card:c1'))];")
    assert same and not other


def test_sizes_are_padded_to_buckets() -> None:
    sizes = run_js("const len = async (n) => (await e.seal(k, 'x', 'a'.repeat(n))).c.length;"
                   "return [await len(1), await len(900), await len(1100), await len(1900),"
                   " e.bucketSize(0), e.bucketSize(1020), e.bucketSize(1021), e.bucketSize(3 * 1024 * 1024)];")
    assert sizes[0] == sizes[1] and sizes[2] == sizes[3] and sizes[2] > sizes[1]
    assert sizes[4:] == [1024, 1024, 2048, 4 * 1024 * 1024]


def test_a_tampered_ciphertext_is_refused_and_named() -> None:
    out = run_js("const d = await e.seal(k, 'card:c1', {entity: 'Globex'});"
                 "const bytes = Uint8Array.from(atob(d.c), (ch) => ch.charCodeAt(0)); bytes[40] ^= 1;"
                 "const flipped = {...d, c: btoa(String.fromCharCode(...bytes))};"
                 "let message = ''; try { await e.open(k, flipped); } catch (x) { message = x.message; }"
                 "return [await refused(e.open(k, flipped)), message, await refused(e.open(k, {...d, c: 'AAAA'})),"
                 " await refused(e.open(k, {...d, v: 9}))];")
    assert out[0] == "Tampered" and "was refused" in out[1] and "Nothing of it was applied" in out[1]
    assert out[2:] == ["Tampered", "Tampered"]


def test_a_ciphertext_moved_to_another_document_or_revision_is_refused() -> None:
    out = run_js("const a = await e.seal(k, 'card:c1', {entity: 'Globex'});"
                 "const b = await e.seal(k, 'card:c2', {entity: 'Initech'});"
                 "const a2 = await e.seal(k, 'card:c1', {entity: 'Globex SA'}, a);"
                 "return [await refused(e.open(k, {...a, _id: b._id})),"
                 " await refused(e.open(k, {...a, _rev: a2._rev})),"
                 " await refused(e.open(k, {...a2, c: a.c})), await refused(e.open(k, a2)), a2._rev.split('-')[0],"
                 " a2._revisions.ids.length];")
    assert out[:4] == ["Tampered", "Tampered", "Tampered", None]
    assert out[4:] == ["2", 2]


def test_another_sync_key_is_refused_by_the_key_check_and_cannot_open_a_document() -> None:
    out = run_js("const check = await e.keyCheckDoc(k); const d = await e.seal(k, 'card:c1', 'x');"
                 "return [await e.verifyKeyCheck(k, check), await refused(e.verifyKeyCheck(k2, check)),"
                 " await e.verifyKeyCheck(k2, undefined), await refused(e.open(k2, d)), JSON.stringify(check).length];")
    assert out[:4] == [True, "WrongSyncKey", False, "Tampered"]


def test_the_pairing_code_carries_the_key_and_a_mistyped_code_is_refused() -> None:
    out = run_js("const raw = e.newSyncKey(); const code = e.keyToCode(raw);"
                 "const back = e.codeToKey(code.toLowerCase().replace(/-/g, ' '));"
                 "return [code, Array.from(back).join() === Array.from(raw).join(),"
                 " await refused(Promise.resolve().then(() => e.codeToKey(code.slice(0, -2)))),"
                 " await refused(Promise.resolve().then(() => e.codeToKey(code.slice(0, -1) + 'U')))];")
    code, same, short, bad = out
    assert len(code.replace("-", "")) == 52 and same
    assert short == bad == "BadSyncCode"
