"""The store's connection: transactions, clock, and the error every store failure becomes.

`Store` (app/store.py) builds on this, through `ConversationList`
(app/store_conversations.py): the three share one SQLite connection.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class StoreError(Exception):
    """The store can't be opened, read or written; the message says where and why."""


class StoreConnection:
    """One SQLite connection, written in explicit transactions; use from one thread."""

    def __init__(self, path: Path, db: sqlite3.Connection) -> None:
        """Wrap an open, migrated connection."""
        self.path = path
        self._db = db
        self._clock = 0.0
        self._last_touched = ""  # the conversation this store last made the most recent

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One transaction, committed on success and rolled back on any error."""
        try:
            # IMMEDIATE takes the write lock up front, so busy_timeout applies
            # instead of failing half-way through the transaction.
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise StoreError(f"Can't save to {self.path}: {exc}.") from exc

    @contextmanager
    def _write_one(self) -> Iterator[sqlite3.Connection]:
        """One statement, which SQLite commits as its own transaction."""
        try:
            yield self._db
        except sqlite3.Error as exc:
            raise StoreError(f"Can't save to {self.path}: {exc}.") from exc

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """Run reads, turning SQLite failures into a StoreError naming the file."""
        try:
            yield self._db
        except sqlite3.Error as exc:
            raise StoreError(f"Can't read {self.path}: {exc}.") from exc

    def _now(self) -> float:
        """Wall-clock time that never repeats or goes back within this process."""
        # Coarse clocks (Windows) would tie writes made together and scramble the
        # most-recently-updated order.
        self._clock = max(time.time(), self._clock + 1e-6)
        return self._clock

    def _touch(self, db: sqlite3.Connection, conversation_id: str) -> float:
        """Bump a conversation's updated_at; refuse an unknown conversation."""
        now = self._now()
        cursor = db.execute(
            "UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id)
        )
        if cursor.rowcount == 0:
            raise StoreError(f"There is no conversation {conversation_id!r} in {self.path}.")
        self._last_touched = conversation_id
        return now
