"""Branches of a conversation (issue 18): editing a sent message or regenerating a reply keeps the
earlier turns as another version. Pure functions on a Conversation.

The conversation's `messages` is always the ACTIVE PATH (what the page shows, what is replayed to
the model, what the memory extractor reads). The turns of the other versions live in `branches`,
each with `parent`: the id of the message it follows ("" for the first turn). A parent with more than
one version after it has a `Fork`: its children ids in the order they were made, and the one chosen.
The active path is thus one walk of the tree; the tree itself is `messages` + `branches` + `forks`."""

from __future__ import annotations

from dataclasses import dataclass

from .conversation import Conversation, Fork, Message

ROOT = ""  # the parent of a conversation's first turn


@dataclass(frozen=True)
class Version:
    """Where a message of the active path stands among the versions made at its place."""

    number: int  # 1-based
    count: int
    previous: str | None  # the id of the version before it, None for the first
    next: str | None


def parent_at(conv: Conversation, index: int) -> str:
    """The id the message at `index` of the active path follows."""
    return conv.messages[index - 1].id if index > 0 else ROOT


def index_of(conv: Conversation, message_id: str) -> int:
    """The place of a message on the active path; ValueError when it is not on it."""
    for index, message in enumerate(conv.messages):
        if message.id == message_id:
            return index
    raise ValueError(f"message {message_id!r} is not on the active path")


def versions(conv: Conversation) -> dict[str, Version]:
    """message id -> its Version, for the messages of the active path that have siblings."""
    out: dict[str, Version] = {}
    for index, message in enumerate(conv.messages):
        fork = conv.forks.get(parent_at(conv, index))
        if fork is None or message.id not in fork.children or len(fork.children) < 2:
            continue
        at = fork.children.index(message.id)
        out[message.id] = Version(at + 1, len(fork.children), fork.children[at - 1] if at else None,
                                  fork.children[at + 1] if at + 1 < len(fork.children) else None)
    return out


def detach(conv: Conversation, index: int) -> str | None:
    """Moves the active path from `index` on into the branches, to make a new version at that place:
    the fork there keeps the detached turn as a version and chooses none until the new one is made
    (`settle` then adopts it). Returns the version that was chosen, to come back to it when no new
    version is made (`choose`). The memory watermark does not stay past the place that changes."""
    parent = parent_at(conv, index)
    tail = conv.messages[index:]
    if not tail:
        return None
    fork = conv.forks.setdefault(parent, Fork([tail[0].id], None))
    if tail[0].id not in fork.children:
        fork.children.append(tail[0].id)
    previous = tail[0].id
    fork.selected = None
    _stash(conv, tail, parent)
    del conv.messages[index:]
    conv.memory_watermark = min(conv.memory_watermark, index)
    return previous


def choose(conv: Conversation, message_id: str) -> None:
    """Makes `message_id` (a version on the path or in the branches) the active one at its place: the
    path from there on becomes that version followed by the turns that were active after it."""
    if any(m.id == message_id for m in conv.messages):
        return
    node = next((m for m in conv.branches if m.id == message_id), None)
    if node is None:
        raise ValueError(f"no version {message_id!r}")
    parent = node.parent or ROOT
    index = 0 if parent == ROOT else index_of(conv, parent) + 1
    _stash(conv, conv.messages[index:], parent)
    del conv.messages[index:]
    fork = conv.forks.get(parent)
    if fork is not None:
        fork.selected = message_id
    conv.messages.extend(_chain(conv, node))
    conv.memory_watermark = min(conv.memory_watermark, index)


def step(conv: Conversation, message_id: str, delta: int) -> str:
    """The version `delta` places before (-1) or after (+1) the message's own, made active; returns
    its id. ValueError when there is none that way."""
    found = versions(conv).get(message_id)
    target = None if found is None else (found.previous if delta < 0 else found.next)
    if target is None:
        raise ValueError("no other version that way")
    choose(conv, target)
    return target


