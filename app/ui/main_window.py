"""The main window: sidebar | (top bar with the picker, model status, conversation, composer).

It only wires widgets to the controller: every decision is the controller's.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.store import ConversationSummary, StoredItem
from app.ui.approval_card import ApprovalCard
from app.ui.approvals import ApprovalRequest
from app.ui.attachments import PictureDrops
from app.ui.composer import Composer
from app.ui.controller import Controller, ModelListing
from app.ui.conversation_model import ConversationModel
from app.ui.conversation_view import ConversationView
from app.ui.model_picker import ModelPicker
from app.ui.provider_panel import ProviderPanel, explain
from app.ui.sidebar import UNTITLED, Sidebar
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
        self._summaries: list[ConversationSummary] = []
        self.delete_box: QMessageBox | None = None
        self.settings_dialog: QDialog | None = None
        self.viewer: QDialog | None = None

        self.sidebar = Sidebar(self)
        self.picker = ModelPicker(self)
        self.title = QLabel(UNTITLED, self)
        self.title.setAccessibleName("Conversation title")
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.settings_button = QPushButton("Settings…", self)
        self.settings_button.setAccessibleName("Settings")
        self.settings_button.setToolTip("Providers and their keys (Ctrl+,)")
        self.panel = ProviderPanel(self)
        self.conversation = ConversationModel(self)
        self.view = ConversationView(self.conversation, self)
        self.approval = ApprovalCard(self)
        self.composer = Composer(self)
        self._build_layout()
        self._connect()
        self._arrange()
        self.resize(1120, 740)

    def _build_layout(self) -> None:
        top = QHBoxLayout()
        top.setContentsMargins(18, 10, 16, 10)
        top.setSpacing(8)
        top.addWidget(self.title, 1)
        model_label = QLabel("Model", self)
        model_label.setBuddy(self.picker)
        model_label.setAccessibleName("Model label")
        top.addWidget(model_label)
        top.addWidget(self.picker)
        top.addSpacing(4)
        top.addWidget(self.settings_button)

        chat = QWidget(self)
        chat.setAccessibleName("Chat")
        chat.setBackgroundRole(QPalette.ColorRole.Base)
        chat.setAutoFillBackground(True)
        column = QVBoxLayout(chat)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addLayout(top)
        # The model status sits above the conversation; in an empty chat it takes
        # the middle of the pane instead (see `_arrange`).
        self.panel_area = QWidget(self)
        area = QVBoxLayout(self.panel_area)
        area.setContentsMargins(18, 8, 18, 8)
        area.addStretch(1)
        centred = QHBoxLayout()
        centred.addStretch(1)
        centred.addWidget(self.panel, 100)
        centred.addStretch(1)
        area.addLayout(centred)
        area.addStretch(1)
        column.addWidget(self.panel_area)
        column.addWidget(self.view, 1)
        approval_row = QHBoxLayout()  # the card lines up with the composer's box
        approval_row.setContentsMargins(16, 6, 16, 0)
        approval_row.addWidget(self.approval)
        column.addLayout(approval_row)
        column.addWidget(self.composer)
        self._column = column

        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.setAccessibleName("Sidebar and chat")
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self.sidebar)
        splitter.addWidget(chat)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([250, 870])
        self.sidebar.setMinimumWidth(180)
        self.setCentralWidget(splitter)

    def _connect(self) -> None:
        c = self.controller
        c.models_changed.connect(self._show_models)
        c.conversations_changed.connect(self._show_conversations)
        c.conversation_loaded.connect(self._show_conversation)
        c.item_added.connect(self.conversation.add_item)
        self.conversation.rowsInserted.connect(self._arrange)
        self.conversation.modelReset.connect(self._arrange)
        c.text_added.connect(self.conversation.append_text)
        c.item_finished.connect(self.conversation.finish_item)
        c.call_added.connect(self.conversation.add_call)
        c.approval_requested.connect(self._show_approval)
        c.approval_settled.connect(self._approval_settled)
        self.approval.answered.connect(c.answer_approval)
        c.busy_changed.connect(self.composer.set_busy)
        c.draft_restored.connect(self.composer.restore_draft)
        c.attachments_changed.connect(self._show_attachments)
        c.problem.connect(lambda message: self.statusBar().showMessage(message, 15000))

        self.sidebar.new_chat_requested.connect(c.new_conversation)
        self.sidebar.conversation_selected.connect(c.select_conversation)
        self.sidebar.delete_requested.connect(self.ask_to_delete)
        self.composer.send_requested.connect(self._send)
        self.composer.stop_requested.connect(c.stop)
        self.composer.pictures_offered.connect(c.attach)
        self.composer.remove_requested.connect(c.remove_attachment)
        self.composer.problems_dismissed.connect(c.dismiss_problems)
        self.picker.currentIndexChanged.connect(self._show_attachments)
        self.view.picture_clicked.connect(self.open_picture)
        # Pictures dropped on the conversation are attached, as on the composer.
        self.view.viewport().setAcceptDrops(True)
        self._view_drops = PictureDrops(self)
        self.view.viewport().installEventFilter(self._view_drops)
        self._view_drops.offered.connect(c.attach)
        self.panel.retry_requested.connect(c.refresh_models)
        self.panel.settings_requested.connect(self.open_settings)
        self.settings_button.clicked.connect(self.open_settings)

        new_chat = QShortcut(QKeySequence.StandardKey.New, self)
        new_chat.activated.connect(c.new_conversation)
        stop = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        stop.activated.connect(c.stop)
        settings = QShortcut(QKeySequence("Ctrl+,"), self)
        settings.activated.connect(self.open_settings)

    # -- from the controller ----------------------------------------------------

    def _show_models(self, listing: ModelListing) -> None:
        self.picker.set_models(listing.models)
        self.picker.setEnabled(bool(listing.models))
        self.panel.show_explanation(explain(listing))
        self._arrange()
        self._show_attachments()  # what a model sees may be known only now

    def _show_attachments(self, *_args: object) -> None:
        c = self.controller
        self.composer.show_attachments(c.attachments, c.sight_of(self.picker.current_ref()))

    def _arrange(self, *_args: object) -> None:
        no_models = not self.controller.listing.models
        empty = self.conversation.rowCount() == 0
        self.panel_area.setVisible(no_models)
        # An empty chat with nothing to answer shows only the status, centred.
        self.view.setVisible(not (no_models and empty))
        self._column.setStretchFactor(self.panel_area, 1 if no_models and empty else 0)

    def _show_conversations(self, summaries: list[ConversationSummary]) -> None:
        self._summaries = summaries
        self.sidebar.set_conversations(summaries, self.controller.current_id)
        self._show_title()

    def _show_conversation(self, conversation_id: str, items: list[StoredItem], model: str) -> None:
        self.conversation.set_items(items)
        self.sidebar.show_current(conversation_id)
        if model:
            self.picker.set_current_ref(model)
        self._show_title()
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
        summary = next((s for s in self._summaries if s.id == current), None)
        self.title.setText(summary.title if summary and summary.title else UNTITLED)

    # -- from the person --------------------------------------------------------

    def _send(self, text: str) -> None:
        if self.controller.send(text, self.picker.current_ref()):
            self.composer.clear()

    def open_picture(self, picture: Picture) -> QDialog:
        """Show a picture in its own window (replacing one already open)."""
        from app.ui.picture_viewer import PictureViewer  # on first use, not at start

        if self.viewer is not None:
            self.viewer.close()
        viewer = PictureViewer(picture, self)
        viewer.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        viewer.finished.connect(lambda _result, shown=viewer: self._viewer_closed(shown))
        self.viewer = viewer
        viewer.show()  # not modal: the chat stays usable beside it
        viewer.activateWindow()  # so Esc reaches it, not the window's Stop
        return viewer

    def _viewer_closed(self, viewer: QDialog) -> None:
        if self.viewer is viewer:
            self.viewer = None

    def ask_to_delete(self, conversation_id: str) -> None:
        """Ask before deleting a conversation; the answer arrives without blocking the loop."""
        summary = next((s for s in self._summaries if s.id == conversation_id), None)
        title = summary.title if summary and summary.title else UNTITLED
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Delete conversation",
            f"Delete “{title}” and all its messages? This can't be undone.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setAccessibleName("Delete conversation")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.button(QMessageBox.StandardButton.Yes).setText("Delete")

        def answered(result: int) -> None:
            self.delete_box = None
            if result == QMessageBox.StandardButton.Yes:
                self.controller.delete_conversation(conversation_id)

        box.finished.connect(answered)
        self.delete_box = box
        box.open()  # window-modal, no nested event loop under qasync

    def open_settings(self) -> QDialog:
        """Open the Settings dialog (or bring the open one forward)."""
        if self.settings_dialog is not None:
            self.settings_dialog.raise_()
            self.settings_dialog.activateWindow()
            return self.settings_dialog
        # Imported on first use: the first paint doesn't need the dialog's modules.
        from app.ui.settings_dialog import SettingsDialog

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

    def closeEvent(self, event: QCloseEvent) -> None:
        """Tell whoever runs the window that it is closing."""
        if self.settings_dialog is not None:  # unsaved edits go, and its tasks stop
            self.settings_dialog.done(QDialog.DialogCode.Rejected)
        if self.viewer is not None:
            self.viewer.close()
        self.closed.emit()
        super().closeEvent(event)
