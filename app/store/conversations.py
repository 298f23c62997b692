"""The list of conversations: create, list, find, search, rename, delete with Undo.

`Store.conversations`; what is inside a conversation is `app.store.items`. A
conversation's place in the list is its `updated_at`.
"""

from __future__ import annotations

import builtins
import os
import re
import sqlite3
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal, NamedTuple

from app.store.connection import Connection

if TYPE_CHECKING:
    from app.store.search import SearchHit
    from routing.chat_settings import ChatSettings

_TITLE_LENGTH = 60
_SUMMARY_COLUMNS = "id, title, model, created_at, updated_at"


class ConversationSummary(NamedTuple):
    """A conversation as the list of conversations shows it.

    A named tuple, not a frozen dataclass: the sidebar lists thousands (made three
    times as fast, in half the memory), and the record is defined at every start,
    before the first paint (a dataclass compiles its methods then).
    """

    id: str
    title: str
    model: str
    created_at: float
    updated_at: float


class Conversations:
    """The conversations of one store, as the sidebar lists and searches them."""

    def __init__(self, connection: Connection) -> None:
        """The conversations kept in this connection's database."""
        self._connection = connection

    def create(self, title: str = "", model: str = "") -> str:
        """Start a new, empty conversation and return its id."""
        now = self._connection.now()
        with self._connection.write() as db:
            conversation_id = insert_conversation(db, title, model, now)
        self._connection.last_touched = conversation_id
        return conversation_id

    def list(self) -> list[ConversationSummary]:
        """Every conversation (but those deleted, waiting for Undo), most recently updated first."""
        return self._summaries("deleted_at IS NULL", "updated_at DESC, rowid DESC")

    def place(self, conversation_id: str) -> int:
        """Where `list` puts this conversation: how many it lists before it (counted, none
        of them read: an Undo among thousands puts one chat back in its place)."""
        with self._connection.read() as db:
            (before,) = db.execute(  # `list`'s order, as a comparison with this chat's
                "SELECT count(*) FROM conversations AS c, conversations AS this"
                " WHERE this.id = ? AND c.deleted_at IS NULL AND (c.updated_at > this.updated_at"
                " OR (c.updated_at = this.updated_at AND c.rowid > this.rowid))",
                (conversation_id,),
            ).fetchone()
        return int(before)

    def has_any(self) -> bool:
        """Whether `list` would list any conversation: asked without reading them (the
        window asks as it is laid out, before its first paint, with thousands kept)."""
        with self._connection.read() as db:
            row = db.execute(
                "SELECT EXISTS (SELECT 1 FROM conversations WHERE deleted_at IS NULL)"
            ).fetchone()
        return bool(row[0])

    def get(self, conversation_id: str) -> ConversationSummary | None:
        """One conversation's summary, or None when there is none (or it is deleted)."""
        with self._connection.read() as db:
            row = db.execute(
                f"SELECT {_SUMMARY_COLUMNS} FROM conversations WHERE id = ? AND deleted_at IS NULL",
                (conversation_id,),
            ).fetchone()
        return ConversationSummary(*row) if row else None

    # Annotations below say `builtins.list`: in this class `list` is the method above.

    def titled(self, title: str, newest: int) -> builtins.list[ConversationSummary]:
        """The `newest` conversations titled exactly `title`, most recently updated first
        (none deleted, waiting for Undo)."""
        with self._connection.read() as db:
            rows = db.execute(
                f"SELECT {_SUMMARY_COLUMNS} FROM conversations WHERE title = ? AND "
                "deleted_at IS NULL ORDER BY updated_at DESC, rowid DESC LIMIT ?",
                (title, newest),
            ).fetchall()
        return [ConversationSummary(*row) for row in rows]

    def search(self, query: str) -> builtins.list[SearchHit]:
        """Conversations whose title or text has every word of `query`, newest first
        (app/store/search.py)."""
        from app.store.search import SearchHit, search  # not at first paint: searched later

        words = query.split()
        if not words:
            return [SearchHit(summary) for summary in self.list()]
        with self._connection.read() as db:
            return search(db, words)

    def rename(self, conversation_id: str, title: str) -> None:
        """Give a conversation a new title."""
        self._change(conversation_id, "title", title)

    def settings(self, conversation_id: str) -> ChatSettings:
        """The chat's own system prompt and parameters (each None where it has none)."""
        with self._connection.read() as db:
            row = db.execute(
                "SELECT settings FROM conversations WHERE id = ?", (conversation_id,)
            ).fetchone()
        from routing.chat_settings import ChatSettings  # with the first chat's settings

        return ChatSettings.from_json(row[0]) if row else ChatSettings()

    def set_settings(self, conversation_id: str, settings: ChatSettings) -> None:
        """Keep the chat's own system prompt and parameters (already checked)."""
        with self._connection.write() as db:
            db.execute(
                "UPDATE conversations SET settings = ? WHERE id = ?",
                (settings.to_json(), conversation_id),
            )

    def set_model(self, conversation_id: str, model: str) -> None:
        """Remember which model the conversation talks to. Every turn says its model, and a
        chat still talking to the same one is left as it is: a write is a commit."""
        with self._connection.read() as db:
            row = db.execute(
                "SELECT model FROM conversations WHERE id = ?", (conversation_id,)
            ).fetchone()
        if row is None or row[0] != model:
            self._change(conversation_id, "model", model)

    def _change(self, conversation_id: str, column: Literal["title", "model"], value: str) -> None:
        """Set one of the conversation's own columns; a change the person sees, so it is
        touched (most recent first in the sidebar)."""
        with self._connection.write() as db:
            self._connection.touch(db, conversation_id)
            db.execute(
                f"UPDATE conversations SET {column} = ? WHERE id = ?", (value, conversation_id)
            )

    def delete(self, conversation_id: str) -> None:
        """Delete a conversation, its items and pictures nothing else uses; no-op if absent."""
        with self._connection.write() as db:
            # Items and their picture links go by ON DELETE CASCADE.
            db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
            drop_unused_blobs(db)

    # -- deleting with Undo ----------------------------------------------------
    #
    # The window deletes in two steps: `trash` hides a conversation at once (it is
    # still all there), and `purge` deletes it for good once its Undo is over.
    # Nothing is lost early: after a crash the trash is still there.

    def trash(self, conversation_id: str) -> None:
        """Hide a conversation as deleted, keeping everything until `purge`."""
        with self._connection.write() as db:
            db.execute(
                "UPDATE conversations SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL",
                (self._connection.now(), conversation_id),
            )

    def restore(self, conversation_id: str) -> None:
        """Undo `trash`: the conversation is back as it was."""
        with self._connection.write() as db:
            db.execute(
                "UPDATE conversations SET deleted_at = NULL WHERE id = ?", (conversation_id,)
            )

    def trashed(self) -> builtins.list[ConversationSummary]:
        """Conversations deleted and waiting for their Undo to end, most recently deleted first."""
        return self._summaries("deleted_at IS NOT NULL", "deleted_at DESC")

    def _summaries(self, where: str, order: str) -> builtins.list[ConversationSummary]:
        """The summaries of the conversations `where` says (this module's SQL, never a
        person's words), in `order`."""
        with self._connection.read() as db:
            cursor = db.cursor()
            cursor.row_factory = None  # plain tuples: a list of thousands, read by position
            rows = cursor.execute(
                f"SELECT {_SUMMARY_COLUMNS} FROM conversations WHERE {where} ORDER BY {order}"
            ).fetchall()
        return [ConversationSummary(*row) for row in rows]

    def purge(self, conversation_ids: Iterable[str] | None = None) -> None:
        """Delete for good these trashed conversations (every one when None); others stay."""
        with self._connection.write() as db:
            if conversation_ids is None:
                db.execute("DELETE FROM conversations WHERE deleted_at IS NOT NULL")
            else:
                # Only while still trashed: an Undo that came first wins.
                db.executemany(
                    "DELETE FROM conversations WHERE id = ? AND deleted_at IS NOT NULL",
                    [(conversation_id,) for conversation_id in conversation_ids],
                )
            drop_unused_blobs(db)


