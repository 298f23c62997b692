"""The window's question before a chat's earlier pictures first leave this computer.

A chat whose pictures (or PDFs) were seen only on this computer, now sent to a
model off it, asks once: send them, send the conversation without them (each
becomes a line saying it was there), or cancel, which keeps the draft. The answer
is kept with the chat, so the question is not asked again. The send awaits the answer
(app/ui/send_questions.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from PySide6.QtWidgets import QAbstractButton, QMessageBox

    from app.turn.boundary import EarlierPictures, Leaving

TITLE = "Send earlier pictures off this computer?"
SEND = "Send them"
WITHHOLD = "Send without them"
CANCEL = "Cancel"


def question(leaving: Leaving) -> str:
    """What the dialog says: which pictures, to which model, where."""
    count = len(leaving.kept)
    them = "They have" if count != 1 else "It has"
    return (
        f"Earlier in this chat: {leaving.labels}. {them} stayed on this computer so far.\n\n"
        f"{leaving.model_ref} runs at {leaving.host}, off this computer, and would get "
        f"{'them' if count != 1 else 'it'} with the conversation."
    )


class LeavingPrompt(QObject):
    """Asks the question in a window-modal dialog; a send awaits the answer."""

    def __init__(self, window: QWidget) -> None:
        """Ask over `window`."""
        super().__init__(window)
        self._window = window
        self.dialog: QMessageBox | None = None  # the open question, if any

    async def answer(self, leaving: Leaving) -> EarlierPictures | None:
        """Open the dialog and wait for the person: SEND, WITHHOLD, or None for Cancel
        (an earlier question still open is cancelled)."""
        import asyncio  # after the first paint: a send comes after it

        from PySide6.QtWidgets import QMessageBox

        from app.turn.boundary import EarlierPictures

        if self.dialog is not None:
            self.dialog.reject()
        answered: asyncio.Future[EarlierPictures | None] = (
            asyncio.get_running_loop().create_future()
        )
        dialog = QMessageBox(self._window)
        dialog.setIcon(QMessageBox.Icon.Question)
        dialog.setWindowTitle(TITLE)
        dialog.setAccessibleName(TITLE)
        dialog.setText(question(leaving))
        send = dialog.addButton(SEND, QMessageBox.ButtonRole.AcceptRole)
        withhold = dialog.addButton(WITHHOLD, QMessageBox.ButtonRole.ActionRole)
        cancel = dialog.addButton(CANCEL, QMessageBox.ButtonRole.RejectRole)
        dialog.setDefaultButton(cancel)
        dialog.setEscapeButton(cancel)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        choices: dict[QAbstractButton, EarlierPictures] = {
            send: EarlierPictures.SEND,
            withhold: EarlierPictures.WITHHOLD,
        }

        def finished(_result: int) -> None:
            if self.dialog is dialog:
                self.dialog = None
            if not answered.done():
                answered.set_result(choices.get(dialog.clickedButton()))

        dialog.finished.connect(finished)
        self.dialog = dialog
        dialog.open()
        try:
            return await answered
        except asyncio.CancelledError:  # the send was dropped (the window closes)
            if self.dialog is dialog:
                dialog.reject()
            raise
