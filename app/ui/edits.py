"""One-line editors that keep Esc for themselves, and the title that renames in place; and
when a text box leaves Ctrl+Z to the window."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QLineEdit, QWidget


def leaves_undo_to_window(event: QEvent, can_undo: bool) -> bool:
    """Whether a text box lets the window have Ctrl+Z: only when it has nothing of its own
    to undo. A text box claims the key before any shortcut, so a person who deleted a chat
    and pressed Ctrl+Z in the empty composer (where a delete leaves the keyboard) got
    nothing back; with words to undo, Ctrl+Z stays the text's."""
    if event.type() != QEvent.Type.ShortcutOverride or not isinstance(event, QKeyEvent):
        return False
    from PySide6.QtGui import QKeySequence  # with the first key pressed (see menu_bar.py)

    return event.matches(QKeySequence.StandardKey.Undo) and not can_undo


class EscapeEdit(QLineEdit):
    """A line edit that gets Esc before the window's Stop shortcut does.

    Esc is the window's shortcut for Stop, and a shortcut wins over the focused
    widget unless the widget claims the key first; these editors need it to
    cancel (a rename) or clear (the search box).
    """

    escaped = Signal()

    def __init__(self, parent: QWidget | None = None, *, only_with_text: bool = False) -> None:
        """An editor; with `only_with_text`, an empty one leaves Esc to the window."""
        super().__init__(parent)
        self._only_with_text = only_with_text

    def event(self, event: QEvent) -> bool:
        """Claim Esc from the window's shortcuts; leave Ctrl+Z to them when there is
        nothing to undo here."""
        if leaves_undo_to_window(event, self.isUndoAvailable()):
            event.ignore()
            return False
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Escape
            and (self.text() or not self._only_with_text)
        ):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Esc reports `escaped`; other keys edit as usual."""
        if event.key() == Qt.Key.Key_Escape and (self.text() or not self._only_with_text):
            self.escaped.emit()
            event.accept()
            return
        super().keyPressEvent(event)


class TitleEdit(EscapeEdit):
    """The open conversation's title: reads like a label, edits in place on double-click or F2.

    Enter or leaving the box keeps the new title; Esc puts the old one back.
    """

    renamed = Signal(str)
    finished = Signal()  # editing ended, kept or not: the keyboard may go back where it was

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        """A title showing `text`, not editable until asked."""
        super().__init__(parent)
        self._chat = ""  # the chat whose title is shown; "" for one not saved yet
        self._shown = text
        self.setAccessibleName("Conversation title")
        self.setAccessibleDescription("Double-click or press F2 to rename the conversation")
        font = self.font()
        font.setBold(True)
        self.setFont(font)
        self.setText(text)
        self.escaped.connect(self._cancel)
        self.returnPressed.connect(self._commit)
        self._look_shown()

    @property
    def editing(self) -> bool:
        """Whether the person is typing a new title."""
        return not self.isReadOnly()

    def paintEvent(self, event: QPaintEvent) -> None:
        """Shown (not edited), a title too long for its room ends in "…", its whole words in
        the tooltip; editing, the box scrolls as any text box does."""
        if self.editing:
            super().paintEvent(event)
            return
        painter = QPainter(self)
        painter.setFont(self.font())
        # The bar's colours: a style sheet keeps this box's own palette from following a
        # theme change, so the words would stay in the old theme's colour.
        around = self.parentWidget() or self
        painter.setPen(around.palette().color(QPalette.ColorRole.WindowText))
        room = self.contentsRect().adjusted(2, 0, -2, 0)
        shown = self.fontMetrics().elidedText(
            self.text(), Qt.TextElideMode.ElideRight, room.width()
        )
        painter.drawText(
            room, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), shown
        )
        painter.end()
        elided = shown != self.text()
        tip = (
            self.text() if elided else ("Double-click or press F2 to rename" if self._chat else "")
        )
        if self.toolTip() != tip:
            self.setToolTip(tip)

    def show_title(self, text: str, chat: str) -> None:
        """Show a chat's title; a chat not yet saved ("" id: nothing sent) can't be renamed."""
        same_chat = chat == self._chat
        self._shown, self._chat = text, chat
        self.setToolTip("Double-click or press F2 to rename" if chat else "")
        if self.editing:
            if same_chat:
                return  # the list refreshed (an answer ended): the person keeps typing
            self._look_shown()  # another chat opened mid-edit: the edit was for the old one
        self.setText(text)
        self.setCursorPosition(0)

    def start_editing(self) -> bool:
        """Let the person type a new title; False when this chat can't be renamed yet."""
        if not self._chat:
            return False
        self.setReadOnly(False)
        self.setFrame(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.selectAll()
        return True

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        """Double-click renames."""
        if not self.editing and self.start_editing():
            return
        super().mouseDoubleClickEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        """Leaving the box keeps what was typed (a popup taking focus is not leaving)."""
        super().focusOutEvent(event)
        if self.editing and event.reason() != Qt.FocusReason.PopupFocusReason:
            self._commit()

    def _commit(self) -> None:
        if not self.editing:
            return
        typed = " ".join(self.text().split())
        self._look_shown()
        if typed and typed != self._shown:
            self._shown = typed
            self.renamed.emit(typed)
        self.setText(self._shown)
        self.setCursorPosition(0)
        self.finished.emit()

    def _cancel(self) -> None:
        if not self.editing:
            return
        self._look_shown()
        self.setText(self._shown)
        self.setCursorPosition(0)
        self.finished.emit()

    def _look_shown(self) -> None:
        """Read-only and frameless: it reads as the heading it is."""
        self.setReadOnly(True)
        self.setFrame(False)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setStyleSheet('QLineEdit[readOnly="true"] { background: transparent; }')
