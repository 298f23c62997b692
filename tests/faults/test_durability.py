"""`kill -9` while an answer streams: on the next start everything before it is there.

`sightline ask` runs as a whole process against a slow loopback Ollama; the test
watches the SQLite file (read-only) until some of the answer is on disk, kills the
process without warning, and opens the store as the next start would.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from app.store import ConversationSummary, Store
from tests.conftest import SightlineHome
from tests.faults.cli import NO_KEYRING, ROOT, command, sightline
from tests.faults.conftest import describe
from tests.servers.ollama import FakeOllama, Reply

MODEL = "ollama:llama3.2:3b"
LONG = " ".join(f"word{n}" for n in range(2_000))


def streamed_so_far(database: Path) -> str:
    """The text of the newest assistant message, read without taking any lock for long."""
    if not database.exists():
        return ""
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=1) as db:
            row = db.execute(
                "SELECT id, text FROM items WHERE role = 'assistant' ORDER BY id DESC LIMIT 1"
            ).fetchone()
            if row is None:
                return ""
            # A streaming answer's words sit in item_chunks, one row per delta, until it ends.
            chunks = db.execute(
                "SELECT text FROM item_chunks WHERE item_id = ? ORDER BY id", (row[0],)
            ).fetchall()
            return str(row[1]) + "".join(chunk[0] for chunk in chunks)
    except sqlite3.OperationalError:  # not created yet, or busy for a moment
        return ""


def wait_for_words(database: Path, chars: int, seconds: float) -> str:
    """Poll the file until the streaming answer holds `chars` characters; returns what it holds."""
    deadline = time.monotonic() + seconds
    while True:
        text = streamed_so_far(database)
        if text.startswith("word0") and len(text) >= chars:
            return text
        assert time.monotonic() < deadline, f"only {text!r} streamed in {seconds} s"
        time.sleep(0.02)


def killed_mid_answer(home: SightlineHome, *args: str) -> str:
    """Run `sightline` with `args`, kill -9 it once some of its answer is on disk; what was."""
    process = subprocess.Popen(
        command(*args),
        env=home.env() | NO_KEYRING,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        seen = wait_for_words(home.data / Store.DB_NAME, 80, seconds=30)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    assert process.returncode == -signal.SIGKILL
    return seen


def first_turn(home: SightlineHome, text: str) -> ConversationSummary:
    """A new chat's first turn, answered whole: the chat."""
    first = sightline(home.env(), "ask", "--json", "--model", MODEL, text)
    assert first.returncode == 0, first.stderr
    with Store.open(home.data) as store:
        [conversation] = store.conversations.list()
    return conversation


def test_kill_9_mid_answer_keeps_the_transcript_and_marks_the_answer_interrupted(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    conversation = first_turn(home, "Before the crash")

    fake_ollama.enqueue(Reply(text=LONG, chunk_chars=8, delay=0.01))  # about 25 s in all
    args = ("ask", "--conversation", conversation.id, "--model", MODEL, "Tell me a long story")
    seen = killed_mid_answer(home, *args)

    with Store.open(home.data) as store:
        items = [describe(item) for item in store.items(conversation.id)]
    assert items[:3] == [
        ("user", "Before the crash", "complete"),
        ("assistant", "You said: Before the crash", "complete"),
        ("user", "Tell me a long story", "complete"),
    ]
    role, text, status = items[3]
    assert (role, status) == ("assistant", "interrupted")
    # Everything seen on disk before the kill survived it, and no more than was sent.
    assert text.startswith(seen) and LONG.startswith(text) and len(text) < len(LONG)
    assert len(items) == 4

    # The conversation goes on after the crash.
    again = sightline(
        home.env(), "ask", "--conversation", conversation.id, "--model", MODEL, "And?"
    )
    assert again.returncode == 0, again.stderr
    with Store.open(home.data) as store:
        assert describe(store.items(conversation.id)[-1]) == (
            "assistant",
            "You said: And?",
            "complete",
        )


def test_kill_9_mid_regenerate_keeps_the_earlier_answer_as_a_version(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    conversation = first_turn(home, "Tell me a story")

    fake_ollama.enqueue(Reply(text=LONG, chunk_chars=8, delay=0.01))
    args = ("ask", "--conversation", conversation.id, "--regenerate", "--model", MODEL)
    seen = killed_mid_answer(home, *args)

    with Store.open(home.data) as store:
        shown = store.items(conversation.id)
        assert describe(shown[0]) == ("user", "Tell me a story", "complete")
        role, text, status = describe(shown[1])
        assert (role, status) == ("assistant", "interrupted") and text.startswith(seen)
        # The earlier answer is the other version, whole.
        [earlier] = [v for v in shown[1].versions if v != shown[1].id]
        store.branches.show_version(earlier)
        assert [describe(s) for s in store.items(conversation.id)] == [
            ("user", "Tell me a story", "complete"),
            ("assistant", "You said: Tell me a story", "complete"),
        ]