def settle(conv: Conversation, *, loading: bool = False) -> None:
    """Keeps the tree consistent after any change of the active path: a version made at a fork is
    adopted (added to its children, chosen); children that are gone (a draft replaced) are dropped;
    forks left with one version vanish; branch turns whose parent is gone are dropped. `loading`: a
    send cut by a crash left a fork with no version chosen: the last one made is shown again."""
    known = {m.id for m in conv.messages} | {m.id for m in conv.branches}
    for fork in conv.forks.values():
        fork.children = [c for c in fork.children if c in known]
    for index, message in enumerate(conv.messages):
        at = conv.forks.get(parent_at(conv, index))
        if at is not None:
            if message.id not in at.children:
                at.children.append(message.id)
            at.selected = message.id
    end = conv.messages[-1].id if conv.messages else ROOT
    open_fork = conv.forks.get(end)
    if open_fork is not None and open_fork.children and (loading or open_fork.selected is not None):
        wanted = open_fork.selected if open_fork.selected in open_fork.children else open_fork.children[-1]
        choose(conv, wanted)
    _prune(conv)


def _prune(conv: Conversation) -> None:
    for parent in [p for p, fork in conv.forks.items() if len(fork.children) < 2 and fork.selected is not None]:
        del conv.forks[parent]
    by_parent: dict[str, list[Message]] = {}
    for message in conv.branches:
        by_parent.setdefault(message.parent or ROOT, []).append(message)
    reached: set[int] = set()
    todo = [ROOT, *(m.id for m in conv.messages)]
    while todo:
        for child in by_parent.get(todo.pop(), []):
            if id(child) not in reached:
                reached.add(id(child))
                todo.append(child.id)
    conv.branches = [m for m in conv.branches if id(m) in reached]


def _stash(conv: Conversation, tail: list[Message], parent: str) -> None:
    """The turns of `tail` (a chain following `parent`) into the branches, each knowing its parent."""
    for message in tail:
        message.parent = parent
        conv.branches.append(message)
        parent = message.id


def _chain(conv: Conversation, head: Message) -> list[Message]:
    """`head` and the turns that were active after it, taken out of the branches."""
    by_parent: dict[str, list[Message]] = {}
    for message in conv.branches:
        by_parent.setdefault(message.parent or ROOT, []).append(message)
    chain: list[Message] = []
    node: Message | None = head
    while node is not None:
        chain.append(node)
        fork = conv.forks.get(node.id)
        wanted = fork.selected if fork is not None else None
        node = next((m for m in by_parent.get(node.id, []) if wanted is None or m.id == wanted), None)
    taken = {id(m) for m in chain}
    conv.branches = [m for m in conv.branches if id(m) not in taken]
    for message in chain:
        message.parent = None
    return chain


def replayable_turns(messages: list[Message]) -> list[Message]:
    """The turns of the active path that may be replayed to the model, alternating user/assistant:
    a user turn only when its redaction completed AND a reply with text follows it (a failed,
    stopped-empty or unsent turn is never replayed, so the model never sees two user turns in a
    row); a reply only after a user turn kept. System and still-pending messages never replay."""
    candidates = [m for m in messages
                  if m.role in ("user", "assistant") and not m.pending and m.content.strip() and m.replayable]
    out: list[Message] = []
    for index, message in enumerate(candidates):
        if message.role == "user":
            following = candidates[index + 1] if index + 1 < len(candidates) else None
            if following is not None and following.role == "assistant":
                out.append(message)
        elif out and out[-1].role == "user":
            out.append(message)
    return out


def finish(conv: Conversation, parent: str, previous: str | None) -> None:
    """After a send meant to make a new version after `parent`: adopted when it was made; when it was
    not (refused, stale, unreachable), the version chosen before comes back."""
    settle(conv)
    fork = conv.forks.get(parent)
    if fork is not None and fork.selected is None and previous is not None and previous in fork.children:
        choose(conv, previous)
        settle(conv)


def drop_last(conv: Conversation) -> str | None:
    """Takes the last turn of the active path away for good (a reply that failed or stopped before any
    text: replaced, not kept as a version) while a new one is made after its parent; returns the
    version to come back to when none is made."""
    parent = parent_at(conv, len(conv.messages) - 1)
    gone = conv.messages.pop()
    fork = conv.forks.get(parent)
    if fork is None:
        return None
    fork.children = [c for c in fork.children if c != gone.id]
    fork.selected = None
    return fork.children[-1] if fork.children else None
