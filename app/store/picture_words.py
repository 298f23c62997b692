"""A picture's words, kept with the picture: what a seeing model said it shows, asked for
by the person ("Describe this picture"), so a screen reader reads it and it is asked once.

Keyed by the picture's SHA-256, and deleted with the picture when no item uses it any
more. The describer's own memory (routing/describing/describer.py) stays in memory; only
words the person asked for are written here, beside the picture they already stored.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass

from app.store.connection import Connection
from routing.secrets import redact

MAX_WORDS = 8_000  # characters kept of one description: a screen reader reads them all
_BATCH = 500  # SHA-256s asked about in one statement (SQLite's variable limit is higher)


@dataclass(frozen=True)
class PictureWords:
    """What a seeing model said one picture shows, and which model it was."""

    words: str
    looker: str  # provider:model


class PictureWordsTable:
    """The person's described pictures (`Store.picture_words`)."""

    def __init__(self, connection: Connection) -> None:
        """Words kept in this connection's database."""
        self._connection = connection

    def keep(self, sha256: str, words: str, looker: str) -> bool:
        """Keep a stored picture's words (the newest replace older ones); False when no
        item holds that picture any more, so there is nothing to keep them with."""
        with self._connection.write() as db:
            if db.execute("SELECT 1 FROM pictures WHERE sha256 = ?", (sha256,)).fetchone() is None:
                return False
            db.execute(
                "INSERT OR REPLACE INTO picture_words (sha256, words, looker, described_at) "
                "VALUES (?, ?, ?, ?)",
                (sha256, redact(words.strip()[:MAX_WORDS]), looker, time.time()),
            )
        return True

    def of(self, sha256s: Collection[str]) -> dict[str, PictureWords]:
        """The words kept for those of these pictures that have them."""
        wanted = sorted(set(sha256s))
        found: dict[str, PictureWords] = {}
        with self._connection.read() as db:
            for start in range(0, len(wanted), _BATCH):
                batch = wanted[start : start + _BATCH]
                marks = ", ".join("?" * len(batch))
                for sha256, words, looker in db.execute(
                    f"SELECT sha256, words, looker FROM picture_words WHERE sha256 IN ({marks})",
                    batch,
                ):
                    found[sha256] = PictureWords(words, looker)
        return found
