"""The page of a long chat above its first row, brought as the person scrolls up to it.

A chat opens at its end (app/store/pages.py); when the view comes within a screen of
its first row, the page above is read and put above it, the rows in view staying put.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow


class EarlierPages(QObject):
    """Brings the open chat's earlier pages into the window's conversation."""

    def __init__(self, window: MainWindow) -> None:
        """Follow `window`'s view as it nears its top."""
        super().__init__(window)
        self._window = window
        self._asked = False  # a page above is on its way (after the current event)
        window.view.near_top.connect(self._want)

    def _want(self) -> None:
        # Not at once: the view asks while laying rows out, and the page changes its rows.
        if self._window.conversation.has_earlier() and not self._asked:
            self._asked = True
            QTimer.singleShot(0, self.show_earlier)

    def show_earlier(self) -> None:
        """Put the page above the first row of the open chat (if it has one) above it."""
        self._asked = False
        model, controller = self._window.conversation, self._window.controller
        first, chat = model.first_item(), controller.current_id
        if first is not None and chat and model.has_earlier():
            model.prepend_items(controller.earlier(chat, first))
