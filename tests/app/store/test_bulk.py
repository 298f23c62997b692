"""A whole conversation added at once (an import), in real SQLite files: every item stored as
one added at a time would be, in one transaction that a failure leaves unwritten."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.store import Store, StoreError
from app.store.bulk import NewItem
from routing.answer_stats import AnswerStats
from routing.secrets import register_secret
from routing.transcript import (
    Crossed,
    Message,
    MessageStatus,
    Notice,
    NoticeKind,
    PicturePart,
    TextPart,
    ToolCall,
    ToolResult,
    user_message,
)
from tests.app.store.helpers import count, title
from tests.pdfs import text_pdf
from tests.pictures import make_picture
from vision.pdf import open_pdf

TOKEN = "sk-bulk-0123456789abcdefghij"
RED = make_picture("red")
MEMO = open_pdf(text_pdf(["Friday"]), name="memo.pdf")


def turns() -> list[Message | Notice]:
    """A chat of every kind of item: words, a picture used twice, a PDF, a tool step,
    notices with and without a crossing, stats, and a secret where a model echoed it."""
    return [
        user_message(f"What is this? My key is {TOKEN}", (RED,), (MEMO,)),
        Notice(
            NoticeKind.DISCLOSURE,
            f"Sent to a model that sees ({TOKEN})",
            details="Why: it sees.",
            crossed=Crossed("ollama:llava:7b", "127.0.0.1:11434", "1 picture", "to see", True),
        ),
        Message(
            "assistant",
            (TextPart(f"I saw {TOKEN}. Let me look."), ToolCall("c1", "screenshot", {"n": 1})),
            "ollama:llava:7b",
            stats=AnswerStats(12, 40, first_token_seconds=0.3, streaming_seconds=1.0),
        ),
        Message("tool", (ToolResult("c1", "screenshot", (TextPart("800×600"), PicturePart(RED))),)),
        Message(
            "assistant", (TextPart("A red square."),), "ollama:llava:7b", MessageStatus.STOPPED
        ),
        Notice(NoticeKind.ERROR, "Ollama stopped."),
    ]


def test_a_conversation_added_whole_reads_back_as_one_added_item_by_item(tmp_path: Path) -> None:
    register_secret(TOKEN)
    folder = tmp_path / "data"
    with Store.open(folder) as store:
        one_by_one = store.conversations.create(model="ollama:llava:7b")
        for item in turns():
            if isinstance(item, Notice):
                store.add_notice(one_by_one, item)
            else:
                store.add_message(one_by_one, item)
        items = [NewItem(item, 100.0 + n, n - 1 if n else None) for n, item in enumerate(turns())]
        whole = store.bulk.add_conversation("", "ollama:llava:7b", items, None)
    with Store.open(folder) as store:  # as a later start reads it
        expected = [s.item for s in store.items(one_by_one)]
        added = store.items(whole)
        assert [s.item for s in added] == expected  # redacted alike, the person's words kept
        assert [s.item.stats for s in added if isinstance(s.item, Message)] == [
            s.stats for s in expected if isinstance(s, Message)
        ]
        assert [s.created_at for s in added] == [100.0 + n for n in range(len(items))]
        assert title(store, whole) == title(store, one_by_one)  # named by the first words
        assert store.conversations.list()[0].id == whole  # the most recent
    assert count(folder / Store.DB_NAME, "pictures") == 1  # once, however many use it
    assert count(folder / Store.DB_NAME, "pdfs") == 1


def test_versions_are_kept_and_the_branch_shown_is_the_one_given(tmp_path: Path) -> None:
    with Store.open(tmp_path / "data") as store:
        question = user_message("name a colour")
        red = Message("assistant", (TextPart("Red."),), "m")
        blue = Message("assistant", (TextPart("Blue."),), "m")
        items = [NewItem(question, 1.0), NewItem(red, 2.0, 0), NewItem(blue, 3.0, 0)]
        chat = store.bulk.add_conversation("Colours", "m", items, leaf=1)
        shown = store.items(chat)
        assert [s.item.text for s in shown] == ["name a colour", "Red."]
        assert len(shown[1].versions) == 2
        store.branches.show_version(shown[1].versions[1])
        assert [s.item.text for s in store.items(chat)] == ["name a colour", "Blue."]
        assert title(store, chat) == "Colours"


def test_new_ids_never_reuse_those_of_items_deleted_before(tmp_path: Path) -> None:
    with Store.open(tmp_path / "data") as store:
        old = store.conversations.create()
        used = [store.add_message(old, user_message(f"m{n}")).id for n in range(3)]
        store.conversations.delete(old)  # its items gone; their ids stay used
        chat = store.bulk.add_conversation("", "", [NewItem(user_message("new"), 1.0)], None)
        (added,) = store.items(chat)
        assert added.id > max(used)
        store.add_message(chat, user_message("after"))  # the next one follows it
        assert [s.item.text for s in store.items(chat)] == ["new", "after"]


def test_an_item_that_follows_one_not_before_it_is_refused_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    with Store.open(tmp_path / "data") as store:
        for parent in (1, 2, -1):  # itself, one after it, one that isn't there
            items = [NewItem(user_message("a"), 1.0), NewItem(user_message("b"), 2.0, parent)]
            with pytest.raises(ValueError, match="not before it"):
                store.bulk.add_conversation("", "", items, None)
        with pytest.raises(ValueError, match="not one of the 1"):
            store.bulk.add_conversation("", "", [NewItem(user_message("a"), 1.0)], 1)
        assert store.conversations.list() == []


def test_a_failure_half_way_through_the_write_leaves_no_conversation(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    items = [
        NewItem(user_message(f"m{n}", (RED,)), float(n), n - 1 if n else None) for n in range(1000)
    ]
    with Store.open(folder) as store:
        kept = store.conversations.create("kept")
        # A real failure inside SQLite at the 500th row, as a full disk would be.
        store._connection.db.execute(
            "CREATE TEMP TRIGGER fail AFTER INSERT ON items WHEN NEW.seq = 500 "
            "BEGIN SELECT RAISE(ABORT, 'disk full, say'); END"
        )
        with pytest.raises(StoreError, match="disk full, say"):
            store.bulk.add_conversation("", "", items, None)
        assert [c.id for c in store.conversations.list()] == [kept]
    assert count(folder / Store.DB_NAME, "items") == 0
    assert count(folder / Store.DB_NAME, "pictures") == 0
    with sqlite3.connect(folder / Store.DB_NAME) as db:
        assert db.execute("SELECT COUNT(*) FROM conversations").fetchone() == (1,)
