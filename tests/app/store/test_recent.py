"""What a request reads of a long chat, on a real SQLite file: its first turn and its
newest turns from where they weigh enough, the messages between counted and never read;
a lighter chat read whole, as the shown branch says."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from app.store import DamagedConversation, Store, StoredItem
from app.store.recent import PAGE, Recent, recent_messages
from app.store.shown_branch import ShownBranches
from routing.transcript import (
    Message,
    Notice,
    NoticeKind,
    TextPart,
    ToolCall,
    ToolResult,
    starts_turn,
    tool_pictures_text,
    user_message,
)
from tests.app.store.helpers import DAMAGE, answer, chat_of
from tests.pictures import make_picture


def _one(message: Message) -> int:
    return 1


def _read(store: Store, chat: str, enough: int) -> tuple[Recent, list[int]]:
    """What `recent_messages` gives, and the ids of every item it read."""
    loaded: list[int] = []
    with store._connection.read() as db:

        def load(ids: Sequence[int]) -> list[StoredItem]:
            loaded.extend(ids)
            return store._load(db, f"id IN ({', '.join('?' * len(ids))})", *ids)

        return recent_messages(db, ShownBranches(), load, chat, _one, enough), loaded


def test_a_long_chat_gives_its_first_turn_and_newest_turns_and_counts_the_rest(
    store: Store,
) -> None:
    chat = chat_of(store, 1_000, notes=True)
    whole = store.messages(chat)
    recent, loaded = _read(store, chat, 41)
    texts = [m.text for m in recent.messages]
    # The first turn, then the newest turns from a question on: 41 messages reached in
    # the middle of a turn, so its question is where they begin.
    assert texts[:2] == ["q0", "a0"]
    assert texts[2:] == [m.text for m in whole[-42:]] and texts[2] == "q979"
    assert recent.unread == len(whole) - len(recent.messages) == 2 * 979 - 2
    # Read: pages from the end (16 items, then 32) until enough, and the first turn alone.
    assert len(loaded) == 16 + 32 + 2 and len(set(loaded)) == len(loaded)
    assert store.recent_messages(chat, _one, 41) == recent  # the store's own, the same


def test_a_chat_lighter_than_enough_is_read_whole(store: Store) -> None:
    chat = chat_of(store, 150, notes=True)
    assert store.recent_messages(chat, _one, 301) == Recent(store.messages(chat), 0)
    # Enough only at the first turn: nothing is left between, all of it read.
    assert store.recent_messages(chat, _one, 300) == Recent(store.messages(chat), 0)
    empty = store.conversations.create()
    assert store.recent_messages(empty, _one, 10) == Recent((), 0)


def test_a_first_turn_of_many_steps_comes_whole(store: Store) -> None:
    chat = store.conversations.create()
    store.add_message(chat, user_message("run the tools"))
    for n in range(PAGE + 20):  # one agent turn, longer than a page
        call = ToolCall(f"c{n}", "shell", {})
        store.add_message(chat, Message("assistant", (call,), model="ollama:m"))
        store.add_message(chat, Message("tool", (ToolResult(f"c{n}", "shell", (TextPart("ok"),)),)))
        if n == 3:  # a step's pictures: a message of the person's role, inside the turn
            shown = tool_pictures_text([(ToolResult(f"c{n}", "shell"), make_picture("red"))])
            store.add_message(chat, user_message(shown, (make_picture("red"),)))
    for n in range(300):
        store.add_message(chat, user_message(f"q{n}"))
        store.add_message(chat, answer(f"a{n}"))
    recent = store.recent_messages(chat, _one, 10)
    first = 1 + 2 * (PAGE + 20) + 1
    assert recent.messages[:first] == store.messages(chat)[:first]
    assert [m.text for m in recent.messages[first:]] == [
        t for n in range(295, 300) for t in (f"q{n}", f"a{n}")
    ]
    assert recent.unread == 2 * 295
    assert sum(starts_turn(m) for m in recent.messages) == 6


def test_only_the_branch_shown_is_read(store: Store) -> None:
    chat = chat_of(store, 400, notes=True)
    question = store.items(chat, newest=3)[0]  # then its answer, a notice
    assert question.item.text == "q399"
    # The newest answer regenerated, and an old question edited and asked again: each new
    # version is shown, the one it replaces neither read nor counted.
    store.branches.rewind(chat, question.id)
    store.add_message(chat, answer("a399, again"))
    recent = store.recent_messages(chat, _one, 5)
    assert [m.text for m in recent.messages] == [
        "q0",
        "a0",
        "q397",
        "a397",
        "q398",
        "a398",
        "q399",
        "a399, again",
    ]
    assert recent.unread == len(store.messages(chat)) - 8
    assert "a399" not in [m.text for m in store.messages(chat)]


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_chat_says_where_it_breaks(tmp_path: Path, kind: str) -> None:
    """The walk up from the leaf meets the damage and names it, never walking for ever."""
    damage, words = DAMAGE[kind]
    with Store.open(tmp_path / "data") as store:
        chat, sound = chat_of(store, 30, notes=True), chat_of(store, 30, notes=True)
        ids = [s.id for s in store.every_item(chat)][-4:]
        a, b, c, d = ids
        with store._connection.write() as db:
            db.execute(damage.format(a=a, b=b, c=c, d=d))
        with pytest.raises(DamagedConversation) as caught:
            store.recent_messages(chat, _one, 5)
        assert caught.value.conversation_id == chat
        what = caught.value.what
        if kind == "missing":
            assert what == words.format(c=c)
        else:
            assert what.endswith("again, in a loop") and str(d) in what
        assert store.recent_messages(sound, _one, 5).messages[-1].text == "a29"


def test_a_chat_that_begins_with_a_notice_keeps_its_first_turn(store: Store) -> None:
    chat = store.conversations.create()
    store.add_notice(chat, Notice(NoticeKind.INFO, "imported"))
    store.add_message(chat, user_message("q0"))
    store.add_message(chat, answer("a0"))
    for n in range(1, 100):
        store.add_message(chat, user_message(f"q{n}"))
        store.add_message(chat, answer(f"a{n}"))
    recent = store.recent_messages(chat, _one, 4)
    texts = [m.text for m in recent.messages]
    assert texts == ["q0", "a0", "q98", "a98", "q99", "a99"]  # the notice is no message
    assert recent.unread == 2 * 97


def test_a_row_without_its_role_is_read_as_no_persons_message(store: Store) -> None:
    """A damaged row (a message whose role is missing) in the unread middle changes
    nothing the send reads, and is counted as a message: the walk's facts are never NULL."""
    chat = chat_of(store, 100, notes=True)
    before = store.recent_messages(chat, _one, 5)
    middle = [s.id for s in store.every_item(chat)][100]
    with store._connection.write() as db:
        db.execute("UPDATE items SET role = NULL WHERE id = ?", (middle,))
    assert store.recent_messages(chat, _one, 5) == before
