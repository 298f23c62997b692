"""Tools the person allowed for a whole conversation ("Allow in this chat"), kept across
restarts."""

from __future__ import annotations

import time

from app.store.connection import Connection


class Grants:
    """The tools allowed per chat (`Store.grants`): what `app.turn.tool_step` asks before a call."""

    def __init__(self, connection: Connection) -> None:
        """The grants kept in this connection's database."""
        self._connection = connection

    def granted(self, conversation_id: str) -> set[str]:
        """The tools the person allowed for this whole conversation."""
        with self._connection.read() as db:
            rows = db.execute(
                "SELECT tool FROM tool_grants WHERE conversation_id = ?", (conversation_id,)
            )
            return {row[0] for row in rows}

    def grant(self, conversation_id: str, tool: str) -> None:
        """Remember that the person allowed this tool for the whole conversation."""
        with self._connection.write() as db:
            db.execute(
                "INSERT OR IGNORE INTO tool_grants (conversation_id, tool, granted_at) "
                "VALUES (?, ?, ?)",
                (conversation_id, tool, time.time()),
            )
