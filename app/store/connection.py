"""The store's connection: opening the file privately, transactions, the clock, StoreError.

Every part of the store (`app.store`) shares one `Connection`, opened once by
`Store.open`; SQLite failures become a `StoreError` that names the file.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Protocol

from app.paths import open_data_dir
from app.private_files import create_private_file, tighten

# The files SQLite keeps beside the database in WAL mode.
SIDECARS = ("-wal", "-shm")

_FIX_FOLDER = "Set SIGHTLINE_DATA_DIR to a folder you can write."


class StoreError(Exception):
    """The store can't be opened, read or written; the message says where and why."""


_ID_SHOWN = 80  # characters of a conversation's id in a message (a damaged file's may be huge)


def shown_id(conversation_id: str) -> str:
    """A conversation's id for a message: quoted, and cut to a readable length."""
    if len(conversation_id) > _ID_SHOWN:
        return repr(conversation_id[:_ID_SHOWN] + "…")
    return repr(conversation_id)


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
    # Autocommit: transactions are explicit (see `Connection.write`), so each
    # streamed chunk is committed exactly when we say.
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


def is_not_a_database(exc: sqlite3.Error) -> bool:
    """Whether SQLite says the file isn't a database or is damaged."""
    # SQLITE_CORRUPT = 11, SQLITE_NOTADB = 26; the low byte is the primary code.
    return (getattr(exc, "sqlite_errorcode", 0) & 0xFF) in (11, 26)


def _open_error(path: Path, exc: sqlite3.Error) -> StoreError:
    """Say in plain words why the database at `path` couldn't be opened."""
    if is_not_a_database(exc):
        return StoreError(
            f"{path} is not a Sightline database or is damaged ({exc}). "
            f"Move it aside, or set SIGHTLINE_DATA_DIR to another folder."
        )
    return StoreError(f"Can't write Sightline's data file {path}: {exc}. {_FIX_FOLDER}")


class Connection:
    """One SQLite connection, written in explicit transactions; use from one thread."""

    def __init__(self, path: Path, db: sqlite3.Connection) -> None:
        """Wrap an open, migrated connection; use `Connection.open` instead."""
        self.path = path
        self.db = db
        self._clock = 0.0
        self._closed = False
        self._writing = False  # within `write`: a write inside it joins its transaction
        self.last_touched = ""  # the conversation this store last made the most recent
        # What is held back to be written in a batch (app/store/streamed_words.py): written
        # first in every transaction, and before every read, so nothing misses it.
        self.held: Held = _NOTHING_HELD

    @classmethod
    def open(cls, path: Path, prepare: Callable[[sqlite3.Connection, Path], None]) -> Connection:
        """Open (creating if needed) the database at `path`, its folder private, then
        `prepare` it (migrate, recover) before anything else uses it."""
        folder = path.parent
        try:
            open_data_dir(folder)  # 0700, and what an older release left open tightened
        except OSError as exc:
            why = "it is a file, not a folder" if folder.is_file() else exc.strerror or exc
            raise StoreError(
                f"Can't create Sightline's data folder {folder}: {why}. {_FIX_FOLDER}"
            ) from None
        db: sqlite3.Connection | None = None
        try:
            db = connect(path)  # created 0600, autocommit, WAL
            db.row_factory = sqlite3.Row
            # NORMAL in WAL mode survives a process crash; only power loss may
            # drop the last commits, which is worth many cheap commits per answer.
            db.execute("PRAGMA synchronous = NORMAL")
            db.execute("PRAGMA foreign_keys = ON")
            prepare(db, path)
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
        """Close the database, what is held written first; it can't be used afterwards
        (closing it again does nothing)."""
        if self._closed:
            return
        self._closed = True
        try:
            with suppress(StoreError):  # unwritable: the next open keeps what was written
                self.write_held()
        finally:
            self.db.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One transaction, committed on success and rolled back on any error. What is held
        is written first, in it (one commit, not one for the held words and one for this),
        and held again when it is rolled back. Within another write it is part of that one,
        committed or rolled back with it (writes made at one moment: one commit)."""
        if self._writing:
            yield self.db
            return
        with self._failing("save to"):
            # IMMEDIATE takes the write lock up front, so busy_timeout applies
            # instead of failing half-way through the transaction.
            self.db.execute("BEGIN IMMEDIATE")
            self._writing = True
            try:
                self.held.write_into(self.db)
                yield self.db
                self.db.execute("COMMIT")
            except BaseException:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                self.held.rolled_back()
                raise
            finally:
                self._writing = False
        self.held.committed()

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """Run reads, turning SQLite failures into a StoreError naming the file."""
        with suppress(StoreError):  # still held: a read goes on, the next write says why
            self.write_held()
        with self._failing("read"):
            yield self.db

    def write_held(self) -> None:
        """What is held, written now in a transaction of its own; inside a transaction, left
        for the next use (its own can't begin within another)."""
        if self.held.holding and not self.db.in_transaction:
            with self.write():
                pass  # the held words are all it writes

    @contextmanager
    def _failing(self, doing: str) -> Iterator[None]:
        """A SQLite failure inside as a StoreError that says what failed on which file."""
        try:
            yield
        except sqlite3.Error as exc:
            raise StoreError(f"Can't {doing} {self.path}: {exc}.") from exc

    def now(self) -> float:
        """Wall-clock time that never repeats or goes back within this process."""
        # Coarse clocks (Windows) would tie writes made together and scramble the
        # most-recently-updated order.
        self._clock = max(time.time(), self._clock + 1e-6)
        return self._clock

    def touch(self, db: sqlite3.Connection, conversation_id: str) -> float:
        """Bump a conversation's updated_at; refuse an unknown conversation."""
        now = self.now()
        cursor = db.execute(
            "UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id)
        )
        if cursor.rowcount == 0:
            named = shown_id(conversation_id)
            raise StoreError(f"There is no conversation {named} in {self.path}.")
        self.last_touched = conversation_id
        return now


class Held(Protocol):
    """What a connection holds back to write in a batch, with the next transaction."""

    @property
    def holding(self) -> bool:
        """Whether anything is held, not yet written."""
        ...

    def write_into(self, db: sqlite3.Connection) -> None:
        """Write what is held, in the transaction just begun."""
        ...

    def rolled_back(self) -> None:
        """That transaction was rolled back: what it wrote is held again, in order."""
        ...

    def committed(self) -> None:
        """That transaction was committed."""
        ...


class _NothingHeld:
    """Nothing is held back."""

    holding = False

    def write_into(self, db: sqlite3.Connection) -> None:
        """Nothing to write."""

    def rolled_back(self) -> None:
        """Nothing to hold again."""

    def committed(self) -> None:
        """Nothing was written."""


_NOTHING_HELD = _NothingHeld()
