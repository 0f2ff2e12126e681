"""Versions of a turn (issue 18, chat/branches.py): an edit or a regeneration keeps the earlier turns
as a version, switching a version switches everything after it, the tree survives its JSON form, and
only alternating, answered turns are replayed."""

from __future__ import annotations

import pytest

from openmasq.chat import branches
from openmasq.chat.conversation import Conversation, ConversationFormatError, Message, conversation_from_dict
from openmasq.chat.conversation import conversation_to_dict as to_dict
from openmasq.redact import Vault


def user(mid: str, text: str | None = None, redactions: int | None = 0, **kw: object) -> Message:
    return Message(mid, "user", f"question {mid}" if text is None else text, redactions=redactions,
                   **kw)  # type: ignore[arg-type]


def reply(mid: str, text: str | None = None, **kw: object) -> Message:
    return Message(mid, "assistant", f"answer {mid}" if text is None else text, **kw)  # type: ignore[arg-type]


def conversation(*messages: Message) -> Conversation:
    return Conversation("c", Vault.new("ab" * 32, "fake"), messages=list(messages))


def path(conv: Conversation) -> list[str]:
    return [m.id for m in conv.messages]


def edit(conv: Conversation, message_id: str, *new: Message) -> str | None:
    """What the App does for an edit or a regeneration: detach, the send appends, settle."""
    previous = branches.detach(conv, branches.index_of(conv, message_id))
    conv.messages.extend(new)
    branches.settle(conv)
    return previous


def test_editing_a_turn_keeps_the_later_turns_as_the_first_version() -> None:
    conv = conversation(user("u1"), reply("a1"), user("u2"), reply("a2"))
    edit(conv, "u2", user("u2b"), reply("a2b"))
    assert path(conv) == ["u1", "a1", "u2b", "a2b"]
    assert {m.id for m in conv.branches} == {"u2", "a2"}
    assert branches.versions(conv) == {"u2b": branches.Version(2, 2, "u2", None)}


def test_switching_a_version_switches_the_whole_branch_after_it() -> None:
    conv = conversation(user("u1"), reply("a1"), user("u2"), reply("a2"), user("u3"), reply("a3"))
    edit(conv, "u2", user("u2b"), reply("a2b"))
    assert branches.step(conv, "u2b", -1) == "u2"
    assert path(conv) == ["u1", "a1", "u2", "a2", "u3", "a3"]
    assert branches.versions(conv)["u2"] == branches.Version(1, 2, None, "u2b")
    branches.step(conv, "u2", +1)
    assert path(conv) == ["u1", "a1", "u2b", "a2b"]
    with pytest.raises(ValueError):
        branches.step(conv, "u2b", +1)


def test_a_version_inside_another_is_found_again_when_its_branch_comes_back() -> None:
    conv = conversation(user("u1"), reply("a1"), user("u2"), reply("a2"))
    edit(conv, "a2", reply("a2b"))  # a regenerated reply: versions after u2
    edit(conv, "u1", user("u1b"), reply("a1b"))  # then the first question edited
    assert path(conv) == ["u1b", "a1b"]
    branches.step(conv, "u1b", -1)
    assert path(conv) == ["u1", "a1", "u2", "a2b"]  # the reply chosen in that branch, not the first
    assert branches.versions(conv)["a2b"].number == 2


def test_three_regenerations_count_three_versions_in_the_order_made() -> None:
    conv = conversation(user("u1"), reply("a1"))
    edit(conv, "a1", reply("a1b"))
    edit(conv, "a1b", reply("a1c"))
    assert branches.versions(conv)["a1c"] == branches.Version(3, 3, "a1b", None)
    branches.choose(conv, "a1")
    assert path(conv) == ["u1", "a1"] and branches.versions(conv)["a1"].count == 3


