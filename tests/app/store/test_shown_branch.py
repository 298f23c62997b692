"""A chat's shown branch, remembered from one send to the next, on a real SQLite file: the
same as the branch read whole after whatever the person or another process does to the
chat, reading only what was made since while the chat's shape stays."""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.store import DamagedConversation, Store
from app.store.shown_branch import BRANCH_ROWS, KEPT, Branch, ShownBranches
from routing.transcript import Notice, NoticeKind, user_message
from tests.app.store.helpers import answer, chat_of


def _facts(branch: Branch) -> tuple[list[int], dict[int, tuple[int, int | None, int]], list[int]]:
    return list(branch.ids), dict(branch.rows), list(branch.messages_before)


def _whole(store: Store, chat: str) -> Branch:
    with store._connection.read() as db:
        return ShownBranches().of(db, chat)


@contextmanager
def _statements(store: Store) -> Iterator[list[str]]:
    """The SQL the store's connection runs meanwhile."""
    ran: list[str] = []
    store._connection.db.set_trace_callback(ran.append)
    try:
        yield ran
    finally:
        store._connection.db.set_trace_callback(None)


def test_the_branch_is_found_from_its_index_alone(store: Store) -> None:
    """Every item's id, parent, kind and role come from the branch's index (schema step 18),
    not from the items' rows, which hold their words."""
    chat = chat_of(store, 3)
    plan = store._connection.db.execute(f"EXPLAIN QUERY PLAN {BRANCH_ROWS}", (chat,)).fetchall()
    assert any("COVERING INDEX items_branch" in str(tuple(step)) for step in plan)


def test_a_send_reads_only_the_items_made_since_the_last(store: Store) -> None:
    chat = chat_of(store, 200)
    branches = ShownBranches()
    with store._connection.read() as db:
        first = _facts(branches.of(db, chat))
    assert first == _facts(_whole(store, chat))
    store.add_message(chat, user_message("q200"))
    store.add_message(chat, answer("a200"))
    with _statements(store) as ran, store._connection.read() as db:
        again = branches.of(db, chat)
        read = [s for s in ran if "FROM items" in s]
    assert len(read) == 1 and "AND id > " in read[0]
    assert _facts(again) == _facts(_whole(store, chat))
    assert len(again.ids) == 402 and again.messages_between(0, 402) == 402


def test_a_changed_shape_reads_the_chat_whole_again(store: Store) -> None:
    """A message put in the bin (or back, or removed for good) changes the chat's stamp."""
    chat = chat_of(store, 50)
    branches = ShownBranches()
    with store._connection.read() as db:
        branches.of(db, chat)
    middle = store.items(chat)[40].id
    for change in (store.branches.delete, store.branches.restore, store.branches.delete):
        change([middle])
        with _statements(store) as ran, store._connection.read() as db:
            now = branches.of(db, chat)
        assert any(s.endswith(f"conversation_id = '{chat}'") for s in ran)
        assert _facts(now) == _facts(_whole(store, chat))
    store.branches.purge([middle])
    with store._connection.read() as db:
        assert _facts(branches.of(db, chat)) == _facts(_whole(store, chat))
    assert middle not in _whole(store, chat).rows


def test_a_few_chats_are_remembered(store: Store) -> None:
    chats = [chat_of(store, 3) for _ in range(KEPT + 1)]
    branches = ShownBranches()
    with store._connection.read() as db:
        for chat in chats:
            branches.of(db, chat)
        with _statements(store) as ran:
            branches.of(db, chats[-1])  # remembered: nothing new to read
            branches.of(db, chats[0])  # forgotten: read whole
    assert [s for s in ran if "FROM items" in s] == [
        BRANCH_ROWS.replace("?", f"'{chats[-1]}'") + " AND id > " + str(_newest(store, chats[-1])),
        BRANCH_ROWS.replace("?", f"'{chats[0]}'"),
    ]


def _newest(store: Store, chat: str) -> int:
    return max(s.id for s in store.every_item(chat))


def test_a_chat_damaged_after_it_was_remembered_says_where_it_breaks(store: Store) -> None:
    chat = chat_of(store, 20)
    branches = ShownBranches()
    with store._connection.read() as db:
        branches.of(db, chat)
    last, before = [s.id for s in store.every_item(chat)][-1:-3:-1]
    with store._connection.write() as db:  # the person's question now follows the answer
        db.execute("UPDATE items SET parent_id = ? WHERE id = ?", (last, before))
    with pytest.raises(DamagedConversation) as caught, store._connection.read() as db:
        branches.of(db, chat)
    assert caught.value.what.endswith("again, in a loop")


def test_a_chat_that_is_gone_has_no_branch(store: Store) -> None:
    branches = ShownBranches()
    with store._connection.read() as db:
        assert _facts(branches.of(db, "no-such-chat")) == ([], {}, [0])


# What the person (or another process on the same file) may do to a chat between sends.
_STEPS = st.lists(
    st.tuples(
        st.sampled_from(
            ["ask", "answer", "notice", "bin", "restore", "purge", "rewind", "version", "other"]
        ),
        st.integers(min_value=0, max_value=10_000),
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=_STEPS)
def test_a_remembered_branch_is_the_branch_read_whole(steps: list[tuple[str, int]]) -> None:
    with tempfile.TemporaryDirectory() as folder, Store.open(Path(folder) / "data") as store:
        chat = chat_of(store, 3)
        branches = ShownBranches()
        binned: list[int] = []
        for step, pick in steps:
            every = [s.id for s in store.every_item(chat)]
            item = every[pick % len(every)] if every else None
            if step == "ask":
                store.add_message(chat, user_message(f"q{pick}"))
            elif step == "answer":
                store.add_message(chat, answer(f"a{pick}"))
            elif step == "notice":
                store.add_notice(chat, Notice(NoticeKind.INFO, f"n{pick}"))
            elif step == "bin" and item is not None:
                store.branches.delete([item])
                binned.append(item)
            elif step == "restore" and binned:
                store.branches.restore([binned.pop()])
            elif step == "purge":
                store.branches.purge()
                binned.clear()
            elif step == "rewind":
                store.branches.rewind(chat, item)
            elif step == "version" and item is not None:
                store.branches.show_version(item)
            elif step == "other":  # another process adds to the chat
                with sqlite3.connect(Path(folder) / "data" / "sightline.db") as other:
                    _add_elsewhere(other, chat)
            with store._connection.read() as db:
                remembered = _facts(branches.of(db, chat))
            assert remembered == _facts(_whole(store, chat)), step


def _add_elsewhere(db: sqlite3.Connection, chat: str) -> None:
    """A message added as another Sightline would: after the leaf, made the leaf."""
    (leaf, seq) = db.execute(
        "SELECT leaf_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM items WHERE conversation_id = ?)"
        " FROM conversations WHERE id = ?",
        (chat, chat),
    ).fetchone()
    made = db.execute(
        "INSERT INTO items (conversation_id, seq, created_at, kind, role, status, model, text,"
        " parts, parent_id) VALUES (?, ?, 0, 'message', 'user', 'complete', '', 'x', '[]', ?)",
        (chat, seq, leaf),
    ).lastrowid
    db.execute("UPDATE conversations SET leaf_id = ? WHERE id = ?", (made, chat))
