"""Where the window opens Local models (app/ui/models/model_manager.py): the picker's last row,
File ▸ Local models…, Settings, and a notice that no model here could see a picture.

From that notice the dialog offers models that see first; once one is pulled, the
person is asked straight away what to do with it: describe the pictures for the
chat's model (the turn is answered again, and the new model looks), or let the new
model answer the chat itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMessageBox, QPushButton

    from app.ui.main_window import MainWindow
    from app.ui.models.model_manager import ModelManager


class LocalModels(QObject):
    """Opens one Local models dialog for the window's Ollama, and follows up a pull."""

    def __init__(self, window: MainWindow) -> None:
        """Wire the picker's row to the dialog."""
        super().__init__(window)
        self.window = window
        self.dialog: ModelManager | None = None
        self.question: QMessageBox | None = None  # "what now?" after a model that sees came
        self._retry: int | None = None  # the notice whose turn a new model may answer again
        window.picker.manage_requested.connect(self.open)
        window.controller.models_changed.connect(self._offer_in_picker)

    def ollama(self) -> str:
        """The id of the Ollama provider models are pulled to ("" when there is none)."""
        listing = self.window.controller.listing
        return next((p.id for p in listing.providers if p.kind == "ollama"), "")

    def _offer_in_picker(self, *_args: object) -> None:
        self.window.picker.offer_manage(bool(self.ollama()))

    def open(
        self, suggest_vision: bool = False, then_retry: int | None = None
    ) -> ModelManager | None:
        """Open Local models (with the models that see first when asked); None without Ollama."""
        provider = self.ollama()
        if not provider:
            self.window.statusBar().showMessage(
                "Local models need Ollama: add it in Settings ▸ Providers, then try again.", 10000
            )
            return None
        self._retry = then_retry
        if self.dialog is not None:
            self.dialog.raise_()
            self.dialog.activateWindow()
            return self.dialog
        from app.ui.models.model_manager import ModelManager  # on first use, not at start

        dialog = ModelManager(
            self.window.controller, provider, self.window, suggest_vision=suggest_vision
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.pulled.connect(self._pulled)
        dialog.finished.connect(self._closed)
        self.dialog = dialog
        # Within the screen, however small: its installed list scrolls rather than pushing
        # Close off the bottom of an 800×600 screen.
        screen = self.window.screen().availableGeometry()
        hint = dialog.sizeHint()
        dialog.resize(
            min(hint.width(), screen.width() - 24), min(hint.height(), screen.height() - 24)
        )
        dialog.show()  # not modal: the chat stays usable while a model downloads
        return dialog

    def _closed(self) -> None:
        self.dialog = None

    def _pulled(self, ref: str) -> None:
        """A model arrived; after a "no model could see" notice, offer to use it at once."""
        window = self.window
        sees = any(m.ref == ref and m.sees for m in window.controller.listing.models)
        notice = self._retry
        if notice is None or not sees:
            window.statusBar().showMessage(f"{ref} is ready: pick it in the model list.", 10000)
            return
        chat_model = window.picker.current_ref()
        from PySide6.QtWidgets import QMessageBox  # the first paint needs no dialog

        box = QMessageBox(window)
        box.setWindowTitle("A model that sees is ready")
        box.setAccessibleName("A model that sees is ready")
        box.setText(f"{ref} is on this computer now and sees pictures.")
        box.setInformativeText("Use it for this chat's pictures now?")
        describe = box.addButton("Describe the pictures", QMessageBox.ButtonRole.AcceptRole)
        describe.setToolTip(f"{chat_model} answers again, and {ref} puts the pictures into words")
        answer = box.addButton(f"Let {ref} answer", QMessageBox.ButtonRole.ActionRole)
        box.addButton("Later", QMessageBox.ButtonRole.RejectRole)

        def chosen(button: QPushButton | None) -> None:
            if button is answer:
                window.picker.set_current_ref(ref)
            if button in (describe, answer):
                self._retry = None
                window.chat_actions.retry(notice, window.picker.current_ref())

        box.buttonClicked.connect(chosen)
        self.question = box
        box.open()  # window-modal, no nested event loop (qasync)
