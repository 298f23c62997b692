"""The thin bars that say one thing and offer one button, blocking nothing: what was just
deleted, with Undo; and, above the composer, what Send does while a sent message is being
edited, with Cancel."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QWidget

from app.ui.named import named_button

EDITING = (
    "Editing your message: Send starts the chat again from here. "
    "The earlier version and its answers stay, behind ‹ ›."
)


class Said(Protocol):
    """What was deleted, as the bar says it."""

    @property
    def words(self) -> str:
        """The bar's words."""
        ...


class NoteBar(QFrame):
    """Words and one button on a strip of the palette's `ground`; hidden until wanted."""

    def __init__(
        self,
        parent: QWidget | None,
        name: str,
        ground: QPalette.ColorRole,
        button: tuple[str, str, str],
        margins: tuple[int, int, int, int],
    ) -> None:
        """A hidden bar named `name`: its words (empty for now), then a button (its text,
        accessible name and tooltip)."""
        super().__init__(parent)
        self.setAccessibleName(name)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setBackgroundRole(ground)
        self.setAutoFillBackground(True)
        self.label = QLabel(self)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        text, button_name, tip = button
        self.button = named_button(text, button_name, tip, self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(*margins)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.button)
        self.hide()


class UndoBar(NoteBar):
    """“Title” deleted — Undo; hidden when there is nothing to undo."""

    undo_requested = Signal()

    def __init__(self, parent: QWidget | None = None, what: str = "conversation") -> None:
        """A hidden bar for deleted conversations (or, with `what`, messages)."""
        # The tooltip colours: a small dark toast in light themes, light in dark ones.
        ground = QPalette.ColorRole.ToolTipBase
        button = ("&Undo", "Undo delete", f"Bring the {what} back (Ctrl+Z)")
        super().__init__(parent, f"Deleted {what}", ground, button, (10, 6, 6, 6))
        self.setObjectName("undoBar")
        self.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self.label.setAccessibleName(f"Deleted {what} message")
        self.label.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self.button.clicked.connect(self.undo_requested)

    def show_deleted(self, deleted: Said | None) -> None:
        """Say what was deleted, or hide once nothing can be undone."""
        if deleted is None:
            self.hide()
            return
        self.label.setText(deleted.words)
        self.setAccessibleDescription(f"{deleted.words}. Undo brings it back.")
        self.show()


class EditingBar(NoteBar):
    """Shown while the composer holds a sent message being edited."""

    cancelled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        """A hidden bar."""
        ground = QPalette.ColorRole.AlternateBase
        button = ("Cancel editing", "Cancel editing", "Leave the message as it was sent")
        super().__init__(parent, "Editing a message", ground, button, (10, 4, 6, 4))
        self.setObjectName("editingBar")
        self.label.setText(EDITING)
        self.label.setAccessibleName("Editing a message: what Send does")
        self.button.clicked.connect(self.cancelled)
