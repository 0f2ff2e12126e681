"""Property: two devices that edited the same records offline, in any interleaving of edits and
one-way pulls, hold identical state once they exchanged everything, and the same state whichever
pulled first. Replication is modelled as CouchDB's revision tree: deterministic revision ids,
a deterministic winning leaf, a conflict resolved by writing the merge as a child of the winner
and closing the losing leaf (docs/sync.md, "Conflicts")."""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass, field
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from openmasq.sync import canonical, merge_record

Value = dict[str, Any] | None
T0 = 1_750_000_000_000
NAMES = ("card:c1", "card:c2", "memory", "conversation:v1")


@dataclass
class Node:
    parent: str | None
    value: Value
    closed: bool = False  # a losing leaf closed by a conflict resolution (CouchDB's _deleted)
    depth: int = 1


@dataclass
class Tree:
    nodes: dict[str, Node] = field(default_factory=dict)

    def add(self, parent: str | None, value: Value, closed: bool = False) -> str:
        rev = hashlib.sha256(f"{parent}|{canonical(value)}|{closed}".encode()).hexdigest()[:16]
        depth = self.nodes[parent].depth + 1 if parent else 1
        self.nodes.setdefault(rev, Node(parent, copy.deepcopy(value), closed, depth))
        return rev

    def open_leaves(self) -> list[str]:
        parents = {n.parent for n in self.nodes.values()}
        return [r for r, n in self.nodes.items() if r not in parents and not n.closed]

    def winner(self) -> str | None:
        leaves = self.open_leaves()
        return max(leaves, key=lambda r: (self.nodes[r].depth, r)) if leaves else None

    def path(self, rev: str) -> list[str]:
        out: list[str] = []
        current: str | None = rev
        while current is not None:
            out.append(current)
            current = self.nodes[current].parent
        return out

    def base(self, one: str, other: str) -> Value:
        ancestors = set(self.path(one))
        common = next((r for r in self.path(other) if r in ancestors), None)
        return copy.deepcopy(self.nodes[common].value) if common else None


@dataclass
class Device:
    # A device may hand the merge its sides the other way round (its own leaf first): the rules
    # are symmetric, so the result, hence the revision id, is the same.
    swap: bool = False
    trees: dict[str, Tree] = field(default_factory=dict)

    def value(self, name: str) -> Value:
        tree = self.trees.get(name)
        winner = tree.winner() if tree else None
        return copy.deepcopy(tree.nodes[winner].value) if tree and winner else None

    def write(self, name: str, value: Value) -> None:
        tree = self.trees.setdefault(name, Tree())
        tree.add(tree.winner(), value)

    def pull(self, other: Device) -> None:
        for name, tree in other.trees.items():
            mine = self.trees.setdefault(name, Tree())
            for rev, node in tree.nodes.items():
                mine.nodes.setdefault(rev, copy.deepcopy(node))
            resolve(name, mine, self.swap)


def resolve(name: str, tree: Tree, swap: bool) -> None:
    """What the app does after a pull: merge every losing leaf into the winner, close the loser."""
    while len(leaves := tree.open_leaves()) > 1:
        winner = tree.winner()
        assert winner is not None
        loser = min(r for r in leaves if r != winner)
        sides = (tree.nodes[winner].value, tree.nodes[loser].value)
        ours, theirs = (sides[1], sides[0]) if swap else sides
        merged = merge_record(name, tree.base(winner, loser), copy.deepcopy(ours), copy.deepcopy(theirs))
        tree.add(loser, tree.nodes[loser].value, closed=True)
        if canonical(merged) != canonical(tree.nodes[winner].value):
            tree.add(winner, merged)


# --- edits --------------------------------------------------------------------------------------

ENTITIES = ("Globex", "Karl Studio", "Marie Dupont", "Initech")
TEXTS = ("Client depuis 2021.", "Paie à 30 jours.", "Basée à Lyon.", "Contact : Lucie.", "Projet Atlas.")


def empty_card(card_id: str, at: int) -> dict[str, Any]:
    return {"id": card_id, "entity": "Globex", "category": "organisation", "aliases": [], "sentences": [],
            "history": [], "status": "proposed", "scope": None, "source": "auto", "created_at": T0,
            "updated_at": at, "reviewed_at": None}


def edit_card(value: Value, card_id: str, op: int, pick: int, at: int) -> Value:
    if value is None:
        return empty_card(card_id, at) if op % 2 == 0 else None
    card = copy.deepcopy(value)
    card["updated_at"] = at
    if op == 0:
        card["entity"] = ENTITIES[pick % len(ENTITIES)]
    elif op == 1:
        card["status"] = ("proposed", "confirmed", "rejected")[pick % 3]
        card["reviewed_at"] = at
    elif op == 2:
        text = TEXTS[pick % len(TEXTS)]
        if all(s["text"] != text for s in card["sentences"]):
            card["sentences"].append({"text": text, "noted_at": at, "origin": "user"})
    elif op == 3 and card["sentences"]:
        gone = card["sentences"].pop(pick % len(card["sentences"]))
        card["history"].insert(0, {"sentence": gone, "superseded_at": at, "reason": "replaced"})
    elif op == 4:
        card["aliases"] = sorted({*card["aliases"], ENTITIES[pick % len(ENTITIES)][:4]})
    elif op == 5:
        return None  # deleted
    return card


