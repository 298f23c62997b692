"""Hostile exports as `sightline import` meets them: one clear line, bounded memory, nothing
written.

Each file is real, written by the test, and each run a real `sightline import` process
with its memory capped (RLIMIT_AS): a file that isn't an object, fields of the wrong
kind, an item that follows itself, a bad item at the end of a long file; an import
stopped half way (killed, or Ctrl+C) while it writes; a file that is one 200 MB message.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.export import snapshot
from app.export_json import to_json
from app.store import Store
from routing.transcript import Message, Notice, NoticeKind, TextPart, ToolCall, user_message
from tests.conftest import SightlineHome
from tests.faults.cli import NO_KEYRING, ROOT, command, one_clear_line, sightline

Change = Callable[[Any], Any]


@pytest.fixture
def kept(home: SightlineHome) -> str:
    """A conversation already in the store, which every import must leave alone."""
    with Store.open(home.data) as store:
        chat = store.conversations.create("Kept", "ollama:llama3.2:3b")
        store.add_message(chat, user_message("Is this kept?"))
        store.add_notice(chat, Notice(NoticeKind.INFO, "Answered here."))
        call = ToolCall("c1", "read_file", {"path": "notes.txt"})
        store.add_message(chat, Message("assistant", (TextPart("Let me read."), call), "m"))
        return chat


@pytest.fixture
def document(home: SightlineHome, kept: str) -> dict[str, Any]:
    """A good export, as `sightline export` writes one: a message, a notice, a tool call."""
    with Store.open(home.data) as store:
        return to_json(snapshot(store, kept))


def conversations(home: SightlineHome) -> list[str]:
    with Store.open(home.data) as store:
        return [c.id for c in store.conversations.list()]


def item_rows(home: SightlineHome) -> int:
    with sqlite3.connect(home.data / Store.DB_NAME) as db:
        return int(db.execute("SELECT COUNT(*) FROM items").fetchone()[0])


class Whole:
    """What a change gives to replace the whole file."""

    def __init__(self, value: Any) -> None:
        self.value = value


def with_change(document: dict[str, Any], change: Change) -> Any:
    copy = json.loads(json.dumps(document))
    made = change(copy)
    return made.value if isinstance(made, Whole) else copy


def _set(path: list[Any], value: Any) -> Change:
    def change(data: Any) -> None:
        at = data
        for key in path[:-1]:
            at = at[key]
        at[path[-1]] = value

    return change


HOSTILE: dict[str, tuple[Change, str]] = {
    "a list": (lambda d: Whole([]), "the top level must be an object, not a list"),
    "null": (lambda d: Whole(None), "the top level must be an object, not null"),
    "a string": (lambda d: Whole("a chat"), "the top level must be an object, not a string"),
    "text an object": (
        _set(["items", 0, "parts", 0, "text"], {"words": "hi"}),
        "items[0].parts[0].text must be a string, not an object",
    ),
    "text a number": (
        _set(["items", 0, "parts", 0, "text"], 12),
        "items[0].parts[0].text must be a string, not a number",
    ),
    "notice text an object": (
        _set(["items", 1, "text"], {"a": 1}),
        "items[1].text must be a string, not an object",
    ),
    "notice text a number": (
        _set(["items", 1, "text"], 3.5),
        "items[1].text must be a string, not a number",
    ),
    "arguments a list": (
        _set(["items", 2, "parts", 1, "arguments"], ["notes.txt"]),
        "items[2].parts[1].arguments must be an object, not a list",
    ),
    "arguments a string": (
        _set(["items", 2, "parts", 1, "arguments"], '{"path": "notes.txt"}'),
        "items[2].parts[1].arguments must be an object, not a string",
    ),
    "model an object": (
        _set(["conversation", "model"], {"id": "m"}),
        "conversation.model must be a string, not an object",
    ),
    "an item's model an object": (
        _set(["items", 2, "model"], {"id": "m"}),
        "items[2].model must be a string, not an object",
    ),
    "follows itself": (
        _set(["items", 2, "parent"], 3),
        "items[2].parent names 3, which is no item before it",
    ),
}


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_export_is_one_clear_line_and_nothing_is_written(
    home: SightlineHome, kept: str, document: dict[str, Any], tmp_path: Path, kind: str
) -> None:
    change, words = HOSTILE[kind]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(with_change(document, change)), encoding="utf-8")
    before = item_rows(home)
    done = sightline(home.env(), "import", str(path))
    assert done.returncode == 1
    assert one_clear_line(done) == f"sightline: {path} is not a Sightline export: {words}."
    assert done.stdout == ""
    assert conversations(home) == [kept] and item_rows(home) == before


def long_export(document: dict[str, Any], count: int) -> dict[str, Any]:
    """The export's first message `count` times, each following the one before."""
    first = document["items"][0]
    items = [first | {"id": n, "parent": n - 1 if n > 1 else None} for n in range(1, count + 1)]
    return document | {"items": items}


