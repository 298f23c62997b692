"""The main window: sidebar | (top bar, model status or welcome, conversation, composer) | ledger.

It only wires widgets to the controller: every decision is the controller's
(and its `chats`': search, rename, delete with Undo, export, the ledger).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QResizeEvent
from PySide6.QtWidgets import QApplication, QMainWindow, QWidget

from app.ui.announcer import Announcer
from app.ui.approving import Approving
from app.ui.bars import EditingBar, UndoBar
from app.ui.chat_list import ID_ROLE, UNTITLED
from app.ui.composer.attachments import AttachmentDrops
from app.ui.composer.composer import Composer
from app.ui.composer.context_meter import ContextMeter
from app.ui.composer.password_prompt import PasswordPrompt
from app.ui.controller import Controller
from app.ui.conversation.chat_actions import ChatActions
from app.ui.conversation.conversation_model import ConversationModel
from app.ui.conversation.conversation_view import ConversationView
from app.ui.conversation.earlier_pages import EarlierPages
from app.ui.conversation.picture_actions import PictureActions
from app.ui.first_run import FirstRunPanel
from app.ui.menu_bar import MenuBar
from app.ui.models.local_models import LocalModels
from app.ui.provider_panel import ProviderPanel
from app.ui.send_questions import SendQuestions
from app.ui.settings.appearance import Appearance
from app.ui.sidebar import Sidebar
from app.ui.sight_buttons import SightButtons
from app.ui.top_bar import TopBar
from app.ui.window_layout import SIDEBAR_MIN, WindowLayout
from app.ui.window_state import Remembered, WindowState

if TYPE_CHECKING:
    from PySide6.QtWidgets import QFileDialog

    from app.presenters.listing import ModelListing
    from app.store import ConversationSummary, StoredItem
    from app.ui.conversation.picture_viewer import PictureViewer
    from app.ui.ledger_panel import LedgerPanel
    from app.ui.settings.settings_dialog import SettingsDialog
    from vision.pictures import Picture


class MainWindow(QMainWindow):
    """Sightline's one window."""

    first_painted = Signal()  # after the first paint has been drawn
    closed = Signal()

    def __init__(self, controller: Controller, parent: QWidget | None = None) -> None:
        """Build the widgets and connect them to `controller`."""
        self._painted = False  # first: Qt may call `event` during the base constructor
        super().__init__(parent)
        self.controller = controller
        self.setWindowTitle("Sightline")
        self.setAccessibleName("Sightline")
        self.settings_dialog: SettingsDialog | None = None
        self.export_dialog: QFileDialog | None = None
        self.state = WindowState(controller.store.path.parent)
        # The theme chosen in Settings ▸ Appearance, put back before the first paint.
        application = QApplication.instance()
        assert isinstance(application, QApplication)
        # It follows the platform's contrast setting from now on, while the window lives.
        self.appearance = Appearance(application, self.state, self)
        self.appearance.restore()

        self.sidebar = Sidebar(self)
        self.top = TopBar(self)
        self.picker = self.top.picker
        self.title = self.top.title
        self.settings_button = self.top.settings_button
        self.panel = ProviderPanel(self)
        self.welcome = FirstRunPanel(self)
        self.conversation = ConversationModel(self)
        self.view = ConversationView(self.conversation, self)
        self.composer = Composer(self)
        self.editing_bar = EditingBar(self)
        self.message_undo = UndoBar(self, "message")
        # Asks for a locked PDF's password.
        self.passwords = PasswordPrompt(controller.attaching, self)
        # A send asks what it still needs (an agent's folder, earlier pictures leaving).
        self.questions = SendQuestions(self)
        # Many items can arrive at once (a turn's notices): the ledger is read once after.
        self._ledger_timer = QTimer(self)
        self._ledger_timer.setSingleShot(True)
        self._ledger_timer.setInterval(30)
        self.arrangement = WindowLayout(self)
        self.splitter = self.arrangement.splitter
        self.chat_splitter = self.arrangement.chat_splitter
        self.chat_actions = ChatActions(self)  # before `_connect`: Ctrl+Z asks it first
        self.pictures = PictureActions(self)  # opened, and described
        self.local_models = LocalModels(self)
        self.menus = MenuBar(self)  # its entries and the keys come after the first paint
        self._connect()
        self.arrangement.arrange()
        # The status bar's room is kept from the start: a message appearing in it later
        # must not move the composer (a click aimed at it would miss).
        self.statusBar().setSizeGripEnabled(False)
        self.resize(1120, 740)

    def _connect(self) -> None:
        c = self.controller
        c.models_changed.connect(self._show_models)
        c.chats.changed.connect(self._show_conversations)
        c.conversation_loaded.connect(self._show_conversation)
        # A turn's events, from its feed straight to the conversation's model.
        c.feed.item_added.connect(self.conversation.add_item)
        c.feed.item_added.connect(self._ledger_timer.start)
        self.conversation.rowsInserted.connect(self._arrange)
        self.conversation.modelReset.connect(self._arrange)
        c.feed.text_added.connect(self.conversation.append_text)
        c.feed.item_finished.connect(self.conversation.finish_item)
        c.feed.item_finished.connect(self._ledger_timer.start)
        c.feed.call_added.connect(self.conversation.add_call)
        c.thought_added.connect(self.conversation.add_thought)
        c.plan_updated.connect(self.conversation.set_plan)
        self.approving = Approving(self)  # the open chat's tool call waiting on the card
        c.busy_changed.connect(self.composer.set_busy)
        c.busy_changed.connect(self._show_agent_offers)
        c.draft_restored.connect(self.composer.restore_draft)
        c.attaching.attachments_changed.connect(self._show_attachments)
        c.problem.connect(lambda message: self.statusBar().showMessage(message, 15000))
        # Said to a screen reader as they arrive: after the model's, so the rows are there.
        self.announcer = Announcer(self.view, self.conversation, self)
        c.feed.item_added.connect(self.announcer.item_added)
        c.feed.item_finished.connect(self.announcer.item_finished)
        c.problem.connect(self.announcer.problem)
        c.chats.deleted_changed.connect(self.sidebar.show_deleted)
        c.chats.told.connect(lambda message: self.statusBar().showMessage(message, 10000))

        self.sidebar.new_chat_requested.connect(c.new_conversation)
        self.sidebar.conversation_selected.connect(c.select_conversation)
        self.sidebar.delete_requested.connect(c.delete_conversation)
        self.sidebar.rename_requested.connect(c.chats.rename)
        self.sidebar.search_changed.connect(c.chats.search)
        c.chats.searched.connect(self.sidebar.found)
        self.sidebar.undo_requested.connect(c.chats.undo)
        self.title.renamed.connect(lambda title: c.chats.rename(c.current_id, title))
        self.title.finished.connect(self.composer.edit.setFocus)
        self.composer.send_requested.connect(self._send)
        self.composer.stop_requested.connect(c.stop)
        self.composer.attachments_offered.connect(c.attaching.attach)
        self.composer.remove_requested.connect(c.attaching.remove_attachment)
        self.composer.problems_dismissed.connect(c.attaching.dismiss_problems)
        self.picker.currentIndexChanged.connect(self._show_attachments)
        self.sight_buttons = SightButtons(self)
        self.context_meter = ContextMeter(self)
        self.composer.edit.version_step.connect(self.view.latest_version)
        self.earlier_pages = EarlierPages(self)
        # Files dropped on the conversation are attached, as on the composer.
        self.view.viewport().setAcceptDrops(True)
        self._view_drops = AttachmentDrops(self)
        self.view.viewport().installEventFilter(self._view_drops)
        self._view_drops.offered.connect(c.attaching.attach)
        self.panel.retry_requested.connect(c.refresh_models)
        self.panel.settings_requested.connect(self.open_settings)
        self.welcome.retry_requested.connect(c.refresh_models)
        self.welcome.cloud_requested.connect(self.add_cloud_provider)
        self.top.settings_button.clicked.connect(self.open_settings)
        self.top.export_action.triggered.connect(self.export_conversation)
        self.top.ledger_button.toggled.connect(self.show_ledger)
        self._ledger_timer.timeout.connect(self._refresh_ledger)

    # -- from the controller ----------------------------------------------------

    def _show_agent_offers(self, busy: bool) -> None:
        if not busy:  # an agent's turn may have said which models and modes it offers
            self.picker.set_agent_offers(self.controller.sending.offers())

    def _show_models(self, listing: ModelListing) -> None:
        from app.presenters.model_status import explain  # models are listed after the paint

        self.picker.set_models(listing.models)
        self.picker.set_agents([(a.id, a.is_local) for a in self.controller.agents])
        self.picker.setEnabled(bool(listing.models) or bool(self.picker.agents()))
        self.panel.show_explanation(explain(listing))
        self._arrange()
        self._show_attachments()  # what a model sees may be known only now
        self.sight_buttons.show()
        self._ledger_timer.start()  # hosts of providers may be known only now

    def _show_attachments(self, *_args: object) -> None:
        a, ref = self.controller.attaching, self.picker.current_ref()
        self.composer.show_attachments(a.attachments, a.sight_of(ref), a.pdf_notes(ref))

    def _arrange(self, *_args: object) -> None:
        self.arrangement.arrange()

    def _show_conversations(self, summaries: list[ConversationSummary]) -> None:
        self.sidebar.set_conversations(
            summaries, self.controller.current_id, self.controller.chats.snippets
        )
        self.show_title()
        self._arrange()  # the first chat ends the welcome; deleting the last may bring it back

    def _show_conversation(self, conversation_id: str, items: list[StoredItem], model: str) -> None:
        self.conversation.set_items(items)
        self.sidebar.show_current(conversation_id)
        if model:
            self.picker.set_current_ref(model)
        self.show_title()
        self._ledger_timer.start()
        if not self.sidebar.list.by_keyboard:  # browsing the list keeps the keyboard there
            self.composer.edit.setFocus()
        self.approving.show_waiting(conversation_id)

    def show_title(self) -> None:
        """The open chat's title, in the top bar (with an agent's folder) and the window's."""
        current = self.controller.current_id
        # Not from the (maybe searched) list: the open chat may be filtered out of it.
        title = self.controller.chats.title(current) or UNTITLED
        self.top.show_title(title, current)
        self.top.show_folder(self.controller.folder(current))
        # The window's own title names the chat too: a taskbar, or a narrow bar, still says it.
        self.setWindowTitle(f"{title} — Sightline" if current else "Sightline")

    @property
    def ledger(self) -> LedgerPanel:
        """“Where your data went”, made the first time it is opened (or asked for)."""
        return self.arrangement.ledger()

    def _refresh_ledger(self) -> None:
        if not self.arrangement.ledger_open:
            return
        c = self.controller
        providers = (*c.config.providers, *c.listing.providers)
        self.ledger.show_crossings(
            c.chats.crossings(c.current_id, providers), has_chat=bool(c.current_id)
        )

    # -- from the person --------------------------------------------------------

    def undo(self) -> None:
        """Ctrl+Z: bring back the message deleted last, else the chat deleted last."""
        if not self.controller.versions.undo():
            self.controller.chats.undo()

    def _send(self, text: str) -> None:
        from app.ui.sending import Send  # the first send comes after the first paint

        editing = self.chat_actions.editing
        self.questions.send(Send(self.picker.current_ref(), text, replacing=editing))

    def open_picture(self, picture: Picture) -> PictureViewer:
        """Show a picture in its own window (replacing one already open)."""
        return self.pictures.open_picture(picture)

    @property
    def viewer(self) -> PictureViewer | None:
        """The picture shown in its own window, if one is open."""
        return self.pictures.viewer

    def open_model_picker(self) -> None:
        """Open the model list from the keyboard (Ctrl+K)."""
        if not self.picker.isEnabled():
            self.statusBar().showMessage("No model is ready yet: see the panel for why.", 8000)
            return
        self.picker.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.picker.showPopup()

    def rename_current(self) -> None:
        """F2: rename the chat selected in the list (if it has the keyboard), else the open one."""
        listed = self.sidebar.list.currentIndex()
        if self.sidebar.list.hasFocus() and listed.isValid():
            self.sidebar.rename(listed.data(ID_ROLE))
        elif not self.title.start_editing():
            self.statusBar().showMessage(
                "A new chat is named by its first message; rename it after you send one.", 8000
            )

    def show_ledger(self, shown: bool) -> None:
        """Show or hide “Where your data went” beside the chat."""
        if shown != self.arrangement.ledger_open:  # not so already
            self.arrangement.show_ledger(shown)
            if shown:
                self._refresh_ledger()
        self.top.ledger_button.setChecked(shown)

    def export_conversation(self) -> QFileDialog | None:
        """Ask where to save the open chat (Markdown or JSON), then write it in the background."""
        chat = self.controller.current_id
        if not chat:
            self.statusBar().showMessage("Nothing to export yet: this chat has no messages.", 8000)
            return None
        if self.export_dialog is not None:
            self.export_dialog.raise_()
            return self.export_dialog
        from app.ui.export_dialog import ask_export_path  # the first paint needs no dialog

        dialog = ask_export_path(
            self, self.title.text(), lambda path: self.controller.chats.export(chat, path)
        )
        dialog.finished.connect(self._export_closed)
        self.export_dialog = dialog
        return dialog

    def _export_closed(self) -> None:
        self.export_dialog = None

    def add_cloud_provider(self) -> None:
        """Open Settings → Providers with the list of providers to add."""
        self.open_settings().offer_cloud()

    def open_settings(self) -> SettingsDialog:
        """Open the Settings dialog (or bring the open one forward)."""
        if self.settings_dialog is not None:
            self.settings_dialog.raise_()
            self.settings_dialog.activateWindow()
            return self.settings_dialog
        # Imported on first use: the first paint doesn't need the dialog's modules.
        from app.ui.settings.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.controller, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.finished.connect(self._settings_closed)
        self.settings_dialog = dialog
        dialog.open()  # window-modal, no nested event loop under qasync
        return dialog

    def _settings_closed(self) -> None:
        self.settings_dialog = None

    # -- window events ----------------------------------------------------------

    def event(self, event: QEvent) -> bool:
        """Note the first paint: the moment the person sees a window."""
        handled = super().event(event)
        if not self._painted and event.type() == QEvent.Type.Paint:
            self._painted = True
            # Once the whole first frame (children too) is drawn and flushed.
            QTimer.singleShot(0, self._first_frame_shown)
        return handled

    def _first_frame_shown(self) -> None:
        """Say the first frame is shown (the time is noted then), then add what it didn't
        show: the menus' entries and the keys, before any key reaches the window."""
        self.first_painted.emit()
        self.menus.fill()

    def resizeEvent(self, event: QResizeEvent) -> None:
        """The panels give way in a small window, so the conversation keeps its room."""
        super().resizeEvent(event)
        self.arrangement.fit()

    def find_chats(self) -> None:
        """Ctrl+F: the search box, the sidebar brought back if it stepped aside."""
        self.arrangement.show_sidebar()
        self.sidebar.focus_search()

    def restore_state(self) -> None:
        """Put back the size, place, splitter, ledger and chat of the last run."""
        remembered = self.state.restore(self, self.splitter)
        self.arrangement.ledger_width = remembered.ledger_width or self.arrangement.ledger_width
        if remembered.sidebar_width >= SIDEBAR_MIN:
            self.arrangement.sidebar_width = remembered.sidebar_width
        self.show_ledger(remembered.ledger_open)
        if remembered.last_chat:
            # One deleted since is simply not found: a new chat, as usual.
            self.controller.select_conversation(remembered.last_chat)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Remember the window, and tell whoever runs it that it is closing."""
        ledger_open, width = self.arrangement.ledger_open, self.arrangement.ledger_width_now()
        side = self.arrangement.sidebar_width
        remembered = Remembered(self.controller.current_id, ledger_open, width, side)
        if self.arrangement.sidebar_aside:  # saved as shown: a wider window has it back
            self.sidebar.show()
        chat = sum(self.splitter.sizes()) - self.arrangement.sidebar_width
        self.splitter.setSizes([self.arrangement.sidebar_width, max(1, chat)])  # as left
        self.state.save(self, self.splitter, remembered)
        if self.settings_dialog is not None:  # unsaved edits go, and its tasks stop
            from PySide6.QtWidgets import QDialog  # loaded by then: Settings is one

            self.settings_dialog.done(QDialog.DialogCode.Rejected)
        if self.export_dialog is not None:
            self.export_dialog.reject()
        if self.viewer is not None:
            self.viewer.close()
        self.passwords.close()
        self.closed.emit()
        super().closeEvent(event)
