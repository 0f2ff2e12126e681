"""The `openmasq redact` and `openmasq restore` commands, run as a user would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TEXT = "Écris à Marie Dupont (marie.dupont@karl-studio.fr, 06 12 34 56 78) chez Karl Studio SAS.\n"


def run(*args: str, stdin: bytes | str = b"") -> subprocess.CompletedProcess[bytes]:
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    return subprocess.run([sys.executable, "-m", "openmasq", *args], input=data, capture_output=True, timeout=120)


def test_redact_prints_text_without_real_values():
    result = run("redact", stdin=TEXT)
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode("utf-8")
    for real in ("Marie Dupont", "marie.dupont@karl-studio.fr", "06 12 34 56 78", "Karl Studio"):
        assert real not in out
    assert out.endswith("SAS.\n")


def test_a_vault_file_makes_successive_calls_one_conversation(tmp_path: Path):
    vault = tmp_path / "conv.json"
    first = run("redact", "--vault", str(vault), stdin="Marie Dupont a appelé.").stdout.decode()
    second = run("redact", "--vault", str(vault), stdin="Rappelle Marie Dupont.").stdout.decode()
    fake = first.removesuffix(" a appelé.")
    assert second == f"Rappelle {fake}."
    assert vault.stat().st_mode & 0o077 == 0
    restored = run("restore", "--vault", str(vault), stdin=f"J'ai écrit à {fake}.")
    assert restored.stdout.decode() == "J'ai écrit à Marie Dupont."


def test_json_output_lists_text_vault_and_spans():
    result = run("redact", "--json", "--mode", "token", stdin=TEXT)
    doc = json.loads(result.stdout)
    assert set(doc) == {"text", "vault", "spans"}
    assert doc["vault"]["[PERSON1]"] == "Marie Dupont"
    assert {span["kind"] for span in doc["spans"]} >= {"person", "email", "phone", "org"}
    for span in doc["spans"]:
        assert TEXT[span["start"] : span["end"]] == span["value"]


def test_force_and_keep_options():
    result = run("redact", "--force", "Projet Zéphyr", "--keep", "Marie Dupont",
                 stdin="Marie Dupont pilote le Projet Zéphyr.")
    out = result.stdout.decode()
    assert "Marie Dupont" in out and "Zéphyr" not in out


def test_invalid_utf8_is_a_clear_error_and_prints_nothing():
    result = run("redact", stdin=b"Marie Dupont \xff\xfe")
    assert result.returncode == 1
    assert result.stdout == b""
    assert b"not valid UTF-8" in result.stderr


def test_usage_errors_exit_with_status_2():
    assert run("redact", "--level", "extreme").returncode == 2
    assert run("restore").returncode == 2


def test_restore_without_a_vault_file_is_a_failure(tmp_path: Path):
    result = run("restore", "--vault", str(tmp_path / "missing.json"), stdin="x")
    assert result.returncode == 1 and b"does not exist" in result.stderr


def test_a_corrupt_vault_is_reported_and_left_alone(tmp_path: Path):
    vault = tmp_path / "conv.json"
    vault.write_text("{not json")
    result = run("redact", "--vault", str(vault), stdin="Marie Dupont")
    assert result.returncode == 1 and result.stdout == b""
    assert vault.read_text() == "{not json"
