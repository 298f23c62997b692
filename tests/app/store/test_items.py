"""What is inside a conversation, on real SQLite files: messages and notices in order,
a streamed answer's deltas folded when it ends, and nothing lost when a process dies."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from app.store import Store, StoreError
from routing.answer_stats import AnswerStats
from routing.secrets import register_secret
from routing.transcript import (
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
from tests.app.store.helpers import count
from tests.pictures import make_picture

ROOT = Path(__file__).resolve().parents[3]


def test_picture_is_found_by_hash(store: Store) -> None:
    red = make_picture("red", (8, 6))
    conversation = store.conversations.create()
    store.add_message(conversation, user_message("hi", (red,)))
    found = store.picture(red.sha256)
    assert found is not None
    assert (found.data, found.mime, found.width, found.height) == (red.data, "image/png", 8, 6)
    assert store.picture("0" * 64) is None


def test_notices_keep_kind_text_and_details(store: Store) -> None:
    conversation = store.conversations.create()
    notices = [
        Notice(NoticeKind.ROUTING, "Sent to local:llava", details="text-only model skipped"),
        Notice(NoticeKind.ERROR, "The server stopped answering."),
        Notice(NoticeKind.BUDGET, "Pictures shrunk to fit", details='{"from": 4096, "to": 1024}'),
    ]
    for notice in notices:
        store.add_notice(conversation, notice)
    assert [s.item for s in store.items(conversation)] == notices
    assert store.messages(conversation) == ()


def test_items_are_ordered_by_seq_across_messages_and_notices(store: Store) -> None:
    conversation = store.conversations.create()
    other = store.conversations.create()
    store.add_message(conversation, user_message("first"))
    store.add_notice(other, Notice(NoticeKind.INFO, "elsewhere"))
    store.add_notice(conversation, Notice(NoticeKind.ROUTING, "second"))
    store.add_message(conversation, Message(role="assistant", parts=(TextPart("third"),)))
    store.add_notice(conversation, Notice(NoticeKind.INFO, "fourth"))

    items = store.items(conversation)
    assert [s.seq for s in items] == [1, 2, 3, 4]
    assert [getattr(s.item, "text", None) for s in items] == ["first", "second", "third", "fourth"]
    assert all(s.conversation_id == conversation for s in items)
    assert [m.text for m in store.messages(conversation)] == ["first", "third"]
    assert [s.seq for s in store.items(other)] == [1]
    assert store.get_item(items[1].id) == items[1]
    assert store.get_item(10_000) is None


def test_streamed_answer_is_all_there_after_reopen(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    call = ToolCall(id="c1", name="screenshot", arguments={"region": {"x": 1, "y": 2}})
    with Store.open(folder) as store:
        conversation = store.conversations.create(model="local:qwen")
        store.add_message(conversation, user_message("Describe it"))
        begun = store.begin_assistant(conversation, "local:qwen")
        assert begun.item == Message(
            role="assistant", model="local:qwen", status=MessageStatus.STREAMING
        )
        words = [f"word{i} " for i in range(200)]
        for word in words:
            store.append_text(begun.id, word)
        store.add_part(begun.id, call)
        store.add_part(begun.id, TextPart("end"))
        store.finish_message(begun.id, MessageStatus.COMPLETE)

    with Store.open(folder) as store:
        stored = store.get_item(begun.id)
    assert stored is not None
    assert stored.item == Message(
        role="assistant",
        parts=(TextPart("".join(words) + "end"), call),
        model="local:qwen",
        status=MessageStatus.COMPLETE,
    )


def test_stopped_and_failed_statuses_survive_reopen(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    with Store.open(folder) as store:
        conversation = store.conversations.create()
        stopped = store.begin_assistant(conversation, "m")
        store.finish_message(stopped.id, MessageStatus.STOPPED)
        failed = store.begin_assistant(conversation, "m")
        store.finish_message(failed.id, MessageStatus.FAILED)
    with Store.open(folder) as store:
        statuses = [m.status for m in store.messages(conversation)]
    assert statuses == [MessageStatus.STOPPED, MessageStatus.FAILED]


def test_message_left_streaming_is_interrupted_after_reopen(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    store = Store.open(folder)
    conversation = store.conversations.create()
    begun = store.begin_assistant(conversation, "m")
    store.append_text(begun.id, "half an ")
    store.append_text(begun.id, "answer")
    store.close()  # never finished

    with Store.open(folder) as reopened:
        (message,) = reopened.messages(conversation)
    assert message.status is MessageStatus.INTERRUPTED
    assert message.text == "half an answer"
    assert count(folder / Store.DB_NAME, "item_chunks") == 0  # folded into the text


def test_a_streaming_answer_reads_whole_and_its_deltas_fold_when_it_ends(store: Store) -> None:
    conversation = store.conversations.create()
    begun = store.begin_assistant(conversation, "m")
    for word in ("one ", "two ", "three"):
        store.append_text(begun.id, word)
    # While it streams, its words are rows written in batches (the first at once, the
    # rest held up to 50 ms); whoever reads sees the words so far.
    assert count(store.path, "item_chunks") == 1
    streaming = store.get_item(begun.id)
    assert count(store.path, "item_chunks") == 2
    assert streaming is not None and streaming.item == Message(
        "assistant", (TextPart("one two three"),), "m", MessageStatus.STREAMING
    )
    store.finish_message(begun.id, MessageStatus.COMPLETE)
    assert count(store.path, "item_chunks") == 0
    assert store.messages(conversation)[0].text == "one two three"
    assert store.conversations.search("three")[0].conversation.id == conversation


def test_copy_of_files_taken_while_open_recovers_everything(tmp_path: Path) -> None:
    # Copying the database, WAL and shared-memory files of a live connection is
    # what the disk holds at the moment of a crash.
    folder, copy = tmp_path / "data", tmp_path / "copy"
    store = Store.open(folder)
    conversation = store.conversations.create()
    store.add_message(conversation, user_message("question", (make_picture("red"),)))
    begun = store.begin_assistant(conversation, "m")
    store.append_text(begun.id, "partial")
    copy.mkdir()
    for name in os.listdir(folder):
        shutil.copy2(folder / name, copy / name)
    store.close()

    with Store.open(copy) as recovered:
        question, answer = recovered.messages(conversation)
    assert question.text == "question"
    assert len(question.pictures) == 1
    assert answer.text == "partial"
    assert answer.status is MessageStatus.INTERRUPTED


@pytest.mark.parametrize("death", ["os._exit(0)", "os.kill(os.getpid(), signal.SIGKILL)"])
def test_process_killed_mid_answer_loses_nothing(tmp_path: Path, death: str) -> None:
    folder = tmp_path / "data"
    child = textwrap.dedent(
        f"""
        import os, signal, sys
        from pathlib import Path
        from app.store import Store
        from routing.transcript import user_message
        store = Store.open(Path(sys.argv[1]))
        conversation = store.conversations.create()
        store.add_message(conversation, user_message("What is in the picture?"))
        item = store.begin_assistant(conversation, "local:llava")
        for chunk in ("A cat ", "on a ", "mat"):
            store.append_text(item.id, chunk)
        store.save_held_words()  # what the turn does 50 ms after the stream last paused
        print(conversation, item.id, flush=True)
        {death}
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", child, str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stderr == ""
    conversation, item_id = done.stdout.split()

    with Store.open(folder) as store:
        question, answer = store.messages(conversation)
        stored = store.get_item(int(item_id))
        summary = store.conversations.get(conversation)
    assert question.text == "What is in the picture?"
    assert answer == Message(
        role="assistant",
        parts=(TextPart("A cat on a mat"),),
        model="local:llava",
        status=MessageStatus.INTERRUPTED,
    )
    assert stored is not None and stored.item == answer
    assert summary is not None and summary.title == "What is in the picture?"