def insert_conversation(db: sqlite3.Connection, title: str, model: str, now: float) -> str:
    """A new conversation's row, made and touched `now`; its id."""
    # 128 random bits as hex, as uuid4().hex gave, without uuid's imports (~3 ms).
    conversation_id = os.urandom(16).hex()
    db.execute(
        "INSERT INTO conversations (id, title, model, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?)",
        (conversation_id, title, model, now, now),
    )
    return conversation_id


def drop_unused_blobs(db: sqlite3.Connection) -> None:
    """Delete stored pictures and PDFs no item uses any more (a chat or an item deleted)."""
    db.execute(
        "DELETE FROM pictures WHERE NOT EXISTS "
        "(SELECT 1 FROM item_pictures WHERE item_pictures.sha256 = pictures.sha256)"
    )
    db.execute(
        "DELETE FROM pdfs WHERE NOT EXISTS "
        "(SELECT 1 FROM item_pdfs WHERE item_pdfs.sha256 = pdfs.sha256)"
    )


def plain_words(line: str) -> str:
    """A line of Markdown as the words it shows: no marks of headings, lists, quotes,
    emphasis, code or links (a fence line has none), on one line."""
    line = _FENCE.sub("", line.strip())
    line = _LEAD.sub("", line)
    line = _IMAGE_OR_LINK.sub(r"\1", line)
    line = _MARKS.sub("", line)
    return " ".join(line.split())


_FENCE = re.compile(r"^(```|~~~).*$")
_LEAD = re.compile(r"^(?:>\s*)*(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)?")
_IMAGE_OR_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MARKS = re.compile(r"(\*\*|__|\*|~~|`|(?<!\w)_|_(?!\w))")


def short_title(text: str) -> str:
    """A conversation title from a message: its first line of words, cut at a word near
    60 characters."""
    line = next((plain for line in text.splitlines() if (plain := plain_words(line))), "")
    if len(line) <= _TITLE_LENGTH:
        return line
    cut = line[:_TITLE_LENGTH]
    # Cut at the last space unless that throws away most of the line (one long word).
    space = cut.rfind(" ")
    if space >= _TITLE_LENGTH // 2:
        cut = cut[:space]
    return cut.rstrip(" ,.;:-") + "…"
