"""What Sightline learned about models by using them, kept across restarts: those that
refused pictures (blind)."""

from __future__ import annotations

import time

from app.store.connection import Connection


class Learned:
    """Models learned blind (`Store.learned`), by their `provider:model` ref."""

    def __init__(self, connection: Connection) -> None:
        """What was learned, kept in this connection's database."""
        self._connection = connection

    def remember_blind(self, ref: str) -> None:
        """Remember that `provider:model` refused pictures."""
        with self._connection.write() as db:
            db.execute(
                "INSERT OR REPLACE INTO blind_models (ref, learned_at) VALUES (?, ?)",
                (ref, time.time()),
            )

    def forget_blind(self, ref: str) -> None:
        """Forget it, so the model is tried with pictures again ("check again")."""
        with self._connection.write() as db:
            db.execute("DELETE FROM blind_models WHERE ref = ?", (ref,))

    def blind(self) -> set[str]:
        """Every model remembered as not seeing."""
        with self._connection.read() as db:
            return {row[0] for row in db.execute("SELECT ref FROM blind_models")}