def test_writes_to_unknown_ids_raise_store_error(store: Store) -> None:
    conversation = store.conversations.create()
    notice = store.add_notice(conversation, Notice(NoticeKind.INFO, "not a message"))
    with pytest.raises(StoreError, match="no conversation 'missing'"):
        store.add_message("missing", user_message("hi"))
    with pytest.raises(StoreError, match="no conversation"):
        store.conversations.rename("missing", "x")
    with pytest.raises(StoreError, match="no message 999"):
        store.append_text(999, "x")
    with pytest.raises(StoreError, match=f"no message {notice.id}"):
        store.finish_message(notice.id, MessageStatus.COMPLETE)
    assert count(store.path, "items") == 1


# -- an answer's stats ---------------------------------------------------------------


def test_an_answers_stats_are_kept_with_it_across_a_reopen(tmp_path: Path) -> None:
    stats = AnswerStats(12, 148, first_token_seconds=0.412, streaming_seconds=4.2)
    with Store.open(tmp_path / "data") as store:
        conversation = store.conversations.create()
        store.add_message(conversation, user_message("hi"))
        measured = store.begin_assistant(conversation, "ollama:llama3.2:3b")
        store.append_text(measured.id, "Hello.")
        store.finish_message(measured.id, MessageStatus.COMPLETE, stats)
        unmeasured = store.begin_assistant(conversation, "ollama:llama3.2:3b")
        store.finish_message(unmeasured.id, MessageStatus.STOPPED)
    with Store.open(tmp_path / "data") as store:
        _user, first, second = store.messages(conversation)
    assert first.stats == stats and first.text == "Hello."
    assert second.stats is None


