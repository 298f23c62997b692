"""The bar that says a conversation (or a message) was deleted and offers Undo, without
blocking anything."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget


class Said(Protocol):
    """What was deleted, as the bar says it."""

    @property
    def words(self) -> str:
        """The bar's words."""
        ...


class UndoBar(QFrame):
    """“Title” deleted — Undo; hidden when there is nothing to undo."""

    undo_requested = Signal()

    def __init__(self, parent: QWidget | None = None, what: str = "conversation") -> None:
        """A hidden bar for deleted conversations (or, with `what`, messages)."""
        super().__init__(parent)
        self.setObjectName("undoBar")
        self.setAccessibleName(f"Deleted {what}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        # The tooltip colours: a small dark toast in light themes, light in dark ones.
        self.setBackgroundRole(QPalette.ColorRole.ToolTipBase)
        self.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self.setAutoFillBackground(True)
        self.label = QLabel(self)
        self.label.setAccessibleName(f"Deleted {what} message")
        self.label.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.button = QPushButton("&Undo", self)
        self.button.setAccessibleName("Undo delete")
        self.button.setToolTip(f"Bring the {what} back (Ctrl+Z)")
        self.button.clicked.connect(self.undo_requested)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.button)
        self.hide()

    def show_deleted(self, deleted: Said | None) -> None:
        """Say what was deleted, or hide once nothing can be undone."""
        if deleted is None:
            self.hide()
            return
        self.label.setText(deleted.words)
        self.setAccessibleDescription(f"{deleted.words}. Undo brings it back.")
        self.show()
