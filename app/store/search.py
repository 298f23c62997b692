"""Finding chats by their words: every word of a search in a chat's title or anything said
in it, newest first, with the words around the first match.

Plain substring matching (SQL LIKE: case-insensitive for ASCII letters), so a word
matches as it is being typed; a word may match the title or any message or notice. A
conversation deleted and waiting for Undo is not found. A word nobody wrote is looked
for in every item: 24 ms in a store of 100,000 items (59 MB). So the window searches on
a worker thread, over a read-only connection of its own (`search_file`), which a newer
search interrupts: typing never waits for the file.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.store.conversations import ConversationSummary

_SNIPPET_LENGTH = 80


@dataclass(frozen=True)
class SearchHit:
    """A conversation that matches a search, and the words around the first match in it."""

    conversation: ConversationSummary
    snippet: str = ""  # "" when only the title matched


def search(db: sqlite3.Connection, words: Sequence[str]) -> list[SearchHit]:
    """The conversations of `db` with every one of `words` (at least one), newest first."""
    patterns = [_like_pattern(word) for word in words]
    matches_word = (
        "(c.title LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM items i "
        "WHERE i.conversation_id = c.id AND i.text LIKE ? ESCAPE '\\'))"
    )
    where = " AND ".join([matches_word] * len(patterns))
    params: list[str] = [pattern for pattern in patterns for _ in range(2)]
    cursor = db.cursor()
    cursor.row_factory = None  # plain tuples, read by position
    rows = cursor.execute(
        "SELECT c.id, c.title, c.model, c.created_at, c.updated_at, "
        "(SELECT i.text FROM items i WHERE i.conversation_id = c.id "
        " AND i.text LIKE ? ESCAPE '\\' ORDER BY i.seq LIMIT 1) AS hit "
        f"FROM conversations c WHERE c.deleted_at IS NULL AND {where} "
        "ORDER BY c.updated_at DESC, c.rowid DESC",
        [patterns[0], *params],
    ).fetchall()
    hits: list[SearchHit] = []
    for row in rows:
        summary = ConversationSummary(*row[:5])
        in_title = words[0].casefold() in summary.title.casefold()
        snippet = "" if in_title or row[5] is None else _snippet(row[5], words[0])
        hits.append(SearchHit(summary, snippet))
    return hits


def search_file(
    path: Path, words: Sequence[str], opened: Callable[[sqlite3.Connection], None]
) -> list[SearchHit]:
    """`search` over a read-only connection of its own to the store's file at `path`, for
    a worker thread; `opened` is given the connection first, so another thread can
    `interrupt()` it (sqlite3.OperationalError then ends the search)."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        opened(db)
        return search(db, words)
    finally:
        db.close()


def _like_pattern(word: str) -> str:
    """A LIKE pattern finding `word` anywhere, its own % and _ taken literally."""
    escaped = word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _snippet(text: str, word: str) -> str:
    """The words around the first `word` in `text`, on one line, cut with ellipses."""
    flat = " ".join(text.split())
    at = max(0, flat.casefold().find(word.casefold()))
    start = max(0, at - _SNIPPET_LENGTH // 5)  # the match near the start: rows are narrow
    if start:
        space = flat.find(" ", start, at)  # begin on a whole word when one is near
        start = space + 1 if space >= 0 else start
    end = min(len(flat), start + _SNIPPET_LENGTH)
    if end < len(flat):
        space = flat.rfind(" ", at + len(word), end)
        end = space if space > 0 else end
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")
