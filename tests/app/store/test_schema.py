"""The migration steps: each once, atomically, in order; a newer database refused."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from app.store import SCHEMA_VERSION, Store, StoreError, schema
from routing.answer_stats import AnswerStats
from routing.transcript import MessageStatus, user_message
from tests.app.store.helpers import count
from tests.pdfs import text_pdf
from vision.pdf import open_pdf


def test_hand_made_empty_database_is_migrated(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    with sqlite3.connect(folder / Store.DB_NAME) as db:
        db.execute("CREATE TABLE unrelated (x)")
        assert db.execute("PRAGMA user_version").fetchone()[0] == 0
    with Store.open(folder) as store:
        conversation = store.conversations.create()
        store.add_message(conversation, user_message("works"))
    assert count(folder / Store.DB_NAME, "items") == 1


def test_reopening_a_current_database_runs_no_step_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "data"
    with Store.open(folder) as store:
        conversation = store.conversations.create("kept")
    # A later version appends a step; it runs once on the old database, never again.
    step = "CREATE TABLE runs (n INTEGER); INSERT INTO runs VALUES (1);"
    monkeypatch.setattr(schema, "MIGRATIONS", [*schema.MIGRATIONS, step])
    for _ in range(3):
        with Store.open(folder) as store:
            assert store.conversations.get(conversation) is not None
    db_path = folder / Store.DB_NAME
    assert count(db_path, "runs") == 1
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1


def test_failed_step_leaves_the_database_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "data"
    Store.open(folder).close()
    bad = "CREATE TABLE half (x); INSERT INTO no_such_table VALUES (1);"
    monkeypatch.setattr(schema, "MIGRATIONS", [*schema.MIGRATIONS, bad])
    with pytest.raises(StoreError, match=f"Can't upgrade .*{Store.DB_NAME} to schema"):
        Store.open(folder)
    with sqlite3.connect(folder / Store.DB_NAME) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    assert "half" not in tables


def test_database_from_a_newer_sightline_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    Store.open(folder).close()
    with sqlite3.connect(folder / Store.DB_NAME) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer Sightline"):
        Store.open(folder)


@contextmanager
def at_schema(folder: Path, version: int) -> Iterator[sqlite3.Connection]:
    """A database in `folder` as schema `version` left it, with one empty chat `c`, for
    the test to fill before it is closed."""
    folder.mkdir()
    with sqlite3.connect(folder / Store.DB_NAME) as db:
        for number, step in enumerate(schema.MIGRATIONS[:version], start=1):
            db.executescript(step)
            db.execute(f"PRAGMA user_version = {number}")
        db.execute("INSERT INTO conversations (id, created_at, updated_at) VALUES ('c', 1, 1)")
        yield db


def test_a_database_from_before_pdfs_gains_them_and_keeps_its_chats(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    with at_schema(folder, 3) as db:
        db.execute(
            "INSERT INTO items (conversation_id, seq, created_at, kind, role, status, text) "
            "VALUES ('c', 1, 1, 'message', 'user', 'complete', 'older words')"
        )
    with Store.open(folder) as store:
        assert store.messages("c")[0].text == "older words"
        store.add_message("c", user_message("now a PDF", pdfs=(open_pdf(text_pdf(["x"])),)))
        assert store.messages("c")[1].pdfs[0].pages == 1


def test_a_database_from_before_stats_opens_and_its_answers_have_none(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    with at_schema(folder, 10) as db:
        db.execute(
            "INSERT INTO items (conversation_id, seq, created_at, kind, role, status, text) "
            "VALUES ('c', 1, 1, 'message', 'user', 'complete', 'a question'),"
            " ('c', 2, 2, 'message', 'assistant', 'complete', 'an answer from before')"
        )
        db.execute("UPDATE items SET parent_id = id - 1 WHERE id > 1")
        db.execute("UPDATE conversations SET leaf_id = 2")
    with Store.open(folder) as store:
        _question, answer = store.messages("c")
        assert (answer.text, answer.stats) == ("an answer from before", None)
        # A new answer in the old chat is measured like any other.
        begun = store.begin_assistant("c", "m")
        store.finish_message(begun.id, MessageStatus.COMPLETE, AnswerStats(3, 5))
        assert store.messages("c")[-1].stats == AnswerStats(3, 5)
    with sqlite3.connect(folder / Store.DB_NAME) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_database_from_before_the_wider_branch_index_finds_its_chats_branch(
    tmp_path: Path,
) -> None:
    """Step 18 makes the branch's index again, with kind and role: an older chat's send
    reads the same messages through it."""
    folder = tmp_path / "data"
    with at_schema(folder, 17) as db:
        db.execute(
            "INSERT INTO items (conversation_id, seq, created_at, kind, role, status, text) "
            "VALUES ('c', 1, 1, 'message', 'user', 'complete', 'a question'),"
            " ('c', 2, 2, 'message', 'assistant', 'complete', 'an answer')"
        )
        db.execute("UPDATE items SET parent_id = id - 1 WHERE id > 1")
        db.execute("UPDATE conversations SET leaf_id = 2")
    with Store.open(folder) as store:
        recent = store.recent_messages("c", lambda _message: 1, 1)
        assert [m.text for m in recent.messages] == ["a question", "an answer"]
        (made,) = store._connection.db.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'items_branch'"
        ).fetchone()
        assert made.split("(", 1)[1].startswith(
            "conversation_id, seq, id, parent_id, deleted_at, kind, role"
        )


def _stamp(store: Store, chat: str) -> int:
    (stamp,) = store._connection.db.execute(
        "SELECT branch_stamp FROM conversations WHERE id = ?", (chat,)
    ).fetchone()
    return int(stamp)


def test_a_chats_stamp_counts_its_reshaping_not_its_new_items_or_words(tmp_path: Path) -> None:
    """Step 19: a chat at schema 18 gets a stamp of 0, which a parent, the bin, a kind or a
    role changed, or an item removed, bumps (for that chat alone); new items, their words,
    parts and status don't."""
    folder = tmp_path / "data"
    with at_schema(folder, 18) as db:
        db.execute(
            "INSERT INTO items (conversation_id, seq, created_at, kind, role, status, text) "
            "VALUES ('c', 1, 1, 'message', 'user', 'complete', 'a question')"
        )
        db.execute("UPDATE conversations SET leaf_id = 1")
    with Store.open(folder) as store:
        other = store.conversations.create()
        store.add_message(other, user_message("elsewhere"))
        assert _stamp(store, "c") == 0
        begun = store.begin_assistant("c", "m")
        store.append_text(begun.id, "an answer")
        store.finish_message(begun.id, MessageStatus.COMPLETE, AnswerStats(3, 5))
        store.add_message("c", user_message("again"))
        assert _stamp(store, "c") == 0
        store.branches.delete([begun.id])
        store.branches.restore([begun.id])
        with store._connection.write() as db:
            db.execute("UPDATE items SET role = 'user' WHERE id = ?", (begun.id,))
        store.branches.delete([begun.id])
        store.branches.purge([begun.id])  # its child moves up (a parent changed), then it goes
        assert _stamp(store, "c") == 6
        assert _stamp(store, other) == 0
