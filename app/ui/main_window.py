"""The main window: sidebar | (top bar, model status or welcome, conversation, composer) | ledger.

It only wires widgets to the controller: every decision is the controller's
(and its `chats`': search, rename, delete with Undo, export, the ledger).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QStandardPaths, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QMainWindow,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.presenters.approvals import ApprovalRequest
from app.presenters.listing import ModelListing
from app.presenters.model_status import explain
from app.presenters.welcome import is_first_run, welcome
from app.store import ConversationSummary, StoredItem
from app.ui.bars import EditingBar, UndoBar
from app.ui.chat_list import ID_ROLE, UNTITLED
from app.ui.composer.approval_card import ApprovalCard
from app.ui.composer.attachments import AttachmentDrops
from app.ui.composer.composer import Composer
from app.ui.composer.password_prompt import PasswordPrompt
from app.ui.controller import Controller
from app.ui.conversation.chat_actions import ChatActions
from app.ui.conversation.conversation_model import ConversationModel
from app.ui.conversation.conversation_view import ConversationView
from app.ui.first_run import FirstRunPanel
from app.ui.leaving_prompt import LeavingPrompt
from app.ui.ledger_panel import LedgerPanel
from app.ui.menu_bar import MenuBar
from app.ui.models.local_models import LocalModels
from app.ui.provider_panel import ProviderPanel
from app.ui.settings.appearance import Appearance, ThemeChoice
from app.ui.sidebar import Sidebar
from app.ui.top_bar import TopBar
from app.ui.window_state import Remembered, WindowState
from vision.pdf import PdfFile
from vision.pictures import Picture

if TYPE_CHECKING:
    from app.turn.boundary import EarlierPictures
    from app.ui.settings.settings_dialog import SettingsDialog

MARKDOWN_FILTER = "Markdown, pictures in a folder beside it (*.md)"
JSON_FILTER = "JSON, everything in one file (*.json)"
_LEDGER_WIDTH = 340


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
        self.viewer: QDialog | None = None
        self.folder_dialog: QDialog | None = None  # asking an agent's working folder, if open
        self.export_dialog: QFileDialog | None = None
        self.state = WindowState(controller.store.path.parent)
        # The theme chosen in Settings ▸ Appearance, put back before the first paint.
        application = QApplication.instance()
        assert isinstance(application, QApplication)
        self.appearance = Appearance(application, controller.store.path.parent)
        remembered_theme = self.appearance.remembered()
        if remembered_theme != ThemeChoice.SYSTEM:
            self.appearance.apply(remembered_theme, remember=False)
        self._ledger_width = _LEDGER_WIDTH  # the width the person last gave the ledger

        self.sidebar = Sidebar(self)
        self.top = TopBar(self)
        self.picker = self.top.picker
        self.title = self.top.title
        self.settings_button = self.top.settings_button
        self.panel = ProviderPanel(self)
        self.welcome = FirstRunPanel(self)
        self.conversation = ConversationModel(self)
        self.view = ConversationView(self.conversation, self)
        self.approval = ApprovalCard(self)
        self.composer = Composer(self)
        self.editing_bar = EditingBar(self)
        self.message_undo = UndoBar(self, "message")
        self.ledger = LedgerPanel(self)
        # Asks for a locked PDF's password.
        self.passwords = PasswordPrompt(controller.attaching, self)
        self.leaving = LeavingPrompt(self)
        # Many items can arrive at once (a turn's notices): the ledger is read once after.
        self._ledger_timer = QTimer(self)
        self._ledger_timer.setSingleShot(True)
        self._ledger_timer.setInterval(30)
        self._build_layout()
        self.chat_actions = ChatActions(self)  # before `_connect`: Ctrl+Z asks it first
        self.local_models = LocalModels(self)
        self.menus = MenuBar(self)
        self._connect()
        self._shortcuts()
        self._arrange()
        self.resize(1120, 740)

    def _build_layout(self) -> None:
        # The conversation's column: status or welcome, the conversation, approval, composer.
        body = QWidget(self)
        body.setAccessibleName("Conversation")
        column = QVBoxLayout(body)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        # The model status (or, the first time, the welcome) sits above the
        # conversation; in an empty chat it takes the middle of the pane (`_arrange`).
        self.panel_area = QWidget(self)
        area = QVBoxLayout(self.panel_area)
        area.setContentsMargins(18, 8, 18, 8)
        area.addStretch(1)
        for panel in (self.panel, self.welcome):
            centred = QHBoxLayout()
            centred.addStretch(1)
            centred.addWidget(panel, 100)
            centred.addStretch(1)
            area.addLayout(centred)
        area.addStretch(1)
        column.addWidget(self.panel_area)
        column.addWidget(self.view, 1)
        approval_row = QHBoxLayout()  # the card lines up with the composer's box
        approval_row.setContentsMargins(16, 6, 16, 0)
        approval_row.addWidget(self.approval)
        column.addLayout(approval_row)
        for bar in (self.message_undo, self.editing_bar):
            bar_row = QHBoxLayout()  # the bars line up with the composer's box too
            bar_row.setContentsMargins(16, 6, 16, 0)
            bar_row.addWidget(bar)
            column.addLayout(bar_row)
        column.addWidget(self.composer)
        self._column = column

        # The ledger sits beside the conversation, under the top bar: opening it
        # narrows the conversation, never widens the window past the top bar's width.
        self.chat_splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.chat_splitter.setAccessibleName("Conversation and ledger")
        self.chat_splitter.setChildrenCollapsible(False)
        self.chat_splitter.addWidget(body)
        self.chat_splitter.addWidget(self.ledger)
        self.chat_splitter.setStretchFactor(0, 1)
        self.ledger.hide()

        chat = QWidget(self)
        chat.setAccessibleName("Chat")
        chat.setBackgroundRole(QPalette.ColorRole.Base)
        chat.setAutoFillBackground(True)
        chat_column = QVBoxLayout(chat)
        chat_column.setContentsMargins(0, 0, 0, 0)
        chat_column.setSpacing(0)
        chat_column.addWidget(self.top)
        chat_column.addWidget(self.chat_splitter, 1)

        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.setAccessibleName("Sidebar and chat")
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self.sidebar)
        splitter.addWidget(chat)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([250, 870])
        self.sidebar.setMinimumWidth(180)
        self.splitter = splitter
        self.setCentralWidget(splitter)

    def _connect(self) -> None:
        c = self.controller
        c.models_changed.connect(self._show_models)
        c.conversations_changed.connect(self._show_conversations)
        c.conversation_loaded.connect(self._show_conversation)
        c.item_added.connect(self.conversation.add_item)
        c.item_added.connect(self._ledger_timer.start)
        self.conversation.rowsInserted.connect(self._arrange)
        self.conversation.modelReset.connect(self._arrange)
        c.text_added.connect(self.conversation.append_text)
        c.item_finished.connect(self.conversation.finish_item)
        c.item_finished.connect(self._ledger_timer.start)
        c.call_added.connect(self.conversation.add_call)
        c.thought_added.connect(self.conversation.add_thought)
        c.plan_updated.connect(self.conversation.set_plan)
        c.approval_requested.connect(self._show_approval)
        c.approval_settled.connect(self._approval_settled)
        self.approval.answered.connect(c.answer_approval)
        c.busy_changed.connect(self.composer.set_busy)
        c.busy_changed.connect(self._show_agent_offers)
        c.draft_restored.connect(self.composer.restore_draft)
        c.attaching.attachments_changed.connect(self._show_attachments)
        c.problem.connect(lambda message: self.statusBar().showMessage(message, 15000))
        c.chats.deleted_changed.connect(self.sidebar.show_deleted)
        c.chats.told.connect(lambda message: self.statusBar().showMessage(message, 10000))

        self.sidebar.new_chat_requested.connect(c.new_conversation)
        self.sidebar.conversation_selected.connect(c.select_conversation)
        self.sidebar.delete_requested.connect(c.delete_conversation)
        self.sidebar.rename_requested.connect(c.chats.rename)
        self.sidebar.search_changed.connect(c.chats.search)
        self.sidebar.undo_requested.connect(c.chats.undo)
        self.title.renamed.connect(lambda title: c.chats.rename(c.current_id, title))
        self.title.finished.connect(self.composer.edit.setFocus)
        self.composer.send_requested.connect(self._send)
        self.composer.stop_requested.connect(c.stop)
        self.composer.attachments_offered.connect(c.attaching.attach)
        self.composer.remove_requested.connect(c.attaching.remove_attachment)
        self.composer.problems_dismissed.connect(c.attaching.dismiss_problems)
        self.picker.currentIndexChanged.connect(self._show_attachments)
        self.picker.currentIndexChanged.connect(self._show_check_again)
        self.top.check_sight_button.clicked.connect(
            lambda: c.check_sight(self.picker.current_ref())
        )
        self.top.check_again_button.clicked.connect(
            lambda: c.check_again(self.picker.current_ref())
        )
        self.view.picture_clicked.connect(self.open_picture)
        self.view.pdf_clicked.connect(self.open_pdf)
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
        self.ledger.close_requested.connect(lambda: self.show_ledger(False))
        self._ledger_timer.timeout.connect(self._refresh_ledger)

    def _shortcuts(self) -> None:
        c = self.controller
        keys = (
            # New chat, Settings, Find, Export, the ledger and zoom are the menu bar's.
            (QKeySequence(Qt.Key.Key_Escape), c.stop),
            (QKeySequence("Ctrl+K"), self.open_model_picker),
            (QKeySequence(Qt.Key.Key_F2), self.rename_current),
            (QKeySequence("Ctrl+End"), self.view.jump_to_latest),
            # Text boxes keep their own Ctrl+Z (they claim it first); elsewhere it undoes a delete.
            (QKeySequence.StandardKey.Undo, self.undo),
        )
        for key, action in keys:
            shortcut = QShortcut(key, self)
            shortcut.activated.connect(action)

    # -- from the controller ----------------------------------------------------

    def _show_agent_offers(self, busy: bool) -> None:
        if not busy:  # an agent's turn may have said which models and modes it offers
            self.picker.set_agent_offers(self.controller.agent_offers())

    def _show_models(self, listing: ModelListing) -> None:
        self.picker.set_models(listing.models)
        self.picker.set_agents([(a.id, a.is_local) for a in self.controller.agents])
        self.picker.setEnabled(bool(listing.models) or bool(self.picker.agents()))
        self.panel.show_explanation(explain(listing))
        self._arrange()
        self._show_attachments()  # what a model sees may be known only now
        self._show_check_again()
        self._ledger_timer.start()  # hosts of providers may be known only now

    def _show_check_again(self, *_args: object) -> None:
        # Only a model learned blind (it refused pictures) can be checked again.
        ref = self.picker.current_ref()
        learned = ref in self.controller.learned_blind()
        self.top.check_again_button.setVisible(learned)
        # A model nobody says sees (or one checked before) can be checked on demand.
        model = next((m for m in self.picker.models() if m.ref == ref), None)
        # SightFrom's values as text: routing.models loads only after the first paint.
        unsaid = bool(model) and str(getattr(model, "sight_from", "")) in ("unknown", "checked")
        takes = model is not None and model.takes_pictures
        self.top.check_sight_button.setVisible(unsaid and takes and not learned)

    def _show_attachments(self, *_args: object) -> None:
        a, ref = self.controller.attaching, self.picker.current_ref()
        self.composer.show_attachments(a.attachments, a.sight_of(ref), a.pdf_notes(ref))

    def _arrange(self, *_args: object) -> None:
        c = self.controller
        no_models = not c.listing.models and not self.picker.agents()  # an agent answers too
        empty = self.conversation.rowCount() == 0
        # The first time (no config file, no chat yet) the empty chat says hello instead.
        first = empty and is_first_run(c.config.source is not None, c.chats.has_any())
        greeting = welcome(c.listing) if first else None
        if greeting is not None:
            self.welcome.show_welcome(greeting)
        self.welcome.setVisible(greeting is not None)
        self.panel.setVisible(greeting is None and no_models)
        self.panel_area.setVisible(greeting is not None or no_models)
        # An empty chat with something to say shows only that, centred.
        centred = empty and (greeting is not None or no_models)
        self.view.setVisible(not centred)
        self._column.setStretchFactor(self.panel_area, 1 if centred else 0)

    def _show_conversations(self, summaries: list[ConversationSummary]) -> None:
        self.sidebar.set_conversations(
            summaries, self.controller.current_id, self.controller.chats.snippets
        )
        self._show_title()
        self._arrange()  # the first chat ends the welcome; deleting the last may bring it back

    def _show_conversation(self, conversation_id: str, items: list[StoredItem], model: str) -> None:
        self.conversation.set_items(items)
        self.sidebar.show_current(conversation_id)
        if model:
            self.picker.set_current_ref(model)
        self._show_title()
        self._ledger_timer.start()
        if not self.sidebar.list.by_keyboard:  # browsing the list keeps the keyboard there
            self.composer.edit.setFocus()
        waiting = self.controller.waiting_approval(conversation_id)
        if waiting is not None:
            self._show_approval(waiting)
        else:
            self.approval.clear()

    def _show_approval(self, request: ApprovalRequest) -> None:
        if request.conversation_id != self.controller.current_id:
            return  # asked again when the person opens that chat
        self.approval.show_request(request)
        # The card takes the keyboard (so it is heard and reachable by Tab), unless
        # the person is writing a draft: their keys must not go astray.
        edit = self.composer.edit
        if not (edit.hasFocus() and edit.toPlainText().strip()):
            self.approval.setFocus()

    def _approval_settled(self, request: ApprovalRequest) -> None:
        if self.approval.request is None or self.approval.request.serial != request.serial:
            return
        focused = QApplication.focusWidget()
        had_focus = focused is not None and (
            focused is self.approval or self.approval.isAncestorOf(focused)
        )
        self.approval.clear()
        waiting = self.controller.waiting_approval(self.controller.current_id)
        if waiting is not None:
            self._show_approval(waiting)
        elif had_focus:
            self.composer.edit.setFocus()

    def _show_title(self) -> None:
        current = self.controller.current_id
        # Not from the (maybe searched) list: the open chat may be filtered out of it.
        title = self.controller.chats.title(current) or UNTITLED
        self.top.show_title(title, current)
        self.top.show_folder(self.controller.folder(current))
        # The window's own title names the chat too: a taskbar, or a narrow bar, still says it.
        self.setWindowTitle(f"{title} — Sightline" if current else "Sightline")

    def _refresh_ledger(self) -> None:
        if self.ledger.isHidden():
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
        ref = self.picker.current_ref()
        anything = bool(text.strip()) or self.controller.attaching.attachments.anything
        editing = self.chat_actions.editing

        def send() -> bool:
            if not self.controller.send(text, ref, replacing=editing):
                return False
            self._show_title()  # an agent's chat names its working folder
            self.composer.clear()
            self.view.jump_to_latest()  # what was sent is always in view
            if editing is not None:
                self.chat_actions.sent()
            return True

        self.send_checked(ref, send, anything=anything)

    def send_checked(self, ref: str, send: Callable[[], bool], *, anything: bool) -> None:
        """Send (a message, or an answer asked again), once the person has said whether the
        chat's earlier pictures may leave this computer for `ref`, if they would, and, for
        an agent's first turn in the chat, chosen the folder it works in."""
        if self.controller.needs_folder(ref):
            from app.ui.agent_turns import ask_folder

            def chosen(folder: Path) -> None:
                self.controller.set_folder(folder)
                self.send_checked(ref, send, anything=anything)

            # The draft waits in the composer meanwhile; Cancel leaves it there.
            self.folder_dialog = ask_folder(self, ref.partition(":")[0], chosen)
            return
        leaving = self.controller.earlier_pictures_leaving(ref)
        if leaving is not None and anything:
            # Asked once per chat, before the first request that would take them off it.
            self.leaving.ask(leaving, lambda choice: self._send_after(choice, send))
            return
        if not send() and self.controller.busy:
            self.statusBar().showMessage("Wait for the answer to finish, or Stop it, first.", 8000)

    def _send_after(self, choice: EarlierPictures | None, send: Callable[[], bool]) -> None:
        if choice is None:
            return  # cancelled: the draft stays where it is
        self.controller.decide_earlier_pictures(choice)
        send()

    def open_picture(self, picture: Picture) -> QDialog:
        """Show a picture in its own window (replacing one already open)."""
        from app.ui.conversation.picture_viewer import PictureViewer  # on first use, not at start

        if self.viewer is not None:
            self.viewer.close()
        viewer = PictureViewer(picture, self)
        viewer.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        viewer.finished.connect(lambda _result, shown=viewer: self._viewer_closed(shown))
        self.viewer = viewer
        viewer.show()  # not modal: the chat stays usable beside it
        viewer.activateWindow()  # so Esc reaches it, not the window's Stop
        return viewer

    def open_pdf(self, pdf: PdfFile) -> None:
        """Open a PDF of the conversation in the system's viewer."""
        from app.ui.conversation.pdf_opening import open_outside  # on first use, not at start

        try:
            if not open_outside(pdf):
                self.statusBar().showMessage(f"No program here opens {pdf.name}.", 10000)
        except OSError as exc:  # the temporary copy couldn't be written
            self.statusBar().showMessage(f"{pdf.name} could not be opened: {exc}", 10000)

    def _viewer_closed(self, viewer: QDialog) -> None:
        if self.viewer is viewer:
            self.viewer = None

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
        if shown == (not self.ledger.isHidden()):
            self.top.ledger_button.setChecked(shown)
            return
        if shown:
            total = sum(self.chat_splitter.sizes())
            width = min(self._ledger_width, total // 2)
            self.ledger.show()
            self.chat_splitter.setSizes([total - width, width])
            self._refresh_ledger()
        else:
            self._ledger_width = self.chat_splitter.sizes()[1] or self._ledger_width
            self.ledger.hide()
        self.top.ledger_button.setChecked(shown)

    def export_conversation(self) -> QFileDialog | None:
        """Ask where to save the open chat (Markdown or JSON), then write it in the background."""
        conversation_id = self.controller.current_id
        if not conversation_id:
            self.statusBar().showMessage("Nothing to export yet: this chat has no messages.", 8000)
            return None
        if self.export_dialog is not None:
            self.export_dialog.raise_()
            return self.export_dialog
        from app.export import file_name_for  # on first export: the first paint doesn't need it

        folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
        dialog = QFileDialog(self, "Export conversation")
        dialog.setAccessibleName("Export conversation")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilters([MARKDOWN_FILTER, JSON_FILTER])
        dialog.setDefaultSuffix("md")
        dialog.setDirectory(folder or str(Path.home()))
        dialog.selectFile(file_name_for(self.title.text()) + ".md")

        def suffix_follows_format(chosen: str) -> None:
            suffix = "json" if chosen == JSON_FILTER else "md"
            dialog.setDefaultSuffix(suffix)
            typed = dialog.selectedFiles()
            if typed:
                dialog.selectFile(Path(typed[0]).with_suffix(f".{suffix}").name)

        def chosen(path: str) -> None:
            self.controller.chats.export(conversation_id, Path(path))

        dialog.filterSelected.connect(suffix_follows_format)
        dialog.fileSelected.connect(chosen)
        dialog.finished.connect(self._export_closed)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.export_dialog = dialog
        dialog.open()  # window-modal, no nested event loop under qasync
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
            # Emitted once the whole first frame (children too) is drawn and flushed.
            QTimer.singleShot(0, self.first_painted.emit)
        return handled

    def restore_state(self) -> None:
        """Put back the size, place, splitter, ledger and chat of the last run."""
        remembered = self.state.restore(self, self.splitter)
        self._ledger_width = remembered.ledger_width or self._ledger_width
        self.show_ledger(remembered.ledger_open)
        if remembered.last_chat:
            # One deleted since is simply not found: a new chat, as usual.
            self.controller.select_conversation(remembered.last_chat)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Remember the window, and tell whoever runs it that it is closing."""
        ledger_open = not self.ledger.isHidden()
        if ledger_open:
            self._ledger_width = self.chat_splitter.sizes()[1]
        remembered = Remembered(self.controller.current_id, ledger_open, self._ledger_width)
        self.state.save(self, self.splitter, remembered)
        if self.settings_dialog is not None:  # unsaved edits go, and its tasks stop
            self.settings_dialog.done(QDialog.DialogCode.Rejected)
        if self.export_dialog is not None:
            self.export_dialog.reject()
        if self.viewer is not None:
            self.viewer.close()
        self.passwords.close()
        self.closed.emit()
        super().closeEvent(event)
