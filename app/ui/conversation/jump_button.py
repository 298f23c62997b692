"""“Jump to latest ↓”: shown at the bottom middle of the conversation while the person has
scrolled up and the chat goes on; one click (or Ctrl+End) shows the newest message."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from app.ui.conversation.lazy_list import LazyListView


class JumpButton(QPushButton):
    """The button over `view`'s viewport; the view says when it is clicked and resized."""

    def __init__(self, view: LazyListView) -> None:
        """A hidden button on the view's viewport."""
        super().__init__(view.viewport())  # its words apart: see app/ui/named.py
        self.setText("Jump to latest ↓")
        self._view = view
        self.setAccessibleName("Jump to latest")
        self.setToolTip("Show the newest message (Ctrl+End)")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.hide()

    def show_if_wanted(self, *_args: object) -> None:
        """Shown while the view doesn't follow the end of a chat that has rows."""
        model = self._view.model()
        wanted = not self._view.follows_bottom() and model is not None and model.rowCount() > 0
        if wanted:
            self.place()
        self.setVisible(wanted)

    def place(self) -> None:
        """At the bottom middle of the view."""
        size = self.sizeHint()
        area = self._view.viewport().rect()
        self.resize(size)
        self.move(area.center().x() - size.width() // 2, area.bottom() - size.height() - 12)
