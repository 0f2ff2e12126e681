"""Nothing real outside the encryption (issue 17): every field that can hold personal data is filled through
the real UI of a real Chromium profile on disk, then the whole profile folder is searched for the values
(raw bytes, UTF-8 and UTF-16, inside gzip files and inside LevelDB tables, whose blocks are snappy
compressed): none is found, since autofill and form history were refused by every such input and the
app stores only ciphertext. Locking reloads the page once the workers forgot the account: a heap
snapshot of the page (CDP) holds the values before the lock and none after."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from test_chat import add_provider, create_account, new_conversation, open_app, send, wait_for_reply
from test_memory import go_memory, new_card

NAME = "Ysaline Brocquevielle"
PHONE = "06 47 19 83 25"
TITLE = "Dossier Quennevillard"
KEEP, ALWAYS, SPACE = "Maitre Gwenvaelig", "Opaliveria Studio", "Famille Tresmontel"
CARD, FACT = "Bertrand Salvignolles", "Joignable au 07 58 21 64 93."
PROVIDER_LABEL = "Fournisseur Kervadoc"
LABEL = "Compte Ardouinelle"  # the account registry keeps labels in clear by design (the gate lists them)
SECRETS = (NAME, "Brocquevielle", PHONE, PHONE.replace(" ", ""), TITLE, "Quennevillard", KEEP, ALWAYS, SPACE,
           CARD, "Salvignolles", "07 58 21 64 93", PROVIDER_LABEL, "Kervadoc")


# ---------------------------------------------------------------- reading a profile folder


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def snappy_decompress(data: bytes) -> bytes:
    """The snappy block format (LevelDB's block compression)."""
    size, at = _varint(data, 0)
    out = bytearray()
    while at < len(data) and len(out) < size:
        tag = data[at]
        at += 1
        kind = tag & 3
        if kind == 0:
            length = (tag >> 2) + 1
            if length > 60:
                extra = length - 60
                length = int.from_bytes(data[at:at + extra], "little") + 1
                at += extra
            out += data[at:at + length]
            at += length
            continue
        if kind == 1:
            length, offset = ((tag >> 2) & 7) + 4, ((tag >> 5) << 8) | data[at]
            at += 1
        else:
            width = 2 if kind == 2 else 4
            length, offset = (tag >> 2) + 1, int.from_bytes(data[at:at + width], "little")
            at += width
        for _ in range(length):  # a copy may overlap what it writes
            out.append(out[-offset])
    return bytes(out)


def _block(data: bytes, offset: int, size: int) -> bytes:
    raw, kind = data[offset:offset + size], data[offset + size]
    return snappy_decompress(raw) if kind == 1 else raw


def leveldb_blocks(data: bytes) -> list[bytes]:
    """Every data block of a LevelDB table (.ldb/.sst), decompressed."""
    footer = data[-48:]
    _, at = _varint(footer, 0)
    _, at = _varint(footer, at)  # the metaindex handle
    index_offset, at = _varint(footer, at)
    index_size, _ = _varint(footer, at)
    index = _block(data, index_offset, index_size)
    restarts = int.from_bytes(index[-4:], "little")
    end, at, blocks = len(index) - 4 - 4 * restarts, 0, []
    while at < end:
        _, at = _varint(index, at)
        unshared, at = _varint(index, at)
        value_size, at = _varint(index, at)
        at += unshared
        offset, cursor = _varint(index, at)
        size, _ = _varint(index, cursor)
        at += value_size
        blocks.append(_block(data, offset, size))
    return blocks


def readable_forms(path: Path) -> list[bytes]:
    data = path.read_bytes()
    forms = [data]
    if data[:2] == b"\x1f\x8b":
        forms.append(gzip.decompress(data))
    if path.suffix in (".ldb", ".sst") and len(data) >= 48 and data[-8:] == bytes.fromhex("57fb808b247547db"):
        forms.extend(leveldb_blocks(data))
    return forms


def found_in_profile(profile: Path, values: tuple[str, ...], skip_dirs: tuple[str, ...] = ()) -> list[str]:
    """'<value> in <file>' for every value found in any readable form of any file under `profile`."""
    hits = []
    for path in sorted(p for p in profile.rglob("*") if p.is_file()):
        if any(part in skip_dirs for part in path.relative_to(profile).parts):
            continue
        for form in readable_forms(path):
            for value in values:
                if value.encode() in form or value.encode("utf-16-le") in form:
                    hits.append(f"{value} in {path.relative_to(profile)}")
    return sorted(set(hits))


def test_the_snappy_reader_expands_literals_and_overlapping_copies() -> None:
    """The search's own check: 'a', then a 2-byte-offset copy of 4 bytes from 1 back (it overlaps itself)."""
    assert snappy_decompress(bytes([5, 0]) + b"a" + bytes([(3 << 2) | 2, 1, 0])) == b"aaaaa"


# ---------------------------------------------------------------- the test


def heap_text(page: Any) -> str:
    """A heap snapshot of the page's main thread, as text."""
    session = page.context.new_cdp_session(page)
    chunks: list[str] = []
    session.on("HeapProfiler.addHeapSnapshotChunk", lambda e: chunks.append(e["chunk"]))
    session.send("HeapProfiler.enable")
    session.send("HeapProfiler.collectGarbage")
    session.send("HeapProfiler.takeHeapSnapshot", {"reportProgress": False})
    session.detach()
    return json.dumps(json.loads("".join(chunks))["strings"], ensure_ascii=False)


def fill_every_personal_field(page: Any, provider_url: str) -> None:
    add_provider(page, provider_url, label=PROVIDER_LABEL)
    page.click("[data-route=chat]")
    new_conversation(page)
    send(page, f"Rappelle {NAME} au {PHONE} demain.")
    wait_for_reply(page)
    page.click(".conv.current [data-action=rename]")
    page.fill("#rename-input", TITLE)
    page.press("#rename-input", "Enter")
    page.locator(".chat-title", has_text=TITLE).wait_for()
    page.click("[data-action=conversation-settings]")
    page.fill("#keep", KEEP)
    page.fill("#always-mask", ALWAYS)
    page.fill("#space", SPACE)
    page.click("#conv-settings-form button[type=submit]")
    page.locator("#conv-settings-form").wait_for(state="detached")
    go_memory(page)
    new_card(page, CARD, "personne", FACT)
    page.click("[data-route=chat]")
    page.fill("#composer-input", f"Brouillon pour {NAME}")  # typed, never sent


def test_no_personal_value_reaches_the_profile_on_disk_and_a_lock_clears_the_page(
    persistent_context: Any, site_server: Any, provider: Any, tmp_path: Path
) -> None:
    page = open_app(persistent_context, site_server.url)
    create_account(page, label=LABEL)
    fill_every_personal_field(page, provider.base_url)
    before = heap_text(page)
    assert NAME in before and CARD in before  # the snapshot sees what the page holds

    page.click("[data-action=lock]")
    page.locator(".account-list").wait_for()
    assert page.locator("[data-account]").count() == 1  # the gate after the reload (not the shell)
    after = heap_text(page)
    assert [value for value in SECRETS if value in after] == []

    persistent_context.close()  # Chromium writes its databases and session files out
    profile = tmp_path / "profile"
    assert any(p.suffix in (".ldb", ".log") for p in (profile / "Default" / "IndexedDB").rglob("*"))
    assert found_in_profile(profile, SECRETS) == []
    assert found_in_profile(profile, (LABEL,), skip_dirs=("IndexedDB",)) == []