def test_a_new_version_not_made_leaves_the_conversation_as_it_was() -> None:
    conv = conversation(user("u1"), reply("a1"), user("u2"), reply("a2"))
    previous = branches.detach(conv, 2)
    assert path(conv) == ["u1", "a1"]
    branches.settle(conv)  # a save while the send is under way: nothing is put back yet
    assert path(conv) == ["u1", "a1"]
    assert previous is not None
    branches.choose(conv, previous)  # the send was refused: the old turns come back
    branches.settle(conv)
    assert path(conv) == ["u1", "a1", "u2", "a2"] and conv.branches == [] and conv.forks == {}


def test_a_send_cut_while_making_a_version_shows_the_last_version_on_load() -> None:
    conv = conversation(user("u1"), reply("a1"))
    branches.detach(conv, 1)
    loaded = conversation_from_dict(to_dict(conv))
    branches.settle(loaded, loading=True)
    assert path(loaded) == ["u1", "a1"]


def test_a_draft_replaced_is_dropped_from_its_versions() -> None:
    conv = conversation(user("u1"), reply("a1"), user("u2"), reply("a2"))
    edit(conv, "u2", user("d", error="offline", redactions=None))
    conv.messages.pop()  # the next send replaces the draft
    conv.messages.extend([user("u2c"), reply("a2c")])
    branches.settle(conv)
    assert conv.forks["a1"].children == ["u2", "u2c"]


def test_editing_before_the_memory_watermark_moves_it_back() -> None:
    conv = conversation(user("u1"), reply("a1"), user("u2"), reply("a2"))
    conv.memory_watermark = 4
    edit(conv, "u2", user("u2b"), reply("a2b"))
    assert conv.memory_watermark == 2


def test_the_tree_survives_its_json_form() -> None:
    conv = conversation(user("u1"), reply("a1"), user("u2"), reply("a2"))
    edit(conv, "u1", user("u1b"), reply("a1b"))
    back = conversation_from_dict(to_dict(conv))
    assert back == conv
    branches.step(back, "u1b", -1)
    assert path(back) == ["u1", "a1", "u2", "a2"]


def test_a_conversation_without_versions_is_written_as_before() -> None:
    doc = to_dict(conversation(user("u1"), reply("a1")))
    assert "branches" not in doc and "forks" not in doc


@pytest.mark.parametrize("patch", [
    {"branches": [{"id": "x", "role": "user", "content": "orphan"}]},  # no parent
    {"forks": {"u1": {"children": "x"}}},
    {"forks": []},
])
def test_a_malformed_tree_is_refused(patch: dict[str, object]) -> None:
    doc = to_dict(conversation(user("u1"), reply("a1"))) | patch
    with pytest.raises(ConversationFormatError):
        conversation_from_dict(doc)


def test_turns_whose_parent_is_gone_are_dropped() -> None:
    conv = conversation(user("u1"), reply("a1"))
    conv.branches = [Message("x", "assistant", "lost", parent="nowhere")]
    branches.settle(conv)
    assert conv.branches == []


# --- what replays ---------------------------------------------------------------------------------


def roles(messages: list[Message]) -> list[str]:
    return [m.id for m in branches.replayable_turns(messages)]


def test_a_failed_turn_is_not_replayed_so_user_turns_never_follow_each_other() -> None:
    failed = reply("a1", text=" ", interrupted=True, error="network")
    assert roles([user("u1"), failed, user("u2"), reply("a2")]) == ["u2", "a2"]


def test_a_stopped_empty_reply_and_a_draft_are_not_replayed() -> None:
    stopped = reply("a1", text="", interrupted=True, error="aborted")
    draft = user("d", redactions=None, error="offline")
    assert roles([user("u1"), stopped, draft, user("u2"), reply("a2"), user("u3")]) == ["u2", "a2"]


def test_a_stopped_reply_with_text_replays_with_its_question() -> None:
    partial = reply("a1", text="Un début", interrupted=True, error="aborted")
    assert roles([user("u1"), partial, user("u2"), reply("a2")]) == ["u1", "a1", "u2", "a2"]


def test_a_reply_without_its_question_is_not_replayed() -> None:
    assert roles([user("u1", redactions=None), reply("a1"), user("u2"), reply("a2")]) == ["u2", "a2"]
