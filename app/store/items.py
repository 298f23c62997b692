"""What is inside a conversation: its messages and notices, in order, in SQLite.

Everything is written the moment it happens (a streaming answer's words within 50 ms,
`app.store.streamed_words`), so a crash mid-answer loses nothing before it; on the next
open a message still marked STREAMING is marked INTERRUPTED instead (`streamed_words.recover`).

A message's words live in one `text` column; a streaming answer's deltas are one
row each in `item_chunks` until it ends, when they are folded into that column,
so an append is one small insert however long the answer grows. Its other parts
(pictures, tool calls, tool results) are JSON in order (`app.store.parts`), and
pictures themselves are stored once by SHA-256 however many messages use them.
On load a message is its text part first (when non-empty), then the rest
(`app.store.item_rows`).

Opening the store and listing its chats, all the window's first paint does, loads none
of the transcript, its parts, the pictures or the PDFs: those load in the methods that
read or write an item, the first time one is called.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, NamedTuple

from app.store.branches import shown_branch, with_versions
from app.store.connection import Connection, StoreError
from app.store.conversations import short_title
from app.store.streamed_words import StreamedWords, fold_chunks, write_chunk
from app.store.tail import leaf, shown_ids, shown_set, shown_stats, versions_under
from routing.message_status import MessageStatus
from routing.secrets import redact

if TYPE_CHECKING:
    from app.store.item_rows import ReadRows
    from app.store.parts import Encoded
    from app.store.recent import Recent
    from app.store.shown_branch import ShownBranches
    from routing.answer_stats import AnswerStats
    from routing.transcript import Message, Notice, Part
    from vision.pictures import Picture

# Up to this many items are read by their ids; more, and reading the whole chat is quicker
# (and stays far below SQLite's limit on a statement's parameters).
_BY_ID_AT_MOST = 500
# A carried part as `parts` holds it; in the query as written, which schema 17's index needs.
CARRIED = '%"type": "carried"%'


class StoredItem(NamedTuple):
    """A message or notice with its place in the conversation.

    A named tuple, not a frozen dataclass: a chat's items are made by the thousand as
    it opens (three times as fast, in half the memory), and the record is defined at
    every start, before the first paint (a dataclass compiles its methods then).
    """

    id: int
    conversation_id: str
    seq: int
    created_at: float
    item: Message | Notice
    parent_id: int | None = None  # the item it follows in its branch (None: the first)
    # Every version at this place (this item and its siblings), oldest first; () when
    # there is only this one.
    versions: tuple[int, ...] = ()
    deleted: bool = False  # deleted, waiting for its Undo to end


class Items:
    """The messages and notices of every conversation in one store; use from one thread."""

    def __init__(self, connection: Connection) -> None:
        """The items kept in this connection's database."""
        self._connection = connection
        self._words = StreamedWords(connection)  # of the answers begun here
        self._read: ReadRows | None = None  # items of words read before (item_rows)
        self._branches: ShownBranches | None = None  # the last sends' branches

    def items(
        self, conversation_id: str, *, newest: int | None = None, before: int | None = None
    ) -> list[StoredItem]:
        """The conversation's messages and notices as shown: the branch to its leaf, in order.

        With `before`, only the items leading to that one; with `newest`, only the last
        `newest` of them, read from the end (app/store/tail.py): the end of a long chat
        costs what it holds, not what the chat holds.
        """
        with self._connection.read() as db:
            if newest is None and before is None:  # the whole chat, every item checked
                every = self._load(db, "conversation_id = ? ORDER BY seq", conversation_id)
                return shown_branch(every, leaf(db, conversation_id))
            wanted = shown_ids(db, conversation_id, newest, before)
            if len(wanted) > _BY_ID_AT_MOST:  # most of the chat: one read of all of it
                loaded = self._load(db, "conversation_id = ?", conversation_id)
            else:
                loaded = self._load_ids(db, wanted)
            by_id = {stored.id: stored for stored in loaded}
            shown = [by_id[item] for item in wanted]
            return with_versions(
                shown, versions_under(db, conversation_id, {s.parent_id for s in shown})
            )

    def page(self, conversation_id: str, before: int | None = None) -> list[StoredItem]:
        """A page of the shown items, from where a turn begins: the end of the chat, or the
        page before the item `before` (app/store/pages.py)."""
        from app.store.pages import page

        return page(self, conversation_id, before)

    def carrying(self, conversation_id: str) -> list[Message]:
        """The shown messages that carry parts for a wire (an agent's working folder), in
        order: found without reading the rest of a long chat."""
        # A prefilter on the stored JSON; each row found is parsed and checked all the same.
        return self._shown_messages(conversation_id, f"parts LIKE '{CARRIED}'")

    def with_media(self, conversation_id: str) -> list[Message]:
        """The shown messages that hold a picture or a PDF (a tool's result's too), in
        order: found by the pictures' and PDFs' own links, the rest of a chat unread."""
        return self._shown_messages(
            conversation_id,
            "(id IN (SELECT item_id FROM item_pictures) OR id IN (SELECT item_id FROM item_pdfs))",
        )

    def context_used(self, conversation_id: str) -> int | None:
        """How full the last answer shown that said so left its model's window: the branch
        walked from its end to the first answer with that count."""
        from app.store.item_rows import stats_from  # not at first paint (the module's docstring)

        with self._connection.read() as db:
            for column in shown_stats(db, conversation_id):
                stats = stats_from(column)
                if stats is not None and stats.context_used is not None:
                    return stats.context_used
        return None

    def every_item(self, conversation_id: str) -> list[StoredItem]:
        """Every version of every item, in the order they were made (those deleted, waiting
        for their Undo, marked `deleted`)."""
        return self._select("conversation_id = ? ORDER BY seq", conversation_id)

    def messages(self, conversation_id: str) -> tuple[Message, ...]:
        """The conversation's messages only, in order, as shown: what a wire gets."""
        from routing.transcript import Message  # not at first paint (the module's docstring)

        return tuple(
            stored.item
            for stored in self.items(conversation_id)
            if isinstance(stored.item, Message)
        )

    def recent_messages(
        self, conversation_id: str, weigh: Callable[[Message], int], enough: int
    ) -> Recent:
        """The messages a request reads of the chat: its first turn and its newest turns
        from where they weigh `enough` (app/store/recent.py), or all of a lighter chat."""
        from app.store.recent import recent_messages  # not at first paint (the docstring)
        from app.store.shown_branch import ShownBranches

        branches = self._branches = self._branches or ShownBranches()
        with self._connection.read() as db:
            return recent_messages(
                db, branches, lambda ids: self._load_ids(db, ids), conversation_id, weigh, enough
            )

    def add_message(self, conversation_id: str, message: Message) -> StoredItem:
        """Store a whole message at the end of the conversation."""
        from app.store.parts import encode_parts, link_blobs  # not at first paint (docstring)

        # What a model or a tool wrote, with every secret in use redacted; the person's as is.
        encoded = encode_parts(message.parts, redacting=message.role != "user")
        with self._connection.write() as db:
            row = self._insert_item(
                db,
                conversation_id,
                kind="message",
                role=message.role,
                status=message.status.value,
                model=message.model,
                text=encoded.text,
                parts=json.dumps(encoded.parts, ensure_ascii=False),
                stats=_stats_json(message.stats),  # an imported answer keeps its stats
            )
            link_blobs(db, row["id"], encoded)
            if message.role == "user" and encoded.text.strip():
                # The first words a person writes name an untitled conversation.
                db.execute(
                    "UPDATE conversations SET title = ? WHERE id = ? AND title = ''",
                    (short_title(encoded.text), conversation_id),
                )
            return self._as_stored(db, row, encoded)

    def add_notice(self, conversation_id: str, notice: Notice) -> StoredItem:
        """Store a notice at the end of the conversation."""
        with self._connection.write() as db:
            row = self._insert_item(
                db,
                conversation_id,
                kind="notice",
                notice_kind=notice.kind.value,
                # Redacted here, so the window, exports and the ledger read it clean.
                text=redact(notice.text),
                details=redact(notice.details),
                crossed=json.dumps(asdict(notice.crossed)) if notice.crossed else "",
            )
            return self._as_stored(db, row)

    def begin_assistant(self, conversation_id: str, model: str, words: str = "") -> StoredItem:
        """Store an empty assistant message that is about to stream in, as begun (its words
        come as they are appended); its first `words`, when given, written with it (one
        commit, where the first words would have had one of their own)."""
        from routing.transcript import Message  # not at first paint (the module's docstring)

        begun = Message(role="assistant", model=model, status=MessageStatus.STREAMING)
        with self._connection.write() as db:
            stored = self.add_message(conversation_id, begun)
            if words:
                write_chunk(db, stored.id, words)
        self._words.begin(stored.id, conversation_id, with_words=bool(words))
        return stored

    def append_text(self, item_id: int, text: str) -> None:
        """Append streamed words to a message: an answer begun here within 50 ms (read
        or written, the store writes them first), any other message at once."""
        if self._words.streaming(item_id):
            self._words.add(item_id, text)  # the hot path of a streaming answer
            return
        with self._connection.write() as db:  # not begun here: check it is a message
            self._touch_item(db, item_id)
            write_chunk(db, item_id, text)

    @contextmanager
    def together(self) -> Iterator[None]:
        """The writes made inside, in one transaction: committed together (one commit where
        there would be one each), or none of them."""
        with self._connection.write():
            yield

    @property
    def holding_words(self) -> bool:
        """Whether a streaming answer's words (or its other parts) are held, to be written
        within 50 ms."""
        return self._words.holding

    def save_held_words(self) -> None:
        """Write a streaming answer's held words now (the stream paused)."""
        self._connection.write_held()

    def add_part(self, item_id: int, part: Part) -> None:
        """Add a part to a message; a TextPart joins the message's text. A part of an answer
        begun here is held with its words (written with them within 50 ms)."""
        from app.store.parts import append_parts  # not at first paint (the module's docstring)
        from routing.transcript import TextPart

        if isinstance(part, TextPart):
            self.append_text(item_id, part.text)
            return
        if self._words.streaming(item_id) and not self._connection.db.in_transaction:
            self._words.add_part(item_id, part)  # a call and its result: one commit
            return
        with self._connection.write() as db:
            self._touch_item(db, item_id)
            append_parts(db, item_id, (part,))

    def finish_message(
        self,
        item_id: int,
        status: MessageStatus,
        stats: AnswerStats | None = None,
        parts: tuple[Part, ...] = (),
    ) -> None:
        """Record how a streamed message ended, its streamed words now one text, its stats
        when they were measured (None leaves them as they were), and `parts` (not text)
        added last, in the same transaction."""
        with self._connection.write() as db:
            self._touch_item(db, item_id)
            fold_chunks(db, item_id)
            if parts:
                from app.store.parts import append_parts  # not at first paint (docstring)

                append_parts(db, item_id, parts)
            if stats is None:
                db.execute("UPDATE items SET status = ? WHERE id = ?", (status.value, item_id))
            else:
                db.execute(
                    "UPDATE items SET status = ?, stats = ? WHERE id = ?",
                    (status.value, _stats_json(stats), item_id),
                )
        self._words.end(item_id)

    def get_item(self, item_id: int) -> StoredItem | None:
        """One stored message or notice, or None when there is no such item."""
        found = self._select("id = ?", item_id)
        return found[0] if found else None

    def picture(self, sha256: str) -> Picture | None:
        """A stored picture by its SHA-256, or None when it isn't stored."""
        from app.store.parts import Blobs  # not at first paint (the module's docstring)

        with self._connection.read() as db:
            return Blobs(db).picture(sha256)

    # -- internals -----------------------------------------------------------

    def _shown_messages(self, conversation_id: str, where: str) -> list[Message]:
        """The chat's shown messages matching `where` (the store's SQL), in order; the
        branch is walked only when some match."""
        from routing.transcript import Message  # not at first paint (the module's docstring)

        with self._connection.read() as db:
            found = self._load(db, f"conversation_id = ? AND {where} ORDER BY seq", conversation_id)
            shown = shown_set(db, conversation_id) if found else set()
        return [s.item for s in found if s.id in shown and isinstance(s.item, Message)]

    def _load_ids(self, db: sqlite3.Connection, ids: Sequence[int]) -> list[StoredItem]:
        """The items with these ids (a few hundred at most: one parameter each)."""
        return self._load(db, f"id IN ({', '.join('?' * len(ids))})", *ids)

    def _select(self, where: str, *params: object) -> list[StoredItem]:
        """Load the items matching a WHERE clause, pictures read once each."""
        with self._connection.read() as db:
            return self._load(db, where, *params)

    def _load(self, db: sqlite3.Connection, where: str, *params: object) -> list[StoredItem]:
        from app.store.item_rows import ReadRows, load  # not at first paint (the docstring)

        if self._read is None:
            self._read = ReadRows()
        return load(db, where, *params, read=self._read)

    def _touch_item(self, db: sqlite3.Connection, item_id: int) -> None:
        """Bump the updated_at of a message's conversation; refuse anything but a message."""
        begun_here = self._words.conversation_of(item_id)
        if begun_here:  # an answer streaming in: a message of a chat known without a read
            self._connection.touch(db, begun_here)
            return
        row = db.execute(
            "SELECT conversation_id FROM items WHERE id = ? AND kind = 'message'", (item_id,)
        ).fetchone()
        if row is None:
            raise StoreError(f"There is no message {item_id} in {self._connection.path}.")
        self._connection.touch(db, row["conversation_id"])

    def _insert_item(
        self, db: sqlite3.Connection, conversation_id: str, **columns: Any
    ) -> dict[str, Any]:
        """Insert an item after the conversation's leaf (it becomes the leaf), the
        conversation touched by it; its row, every column as written."""
        now = self._connection.touch(db, conversation_id)  # refuses an unknown chat
        seq, parent = db.execute(
            "SELECT (SELECT COALESCE(MAX(seq), 0) + 1 FROM items WHERE conversation_id = ?),"
            " leaf_id FROM conversations WHERE id = ?",
            (conversation_id, conversation_id),
        ).fetchone()
        columns |= {
            "conversation_id": conversation_id,
            "seq": seq,
            "created_at": now,
            "parent_id": parent,
        }
        names = ", ".join(columns)
        marks = ", ".join("?" * len(columns))
        cursor = db.execute(
            f"INSERT INTO items ({names}) VALUES ({marks})", tuple(columns.values())
        )
        assert cursor.lastrowid is not None
        db.execute(
            "UPDATE conversations SET leaf_id = ? WHERE id = ?", (cursor.lastrowid, conversation_id)
        )
        return columns | {"id": cursor.lastrowid, "deleted_at": None}

    def _as_stored(
        self, db: sqlite3.Connection, row: dict[str, Any], encoded: Encoded | None = None
    ) -> StoredItem:
        """An item just inserted (inside its transaction), as it will load later: read
        from the columns written, not read back, and with its versions (a new answer beside
        the earlier ones)."""
        from app.store.item_rows import written  # not at first paint (the module's docstring)

        stored = written(db, row, encoded)
        parent = stored.parent_id
        siblings = tuple(versions_under(db, stored.conversation_id, (parent,))[parent])
        return stored._replace(versions=siblings) if len(siblings) > 1 else stored


def _stats_json(stats: AnswerStats | None) -> str | None:
    """An answer's stats as the `stats` column keeps them (NULL: none, or nothing known)."""
    if stats is None or not stats.known:
        return None
    return json.dumps(stats.to_json())
