"""Items read again: a row of words unchanged is the item it was (`ReadRows`), a row that
changed is read anew, and rows with pictures are read each time; on a real SQLite file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.store import Store
from app.store.item_rows import ReadRows, load
from routing.answer_stats import AnswerStats
from routing.transcript import Message, MessageStatus, TextPart, user_message
from tests.pictures import make_picture


def test_a_row_of_words_read_again_is_the_item_it_was(store: Store) -> None:
    chat = store.conversations.create()
    store.add_message(chat, user_message("Hello?"))
    store.add_message(chat, Message("assistant", (TextPart("Hi."),), model="m"))
    first, second = store.items(chat), store.items(chat)
    assert first == second
    assert all(a is b for a, b in zip(first, second, strict=True))


def test_a_row_that_changed_is_read_anew(store: Store) -> None:
    chat = store.conversations.create()
    store.add_message(chat, user_message("Count to three?"))
    answer = store.begin_assistant(chat, "m", "One,")
    before = store.items(chat)[-1]
    store.append_text(answer.id, " two, three.")
    streaming = store.items(chat)[-1]  # its words so far, though its row is as it was
    assert streaming.item.text == "One, two, three."
    store.finish_message(answer.id, MessageStatus.COMPLETE, AnswerStats(output_tokens=5))
    after = store.items(chat)[-1]
    assert after is not before and after.item.text == "One, two, three."
    assert isinstance(after.item, Message) and after.item.status is MessageStatus.COMPLETE
    assert after.item.stats is not None and after.item.stats.output_tokens == 5
    store.conversations.rename(chat, "Counting")  # the chat's row, not its items': kept
    assert store.items(chat)[-1] is after


def test_rows_with_pictures_are_read_each_time(store: Store) -> None:
    chat = store.conversations.create()
    store.add_message(chat, user_message("What is this?", (make_picture("red"),)))
    first, second = store.items(chat)[0], store.items(chat)[0]
    assert first == second and first is not second
    assert isinstance(first.item, Message) and len(first.item.pictures) == 1


def test_what_is_kept_is_bounded(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ReadRows, "KEPT_BYTES", 20_000)
    chat = store.conversations.create()
    store.add_message(chat, user_message("x" * 25_000))  # more than all that is kept
    for n in range(40):
        store.add_message(chat, user_message(f"Question {n}?"))  # ~1,210 counted each
    read = ReadRows()
    with sqlite3.connect(tmp_path / "data" / Store.DB_NAME) as db:
        every = "conversation_id = ? ORDER BY seq"
        first = load(db, every, chat, read=read)
        assert 0 < read.kept_bytes <= 20_000
        second = load(db, every, chat, read=read)
        assert read.kept_bytes <= 20_000
    assert first == second == store.items(chat)
    assert first[0] is not second[0]  # too long to keep: read again, and nothing failed
