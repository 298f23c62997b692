"""The window's question for a locked PDF's password: a masked field naming the file.

It answers `Attaching.password_requested` (`attaching.py` asks one PDF
at a time) and hands the answer straight back. The dialog is opened with
`open()`, window-modal without a nested event loop (qasync runs on Qt's loop),
and its field is emptied as soon as the answer is read, so the password stays
nowhere in the window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from PySide6.QtWidgets import QInputDialog

    from app.presenters.unlocking import PasswordRequest
    from app.ui.composer.attaching import Attaching

TITLE = "PDF password"


def question(request: PasswordRequest) -> str:
    """What the dialog says: which PDF, and whether the last password was wrong."""
    if request.wrong:
        return f"That password is wrong. Type the password of {request.name} to attach it:"
    return f"{request.name} is protected by a password. Type it to attach the PDF:"


class PasswordPrompt(QObject):
    """Asks for each locked PDF's password in a dialog over `window`."""

    def __init__(self, attaching: Attaching, window: QWidget) -> None:
        """Answer `attaching`'s questions with dialogs over `window`."""
        super().__init__(window)
        self._attaching = attaching
        self._window = window
        self.dialog: QInputDialog | None = None  # the open question, if any
        self._request: PasswordRequest | None = None
        attaching.password_requested.connect(self.ask)
        attaching.password_settled.connect(self._settled)

    def ask(self, request: PasswordRequest) -> QInputDialog:
        """Open the dialog for one question."""
        from PySide6.QtWidgets import QInputDialog, QLineEdit  # the first paint needs no dialog

        self.close()
        dialog = QInputDialog(self._window)
        dialog.setWindowTitle(TITLE)
        dialog.setAccessibleName(TITLE)
        dialog.setInputMode(QInputDialog.InputMode.TextInput)
        dialog.setTextEchoMode(QLineEdit.EchoMode.Password)
        dialog.setLabelText(question(request))
        dialog.setOkButtonText("Attach")
        dialog.setCancelButtonText("Don't attach")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        field = dialog.findChild(QLineEdit)
        if field is not None:
            field.setAccessibleName(f"Password of {request.name}")
        dialog.finished.connect(lambda result, shown=dialog: self._answered(shown, result))
        self.dialog, self._request = dialog, request
        dialog.open()
        return dialog

    def close(self) -> None:
        """Drop the open question's dialog (the window is closing, or the question went)."""
        if self.dialog is not None:
            self.dialog.reject()

    def _answered(self, dialog: QInputDialog, result: int) -> None:
        if dialog is not self.dialog or self._request is None:
            return
        request = self._request
        self.dialog, self._request = None, None
        from PySide6.QtWidgets import QDialog

        accepted = result == QDialog.DialogCode.Accepted.value
        password = dialog.textValue() if accepted else None
        dialog.setTextValue("")  # nothing of it left in the widget
        self._attaching.answer_password(request, password)

    def _settled(self, request: PasswordRequest) -> None:
        # A question dropped without an answer (the window closing): its dialog goes too.
        if self._request is not None and self._request.serial == request.serial:
            self.close()
