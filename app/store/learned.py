"""What Sightline learned about models by using them, kept across restarts: those that
refused pictures (blind), those the person marked blind, the settings each refused (a
temperature, say), the context window a refusal stated, and what a sight check found,
per endpoint and model."""

from __future__ import annotations

import time

from app.store.connection import Connection


class Learned:
    """Models learned blind and the settings models refused (by their `provider:model`
    ref), and sight checks' verdicts (by endpoint and model name, so a renamed provider
    keeps them) (`Store.learned`)."""

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

    def remember_marked(self, ref: str) -> None:
        """Remember that the person marked `provider:model` blind themselves."""
        with self._connection.write() as db:
            db.execute(
                "INSERT OR REPLACE INTO marked_blind (ref, marked_at) VALUES (?, ?)",
                (ref, time.time()),
            )

    def forget_marked(self, ref: str) -> None:
        """Take the person's mark back: its listing (or a check) says again whether it sees."""
        with self._connection.write() as db:
            db.execute("DELETE FROM marked_blind WHERE ref = ?", (ref,))

    def marked(self) -> set[str]:
        """Every model the person marked blind."""
        with self._connection.read() as db:
            return {row[0] for row in db.execute("SELECT ref FROM marked_blind")}

    def remember_refused(self, ref: str, setting: str) -> None:
        """Remember that `provider:model` refused a chat's setting (routing/parameters.py)."""
        with self._connection.write() as db:
            db.execute(
                "INSERT OR REPLACE INTO refused_settings (ref, setting, learned_at) "
                "VALUES (?, ?, ?)",
                (ref, setting, time.time()),
            )

    def refused(self) -> set[tuple[str, str]]:
        """Every (`provider:model`, setting) a model refused."""
        with self._connection.read() as db:
            return {
                (ref, setting)
                for ref, setting in db.execute("SELECT ref, setting FROM refused_settings")
            }

    def remember_check(self, endpoint: str, model: str, verdict: str, answer: str) -> None:
        """Keep a sight check's verdict ("sees", "blind", "unsure") and the model's words."""
        with self._connection.write() as db:
            db.execute(
                "INSERT OR REPLACE INTO sight_checks (endpoint, model, verdict, answer, "
                "checked_at) VALUES (?, ?, ?, ?, ?)",
                (endpoint, model, verdict, answer[:2000], time.time()),
            )

    def checks(self) -> dict[tuple[str, str], str]:
        """Every sight check's verdict, by (endpoint, model name)."""
        with self._connection.read() as db:
            rows = db.execute("SELECT endpoint, model, verdict FROM sight_checks")
            return {(endpoint, model): verdict for endpoint, model, verdict in rows}

    def remember_window(self, ref: str, tokens: int) -> None:
        """Remember that `provider:model` holds `tokens` (a refusal stated it)."""
        with self._connection.write() as db:
            db.execute(
                "INSERT OR REPLACE INTO context_windows (ref, tokens, learned_at) VALUES (?, ?, ?)",
                (ref, tokens, time.time()),
            )

    def windows(self) -> dict[str, int]:
        """Every context window learned, by `provider:model` ref."""
        with self._connection.read() as db:
            rows = db.execute("SELECT ref, tokens FROM context_windows")
            return {ref: int(tokens) for ref, tokens in rows if isinstance(tokens, int)}
