"""A streaming answer's words written in batches, on a real SQLite file: the first at
once, the rest within 50 ms or before the store is next used, none lost to a failure.
Its other parts (a tool call) are held with them the same way."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from app.store import Store, StoreError
from app.store.streamed_words import HOLD_S
from routing.secrets import register_secret
from routing.transcript import Message, MessageStatus, TextPart, ToolCall, ToolResult, user_message
from tests.app.store.helpers import count

ROOT = Path(__file__).resolve().parents[3]


def _on_disk(path: Path, item_id: int) -> list[str]:
    """The answer's chunk rows, read with a connection of their own (no held words)."""
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT text FROM item_chunks WHERE item_id = ? ORDER BY id", (item_id,))
        return [row[0] for row in rows]


def _parts_on_disk(path: Path, item_id: int) -> str:
    """The answer's `parts` column, read with a connection of its own (nothing held)."""
    with sqlite3.connect(path) as db:
        return str(db.execute("SELECT parts FROM items WHERE id = ?", (item_id,)).fetchone()[0])


def _disk_refuses(path: Path, writing: str) -> None:
    """Make `writing` (a trigger's event: "INSERT ON item_chunks") fail as a full disk would."""
    with sqlite3.connect(path) as db:
        db.execute(
            f"CREATE TRIGGER refuse BEFORE {writing} "
            "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"
        )


def _disk_accepts(path: Path) -> None:
    """The disk has room again."""
    with sqlite3.connect(path) as db:
        db.execute("DROP TRIGGER refuse")


def _traced(store: Store) -> list[str]:
    """The store's statements from now on, as SQLite runs them."""
    seen: list[str] = []
    store._connection.db.set_trace_callback(seen.append)
    return seen


def test_the_first_words_are_written_at_once_and_the_rest_within_the_hold(store: Store) -> None:
    conversation = store.conversations.create()
    answer = store.begin_assistant(conversation, "m")
    store.append_text(answer.id, "one ")
    store.append_text(answer.id, "two ")
    store.append_text(answer.id, "three ")
    assert _on_disk(store.path, answer.id) == ["one "]
    assert store.holding_words
    time.sleep(HOLD_S * 1.5)
    store.append_text(answer.id, "four")  # the hold is over: everything held goes with it
    assert _on_disk(store.path, answer.id) == ["one ", "two three four"]
    assert not store.holding_words


def test_any_use_of_the_store_writes_the_held_words_first(store: Store) -> None:
    conversation = store.conversations.create()
    answer = store.begin_assistant(conversation, "m")
    for word in ("a ", "b ", "c"):
        store.append_text(answer.id, word)
    other = store.conversations.create()  # a write elsewhere
    assert _on_disk(store.path, answer.id) == ["a ", "b c"]
    store.append_text(answer.id, " d")
    assert store.conversations.get(other) is not None  # a read
    assert _on_disk(store.path, answer.id) == ["a ", "b c", " d"]
    store.append_text(answer.id, " e")
    store.finish_message(answer.id, MessageStatus.COMPLETE)
    assert count(store.path, "item_chunks") == 0
    assert store.messages(conversation)[0].text == "a b c d e"