def test_a_bad_item_at_the_end_of_a_long_file_writes_nothing_before_it(
    home: SightlineHome, kept: str, document: dict[str, Any], tmp_path: Path
) -> None:
    data = long_export(document, 5000)
    data["items"][-1]["created_at"] = "tomorrow"
    path = tmp_path / "long.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    done = sightline(home.env(), "import", str(path))
    assert one_clear_line(done).endswith("items[4999].created_at must be a number, not a string.")
    assert conversations(home) == [kept]


def _stop_while_writing(home: SightlineHome, path: Path, how: signal.Signals) -> int:
    """Run `sightline import`, and stop it with `how` once its one transaction is writing
    (the write-ahead log grows past what opening the store puts there); its exit status."""
    wal = home.data / f"{Store.DB_NAME}-wal"
    start = wal.stat().st_size if wal.exists() else 0
    process = subprocess.Popen(
        command("import", str(path)),
        env=home.env() | NO_KEYRING,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while (wal.stat().st_size if wal.exists() else 0) < start + 8_000_000:
            assert process.poll() is None, "the import ended before it was stopped"
            assert time.monotonic() < deadline, "the import never began writing"
            time.sleep(0.005)
        process.send_signal(how)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if how == signal.SIGINT:
        assert stderr.strip() == "sightline: stopped" and "Traceback" not in stderr
    return process.returncode


@pytest.mark.slow
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT], ids=["killed", "ctrl-c"])
def test_an_import_stopped_while_it_writes_leaves_no_conversation(
    home: SightlineHome, kept: str, document: dict[str, Any], tmp_path: Path, how: signal.Signals
) -> None:
    path = tmp_path / "long.json"
    path.write_text(json.dumps(long_export(document, 200_000)), encoding="utf-8")
    before = item_rows(home)
    status = _stop_while_writing(home, path, how)
    assert status == (-9 if how == signal.SIGKILL else 130)
    assert conversations(home) == [kept]  # reopened: what was half written is gone
    assert item_rows(home) == before
    done = sightline(home.env(), "import", str(path), timeout=120)  # and it goes in whole
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(home.data / Store.DB_NAME) as db:
        (rows,) = db.execute(
            "SELECT COUNT(*) FROM items WHERE conversation_id = ?", (done.stdout.strip(),)
        ).fetchone()
    assert rows == 200_000


@pytest.mark.slow
def test_a_200_mb_message_is_imported_whole_within_the_memory_cap(
    home: SightlineHome, kept: str, document: dict[str, Any], tmp_path: Path
) -> None:
    size = 200_000_000
    data = with_change(document, _set(["items", 0, "parts", 0, "text"], "PLACE"))
    data["items"] = data["items"][:1]
    head, tail = json.dumps(data).split("PLACE")
    path = tmp_path / "huge.json"
    with path.open("w", encoding="ascii") as out:  # written in pieces: this process stays small
        out.write(head)
        for _ in range(size // 1_000_000):
            out.write("x" * 1_000_000)
        out.write(tail)
    # Under the 1 GB cap, three copies of the text at the most: four (as a read that
    # decodes the bytes, parses and copies would take) fail with a MemoryError.
    done = sightline(home.env(), "import", str(path), timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    with sqlite3.connect(home.data / Store.DB_NAME) as db:
        (length,) = db.execute(
            "SELECT length(text) FROM items WHERE conversation_id = ?", (done.stdout.strip(),)
        ).fetchone()
    assert length == size