def edit_memory(value: Value, op: int, pick: int, at: int, who: str) -> Value:
    memory = copy.deepcopy(value) or {"version": 1, "profile": "", "refusals": [],
                                      "journal": {"entries": [], "compacted": {}}, "dismissed_suggestions": []}
    memory["journal"]["entries"].append({"at": at, "action": "edit", "origin": "user", "detail": who})
    if op % 3 == 0:
        memory["profile"] = TEXTS[pick % len(TEXTS)]
    elif op % 3 == 1:
        key = ENTITIES[pick % len(ENTITIES)].lower()
        if all(r["entity_key"] != key for r in memory["refusals"]):
            memory["refusals"].append({"entity_key": key, "fact_key": None, "created_at": at, "reason": "deleted",
                                       "surfaces": [], "label": key})
    elif memory["refusals"]:
        memory["refusals"].pop(pick % len(memory["refusals"]))
    return memory


def edit_conversation(value: Value, op: int, pick: int, at: int, who: str) -> Value:
    conv = copy.deepcopy(value) or {"id": "v1", "title": "", "created_at": T0, "updated_at": T0,
                                    "vault": {"version": 1, "key": "ab" * 16, "mode": "fake", "entries": [],
                                              "words": {}, "org_cores": {}, "counters": {}}, "messages": []}
    conv["updated_at"] = at
    if op % 3 == 0:
        conv["messages"].append({"id": f"{who}-{at}", "role": "user", "content": TEXTS[pick % len(TEXTS)], "at": at})
    elif op % 3 == 1:
        conv["title"] = ENTITIES[pick % len(ENTITIES)]
    else:
        conv["vault"]["entries"].append([f"Fake{pick}", ENTITIES[pick % len(ENTITIES)], "org", False])
    return conv


def edit(device: Device, name: str, op: int, pick: int, at: int, who: str) -> None:
    value = device.value(name)
    if name.startswith("card:"):
        device.write(name, edit_card(value, name.split(":")[1], op, pick, at))
    elif name == "memory":
        device.write(name, edit_memory(value, op, pick, at, who))
    else:
        device.write(name, edit_conversation(value, op, pick, at, who))


STEP = st.tuples(st.sampled_from(("edit-a", "edit-b", "a-pulls", "b-pulls")), st.sampled_from(NAMES),
                 st.integers(0, 5), st.integers(0, 9))


def exchange_everything(first: Device, second: Device) -> None:
    for _ in range(4):
        first.pull(second)
        second.pull(first)


def state(device: Device) -> str:
    return canonical({name: device.value(name) for name in sorted(device.trees)})


def play(steps: list[tuple[str, str, int, int]]) -> tuple[Device, Device]:
    a, b = Device(), Device(swap=True)
    for name in NAMES:  # the devices start from one shared state
        edit(a, name, 0, 0, T0, "a")
    b.pull(a)
    for index, (action, name, op, pick) in enumerate(steps):
        at = T0 + 10 * (index + 1)
        if action == "edit-a":
            edit(a, name, op, pick, at, "a")
        elif action == "edit-b":
            edit(b, name, op, pick, at, "b")
        elif action == "a-pulls":
            a.pull(b)
        else:
            b.pull(a)
    return a, b


@settings(max_examples=150, deadline=None)
@given(st.lists(STEP, min_size=1, max_size=30))
def test_two_devices_that_exchanged_everything_hold_the_same_state_whichever_pulls_first(
    steps: list[tuple[str, str, int, int]],
) -> None:
    a, b = play(steps)
    a2, b2 = copy.deepcopy(a), copy.deepcopy(b)
    exchange_everything(a, b)
    exchange_everything(b2, a2)
    assert state(a) == state(b)
    assert state(a) == state(a2) == state(b2)


@settings(max_examples=60, deadline=None)
@given(st.lists(STEP, min_size=1, max_size=20))
def test_no_edit_made_on_either_device_is_lost_when_nobody_deleted_anything(
    steps: list[tuple[str, str, int, int]],
) -> None:
    steps = [s for s in steps if not (s[1].startswith("card:") and s[2] in (3, 5)) and s[1] != "memory"]
    a, b = play(steps)
    exchange_everything(a, b)
    merged = state(a)
    for action, name, op, pick in steps:
        if not action.startswith("edit"):
            continue
        if name.startswith("card:") and op == 2:
            assert TEXTS[pick % len(TEXTS)] in merged
        if name.startswith("conversation") and op % 3 == 2:
            assert f"Fake{pick}" in merged
