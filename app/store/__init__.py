"""Sightline's store: conversations, what is in them, and what it keeps beside them,
in one SQLite file.

`Store` is the items of its conversations (`app.store.items`: messages and
notices, a streaming answer's deltas, pictures), the way the turn and the window
use it most, with each other concept beside them as an attribute sharing the one
connection: `conversations` (the list), `grants` (tools allowed per chat),
`learned` (models learned blind), `crossings` (what left this computer),
`branches` (versions: regenerated answers, edited messages; delete with Undo),
`bulk` (a whole conversation added in one transaction: an import) and `picture_words`
(what a picture shows, as the person asked a seeing model).

Opening the store and listing its conversations, all the window's first paint does, loads
none of what is inside a conversation (the transcript, its parts, pictures, PDFs): those
load the first time an item is read or written (`app.store.items`); `bulk` and
`picture_words` are made when first used, and `PictureWords` loads when first imported.
"""

from __future__ import annotations

import sqlite3
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.store.branches import Branches, DamagedConversation
from app.store.connection import Connection, StoreError
from app.store.conversations import Conversations, ConversationSummary
from app.store.crossings import Crossings
from app.store.grants import Grants
from app.store.items import Items, StoredItem
from app.store.learned import Learned
from app.store.schema import SCHEMA_VERSION, migrate
from app.store.streamed_words import recover

if TYPE_CHECKING:
    from app.store.bulk import Bulk
    from app.store.picture_words import PictureWords, PictureWordsTable

__all__ = [
    "SCHEMA_VERSION",
    "ConversationSummary",
    "DamagedConversation",
    "PictureWords",
    "Store",
    "StoreError",
    "StoredItem",
]


class Store(Items):
    """Sightline's database: the items of its conversations, and the rest as parts; use
    from one thread."""

    DB_NAME = "sightline.db"

    def __init__(self, connection: Connection) -> None:
        """Compose the parts over an open, migrated connection; use `Store.open` instead."""
        super().__init__(connection)
        self.path = connection.path
        self.conversations = Conversations(connection)
        self.grants = Grants(connection)
        self.learned = Learned(connection)
        self.crossings = Crossings(connection)
        self.branches = Branches(connection)

    @cached_property
    def bulk(self) -> Bulk:
        """Conversations added whole (an import), made when first used."""
        from app.store.bulk import Bulk  # not at first paint: it loads the transcript

        return Bulk(self._connection)

    @cached_property
    def picture_words(self) -> PictureWordsTable:
        """The words the person asked a seeing model for, made when first used."""
        from app.store.picture_words import PictureWordsTable  # not needed at first paint

        return PictureWordsTable(self._connection)

    @classmethod
    def open(cls, folder: Path) -> Store:
        """Open (creating if needed) the database in `folder` and bring it up to date."""
        return cls(Connection.open(folder / cls.DB_NAME, prepare=_prepare))

    def close(self) -> None:
        """Close the database; the store can't be used afterwards."""
        self._connection.close()

    def __enter__(self) -> Store:
        """Use the store in a `with` block that closes it."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close the store at the end of a `with` block."""
        self.close()


if not TYPE_CHECKING:  # mypy reads the import above, and still sees a misspelt name

    def __getattr__(name: str) -> Any:
        """`PictureWords`, loaded when first imported from here (PEP 562): not at first paint."""
        if name == "PictureWords":
            from app.store.picture_words import PictureWords

            return PictureWords
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _prepare(db: sqlite3.Connection, path: Path) -> None:
    """A database just opened: up to date, and nothing left streaming."""
    migrate(db, path)
    recover(db)
