"""Conversations, their messages and notices, kept in one SQLite file.

The list of conversations is `ConversationList` (app/store_conversations.py) and
the connection's transactions `StoreConnection` (app/store_connection.py); this
module is what is inside a conversation, and opening the file.

Everything is written the moment it happens (each streamed chunk is its own
commit), so a crash mid-answer loses nothing before it; on the next open a
message still marked STREAMING is marked INTERRUPTED instead.

A message's words live in one `text` column so streaming is a cheap append;
its other parts (pictures, tool calls, tool results) are JSON in order, and
pictures themselves are stored once by SHA-256 however many messages use them.
On load a message is its text part first (when non-empty), then the rest.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, cast

from app.paths import open_data_dir
from app.store_connection import StoreConnection, StoreError, connect
from app.store_conversations import (
    ConversationList,
    ConversationSummary,
    SearchHit,
    short_title,
)
from app.store_schema import MIGRATIONS
from app.stored_parts import Blobs, encode_parts, link_blobs
from routing.secrets import redact
from routing.transcript import (
    Crossed,
    Message,
    MessageStatus,
    Notice,
    NoticeKind,
    Part,
    Role,
    TextPart,
)
from vision.pictures import Picture

__all__ = [
    "SCHEMA_VERSION",
    "ConversationSummary",
    "SearchHit",
    "Store",
    "StoreConnection",
    "StoreError",
    "StoredItem",
]

# The steps live in app/store_schema.py; tests may swap this list.
_MIGRATIONS: list[str] = list(MIGRATIONS)

SCHEMA_VERSION: int = len(_MIGRATIONS)

_FIX_FOLDER = "Set SIGHTLINE_DATA_DIR to a folder you can write."
_ITEM_COLUMNS = (
    "id, conversation_id, seq, created_at, kind, role, status, model, text, parts, "
    "notice_kind, details, crossed"
)


@dataclass(frozen=True)
class StoredItem:
    """A message or notice with its place in the conversation."""

    id: int
    conversation_id: str
    seq: int
    created_at: float
    item: Message | Notice


class Store(ConversationList):
    """Sightline's database; use from one thread."""

    DB_NAME = "sightline.db"

    def __init__(self, path: Path, db: sqlite3.Connection) -> None:
        """Wrap an open, migrated connection; use `Store.open` instead."""
        super().__init__(path, db)
        self._streaming: dict[int, str] = {}  # messages begun here, not yet finished: chat

    @classmethod
    def open(cls, folder: Path) -> Store:
        """Open (creating if needed) the database in `folder` and bring it up to date."""
        try:
            open_data_dir(folder)  # 0700, and what an older release left open tightened
        except OSError as exc:
            why = "it is a file, not a folder" if folder.is_file() else exc.strerror or exc
            raise StoreError(
                f"Can't create Sightline's data folder {folder}: {why}. {_FIX_FOLDER}"
            ) from None
        path = folder / cls.DB_NAME
        db: sqlite3.Connection | None = None
        try:
            db = connect(path)  # created 0600, autocommit, WAL
            db.row_factory = sqlite3.Row
            # NORMAL in WAL mode survives a process crash; only power loss may
            # drop the last commits, which is worth many cheap commits per answer.
            db.execute("PRAGMA synchronous = NORMAL")
            db.execute("PRAGMA foreign_keys = ON")
            _migrate(db, path)
            # Nothing is streaming right after a start: whatever was is now dead.
            db.execute("BEGIN IMMEDIATE")
            for (item_id,) in db.execute("SELECT DISTINCT item_id FROM item_chunks").fetchall():
                _fold_chunks(db, item_id)
            db.execute(
                "UPDATE items SET status = ? WHERE kind = 'message' AND status = ?",
                (MessageStatus.INTERRUPTED.value, MessageStatus.STREAMING.value),
            )
            db.execute("COMMIT")
        except StoreError:
            if db is not None:
                db.close()
            raise
        except sqlite3.Error as exc:
            if db is not None:
                db.close()
            raise _open_error(path, exc) from None
        return cls(path, db)

    def close(self) -> None:
        """Close the database; the store can't be used afterwards."""
        self._db.close()

    def __enter__(self) -> Store:
        """Use the store in a `with` block that closes it."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close the store at the end of a `with` block."""
        self.close()

    # -- items ---------------------------------------------------------------

    def items(self, conversation_id: str) -> list[StoredItem]:
        """The conversation's messages and notices, in order."""
        return self._select("conversation_id = ? ORDER BY seq", conversation_id)

    def messages(self, conversation_id: str) -> tuple[Message, ...]:
        """The conversation's messages only, in order: what a wire gets."""
        rows = self._select(
            "conversation_id = ? AND kind = 'message' ORDER BY seq", conversation_id
        )
        return tuple(cast(Message, stored.item) for stored in rows)

    def add_message(self, conversation_id: str, message: Message) -> StoredItem:
        """Store a whole message at the end of the conversation."""
        encoded = encode_parts(message.parts)
        with self._write() as db:
            now = self._touch(db, conversation_id)
            item_id = self._insert_item(
                db,
                conversation_id,
                now,
                kind="message",
                role=message.role,
                status=message.status.value,
                model=message.model,
                text=encoded.text,
                parts=json.dumps(encoded.parts, ensure_ascii=False),
            )
            link_blobs(db, item_id, encoded)
            if message.role == "user" and encoded.text.strip():
                # The first words a person writes name an untitled conversation.
                db.execute(
                    "UPDATE conversations SET title = ? WHERE id = ? AND title = ''",
                    (short_title(encoded.text), conversation_id),
                )
        return self._must_get(item_id)

    def add_notice(self, conversation_id: str, notice: Notice) -> StoredItem:
        """Store a notice at the end of the conversation."""
        with self._write() as db:
            now = self._touch(db, conversation_id)
            item_id = self._insert_item(
                db,
                conversation_id,
                now,
                kind="notice",
                notice_kind=notice.kind.value,
                # Redacted here, so the window, exports and the ledger read it clean.
                text=redact(notice.text),
                details=redact(notice.details),
                crossed=json.dumps(asdict(notice.crossed)) if notice.crossed else "",
            )
        return self._must_get(item_id)

    def begin_assistant(self, conversation_id: str, model: str) -> StoredItem:
        """Store an empty assistant message that is about to stream in."""
        begun = self.add_message(
            conversation_id,
            Message(role="assistant", model=model, status=MessageStatus.STREAMING),
        )
        self._streaming[begun.id] = conversation_id
        return begun

    def append_text(self, item_id: int, text: str) -> None:
        """Append streamed words to a message, committed at once (a chunk until it ends)."""
        conversation_id = self._streaming.get(item_id)
        if conversation_id is None:  # not begun here: check it is a message, the slow way
            with self._write() as db:
                self._touch_item(db, item_id)
                db.execute("INSERT INTO item_chunks (item_id, text) VALUES (?, ?)", (item_id, text))
            return
        # The hot path of a streaming answer: one INSERT, committed on its own (autocommit
        # makes a single statement its own transaction). The conversation is touched only
        # when another one became the most recent since, which keeps it on top all the same.
        with self._write_one() as db:
            db.execute("INSERT INTO item_chunks (item_id, text) VALUES (?, ?)", (item_id, text))
        if self._last_touched != conversation_id:
            with self._write() as db:
                self._touch(db, conversation_id)

    def add_part(self, item_id: int, part: Part) -> None:
        """Add a part to a message; a TextPart joins the message's text."""
        if isinstance(part, TextPart):
            self.append_text(item_id, part.text)
            return
        encoded = encode_parts((part,))
        with self._write() as db:
            self._touch_item(db, item_id)
            row = db.execute("SELECT parts FROM items WHERE id = ?", (item_id,)).fetchone()
            parts = json.loads(row["parts"]) + encoded.parts
            db.execute(
                "UPDATE items SET parts = ? WHERE id = ?",
                (json.dumps(parts, ensure_ascii=False), item_id),
            )
            link_blobs(db, item_id, encoded)

    def finish_message(self, item_id: int, status: MessageStatus) -> None:
        """Record how a streamed message ended, its streamed words now one text."""
        with self._write() as db:
            self._touch_item(db, item_id)
            _fold_chunks(db, item_id)
            db.execute("UPDATE items SET status = ? WHERE id = ?", (status.value, item_id))
        self._streaming.pop(item_id, None)

    def get_item(self, item_id: int) -> StoredItem | None:
        """One stored message or notice, or None when there is no such item."""
        found = self._select("id = ?", item_id)
        return found[0] if found else None

    def picture(self, sha256: str) -> Picture | None:
        """A stored picture by its SHA-256, or None when it isn't stored."""
        with self._read() as db:
            return Blobs(db).picture(sha256)

    # -- tools allowed for a whole conversation -----------------------------------

    def granted_tools(self, conversation_id: str) -> set[str]:
        """The tools the person allowed for this whole conversation."""
        with self._read() as db:
            rows = db.execute(
                "SELECT tool FROM tool_grants WHERE conversation_id = ?", (conversation_id,)
            )
            return {row[0] for row in rows}

    def grant_tool(self, conversation_id: str, tool: str) -> None:
        """Remember that the person allowed this tool for the whole conversation."""
        with self._write() as db:
            db.execute(
                "INSERT OR IGNORE INTO tool_grants (conversation_id, tool, granted_at) "
                "VALUES (?, ?, ?)",
                (conversation_id, tool, time.time()),
            )

    # -- what left this computer -----------------------------------------------

    def sent_away(self, conversation_id: str) -> set[str]:
        """The pictures and PDFs (by SHA-256) that have left this computer in this chat."""
        with self._read() as db:
            rows = db.execute(
                "SELECT sha256 FROM sent_away WHERE conversation_id = ?", (conversation_id,)
            )
            return {row[0] for row in rows}

    def note_sent_away(self, conversation_id: str, hashes: Iterable[str]) -> None:
        """Remember that these pictures and PDFs went to an endpoint off this computer."""
        rows = [(conversation_id, sha, time.time()) for sha in hashes]
        if rows:
            with self._write() as db:
                db.executemany(
                    "INSERT OR IGNORE INTO sent_away (conversation_id, sha256, sent_at) "
                    "VALUES (?, ?, ?)",
                    rows,
                )

    def earlier_pictures(self, conversation_id: str) -> str:
        """What the person chose for this chat's earlier pictures ('' when undecided)."""
        with self._read() as db:
            row = db.execute(
                "SELECT earlier_pictures FROM conversations WHERE id = ?", (conversation_id,)
            ).fetchone()
            return str(row[0]) if row else ""

    def set_earlier_pictures(self, conversation_id: str, choice: str) -> None:
        """Keep the person's choice for this chat's earlier pictures ("send", "withhold")."""
        with self._write() as db:
            db.execute(
                "UPDATE conversations SET earlier_pictures = ? WHERE id = ?",
                (choice, conversation_id),
            )

    # -- what was learned about models -----------------------------------------

    def remember_blind(self, ref: str) -> None:
        """Remember that `provider:model` refused pictures."""
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO blind_models (ref, learned_at) VALUES (?, ?)",
                (ref, time.time()),
            )

    def forget_blind(self, ref: str) -> None:
        """Forget it, so the model is tried with pictures again ("check again")."""
        with self._write() as db:
            db.execute("DELETE FROM blind_models WHERE ref = ?", (ref,))

    def blind_models(self) -> set[str]:
        """Every model remembered as not seeing."""
        with self._read() as db:
            return {row[0] for row in db.execute("SELECT ref FROM blind_models")}

    # -- internals -----------------------------------------------------------

    def _select(self, where: str, *params: object) -> list[StoredItem]:
        """Load the items matching a WHERE clause, pictures read once each."""
        with self._read() as db:
            rows = db.execute(f"SELECT {_ITEM_COLUMNS} FROM items WHERE {where}", params)
            blobs = Blobs(db)
            loaded = [_load_item(row, blobs) for row in rows.fetchall()]
            return [_with_chunks(db, stored) for stored in loaded]

    def _touch_item(self, db: sqlite3.Connection, item_id: int) -> None:
        """Bump the updated_at of a message's conversation; refuse anything but a message."""
        row = db.execute(
            "SELECT conversation_id FROM items WHERE id = ? AND kind = 'message'", (item_id,)
        ).fetchone()
        if row is None:
            raise StoreError(f"There is no message {item_id} in {self.path}.")
        self._touch(db, row["conversation_id"])

    def _insert_item(
        self, db: sqlite3.Connection, conversation_id: str, now: float, **columns: Any
    ) -> int:
        """Insert an item after the conversation's last one and return its id."""
        (seq,) = db.execute(
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM items WHERE conversation_id = ?",
            (conversation_id,),
        ).fetchone()
        columns |= {"conversation_id": conversation_id, "seq": seq, "created_at": now}
        names = ", ".join(columns)
        marks = ", ".join("?" * len(columns))
        cursor = db.execute(
            f"INSERT INTO items ({names}) VALUES ({marks})", tuple(columns.values())
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def _must_get(self, item_id: int) -> StoredItem:
        """An item just written, read back the way it will load later."""
        stored = self.get_item(item_id)
        assert stored is not None
        return stored


def _chunks(db: sqlite3.Connection, item_id: int) -> str:
    rows = db.execute("SELECT text FROM item_chunks WHERE item_id = ? ORDER BY id", (item_id,))
    return "".join(row[0] for row in rows)


def _fold_chunks(db: sqlite3.Connection, item_id: int) -> None:
    """Move a message's streamed chunks into its text (inside the caller's transaction)."""
    streamed = _chunks(db, item_id)
    if streamed:
        db.execute("UPDATE items SET text = text || ? WHERE id = ?", (streamed, item_id))
    db.execute("DELETE FROM item_chunks WHERE item_id = ?", (item_id,))


def _with_chunks(db: sqlite3.Connection, stored: StoredItem) -> StoredItem:
    """A message still streaming, with the words streamed so far."""
    item = stored.item
    if not isinstance(item, Message) or item.status != MessageStatus.STREAMING:
        return stored
    streamed = _chunks(db, stored.id)
    if not streamed:
        return stored
    text = item.text + streamed
    parts = (TextPart(text), *(p for p in item.parts if not isinstance(p, TextPart)))
    return replace(stored, item=replace(item, parts=parts))


def _migrate(db: sqlite3.Connection, path: Path) -> None:
    """Run the migration steps the database hasn't had yet, each atomically.

    Each step reads the version inside its own write transaction: two Sightlines
    opening a new folder at once then take turns, and the second finds the first's
    work done instead of repeating it.
    """
    while True:
        db.execute("BEGIN IMMEDIATE")
        try:
            (version,) = db.execute("PRAGMA user_version").fetchone()
            if version > len(_MIGRATIONS):
                raise StoreError(
                    f"{path} was written by a newer Sightline (schema {version}; this one "
                    f"knows {len(_MIGRATIONS)}). Update Sightline or set SIGHTLINE_DATA_DIR "
                    "to another folder."
                )
            if version == len(_MIGRATIONS):
                db.execute("COMMIT")
                return
            number = version + 1
            # The version bump is inside the same transaction as the step, so a
            # failed step leaves the database exactly as it was.
            for statement in _statements(_MIGRATIONS[number - 1]):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {number}")
            db.execute("COMMIT")
        except (sqlite3.Error, StoreError) as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            if isinstance(exc, StoreError) or _is_not_a_database(exc):
                raise
            raise StoreError(f"Can't upgrade {path} to schema {number}: {exc}.") from None


def _statements(script: str) -> list[str]:
    """A migration step's SQL statements, one by one (in the caller's transaction)."""
    statements, start = [], 0
    for end, char in enumerate(script, start=1):
        # A ';' ends a statement only where SQLite says so (not inside a string).
        if char == ";" and sqlite3.complete_statement(script[start:end]):
            statements.append(script[start:end])
            start = end
    return statements


def _is_not_a_database(exc: sqlite3.Error) -> bool:
    """Whether SQLite says the file isn't a database or is damaged."""
    # SQLITE_CORRUPT = 11, SQLITE_NOTADB = 26; the low byte is the primary code.
    return (getattr(exc, "sqlite_errorcode", 0) & 0xFF) in (11, 26)


def _open_error(path: Path, exc: sqlite3.Error) -> StoreError:
    """Say in plain words why the database at `path` couldn't be opened."""
    if _is_not_a_database(exc):
        return StoreError(
            f"{path} is not a Sightline database or is damaged ({exc}). "
            f"Move it aside, or set SIGHTLINE_DATA_DIR to another folder."
        )
    return StoreError(f"Can't write Sightline's data file {path}: {exc}. {_FIX_FOLDER}")


def _load_item(row: sqlite3.Row, blobs: Blobs) -> StoredItem:
    """A row of `items` as the message or notice it stores."""
    item: Message | Notice
    if row["kind"] == "notice":
        crossed = Crossed(**json.loads(row["crossed"])) if row["crossed"] else None
        item = Notice(NoticeKind(row["notice_kind"]), row["text"], row["details"], crossed)
    else:
        parts: list[Part] = [TextPart(row["text"])] if row["text"] else []
        parts.extend(blobs.decode(data) for data in json.loads(row["parts"]))
        item = Message(
            role=cast(Role, row["role"]),
            parts=tuple(parts),
            model=row["model"],
            status=MessageStatus(row["status"]),
        )
    return StoredItem(
        id=row["id"],
        conversation_id=row["conversation_id"],
        seq=row["seq"],
        created_at=row["created_at"],
        item=item,
    )
