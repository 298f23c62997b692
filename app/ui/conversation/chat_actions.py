"""The window's side of the everyday chat actions: answer again (Retry too), edit and
resend, delete with Undo, versions, and the chat settings panel.

The view and the header ask; this carries the request to the controller and
keeps what only the window knows: which message is being edited in the
composer, and the open panel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt

if TYPE_CHECKING:
    from app.ui.conversation.chat_settings_panel import ChatSettingsPanel
    from app.ui.conversation.message_actions import MenuModel, Requested
    from app.ui.main_window import MainWindow

BUSY = "Wait for the answer to finish, or Stop it, first."


class ChatActions(QObject):
    """Carries a window's chat actions to its controller."""

    def __init__(self, window: MainWindow) -> None:
        """Wire the window's view, composer bars and header."""
        super().__init__(window)
        self.window = window
        self.editing: int | None = None  # the message of the person's being edited
        self.panel: ChatSettingsPanel | None = None
        c = window.controller
        window.view.models_for_menu = self.models
        window.view.action_requested.connect(self.act)
        window.editing_bar.cancelled.connect(self.cancel_editing)
        # Through the controller: its versions are made after the first paint, or when used.
        window.message_undo.undo_requested.connect(self._undo_delete)
        c.deleted_changed.connect(window.message_undo.show_deleted)
        c.conversation_loaded.connect(self._chat_changed)
        window.top.chat_settings_action.triggered.connect(self.open_settings)

    def models(self) -> list[MenuModel]:
        """What a "… with" submenu offers: the picker's models, each with the picker's eye
        badge where it sees (faint where nobody says; none where it doesn't)."""
        from PySide6.QtGui import QPalette

        from app.ui.conversation.message_actions import MenuModel  # with the first menu
        from app.ui.icons import badges_icon
        from app.ui.models.model_picker import sight_words

        picker = self.window.picker
        color = picker.palette().color(QPalette.ColorGroup.Active, QPalette.ColorRole.Text)
        return [
            MenuModel(m.ref, m.ref, badges_icon(m.sees, False, color), sight_words(m)[0])
            for m in picker.models()
        ]

    def _undo_delete(self) -> None:
        self.window.controller.versions.undo()

    def _tell(self, words: str) -> None:
        self.window.statusBar().showMessage(words, 8000)

    def act(self, requested: Requested) -> None:
        """Do what the person asked of a row."""
        c = self.window.controller
        if requested.action == "version":
            if not c.show_version(requested.item_id):
                self._tell(BUSY)
        elif requested.action == "delete":
            if not c.delete_item(requested.item_id):
                self._tell(BUSY)
        elif requested.action == "edit":
            self.edit(requested.item_id)
        elif requested.action == "get_seeing":
            self.window.local_models.open(suggest_vision=True, then_retry=requested.item_id)
        else:  # the new answer comes into view once it begins
            from app.ui.sending import Send  # the first send comes after the first paint

            ref = requested.model_ref or self.window.picker.current_ref()
            self.window.questions.send(Send(ref, again=requested.item_id))

    def retry(self, item_id: int, model_ref: str) -> None:
        """Answer the turn `item_id` belongs to again, with `model_ref`."""
        from app.ui.conversation.message_actions import Requested  # as a row's menu does

        self.act(Requested("regenerate", item_id, model_ref))

    # -- editing -------------------------------------------------------------------

    def edit(self, item_id: int) -> None:
        """Put a sent message in the composer; sending it forks the chat there."""
        window, c = self.window, self.window.controller
        if c.busy_here():
            self._tell(BUSY)
            return
        from routing.transcript import Message  # loaded by the rows the person edits

        stored = c.store.get_item(item_id)
        if stored is None or not isinstance(stored.item, Message):
            return
        if window.composer.text().strip() or c.attaching.attachments.anything:
            self._tell("Send or clear what is in the message box first: editing replaces it.")
            return
        message = stored.item
        window.composer.restore_draft(message.text)
        if message.pictures or message.pdfs:
            from app.presenters.pending import Attachments, attached_pdf

            pdfs = tuple(attached_pdf(pdf) for pdf in message.pdfs)
            c.attaching.give_back(Attachments(message.pictures, pdfs))
        self.editing = item_id
        window.editing_bar.show()
        window.composer.edit.setFocus(Qt.FocusReason.OtherFocusReason)

    def cancel_editing(self) -> None:
        """Leave the message as it was: the composer is emptied of the edit."""
        if self.editing is None:
            return
        self.editing = None
        self.window.editing_bar.hide()
        self.window.composer.clear()
        self.window.controller.attaching.take()  # the edit's attachments go with it

    def sent(self) -> None:
        """The edit was sent: the composer is a plain one again."""
        self.editing = None
        self.window.editing_bar.hide()

    def _chat_changed(self, conversation_id: str, *_rest: object) -> None:
        # Another chat (or a new one): an edit of this chat's message can't follow it.
        if self.editing is not None:
            stored = self.window.controller.store.get_item(self.editing)
            if stored is None or stored.conversation_id != conversation_id:
                self.cancel_editing()

    # -- the chat's settings -------------------------------------------------------

    def open_settings(self) -> ChatSettingsPanel:
        """Open the open chat's settings (or bring the open panel forward)."""
        if self.panel is not None:
            self.panel.raise_()
            return self.panel
        from app.ui.conversation.chat_settings_panel import ChatSettingsPanel

        c = self.window.controller
        chat = c.current_id
        title = self.window.title.text()

        def save(settings: object) -> None:
            from routing.chat_settings import ChatSettings

            assert isinstance(settings, ChatSettings)
            c.versions.set_settings(chat, settings)
            self._tell(f"Chat settings saved for “{title}”.")

        model = c.sight.model_answer(self.window.picker.current_ref())  # what it takes, noted
        panel = ChatSettingsPanel(
            title, c.versions.settings(chat), c.config.system_prompt, save, self.window, model
        )
        panel.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        panel.finished.connect(self._panel_closed)
        self.panel = panel
        panel.open()  # window-modal, no nested event loop under qasync
        return panel

    def _panel_closed(self) -> None:
        self.panel = None
