"""An agent's working folder, kept with its chat.

An agent works in one folder: the window asks the person which when a chat with an
agent starts, and `sightline ask` works where it runs. The folder is kept with the chat
as a `CarriedPart` on the person's first message to the agent (shape `FOLDER`): the
chat's settings JSON keeps only the model parameters it checks, and a part needs no new
store column. Every later turn works there again, in the window or through
`sightline ask --conversation`, wherever that runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from app.store import Store
from routing.transcript import CarriedPart, Message, Notice

FOLDER = "acp_folder"  # CarriedPart shape: the chat's working folder, {"cwd": path}


def kept_folder(messages: Iterable[Message]) -> Path | None:
    """The working folder a chat's messages keep, if any."""
    for message in messages:
        for part in message.parts:
            if isinstance(part, CarriedPart) and part.shape == FOLDER:
                cwd = part.data.get("cwd")
                if isinstance(cwd, str) and cwd:
                    return Path(cwd)
    return None


class AgentFolders:
    """Each chat's working folder: the one chosen for it, else the one its messages keep."""

    def __init__(self, store: Store, default: Path) -> None:
        """`default`: where an agent works in a chat that has no folder yet (`ask`: where
        it runs; the window asks first, so there it is only the person's home)."""
        self.store = store
        self.default = default
        self._chosen: dict[str, Path] = {}
        # What each chat's messages keep, read once (a long chat's read is the slow part of
        # opening it, and the window asks on every refresh of its title).
        self._kept: dict[str, Path | None] = {}

    def folder(self, conversation_id: str) -> Path | None:
        """The chat's working folder: chosen now, or kept with its messages."""
        if not conversation_id:
            return None
        if conversation_id in self._chosen:
            return self._chosen[conversation_id]
        if conversation_id not in self._kept:
            self._kept[conversation_id] = kept_folder(self.store.carrying(conversation_id))
        return self._kept[conversation_id]

    def opened(self, conversation_id: str, messages: Iterable[Message | Notice]) -> None:
        """The chat was read as it opened: what its messages keep, without reading it again."""
        self._kept[conversation_id] = kept_folder(m for m in messages if isinstance(m, Message))

    def choose(self, conversation_id: str, folder: Path) -> None:
        """The folder the person chose for this chat; kept with its next message."""
        self._chosen[conversation_id] = folder

    def for_turn(self, conversation_id: str, agent_id: str) -> tuple[Path, tuple[CarriedPart, ...]]:
        """Where the chat's agent works this turn, and what the person's message carries to
        keep it there (nothing when the chat keeps a folder already)."""
        kept = kept_folder(self.store.carrying(conversation_id))
        folder = self._chosen.get(conversation_id) or kept or self.default
        if kept is not None:
            return folder, ()
        return folder, (CarriedPart(FOLDER, agent_id, {"cwd": str(folder)}),)
