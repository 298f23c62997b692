"""A streaming answer's held words written once its stream pauses.

The store holds a fast stream's words for up to 50 ms and writes them with the next
word, the next read or the answer's end (app/store/streamed_words.py). A model that
stops mid-answer to think would leave them in memory; this writes them 50 ms later.
"""

from __future__ import annotations

import asyncio
import logging

from app.store import Store, StoreError
from app.store.streamed_words import HOLD_S

log = logging.getLogger(__name__)


class SaveOnPause:
    """Writes the store's held words `HOLD_S` after words were last held."""

    def __init__(self, store: Store) -> None:
        """Watch `store`'s held words."""
        self._store = store
        self._timer: asyncio.TimerHandle | None = None

    def appended(self) -> None:
        """Words were just given to the store: those it holds are written soon."""
        if self._timer is not None or not self._store.holding_words:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop to wait on: written now
            self._save()
            return
        self._timer = loop.call_later(HOLD_S, self._save)

    def cancel(self) -> None:
        """The stream ended; the answer's end writes what is held."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _save(self) -> None:
        self._timer = None
        try:
            self._store.save_held_words()
        except StoreError as exc:  # still held: the next word or the answer's end says so
            log.warning("streamed words not written yet: %s", exc)
