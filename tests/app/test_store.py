"""The store on real SQLite files: round-trips, streaming, crashes, pictures, migrations."""

from __future__ import annotations

import io
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PIL import Image

from app import store as store_module
from app.store import SCHEMA_VERSION, Store, StoreError
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
from vision.pictures import Picture, sniff

ROOT = Path(__file__).resolve().parents[2]


def make_picture(color: str, size: tuple[int, int] = (8, 6), fmt: str = "PNG") -> Picture:
    """A small real picture made with Pillow."""
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format=fmt)
    return sniff(buffer.getvalue(), label=f"{color}.{fmt.lower()}")


def title(store: Store, conversation_id: str) -> str:
    """A conversation's title; the conversation must exist."""
    summary = store.get_conversation(conversation_id)
    assert summary is not None
    return summary.title


def count(path: Path, table: str) -> int:
    """Rows in a table, read with a separate connection."""
    with sqlite3.connect(path) as db:
        return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


# -- round-trips -------------------------------------------------------------------


def test_every_part_type_round_trips_through_a_reopen(tmp_path: Path) -> None:
    red, blue = make_picture("red"), make_picture("blue", (3, 4), "JPEG")
    call = ToolCall(
        id="call_1",
        name="search",
        arguments={"query": "cats", "filters": {"max": 3, "tags": ["a", "b"], "on": True}},
    )
    result = ToolResult(
        call_id="call_1",
        name="search",
        parts=(TextPart("found:"), PicturePart(blue), TextPart("and more")),
        is_error=True,
    )
    messages = [
        Message(role="system", parts=(TextPart("Be brief."),)),
        user_message("Look at this", (red,)),
        Message(role="assistant", parts=(TextPart("Let me search."), call), model="m:1"),
        Message(role="tool", parts=(result,)),
        Message(role="assistant", parts=(TextPart("Done ✓ — naïve café"),), model="m:1"),
    ]
    folder = tmp_path / "data"
    with Store.open(folder) as store:
        conversation = store.create_conversation()
        returned = [store.add_message(conversation, m) for m in messages]
    assert [r.item for r in returned] == messages

    with Store.open(folder) as store:
        assert store.messages(conversation) == tuple(messages)
        loaded = store.messages(conversation)
    assert loaded[1].pictures[0].data == red.data
    assert loaded[3].tool_results[0].pictures == (blue,)
    assert loaded[3].tool_results[0].is_error is True
    assert loaded[2].tool_calls[0].arguments["filters"]["tags"] == ["a", "b"]


def test_text_comes_first_then_the_other_parts_in_order(store: Store) -> None:
    red, green = make_picture("red"), make_picture("green")
    conversation = store.create_conversation()
    stored = store.add_message(
        conversation,
        Message(
            role="user",
            parts=(PicturePart(red), TextPart("one "), PicturePart(green), TextPart("two")),
        ),
    )
    assert isinstance(stored.item, Message)
    assert stored.item.parts == (TextPart("one two"), PicturePart(red), PicturePart(green))


def test_picture_is_found_by_hash(store: Store) -> None:
    red = make_picture("red")
    conversation = store.create_conversation()
    store.add_message(conversation, user_message("hi", (red,)))
    found = store.picture(red.sha256)
    assert found is not None
    assert (found.data, found.mime, found.width, found.height) == (
        red.data,
        "image/png",
        8,
        6,
    )
    assert store.picture("0" * 64) is None


def test_notices_keep_kind_text_and_details(store: Store) -> None:
    conversation = store.create_conversation()
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
    conversation = store.create_conversation()
    other = store.create_conversation()
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


# -- streaming and crashes -----------------------------------------------------------


