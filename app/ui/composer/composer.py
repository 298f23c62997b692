"""Where the person writes and attaches pictures and PDFs: Enter sends, Send becomes Stop.

Files come by the Attach button, by dropping files or picture data, and by
pasting; the composer only reports them (`attachments_offered`) and shows the
cards the controller sends back.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QDropEvent, QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QSizePolicy, QVBoxLayout, QWidget

from app.ui.composer.attach_button import AttachButton
from app.ui.composer.attachments import (
    AttachmentDrops,
    AttachmentStrip,
    ProblemBar,
    carries_attachments,
    offer_from_mime,
)
from app.ui.edits import leaves_undo_to_window
from app.ui.named import named_button

if TYPE_CHECKING:
    from PySide6.QtCore import QMimeData

    from app.presenters.pdf_notes import PdfNote
    from app.presenters.pending import Attachments, SightNote

_MIN_LINES, _MAX_LINES = 2, 8


def _patterns(suffixes: tuple[str, ...]) -> str:
    return " ".join(f"*.{suffix}" for suffix in suffixes)


def attach_filters() -> str:
    """The file dialog's filters: both kinds at once first, what it lists unless narrowed."""
    from app.presenters.pending import PDF_SUFFIXES, PICTURE_SUFFIXES  # with the dialog

    both = f"Pictures and PDFs ({_patterns(PICTURE_SUFFIXES + PDF_SUFFIXES)})"
    pictures = f"Pictures ({_patterns(PICTURE_SUFFIXES)})"
    return ";;".join((both, pictures, f"PDFs ({_patterns(PDF_SUFFIXES)})"))


ATTACH_WORDS = "Attach pictures or PDFs"


class MessageEdit(QPlainTextEdit):
    """A plain-text box that reports Enter instead of inserting a line break."""

    submitted = Signal()
    attachments_offered = Signal(object)  # Offered: pasted or dropped on the box
    version_step = Signal(int)  # Alt+Left (-1) / Alt+Right (+1): the latest answer's versions

    _how = "Pasted"

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        """Pictures, picture files and PDFs may be pasted or dropped here, as well as words."""
        return carries_attachments(source) or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        """Pictures and files become attachments; anything else is inserted as plain text."""
        offer = offer_from_mime(source, self._how)
        if offer is not None:
            self.attachments_offered.emit(offer)
        else:
            super().insertFromMimeData(source)

    def dropEvent(self, event: QDropEvent) -> None:
        """A drop inserts like a paste, but names what it brings "Dropped"."""
        self._how = "Dropped"
        try:
            super().dropEvent(event)
        finally:
            self._how = "Pasted"

    def event(self, event: QEvent) -> bool:
        """Ctrl+Z with nothing to undo here is the window's: it brings back what was deleted."""
        if leaves_undo_to_window(event, self.document().isUndoAvailable()):
            event.ignore()
            return False
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Enter submits; Shift+Enter (or Ctrl+Enter) inserts a line break; Alt+Left and
        Alt+Right move between the latest answer's versions, as they do in the chat."""
        arrows = {Qt.Key.Key_Left: -1, Qt.Key.Key_Right: +1}
        if event.modifiers() == Qt.KeyboardModifier.AltModifier and event.key() in arrows:
            self.version_step.emit(arrows[Qt.Key(event.key())])
            return
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
    """The message box, its attachments and its Send/Stop button; it only reports what was done."""

    send_requested = Signal(str)
    stop_requested = Signal()
    attachments_offered = Signal(object)  # Offered: chosen, dropped or pasted
    remove_requested = Signal(str)  # an attached picture's or PDF's SHA-256
    describe_requested = Signal(object)  # an attached Picture the person asked to hear
    problems_dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        """An empty composer, ready to send."""
        super().__init__(parent)
        self.edit = MessageEdit(self)
        self.edit.setAccessibleName("Message")
        self.edit.setAccessibleDescription("Enter sends, Shift+Enter starts a new line")
        self.edit.setPlaceholderText("Message — Enter sends, Shift+Enter for a new line")
        self.edit.setTabChangesFocus(True)
        self.edit.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.button = named_button("Send", "Send", "", self, never_default=True)
        self.button.setMinimumWidth(84)
        self.attach_button = AttachButton(self)
        self.attach_button.setAccessibleName(ATTACH_WORDS)
        self.attach_button.setToolTip(f"{ATTACH_WORDS} — or drop them here, or paste (Ctrl+V)")
        # How full the picked model's window is for the next turn (ui/composer/context_meter.py).
        self.meter = QLabel(self)
        self.meter.setAccessibleName("Context")
        self.meter.setTextFormat(Qt.TextFormat.PlainText)
        self.meter.hide()
        self.problems = ProblemBar(self)
        self.strip = AttachmentStrip(self)
        self._busy = False
        self._has_attachments = False
        self._folder = ""  # where the Attach dialog opens: the last folder used

        row = QHBoxLayout()
        row.setSpacing(8)
        row.addWidget(self.attach_button, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.edit, 1)
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignBottom)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 8, 16, 14)
        layout.setSpacing(6)
        layout.addWidget(self.problems)
        layout.addWidget(self.strip)
        layout.addLayout(row)
        layout.addWidget(self.meter)

        # Files dropped anywhere on the composer, not only on the box, are attached.
        self.setAcceptDrops(True)
        self._drops = AttachmentDrops(self)
        self.installEventFilter(self._drops)
        self._drops.offered.connect(self.attachments_offered)
        self.edit.attachments_offered.connect(self.attachments_offered)
        self.strip.remove_requested.connect(self.remove_requested)
        self.strip.describe_requested.connect(self.describe_requested)
        self.problems.dismissed.connect(self.problems_dismissed)
        self.attach_button.clicked.connect(self.choose_files)

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

    def show_attachments(
        self, attachments: Attachments, sight: SightNote, pdf_notes: Mapping[str, PdfNote]
    ) -> None:
        """Show the attachments' cards, noted for the chosen model, and any problems."""
        self._has_attachments = attachments.anything
        self.strip.show_attachments(attachments, sight, pdf_notes)
        self.problems.show_problems(attachments.problems)

    def choose_files(self) -> None:
        """Ask for pictures and PDFs and offer them."""
        from PySide6.QtCore import QStandardPaths  # the first paint needs no dialog
        from PySide6.QtWidgets import QFileDialog

        folder = self._folder or QStandardPaths.writableLocation(
            QStandardPaths.StandardLocation.PicturesLocation
        )
        if not Path(folder).is_dir():  # else the dialog types its name as a file to open
            folder = str(Path.home())
        names, _chosen_filter = QFileDialog.getOpenFileNames(
            self, ATTACH_WORDS, folder, attach_filters()
        )
        if names:
            from app.presenters.pending import Offered  # loaded by the dialog's filters

            paths = tuple(Path(name) for name in names)
            self._folder = str(paths[0].parent)
            self.attachments_offered.emit(Offered(paths=paths))

    def set_busy(self, busy: bool) -> None:
        """Switch the button between Send and Stop."""
        self._busy = busy
        label = "Stop" if busy else "Send"
        self.button.setText(label)
        self.button.setAccessibleName(label)
        self.button.setToolTip("Stop the answer (Esc)" if busy else "Send (Enter)")

    def _submit(self) -> None:
        # Enter while an answer streams does nothing: the words wait in the box.
        if not self._busy and (self.text().strip() or self._has_attachments):
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
