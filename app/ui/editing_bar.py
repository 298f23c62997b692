"""The strip above the composer while a sent message is being edited: what Send will do,
and Cancel."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

EDITING = (
    "Editing your message: Send starts the chat again from here. "
    "The earlier version and its answers stay, behind ‹ ›."
)


class EditingBar(QFrame):
    """Shown while the composer holds a sent message being edited."""

    cancelled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        """A hidden bar."""
        super().__init__(parent)
        self.setObjectName("editingBar")
        self.setAccessibleName("Editing a message")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self.setAutoFillBackground(True)
        self.label = QLabel(EDITING, self)
        self.label.setAccessibleName("Editing a message: what Send does")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.cancel_button = QPushButton("Cancel editing", self)
        self.cancel_button.setAccessibleName("Cancel editing")
        self.cancel_button.setToolTip("Leave the message as it was sent")
        self.cancel_button.clicked.connect(self.cancelled)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 4, 6, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.cancel_button)
        self.hide()
