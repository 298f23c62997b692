"""A running turn's events as the window sees them: items added, words streamed, answers ended.

No widgets: the controller hands each `TurnEvent` to `forward` and relays these
signals as its own. The feed remembers the answer still streaming and the newest
item shown, so a stopped turn (which yields no events as it unwinds) still shows
what it stored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from app.store import Store, StoredItem
    from app.turn.events import TurnEvent


class TurnFeed(QObject):
    """One turn at a time, its events turned into signals for the open conversation."""

    item_added = Signal(object)  # StoredItem
    text_added = Signal(int, str)  # item id, more words
    item_finished = Signal(object)  # StoredItem, as stored once the answer ended
    call_added = Signal(int, object)  # answer's item id, a ToolCall it just made

    def __init__(
        self, store: Store, current: Callable[[], str], parent: QObject | None = None
    ) -> None:
        """Read items from `store`; show added ones only while `current()` is their chat."""
        super().__init__(parent)
        self._store = store
        self._current = current
        self._streaming_item: int | None = None
        self._last_shown = 0  # the newest item id the turn has shown

    def begin(self) -> None:
        """A new turn starts: nothing of it streamed or shown yet."""
        self._streaming_item = None
        self._last_shown = 0

    def end(self) -> None:
        """The turn is over: no answer streams any more."""
        self._streaming_item = None

    def forward(self, conversation_id: str, event: TurnEvent) -> None:
        """Tell the window about one event of the turn in `conversation_id`."""
        from app.turn.events import ItemAdded, ItemFinished, PartAdded, TextAdded
        from routing.transcript import Message, ToolCall  # with the first turn, not at start

        if isinstance(event, ItemAdded):
            item = event.item.item
            if isinstance(item, Message) and item.role == "assistant":
                self._streaming_item = event.item.id
            if conversation_id == self._current():
                self.item_added.emit(event.item)
        elif isinstance(event, TextAdded):
            # The view ignores ids it doesn't show, so a chat left mid-answer is fine.
            self.text_added.emit(event.item_id, event.text)
        elif isinstance(event, PartAdded) and isinstance(event.part, ToolCall):
            self.call_added.emit(event.item_id, event.part)
        elif isinstance(event, ItemFinished):
            self._streaming_item = None
            self._emit_stored(event.item_id)
        if isinstance(event, ItemAdded):
            self._last_shown = max(self._last_shown, event.item.id)

    def show_unseen(self, conversation_id: str) -> None:
        """Show items a stopped turn stored while unwinding (it yields no events then)."""
        if conversation_id != self._current():
            return
        for stored in self._store.items(conversation_id):
            if stored.id > self._last_shown:
                self._last_shown = stored.id
                self.item_added.emit(stored)

    def finish_streaming_item(self) -> None:
        """Show the answer cut short as stored (stopped, or its turn failed)."""
        if self._streaming_item is not None:
            self._emit_stored(self._streaming_item)
            self._streaming_item = None

    def _emit_stored(self, item_id: int) -> None:
        stored: StoredItem | None = self._store.get_item(item_id)
        if stored is not None:
            self.item_finished.emit(stored)
