"""The window's side of a send: it asks the person what the send still needs, then sends.

The send says what it waits for (app/ui/sending.py): the folder an agent works in, or
the person's word on the chat's earlier pictures leaving this computer. Each is a
question the send awaits — the folder dialog, the leaving prompt — whose answer is kept
before the same send is tried again; Cancel ends it, and the draft stays in the
composer. A send that needs nothing begins at once.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from app.ui.leaving_prompt import LeavingPrompt

if TYPE_CHECKING:
    from PySide6.QtWidgets import QFileDialog

    from app.ui.main_window import MainWindow
    from app.ui.sending import FolderNeeded, LeavingNeeded, Send

BUSY = "Wait for the answer to finish, or Stop it, first."


class SendQuestions:
    """Sends for the window, asking first what each still needs."""

    def __init__(self, window: MainWindow) -> None:
        """Ask over `window`."""
        self._window = window
        self.folder_dialog: QFileDialog | None = None  # asking an agent's folder, if open
        self.leaving = LeavingPrompt(window)

    def send(self, send: Send) -> None:
        """Send now, or once the person has answered what it needs."""
        outcome = self._window.controller.sending.send(send)
        if isinstance(outcome, bool):
            self._sent(send, outcome)
        else:
            self._window.controller.chore(self._answered_then_sent(send, outcome))

    async def _answered_then_sent(self, send: Send, need: FolderNeeded | LeavingNeeded) -> None:
        from app.ui.sending import FolderNeeded  # loaded by the send that asks

        sending = self._window.controller.sending
        while True:
            if isinstance(need, FolderNeeded):
                folder = await self._folder(need.agent_id)
                if folder is None:
                    return  # cancelled: the draft waits in the composer
                sending.choose_folder(folder)
            else:
                # Asked once per chat, before the first request that would take them off it.
                choice = await self.leaving.answer(need.leaving)
                if choice is None:
                    return
                sending.decide_earlier_pictures(choice)
            outcome = sending.send(send)
            if isinstance(outcome, bool):
                self._sent(send, outcome)
                return
            need = outcome

    async def _folder(self, agent_id: str) -> Path | None:
        import asyncio  # after the first paint: a send comes after it

        loop = asyncio.get_running_loop()
        answered: asyncio.Future[Path | None] = loop.create_future()

        def settle(folder: Path | None) -> None:
            if not answered.done():
                answered.set_result(folder)

        dialog = ask_folder(self._window, agent_id, settle)
        # Cancel, or Esc: nothing chosen (after the dialog's own `fileSelected`, if any).
        dialog.finished.connect(lambda _result: loop.call_soon(settle, None))
        self.folder_dialog = dialog
        try:
            return await answered
        finally:
            self.folder_dialog = None

    def _sent(self, send: Send, started: bool) -> None:
        window = self._window
        if not started:
            if window.controller.busy:
                window.statusBar().showMessage(BUSY, 8000)
            return
        if send.again is None:
            window.show_title()  # an agent's chat names its working folder
            window.composer.clear()
            if send.replacing is not None:
                window.chat_actions.sent()
        window.view.jump_to_latest()  # what was sent is always in view


def ask_folder(
    parent: QWidget, agent_id: str, chosen: Callable[[Path], None], start: Path | None = None
) -> QFileDialog:
    """Ask, without blocking the window, which folder the agent works in (the person's
    home to begin with); `chosen` is called with it, and nothing happens on Cancel."""
    from PySide6.QtWidgets import QFileDialog  # the first paint needs no dialog

    dialog = QFileDialog(
        parent, f"Which folder does {agent_id} work in?", str(start or Path.home())
    )
    dialog.setFileMode(QFileDialog.FileMode.Directory)
    dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
    dialog.setLabelText(QFileDialog.DialogLabel.Accept, "Work here")
    dialog.setAccessibleName("Working folder")
    dialog.fileSelected.connect(lambda path: chosen(Path(path)))
    dialog.finished.connect(dialog.deleteLater)
    dialog.open()  # never exec(): the window's asyncio runs on Qt's loop (qasync)
    return dialog
