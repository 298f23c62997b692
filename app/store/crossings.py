"""What left this computer, per chat: the pictures and PDFs that have gone to an
endpoint off it, and the person's choice for a chat's earlier ones (`app.turn.boundary`)."""

from __future__ import annotations

import time
from collections.abc import Iterable

from app.store.connection import Connection


class Crossings:
    """Each chat's pictures and PDFs sent away, by SHA-256 (`Store.crossings`)."""

    def __init__(self, connection: Connection) -> None:
        """The crossings kept in this connection's database."""
        self._connection = connection

    def sent_away(self, conversation_id: str) -> set[str]:
        """The pictures and PDFs (by SHA-256) that have left this computer in this chat."""
        with self._connection.read() as db:
            rows = db.execute(
                "SELECT sha256 FROM sent_away WHERE conversation_id = ?", (conversation_id,)
            )
            return {row[0] for row in rows}

    def note_sent_away(self, conversation_id: str, hashes: Iterable[str]) -> None:
        """Remember that these pictures and PDFs went to an endpoint off this computer."""
        rows = [(conversation_id, sha, time.time()) for sha in hashes]
        if rows:
            with self._connection.write() as db:
                db.executemany(
                    "INSERT OR IGNORE INTO sent_away (conversation_id, sha256, sent_at) "
                    "VALUES (?, ?, ?)",
                    rows,
                )

    def earlier_pictures(self, conversation_id: str) -> str:
        """What the person chose for this chat's earlier pictures ('' when undecided)."""
        with self._connection.read() as db:
            row = db.execute(
                "SELECT earlier_pictures FROM conversations WHERE id = ?", (conversation_id,)
            ).fetchone()
            return str(row[0]) if row else ""

    def set_earlier_pictures(self, conversation_id: str, choice: str) -> None:
        """Keep the person's choice for this chat's earlier pictures ("send", "withhold")."""
        with self._connection.write() as db:
            db.execute(
                "UPDATE conversations SET earlier_pictures = ? WHERE id = ?",
                (choice, conversation_id),
            )
