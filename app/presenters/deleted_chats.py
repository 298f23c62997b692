"""Chats deleted and still waiting for their Undo to run out: what the undo bar says.

Made with the first delete, so it loads then, not before the window's first paint."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Deleted:
    """Conversations deleted and still waiting for their Undo to run out."""

    titles: tuple[str, ...]

    @property
    def words(self) -> str:
        """What the undo bar says."""
        if len(self.titles) == 1:
            return f"“{self.titles[0]}” deleted"
        return f"{len(self.titles)} conversations deleted"