def test_streamed_answer_is_all_there_after_reopen(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    call = ToolCall(id="c1", name="screenshot", arguments={"region": {"x": 1, "y": 2}})
    with Store.open(folder) as store:
        conversation = store.create_conversation(model="local:qwen")
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
        conversation = store.create_conversation()
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
    conversation = store.create_conversation()
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
    conversation = store.create_conversation()
    begun = store.begin_assistant(conversation, "m")
    for word in ("one ", "two ", "three"):
        store.append_text(begun.id, word)
    # While it streams, each delta is its own row; whoever reads sees the words so far.
    assert count(store.path, "item_chunks") == 3
    streaming = store.get_item(begun.id)
    assert streaming is not None and streaming.item == Message(
        "assistant", (TextPart("one two three"),), "m", MessageStatus.STREAMING
    )
    store.finish_message(begun.id, MessageStatus.COMPLETE)
    assert count(store.path, "item_chunks") == 0
    assert store.messages(conversation)[0].text == "one two three"
    assert store.search("three")[0].conversation.id == conversation


def test_copy_of_files_taken_while_open_recovers_everything(tmp_path: Path) -> None:
    # Copying the database, WAL and shared-memory files of a live connection is
    # what the disk holds at the moment of a crash.
    folder, copy = tmp_path / "data", tmp_path / "copy"
    store = Store.open(folder)
    conversation = store.create_conversation()
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
        conversation = store.create_conversation()
        store.add_message(conversation, user_message("What is in the picture?"))
        item = store.begin_assistant(conversation, "local:llava")
        for chunk in ("A cat ", "on a ", "mat"):
            store.append_text(item.id, chunk)
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
        summary = store.get_conversation(conversation)
    assert question.text == "What is in the picture?"
    assert answer == Message(
        role="assistant",
        parts=(TextPart("A cat on a mat"),),
        model="local:llava",
        status=MessageStatus.INTERRUPTED,
    )
    assert stored is not None and stored.item == answer
    assert summary is not None and summary.title == "What is in the picture?"


# -- pictures --------------------------------------------------------------------------


def test_picture_used_twice_is_stored_once(store: Store) -> None:
    red = make_picture("red")
    first, second = store.create_conversation(), store.create_conversation()
    store.add_message(first, user_message("one", (red,)))
    store.add_message(second, user_message("two", (red, red)))
    store.add_message(
        second,
        Message(role="tool", parts=(ToolResult("c", "shot", parts=(PicturePart(red),)),)),
    )
    assert count(store.path, "pictures") == 1
    assert store.messages(second)[0].pictures == (red, red)


def test_delete_removes_items_and_only_orphaned_pictures(store: Store) -> None:
    shared, own, in_result = make_picture("red"), make_picture("green"), make_picture("blue")
    keep, doomed = store.create_conversation(), store.create_conversation()
    store.add_message(keep, user_message("keep", (shared,)))
    store.add_message(doomed, user_message("doomed", (shared, own)))
    streaming = store.begin_assistant(doomed, "m")
    store.add_part(
        streaming.id, ToolResult("c", "shot", parts=(TextPart("x"), PicturePart(in_result)))
    )
    store.add_notice(doomed, Notice(NoticeKind.INFO, "bye"))
    assert count(store.path, "pictures") == 3

    store.delete_conversation(doomed)

    assert store.get_conversation(doomed) is None
    assert store.items(doomed) == []
    assert store.get_item(streaming.id) is None
    assert store.picture(shared.sha256) is not None
    assert store.picture(own.sha256) is None
    assert store.picture(in_result.sha256) is None
    assert count(store.path, "items") == 1
    assert count(store.path, "item_pictures") == 1
    assert store.messages(keep)[0].pictures == (shared,)
    store.delete_conversation(doomed)  # deleting again is harmless


# -- conversations -----------------------------------------------------------------------


def test_conversations_list_most_recently_updated_first(store: Store) -> None:
    a = store.create_conversation("a")
    b = store.create_conversation("b")
    c = store.create_conversation("c")
    assert [s.id for s in store.list_conversations()] == [c, b, a]

    store.add_notice(a, Notice(NoticeKind.INFO, "touch a"))
    assert [s.id for s in store.list_conversations()] == [a, c, b]

    store.rename_conversation(b, "bee")
    assert [s.id for s in store.list_conversations()] == [b, a, c]

    item = store.begin_assistant(c, "m")
    assert store.list_conversations()[0].id == c
    for write in (
        lambda: store.append_text(item.id, "x"),
        lambda: store.add_part(item.id, ToolCall("1", "t")),
        lambda: store.finish_message(item.id, MessageStatus.COMPLETE),
        lambda: store.set_conversation_model(c, "other"),
    ):
        store.add_notice(a, Notice(NoticeKind.INFO, "a again"))
        before = store.get_conversation(c)
        write()
        after = store.get_conversation(c)
        assert before is not None and after is not None
        assert after.updated_at > before.updated_at
        assert store.list_conversations()[0].id == c


def test_conversation_summary_fields(store: Store) -> None:
    conversation = store.create_conversation("Trip", "local:llava")
    store.set_conversation_model(conversation, "cloud:gpt")
    summary = store.get_conversation(conversation)
    assert summary is not None
    assert (summary.id, summary.title, summary.model) == (conversation, "Trip", "cloud:gpt")
    assert len(conversation) == 32 and int(conversation, 16) >= 0
    assert summary.created_at <= summary.updated_at
    assert store.get_conversation("nope") is None


def test_first_user_message_titles_an_untitled_conversation(store: Store) -> None:
    conversation = store.create_conversation()
    store.add_message(conversation, Message(role="system", parts=(TextPart("System rules"),)))
    assert title(store, conversation) == ""
    long_line = "Please compare these two screenshots of the settings dialog carefully"
    store.add_message(conversation, user_message(f"\n  {long_line}\nsecond line"))
    made = title(store, conversation)
    assert made == "Please compare these two screenshots of the settings dialog…"
    assert len(made) <= 61
    store.add_message(conversation, user_message("Something else"))
    assert title(store, conversation) == made


def test_titles_are_kept_and_long_words_are_cut(store: Store) -> None:
    named = store.create_conversation("My title")
    store.add_message(named, user_message("hello"))
    assert title(store, named) == "My title"

    unbroken = store.create_conversation()
    store.add_message(unbroken, user_message("x" * 100))
    assert title(store, unbroken) == "x" * 60 + "…"


def test_writes_to_unknown_ids_raise_store_error(store: Store) -> None:
    conversation = store.create_conversation()
    notice = store.add_notice(conversation, Notice(NoticeKind.INFO, "not a message"))
    with pytest.raises(StoreError, match="no conversation 'missing'"):
        store.add_message("missing", user_message("hi"))
    with pytest.raises(StoreError, match="no conversation"):
        store.rename_conversation("missing", "x")
    with pytest.raises(StoreError, match="no message 999"):
        store.append_text(999, "x")
    with pytest.raises(StoreError, match=f"no message {notice.id}"):
        store.finish_message(notice.id, MessageStatus.COMPLETE)
    assert count(store.path, "items") == 1


# -- opening and migrations --------------------------------------------------------------


def test_open_sets_wal_and_current_schema_version(tmp_path: Path) -> None:
    folder = tmp_path / "a" / "b" / "data"  # parents are created
    with Store.open(folder) as store:
        assert store.path == folder / Store.DB_NAME
    with sqlite3.connect(folder / Store.DB_NAME) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert SCHEMA_VERSION == len(store_module._MIGRATIONS) >= 1


def test_hand_made_empty_database_is_migrated(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    with sqlite3.connect(folder / Store.DB_NAME) as db:
        db.execute("CREATE TABLE unrelated (x)")
        assert db.execute("PRAGMA user_version").fetchone()[0] == 0
    with Store.open(folder) as store:
        conversation = store.create_conversation()
        store.add_message(conversation, user_message("works"))
    assert count(folder / Store.DB_NAME, "items") == 1


def test_reopening_a_current_database_runs_no_step_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "data"
    with Store.open(folder) as store:
        conversation = store.create_conversation("kept")
    # A later version appends a step; it runs once on the old database, never again.
    step = "CREATE TABLE runs (n INTEGER); INSERT INTO runs VALUES (1);"
    monkeypatch.setattr(store_module, "_MIGRATIONS", [*store_module._MIGRATIONS, step])
    for _ in range(3):
        with Store.open(folder) as store:
            assert store.get_conversation(conversation) is not None
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
    monkeypatch.setattr(store_module, "_MIGRATIONS", [*store_module._MIGRATIONS, bad])
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


def test_uncreatable_folder_is_a_store_error_naming_it(tmp_path: Path) -> None:
    # A path under a regular file can't be created even by root.
    (tmp_path / "afile").write_text("not a folder")
    folder = tmp_path / "afile" / "data"
    with pytest.raises(StoreError) as caught:
        Store.open(folder)
    assert str(folder) in str(caught.value)
    assert "SIGHTLINE_DATA_DIR" in str(caught.value)


def test_folder_that_is_a_file_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("oops")
    with pytest.raises(StoreError, match=r"data folder .* is a file, not a folder"):
        Store.open(tmp_path / "data")


def test_non_database_file_is_a_store_error(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / Store.DB_NAME).write_bytes(b"This is a text file, not SQLite. " * 100)
    with pytest.raises(StoreError, match="not a Sightline database") as caught:
        Store.open(folder)
    assert str(folder / Store.DB_NAME) in str(caught.value)


def test_database_path_that_is_a_folder_is_a_store_error(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    (folder / Store.DB_NAME).mkdir(parents=True)
    with pytest.raises(StoreError, match="SIGHTLINE_DATA_DIR") as caught:
        Store.open(folder)
    assert str(folder / Store.DB_NAME) in str(caught.value)
