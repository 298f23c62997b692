"""A streaming answer's words, written to SQLite in small batches rather than a commit each.

A fast local model streams hundreds of chunks a second, and a commit each cost more than
everything else done with a chunk (a 500-token `sightline ask` made 772 commits). So the
first chunk is written at once and the rest at most `HOLD_S` after the last write. The
answer's other parts that stream in with its words (a tool call, what a wire carries) are
held with them the same way: an agent's call and its result, a few milliseconds apart,
are then one commit, not two. Held words never hide: the store's next transaction writes
them first, inside it (one commit for both: an answer's end, a tool's result), anything
that next reads the store writes them first (`Connection.held`), and the turn writes them
when the stream pauses (`Items.save_held_words`). A crash can lose at most the last
`HOLD_S` of a model's answer, never what the person wrote; on the next open `recover`
folds what a crash cut short.
"""

from __future__ import annotations

import sqlite3
import time
from typing import TYPE_CHECKING

from app.store.branches import mend_rewinds
from app.store.connection import Connection
from routing.message_status import MessageStatus
from routing.secrets import redact_secrets

if TYPE_CHECKING:
    from routing.transcript import Part

HOLD_S = 0.05  # at most 20 commits a second however fast the model streams


class _Held:
    """One streaming answer's words and other parts, not yet written."""

    # A plain class, not a dataclass: this module loads before the window's first paint,
    # where building a dataclass costs about 0.4 ms.
    __slots__ = ("parts", "words")

    def __init__(self, words: list[str] | None = None, parts: list[Part] | None = None) -> None:
        self.words = words or []
        self.parts = parts or []

    def before(self, later: _Held) -> _Held:
        """This, then what was held since (after a rollback, in the order they came)."""
        return _Held(self.words + later.words, self.parts + later.parts)


class StreamedWords:
    """The words (and other parts) of the answers streaming into one store, held briefly
    and then written."""

    def __init__(self, connection: Connection) -> None:
        """Hold words for this connection, which writes them in its next transaction."""
        self._connection = connection
        self._conversations: dict[int, str] = {}  # streaming answers begun here: their chat
        self._held: dict[int, _Held] = {}
        # written in a transaction not yet committed: held again should it be rolled back
        self._writing: dict[int, _Held] = {}
        self._saved_at = -HOLD_S
        connection.held = self

    def begin(self, item_id: int, conversation_id: str, *, with_words: bool = False) -> None:
        """An answer of `conversation_id` begins streaming into item `item_id` (`with_words`:
        its first words were written with it, so the next are held)."""
        self._conversations[item_id] = conversation_id
        if with_words:
            self._saved_at = time.monotonic()

    def end(self, item_id: int) -> None:
        """The answer has ended (what it held was written by the store's last use)."""
        self._conversations.pop(item_id, None)
        self._held.pop(item_id, None)

    def conversation_of(self, item_id: int) -> str:
        """The chat of `item_id`, an answer begun here and not yet ended ("" for any other)."""
        return self._conversations.get(item_id, "")

    def streaming(self, item_id: int) -> bool:
        """Whether `item_id` is an answer begun here and not yet ended."""
        return item_id in self._conversations

    @property
    def holding(self) -> bool:
        """Whether some words or parts are held, not yet written."""
        return bool(self._held)

    def add(self, item_id: int, text: str) -> None:
        """More words of a streaming answer: written now, or within `HOLD_S`."""
        self._held.setdefault(item_id, _Held()).words.append(text)
        self._written_when_due()

    def add_part(self, item_id: int, part: Part) -> None:
        """A part of a streaming answer other than its words: written now, or within
        `HOLD_S` with the words (call it outside a transaction: one begun has written
        what was held, and the answer's end within it would drop the part)."""
        self._held.setdefault(item_id, _Held()).parts.append(part)
        self._written_when_due()

    def _written_when_due(self) -> None:
        if time.monotonic() - self._saved_at >= HOLD_S:
            self._connection.write_held()  # not within a transaction: it begins its own

    def write_into(self, db: sqlite3.Connection) -> None:
        """Write what is held in the transaction begun: each answer's words as one chunk,
        then its parts.

        Each batch is redacted, and the whole answer again when its chunks are folded:
        a secret split between two batches is whole only then."""
        if not self._held:
            return
        self._writing, self._held = self._held, {}
        connection = self._connection
        for item_id, held in self._writing.items():
            if held.words:
                write_chunk(db, item_id, "".join(held.words))
            if held.parts:
                from app.store.parts import append_parts  # not at first paint (items.py)

                append_parts(db, item_id, tuple(held.parts))
            # Touched only when another chat became the most recent since: this one
            # stays on top all the same, for one UPDATE a turn.
            conversation_id = self.conversation_of(item_id)
            if conversation_id and connection.last_touched != conversation_id:
                connection.touch(db, conversation_id)

    def rolled_back(self) -> None:
        """The transaction failed: what it wrote is held again, before what came since, to
        be written by the next try."""
        writing, self._writing = self._writing, {}
        for item_id, held in writing.items():
            self._held[item_id] = held.before(self._held.get(item_id, _Held()))

    def committed(self) -> None:
        """The transaction was committed, with what was held that it wrote."""
        if self._writing:
            self._writing = {}
            self._saved_at = time.monotonic()


def write_chunk(db: sqlite3.Connection, item_id: int, text: str) -> None:
    """Add words to a message's streamed chunks, redacted (inside the caller's transaction)."""
    db.execute(
        "INSERT INTO item_chunks (item_id, text) VALUES (?, ?)", (item_id, redact_secrets(text))
    )


def streamed(db: sqlite3.Connection, item_id: int) -> str:
    """The words streamed into a message so far and not yet folded into its text, joined."""
    rows = db.execute("SELECT text FROM item_chunks WHERE item_id = ? ORDER BY id", (item_id,))
    return "".join(row[0] for row in rows)


def fold_chunks(db: sqlite3.Connection, item_id: int) -> None:
    """Move a message's streamed chunks into its text (inside the caller's transaction)."""
    words = redact_secrets(streamed(db, item_id))
    if words:
        db.execute("UPDATE items SET text = text || ? WHERE id = ?", (words, item_id))
    db.execute("DELETE FROM item_chunks WHERE item_id = ?", (item_id,))


def recover(db: sqlite3.Connection) -> None:
    """After a start nothing is streaming: fold the deltas of any answer a crash cut
    short into its text, and mark it INTERRUPTED; a regenerate cut off before its first
    item shows the earlier answer again (inside one transaction)."""
    db.execute("BEGIN IMMEDIATE")
    for (item_id,) in db.execute("SELECT DISTINCT item_id FROM item_chunks").fetchall():
        fold_chunks(db, item_id)
    db.execute(
        "UPDATE items SET status = ? WHERE kind = 'message' AND status = ?",
        (MessageStatus.INTERRUPTED.value, MessageStatus.STREAMING.value),
    )
    mend_rewinds(db)
    db.execute("COMMIT")
