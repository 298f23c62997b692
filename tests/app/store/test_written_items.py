"""An item added is given back as it was written, not read back: the same as a later read
of it gives (redacted, its pictures and PDFs, its versions), on a real SQLite file; and
what is written together is one transaction."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from app.store import Store, StoreError
from routing.secrets import register_secret
from routing.transcript import (
    CarriedPart,
    Crossed,
    Message,
    MessageStatus,
    Notice,
    NoticeKind,
    PdfPart,
    PicturePart,
    TextPart,
    ToolCall,
    ToolResult,
    user_message,
)
from tests.pdfs import text_pdf
from tests.pictures import make_picture
from vision.pdf import open_pdf


@contextmanager
def statements(store: Store) -> Iterator[list[str]]:
    """The SQL the store runs inside the block, as SQLite traces it."""
    seen: list[str] = []
    db = store._connection.db
    db.set_trace_callback(seen.append)
    try:
        yield seen
    finally:
        db.set_trace_callback(None)


def _on_disk(path: Path, item_id: int) -> list[str]:
    """The answer's chunk rows, read with a connection of their own (no held words)."""
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT text FROM item_chunks WHERE item_id = ? ORDER BY id", (item_id,))
        return [row[0] for row in rows]


def test_each_added_item_is_what_a_later_read_gives(store: Store) -> None:
    secret = "sk-written-item-0123456789abcdef"
    register_secret(secret)
    red = make_picture("red", (8, 6), label="red.png")
    memo = open_pdf(text_pdf(["Friday"]), name="memo.pdf")
    chat = store.conversations.create()
    added = [
        store.add_message(chat, user_message("look", (red,))),
        store.add_message(chat, Message("user", (TextPart("the memo"), PdfPart(memo)))),
        store.add_message(
            chat,
            Message(
                "assistant",
                (
                    TextPart(f"my key is {secret}"),
                    ToolCall("t-1", "shot", {"token": secret}),
                    CarriedPart("acp", "fake", {"session": "s-1"}),
                ),
                model="fake",
            ),
        ),
        store.add_message(
            chat,
            Message("tool", (ToolResult("t-1", "shot", (TextPart(secret), PicturePart(red))),)),
        ),
        store.add_notice(
            chat,
            Notice(
                NoticeKind.ROUTING,
                f"sent {secret}",
                details="why",
                crossed=Crossed("m:x", "host", "1 picture", "asked", local=False),
            ),
        ),
        store.begin_assistant(chat, "fake"),
    ]
    assert added == [store.get_item(item.id) for item in added]
    assert all(secret not in repr(item) for item in added[2:])


def test_a_new_version_is_given_with_its_versions(store: Store) -> None:
    chat = store.conversations.create()
    asked = store.add_message(chat, user_message("name a colour"))
    first = store.add_message(chat, Message("assistant", (TextPart("red"),)))
    store.branches.rewind(chat, asked.id)
    second = store.add_message(chat, Message("assistant", (TextPart("blue"),)))
    assert first.versions == ()
    assert second.versions == (first.id, second.id)
    assert second == store.items(chat)[1]  # as the chat shows it


def test_adding_an_item_reads_nothing_of_it_back(store: Store) -> None:
    chat = store.conversations.create()
    red = make_picture("red", (8, 6))
    with statements(store) as seen:
        store.add_message(chat, Message("tool", (ToolResult("t-1", "shot", (PicturePart(red),)),)))
    assert not any("FROM pictures" in sql or sql.startswith("SELECT id, ") for sql in seen)
    assert seen.count("COMMIT") == 1


def test_an_answer_begun_with_its_first_words_is_one_commit(store: Store) -> None:
    chat = store.conversations.create()
    with statements(store) as seen:
        answer = store.begin_assistant(chat, "m", "Hello")
        store.append_text(answer.id, " there")
    assert seen.count("COMMIT") == 1
    assert answer.item == Message("assistant", model="m", status=MessageStatus.STREAMING)
    assert _on_disk(store.path, answer.id) == ["Hello"]  # at once, as a first chunk is
    assert store.holding_words  # the next within the hold
    store.finish_message(answer.id, MessageStatus.COMPLETE)
    assert store.messages(chat)[0].text == "Hello there"


def test_held_words_go_with_the_next_write_in_its_commit(store: Store) -> None:
    chat = store.conversations.create()
    answer = store.begin_assistant(chat, "m", "one ")
    store.append_text(answer.id, "two ")
    with statements(store) as seen:
        store.add_part(answer.id, ToolCall("t-1", "shot", {}))  # held with the words
        other = store.conversations.create()  # the next write
    assert seen.count("COMMIT") == 1
    assert _on_disk(store.path, answer.id) == ["one ", "two "]
    assert store.conversations.get(other) is not None
    with statements(store) as seen:
        store.append_text(answer.id, "three")
        store.finish_message(answer.id, MessageStatus.COMPLETE)
    assert seen.count("COMMIT") == 1
    assert store.messages(chat)[0].text == "one two three"


def test_writes_together_are_one_commit_or_none(store: Store) -> None:
    chat = store.conversations.create()
    answer = store.begin_assistant(chat, "m", "kept ")
    store.append_text(answer.id, "held")
    with statements(store) as seen, store.together():
        store.finish_message(answer.id, MessageStatus.COMPLETE)
        store.add_message(chat, Message("tool", (ToolResult("t-1", "shot"),)))
    assert seen.count("COMMIT") == 1
    assert [m.role for m in store.messages(chat)] == ["assistant", "tool"]
    again = store.begin_assistant(chat, "m", "first ")
    store.append_text(again.id, "second")
    with pytest.raises(StoreError, match="no conversation"), store.together():
        store.add_message(chat, user_message("lost with the rest"))
        store.add_notice("nowhere", Notice(NoticeKind.INFO, "no such chat"))
    assert [m.role for m in store.messages(chat)] == ["assistant", "tool", "assistant"]
    assert store.messages(chat)[-1].text == "first second"  # held again, then written