def test_a_whole_message_keeps_its_stats_as_an_import_adds_it(store: Store) -> None:
    conversation = store.conversations.create()
    stats = AnswerStats(output_tokens=9, first_token_seconds=1.5)
    answer = Message("assistant", (TextPart("Imported."),), model="m", stats=stats)
    stored = store.add_message(conversation, answer)
    assert isinstance(stored.item, Message) and stored.item.stats == stats
    assert store.messages(conversation)[0].stats == stats
    # Stats say how it came, not what it says: the same words are the same message.
    assert stored.item == Message("assistant", (TextPart("Imported."),), model="m")


def test_nothing_measured_is_stored_as_no_stats(tmp_path: Path) -> None:
    with Store.open(tmp_path / "data") as store:
        conversation = store.conversations.create()
        begun = store.begin_assistant(conversation, "m")
        store.finish_message(begun.id, MessageStatus.COMPLETE, AnswerStats())
    with sqlite3.connect(tmp_path / "data" / Store.DB_NAME) as db:
        assert db.execute("SELECT stats FROM items").fetchall() == [(None,)]


@pytest.mark.parametrize(
    "column",
    [
        "not json",
        "[1, 2]",
        '{"input_tokens": "12", "output_tokens": -3}',
        '{"first_token_seconds": true}',
    ],
)
def test_stats_that_cant_be_read_are_no_stats_not_a_broken_chat(
    tmp_path: Path, column: str
) -> None:
    with Store.open(tmp_path / "data") as store:
        conversation = store.conversations.create()
        begun = store.begin_assistant(conversation, "m")
        store.append_text(begun.id, "Still here.")
        store.finish_message(begun.id, MessageStatus.COMPLETE, AnswerStats(1, 2))
    with sqlite3.connect(tmp_path / "data" / Store.DB_NAME) as db:
        db.execute("UPDATE items SET stats = ?", (column,))
    with Store.open(tmp_path / "data") as store:
        [answer] = store.messages(conversation)
    assert (answer.text, answer.stats) == ("Still here.", None)


SECRET = "agent-env-token-0011223344"


@pytest.mark.parametrize("ended", ["finished", "cut off by a crash"])
def test_a_secret_streamed_in_pieces_is_stored_redacted(tmp_path: Path, ended: str) -> None:
    register_secret(SECRET)
    folder = tmp_path / "data"
    store = Store.open(folder)
    conversation = store.conversations.create()
    begun = store.begin_assistant(conversation, "m")
    # Whole in one delta, then split between three: whole only when they are joined.
    for delta in (f"first {SECRET}, then ", SECRET[:5], SECRET[5:12], f"{SECRET[12:]} end"):
        store.append_text(begun.id, delta)
    streaming = store.get_item(begun.id)  # read while it streams
    assert streaming is not None
    assert streaming.item.text == "first [redacted], then [redacted] end"
    if ended == "finished":
        store.finish_message(begun.id, MessageStatus.COMPLETE)
    store.close()
    with Store.open(folder) as reopened:  # a crash's chunks are folded on open
        (message,) = reopened.messages(conversation)
    assert message.text == "first [redacted], then [redacted] end"
    # A piece of it stays in the file's freed pages; the whole of it never was written.
    data = b"".join(p.read_bytes() for p in folder.glob(f"{Store.DB_NAME}*"))
    assert SECRET.encode() not in data


def test_the_messages_with_media_are_found_by_their_links_alone(store: Store) -> None:
    """What `would_leave` reads: the shown messages holding a picture or a PDF (a tool's
    result's too), in order; words-only items are never read, nor another branch's."""
    from tests.pdfs import text_pdf
    from vision.pdf import open_pdf

    chat = store.conversations.create()
    for n in range(50):
        store.add_message(chat, user_message(f"words {n}"))
    seen = store.add_message(chat, user_message("look", (make_picture("red"),)))
    shot = ToolResult("c1", "screenshot", (PicturePart(make_picture("blue")),))
    store.add_message(chat, Message("tool", (shot,)))
    replaced = store.add_message(chat, user_message("this one", (make_picture("green"),)))
    store.branches.rewind(chat, replaced.parent_id)  # edited and asked again: a sibling
    store.add_message(chat, user_message("read", pdfs=(open_pdf(text_pdf(["p"]), name="a.pdf"),)))
    read: list[int] = []
    load = store._load

    def counting(db: sqlite3.Connection, where: str, *params: object) -> list[Any]:
        found = load(db, where, *params)
        read.append(len(found))
        return found

    store._load = counting  # type: ignore[method-assign]
    found = store.with_media(chat)
    assert [m.text for m in found] == ["look", "", "read"]
    assert isinstance(seen.item, Message)
    assert found[0].pictures[0].sha256 == seen.item.pictures[0].sha256
    assert len(found[1].tool_results[0].pictures) == 1 and len(found[2].pdfs) == 1
    assert sum(read) == 4  # the three, and the green picture's message on the other branch
    assert store.with_media(store.conversations.create()) == []
