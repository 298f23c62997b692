"""The store's connection: transactions, clock, and the error every store failure becomes.

`Store` (app/store.py) builds on this, through `ConversationList`
(app/store_conversations.py): the three share one SQLite connection, which
`connect` opens on a database file only the person can read.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from app.private_files import create_private_file, tighten

# The files SQLite keeps beside the database in WAL mode.
SIDECARS = ("-wal", "-shm")


class StoreError(Exception):
    """The store can't be opened, read or written; the message says where and why."""


def _switch_to_wal(db: sqlite3.Connection, wait_s: float = 5.0) -> None:
    """Put the database in WAL mode, waiting for another Sightline that holds it.

    SQLite answers "database is locked" at once here, without its busy handler,
    when another connection is switching a new file at the same moment (two first
    runs together), so the wait is ours.
    """
    deadline = time.monotonic() + wait_s
    while True:
        try:
            db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def connect(path: Path) -> sqlite3.Connection:
    """Open the database at `path` in WAL mode, creating it with mode 0600 when missing.

    sqlite3 would create it with the umask's mode (0644 for most people); made
    first by us, it is private from its first byte, and SQLite gives the -wal and
    -shm files it creates the database's mode. Raises sqlite3.Error.
    """
    try:
        create_private_file(path)
    except OSError as exc:  # what sqlite3 would have said, a moment later
        raise sqlite3.OperationalError(
            f"unable to create the file ({exc.strerror or exc})"
        ) from exc
    # Autocommit: transactions are explicit (see `_write`), so each streamed
    # chunk is committed exactly when we say.
    db = sqlite3.connect(path, isolation_level=None)
    try:
        # Before WAL mode: switching to it takes a lock another process may hold.
        db.execute("PRAGMA busy_timeout = 5000")
        _switch_to_wal(db)
    except BaseException:
        db.close()
        raise
    for suffix in SIDECARS:  # ones an older release left readable, or a file system's own
        tighten(path.with_name(path.name + suffix))
    return db


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
