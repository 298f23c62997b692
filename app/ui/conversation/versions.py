"""The open chat's versions and what the person does to its messages: show another version,
delete a message or an answer with Undo, and the chat's own settings.

Holds no widgets. Every change is in the store at once; the window is told to show
the conversation again through `reload`. Deleted items wait for their Undo for a
while, then go for good (at the next start, any a crash left waiting go too).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from app.store import StoreError
from app.store.branches import asked_in, response_of
from routing.chat_settings import ChatSettings

if TYPE_CHECKING:
    from app.store import Store, StoredItem

log = logging.getLogger(__name__)

UNDO_MS = 10_000  # how long a deleted message can be brought back, as for chats


@dataclass(frozen=True)
class DeletedItems:
    """Items of the open chat deleted and waiting for their Undo to run out."""

    conversation_id: str
    ids: tuple[int, ...]
    what: str  # "Message", "Answer"

    @property
    def words(self) -> str:
        """What the undo bar says."""
        return f"{self.what} deleted"


class Versions(QObject):
    """Versions, deletes with Undo and settings of the chats of one store."""

    deleted_changed = Signal(object)  # DeletedItems, or None once nothing can be undone

    def __init__(
        self, store: Store, reload: Callable[[str], None], parent: QObject | None = None
    ) -> None:
        """Act on `store`; `reload(conversation_id)` shows a chat again after a change."""
        super().__init__(parent)
        self.store = store
        self._reload = reload
        self._deleted: DeletedItems | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.finish_deleting)
        self._pending_settings = ChatSettings()  # for a new chat, until its first message
        self._purge(None)  # what a crash left waiting for Undo goes now

    # -- versions ------------------------------------------------------------------

    def show_version(self, conversation_id: str, item_id: int) -> None:
        """Show the branch through this version of a message or an answer."""
        self.store.branches.show_version(item_id)
        self._reload(conversation_id)

    def asked(self, conversation_id: str, item_id: int) -> StoredItem | None:
        """The person's message that began the turn an item belongs to."""
        return asked_in(self.store.items(conversation_id), item_id)

    # -- deleting ------------------------------------------------------------------

    def delete(self, conversation_id: str, item_id: int) -> None:
        """Delete a message of the person with its answer, or an answer alone."""
        branch = self.store.items(conversation_id)
        stored = next((s for s in branch if s.id == item_id), None)
        if stored is None:
            return
        response = response_of(branch, item_id)
        from routing.transcript import Message  # loaded by the page the person deletes in

        is_person = isinstance(stored.item, Message) and stored.item.role == "user"
        ids = (item_id, *response) if is_person and item_id not in response else tuple(response)
        if not ids:
            return
        self.finish_deleting()  # one Undo at a time: the one before becomes final
        self.store.branches.delete(ids)
        self._deleted = DeletedItems(conversation_id, ids, "Message" if is_person else "Answer")
        self._timer.start(UNDO_MS)
        self.deleted_changed.emit(self._deleted)
        self._reload(conversation_id)

    def undo(self) -> bool:
        """Bring the deleted items back; False when there was nothing to undo."""
        deleted, self._deleted = self._deleted, None
        if deleted is None:
            return False
        self._timer.stop()
        self.store.branches.restore(deleted.ids)
        self.deleted_changed.emit(None)
        self._reload(deleted.conversation_id)
        return True

    @property
    def deleted(self) -> DeletedItems | None:
        """What can be undone now, if anything."""
        return self._deleted

    def finish_deleting(self) -> None:
        """End the Undo: what was deleted is deleted for good."""
        self._timer.stop()
        deleted, self._deleted = self._deleted, None
        if deleted is not None:
            self._purge(deleted.ids)
            self.deleted_changed.emit(None)

    def _purge(self, ids: tuple[int, ...] | None) -> None:
        try:
            self.store.branches.purge(ids)
        except StoreError as exc:  # still marked deleted: the next start tries again
            log.warning("deleting messages for good failed: %s", exc)

    # -- the chat's settings -------------------------------------------------------

    def settings(self, conversation_id: str) -> ChatSettings:
        """The chat's own system prompt and parameters (a new chat's, before it is saved)."""
        if not conversation_id:
            return self._pending_settings
        return self.store.conversations.settings(conversation_id)

    def set_settings(self, conversation_id: str, settings: ChatSettings) -> None:
        """Keep the chat's own settings (already checked); a new chat's wait for it."""
        if conversation_id:
            self.store.conversations.set_settings(conversation_id, settings)
        else:
            self._pending_settings = settings

    def chat_created(self, conversation_id: str) -> None:
        """A new chat was saved: it keeps the settings chosen before its first message."""
        if not self._pending_settings.is_empty:
            self.store.conversations.set_settings(conversation_id, self._pending_settings)
        self._pending_settings = ChatSettings()

    def new_chat(self) -> None:
        """A new, empty chat starts with no settings of its own."""
        self._pending_settings = ChatSettings()
