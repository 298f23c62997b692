"""Where the person writes: Enter sends, Shift+Enter breaks the line, Send becomes Stop."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QPlainTextEdit, QPushButton, QSizePolicy, QWidget

_MIN_LINES, _MAX_LINES = 2, 8


class MessageEdit(QPlainTextEdit):
    """A plain-text box that reports Enter instead of inserting a line break."""

    submitted = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Enter submits; Shift+Enter (or Ctrl+Enter) inserts a line break."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            modifiers = event.modifiers()
            if modifiers & (
                Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.ControlModifier
            ):
                # A real "\n", not the line separator Qt inserts for Shift+Enter.
                self.insertPlainText("\n")
            else:
                self.submitted.emit()
            return
        super().keyPressEvent(event)


class Composer(QWidget):
    """The message box and its Send/Stop button; it only reports what the person did."""

    send_requested = Signal(str)
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        """An empty composer, ready to send."""
        super().__init__(parent)
        self.edit = MessageEdit(self)
        self.edit.setAccessibleName("Message")
        self.edit.setAccessibleDescription("Enter sends, Shift+Enter starts a new line")
        self.edit.setPlaceholderText("Message — Enter sends, Shift+Enter for a new line")
        self.edit.setTabChangesFocus(True)
        self.edit.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.button = QPushButton("Send", self)
        self.button.setAccessibleName("Send")
        self.button.setDefault(False)
        self.button.setAutoDefault(False)
        self.button.setMinimumWidth(84)
        self._busy = False

        layout = QHBoxLayout(self)
        layout.setContentsMargins(16, 8, 16, 14)
        layout.setSpacing(8)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignBottom)

        self.edit.submitted.connect(self._submit)
        self.button.clicked.connect(self._clicked)
        self.edit.document().contentsChanged.connect(self._fit_height)
        self._fit_height()

    @property
    def busy(self) -> bool:
        """Whether an answer is streaming (the button says Stop)."""
        return self._busy

    def text(self) -> str:
        """What is in the box."""
        return self.edit.toPlainText()

    def clear(self) -> None:
        """Empty the box (after it was sent)."""
        self.edit.clear()

    def restore_draft(self, text: str) -> None:
        """Put unsent words back, unless the person already wrote something new."""
        if not self.edit.toPlainText().strip():
            self.edit.setPlainText(text)
            self.edit.moveCursor(self.edit.textCursor().MoveOperation.End)

    def set_busy(self, busy: bool) -> None:
        """Switch the button between Send and Stop."""
        self._busy = busy
        label = "Stop" if busy else "Send"
        self.button.setText(label)
        self.button.setAccessibleName(label)
        self.button.setToolTip("Stop the answer (Esc)" if busy else "Send (Enter)")

    def _submit(self) -> None:
        # Enter while an answer streams does nothing: the words wait in the box.
        if not self._busy and self.text().strip():
            self.send_requested.emit(self.text())

    def _clicked(self) -> None:
        if self._busy:
            self.stop_requested.emit()
        else:
            self._submit()

    def _fit_height(self) -> None:
        # Grow with the text from two lines to eight, then scroll.
        lines = int(self.edit.document().documentLayout().documentSize().height())
        lines = max(_MIN_LINES, min(_MAX_LINES, lines))
        metrics = self.edit.fontMetrics()
        margins = self.edit.contentsMargins()
        frame = int(self.edit.document().documentMargin() * 2) + margins.top() + margins.bottom()
        self.edit.setFixedHeight(lines * metrics.lineSpacing() + frame + 4)