def test_closing_the_store_writes_what_it_holds(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        conversation = store.conversations.create()
        answer = store.begin_assistant(conversation, "m")
        store.append_text(answer.id, "kept ")
        store.append_text(answer.id, "to the end")
    with Store.open(tmp_path) as store:
        assert store.messages(conversation)[0].text == "kept to the end"


def test_a_held_batch_is_redacted_whole(store: Store) -> None:
    secret = "sk-held-batch-0123456789abcdef"
    register_secret(secret)
    conversation = store.conversations.create()
    answer = store.begin_assistant(conversation, "m")
    store.append_text(answer.id, "start ")
    store.append_text(answer.id, secret[:12])  # split between two chunks of one batch
    store.append_text(answer.id, secret[12:])
    store.save_held_words()
    assert all(secret not in text for text in _on_disk(store.path, answer.id))
    assert secret not in store.messages(conversation)[0].text


def test_a_failed_write_keeps_the_held_words_in_order(store: Store) -> None:
    conversation = store.conversations.create()
    answer = store.begin_assistant(conversation, "m")
    store.append_text(answer.id, "first ")
    store.append_text(answer.id, "second ")
    _disk_refuses(store.path, "INSERT ON item_chunks")
    with pytest.raises(StoreError, match="disk is full"):
        store.save_held_words()
    # A read goes on without them (the window keeps drawing); the turn's next write says why.
    assert store.messages(conversation)[0].text == "first "
    with pytest.raises(StoreError, match="disk is full"):
        store.conversations.create()
    store.append_text(answer.id, "third")
    _disk_accepts(store.path)
    store.save_held_words()
    assert _on_disk(store.path, answer.id) == ["first ", "second third"]


def test_a_process_that_dies_loses_only_the_words_still_held(tmp_path: Path) -> None:
    child = textwrap.dedent(
        """
        import os, sys
        from pathlib import Path
        from app.store import Store
        from routing.transcript import user_message
        store = Store.open(Path(sys.argv[1]))
        conversation = store.conversations.create()
        store.add_message(conversation, user_message("Tell me"))
        item = store.begin_assistant(conversation, "m")
        for chunk in ("A cat ", "on a ", "mat"):
            store.append_text(item.id, chunk)
        print(conversation, flush=True)
        os._exit(0)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", child, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    with Store.open(tmp_path) as store:
        question, answer = store.messages(done.stdout.strip())
    assert question == user_message("Tell me")  # what the person wrote: always whole
    assert (answer.text, answer.status) == ("A cat ", MessageStatus.INTERRUPTED)


def test_a_read_inside_a_transaction_leaves_the_held_words_for_later(store: Store) -> None:
    conversation = store.conversations.create()
    answer = store.begin_assistant(conversation, "m")
    connection = store._connection
    with connection.write():  # no second transaction can begin within this one
        store.append_text(answer.id, "one ")
        store.append_text(answer.id, "two")
        with connection.read() as db:
            db.execute("SELECT 1").fetchone()
        assert store.holding_words
    assert store.messages(conversation)[0].text == "one two"


def test_a_store_closed_twice_is_closed(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    answer = store.begin_assistant(store.conversations.create(), "m")
    store.append_text(answer.id, "a ")
    store.append_text(answer.id, "b")
    store.close()
    store.close()
    with Store.open(tmp_path) as again:
        assert again.messages(answer.conversation_id)[0].text == "a b"


def test_a_tool_call_is_held_with_the_words_and_written_with_its_result(store: Store) -> None:
    conversation = store.conversations.create()
    answer = store.begin_assistant(conversation, "m", "Looking ")
    call = ToolCall("t-1", "Screenshot", {"where": "screen"})
    seen = _traced(store)
    store.append_text(answer.id, "now")
    store.add_part(answer.id, call)
    assert seen == [] and store.holding_words  # nothing written yet
    assert _parts_on_disk(store.path, answer.id) == "[]"
    result = ToolResult("t-1", "Screenshot", (TextPart("Here it is."),))
    with store.together():  # how a result arrives: the answer ends, the result follows
        store.finish_message(answer.id, MessageStatus.COMPLETE)
        store.add_message(conversation, Message("tool", (result,)))
    assert seen.count("COMMIT") == 1  # the words, the call, the end and the result
    assert '"tool_call"' in _parts_on_disk(store.path, answer.id)
    said, told = store.messages(conversation)
    assert (said.text, said.tool_calls, told.parts) == ("Looking now", (call,), (result,))


def test_a_held_part_is_written_when_the_stream_pauses_or_the_store_is_read(store: Store) -> None:
    conversation = store.conversations.create()
    answer = store.begin_assistant(conversation, "m", "a ")
    store.add_part(answer.id, ToolCall("t-1", "one"))
    assert _parts_on_disk(store.path, answer.id) == "[]"
    store.save_held_words()  # the pause's timer
    assert '"one"' in _parts_on_disk(store.path, answer.id)
    store.add_part(answer.id, ToolCall("t-2", "two"))
    assert '"two"' not in _parts_on_disk(store.path, answer.id)
    assert store.messages(conversation)[0].tool_calls == (
        ToolCall("t-1", "one"),
        ToolCall("t-2", "two"),
    )
    assert '"two"' in _parts_on_disk(store.path, answer.id)  # the read wrote it first


def test_a_part_is_written_at_once_when_no_words_were_written_within_the_hold(store: Store) -> None:
    conversation = store.conversations.create()
    answer = store.begin_assistant(conversation, "m")  # a call before any word
    store.add_part(answer.id, ToolCall("t-1", "first"))
    assert '"first"' in _parts_on_disk(store.path, answer.id)
    assert not store.holding_words


def test_a_part_added_inside_a_transaction_is_written_in_it(store: Store) -> None:
    conversation = store.conversations.create()
    answer = store.begin_assistant(conversation, "m", "a ")
    with store.together():
        store.add_part(answer.id, ToolCall("t-1", "inside"))
        store.finish_message(answer.id, MessageStatus.COMPLETE)  # its end in the same one
    assert not store.holding_words
    assert store.messages(conversation)[0].tool_calls == (ToolCall("t-1", "inside"),)


def test_a_failed_write_keeps_a_held_part_once_and_in_order(store: Store) -> None:
    conversation = store.conversations.create()
    answer = store.begin_assistant(conversation, "m", "a ")
    store.add_part(answer.id, ToolCall("t-1", "first"))
    _disk_refuses(store.path, "UPDATE OF parts ON items")
    with pytest.raises(StoreError, match="disk is full"):
        store.save_held_words()
    assert store.holding_words
    store.add_part(answer.id, ToolCall("t-2", "second"))
    _disk_accepts(store.path)
    store.finish_message(answer.id, MessageStatus.COMPLETE)
    assert store.messages(conversation)[0].tool_calls == (
        ToolCall("t-1", "first"),
        ToolCall("t-2", "second"),
    )
