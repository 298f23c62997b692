"""What the store's tests share: chats of questions and answers, a conversation's title,
rows counted beside the store, a store opened in a child process, and the ways a chat's
chain of items can be damaged."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from app.store import Store
from routing.transcript import Message, Notice, NoticeKind, TextPart, user_message

# A chat's chain damaged, as SQL over its items' ids in order ({a} to {d}), and the words
# that name the damage. The hostile case first: the last item its own parent (every read
# of the chat hung on it).
DAMAGE = {
    "itself": ("UPDATE items SET parent_id = id WHERE id = {d}", "item {d} follows itself"),
    "two": ("UPDATE items SET parent_id = {d} WHERE id = {c}", "items {c}, {d} follow each other"),
    "four": ("UPDATE items SET parent_id = {d} WHERE id = {a}", "items {a}, {b}, {c} and 1 more"),
    "missing": (
        "UPDATE items SET parent_id = 999999 WHERE id = {c}",
        "item {c} follows item 999999, which isn't in it",
    ),
}


def answer(text: str) -> Message:
    """A model's answer of words."""
    return Message("assistant", (TextPart(text),), model="ollama:m")


def chat_of(store: Store, turns: int, *, notes: bool = False) -> str:
    """A new chat of `turns` questions ("q0"...), each answered ("a0"...); with `notes`, a
    notice after every tenth."""
    chat = store.conversations.create()
    for n in range(turns):
        store.add_message(chat, user_message(f"q{n}"))
        store.add_message(chat, answer(f"a{n}"))
        if notes and n % 10 == 9:
            store.add_notice(chat, Notice(NoticeKind.INFO, f"note {n}"))
    return chat


def title(store: Store, conversation_id: str) -> str:
    """A conversation's title; the conversation must exist."""
    summary = store.conversations.get(conversation_id)
    assert summary is not None
    return summary.title


def count(path: Path, table: str) -> int:
    """Rows in a table, read with a separate connection."""
    with sqlite3.connect(path) as db:
        return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


_OPEN_AND_SHOW = """
import sys
from pathlib import Path
from app.store import Store
from routing.transcript import Message, Notice, NoticeKind, TextPart, user_message
with Store.open(Path(sys.argv[1])) as store:
    for item_id in sys.argv[2:]:
        store.branches.show_version(int(item_id))
"""


def opens_in_time(folder: Path, *shown: int) -> None:
    """Open the store in `folder` and show these versions, in a child process that fails
    the test after 60 s rather than hang the suite (pytest has no timeout here)."""
    subprocess.run(
        [sys.executable, "-c", _OPEN_AND_SHOW, str(folder), *map(str, shown)],
        check=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[3],
    )
