"""State document migrations: one test per migration, the chain, and an unknown version that
leaves the document untouched."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from openmasq.chat.usage import Price
from openmasq.store import StateVersionError, document_from_json, migrate
from openmasq.store.migrations import LATEST_VERSION, v1_to_v2, v2_to_v3, v3_to_v4, v5_to_v6


def v1_document(tokens: bool) -> dict[str, Any]:
    return {
        "version": 1,
        "settings": {"redactWireTokens": tokens, "level": "renforce"},
        "conversations": [{"id": "c1", "vault": {"version": 1, "key": "ab" * 32, "mode": None, "entries": []},
                           "messages": [{"id": "u1", "role": "user", "content": "Bonjour Claire",
                                         "redactions": 1, "modelContent": "Bonjour Lina"}]}],
    }


@pytest.mark.parametrize("tokens, mode", [(True, "token"), (False, "fake")])
def test_v1_to_v2_names_the_mode_and_the_wire_copy(tokens: bool, mode: str) -> None:
    doc = v1_to_v2(v1_document(tokens))
    assert doc["version"] == 2 and doc["settings"] == {"mode": mode, "level": "renforce"}
    assert doc["conversations"][0]["messages"][0]["wire"] == "Bonjour Lina"
    assert "modelContent" not in doc["conversations"][0]["messages"][0]


def test_v2_to_v3_makes_each_conversation_one_branch() -> None:
    doc = v2_to_v3(v1_to_v2(v1_document(False)))
    conv = doc["conversations"][0]
    assert doc["version"] == 3 and conv["branches"] == [] and conv["forks"] == {}
    assert [m["id"] for m in conv["messages"]] == ["u1"]


def test_v3_to_v4_changes_nothing_but_the_number_an_older_build_refuses() -> None:
    doc = v2_to_v3(v1_to_v2(v1_document(False)))
    before = copy.deepcopy(doc["conversations"])
    after = v3_to_v4(doc)
    assert after["version"] == 4 and after["conversations"] == before


def test_the_chain_reaches_the_latest_version() -> None:
    assert migrate(v1_document(False))["version"] == LATEST_VERSION == 6


def test_v5_to_v6_makes_each_model_price_a_price_at_any_provider() -> None:
    doc = {"version": 5, "settings": {"prices": {"gpt-x": {"input": 2.5, "output": 10.0}}, "currency": "EUR"}}
    after = v5_to_v6(copy.deepcopy(doc))
    assert after["version"] == 6
    assert after["settings"]["prices"] == [{"provider": "", "model": "gpt-x", "input": 2.5, "output": 10.0}]
    assert document_from_json(json.dumps(doc)).settings.prices == {("", "gpt-x"): Price(2.5, 10.0)}


def test_migrating_does_not_touch_the_callers_document() -> None:
    doc = v1_document(True)
    before = copy.deepcopy(doc)
    migrate(doc)
    assert doc == before


def test_a_v1_document_loads() -> None:
    loaded = document_from_json(json.dumps(v1_document(True)))
    assert loaded.settings.mode == "token" and loaded.conversations[0].messages[0].wire == "Bonjour Lina"


@pytest.mark.parametrize("version", [0, LATEST_VERSION + 1, -3])
def test_an_unknown_version_raises_and_changes_nothing(version: int) -> None:
    doc = v1_document(True) | {"version": version}
    before = copy.deepcopy(doc)
    with pytest.raises(StateVersionError, match=str(version)):
        migrate(doc)
    assert doc == before
