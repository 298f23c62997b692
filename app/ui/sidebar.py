"""The list of conversations: "New chat", a search box, the list (newest first), and Undo.

Rows rename in place (F2, double-click, or the context menu); Delete asks the
window to delete. The search box filters as the person types; the words are the
controller's to match, so the list only shows what it is given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QEvent,
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPoint,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QKeyEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QLabel,
    QMenu,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.store import ConversationSummary
from app.ui.bars import UndoBar
from app.ui.chat_list import ID_ROLE, ChatRows, ConversationListModel
from app.ui.chat_list_view import ConversationList
from app.ui.edits import EscapeEdit
from app.ui.named import named_button

if TYPE_CHECKING:
    from app.presenters.deleted_chats import Deleted

SEARCH_DELAY_MS = 150  # typing quickly searches once, after the last key


class Sidebar(QWidget):
    """New chat, search, the saved conversations and Undo; reports choices, decides nothing."""

    new_chat_requested = Signal()
    conversation_selected = Signal(str)
    delete_requested = Signal(str)
    rename_requested = Signal(str, str)  # conversation id, new title
    search_changed = Signal(str)
    undo_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        """An empty sidebar."""
        super().__init__(parent)
        self.setAccessibleName("Conversations")
        self.new_button = named_button("New chat", "New chat", "Start a new chat (Ctrl+N)", self)
        self.search = EscapeEdit(self, only_with_text=True)
        self.search.setAccessibleName("Search conversations")
        self.search.setAccessibleDescription("Finds words in titles and in what was said")
        self.search.setPlaceholderText("Search chats (Ctrl+F)")
        self.search.setToolTip("Find chats by their title or anything said in them (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        for button in self.search.findChildren(QToolButton):  # Qt's own clear button
            button.setAccessibleName("Clear search")
        self.model = ConversationListModel(self)
        self.list = ConversationList(self)
        self.list.setAccessibleName("Conversation list")
        self.list.setModel(self.model)
        self.list.setItemDelegate(ChatRows(self.list))
        self.list.setEditTriggers(
            QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.DoubleClicked
        )
        self.list.setFrameShape(QFrame.Shape.NoFrame)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # Airy rows on the sidebar's own background; selection keeps the palette's colour.
        # The background is the viewport's, left unfilled: a style sheet's transparent
        # background on the list reaches its scroll bar too, whose groove then has nothing
        # under it (black on a plain X11 screen).
        self.list.viewport().setAutoFillBackground(False)
        self.list.setStyleSheet(
            "QListView::item { padding: 6px 8px; border-radius: 6px; }"
            "QListView::item:selected {"
            " background: palette(highlight); color: palette(highlighted-text); }"
        )
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.empty = QLabel(self)
        self.empty.setAccessibleName("No conversations found")
        self.empty.setWordWrap(True)
        self.empty.setTextFormat(Qt.TextFormat.PlainText)
        self.empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.empty.setContentsMargins(8, 4, 8, 4)
        self.empty.hide()
        self.undo_bar = UndoBar(self)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 4, 10)
        layout.setSpacing(8)
        layout.addWidget(self.new_button)
        layout.addWidget(self.search)
        layout.addWidget(self.empty)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.undo_bar)

        self.new_button.clicked.connect(self.new_chat_requested)
        self.search.textChanged.connect(lambda _text: self._search_timer.start())
        self.search.escaped.connect(self.search.clear)
        self._search_timer.timeout.connect(lambda: self.search_changed.emit(self.search.text()))
        self.search.returnPressed.connect(self._search_now)
        self.search.installEventFilter(self)
        # A chat the person renames moves to the top (a rename is a use): the list shows
        # it there, not the place scrolled to. Said while the rename is told, around it.
        self._renaming = False
        self.model.rename_requested.connect(lambda *_renamed: self._rename_told(True))
        self.model.rename_requested.connect(self.rename_requested)
        self.model.rename_requested.connect(lambda *_renamed: self._rename_told(False))
        self.list.delete_requested.connect(self.delete_requested)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.selectionModel().currentChanged.connect(self._current_changed)
        self.list.selectionModel().selectionChanged.connect(self._selection_changed)
        self.undo_bar.undo_requested.connect(self.undo_requested)
        self._quiet = False
        self._entering = False  # Enter was pressed in the search box: go to what it finds
        self.context_menu: QMenu | None = None

    def set_conversations(
        self,
        summaries: list[ConversationSummary],
        current: str,
        snippets: Mapping[str, str] | None = None,
    ) -> None:
        """Show the list with `current` selected (without reporting it as a choice)."""
        self._quiet = True
        try:
            self.model.set_conversations(summaries, snippets)
            # Search results may be two lines (title, then the words found).
            self.list.setUniformItemSizes(not snippets or not any(snippets.values()))
            self.show_current(current)
            if self._renaming:
                self.list.follow_current()
        finally:
            self._quiet = False
        self._say_if_empty()

    def _rename_told(self, telling: bool) -> None:
        self._renaming = telling

    def show_current(self, conversation_id: str) -> None:
        """Select a conversation's row (none for a new chat) without reporting it."""
        quiet, self._quiet = self._quiet, True
        try:
            row = self.model.row_of(conversation_id) if conversation_id else -1
            selection = self.list.selectionModel()
            if row < 0:
                selection.clear()
                selection.setCurrentIndex(QModelIndex(), QItemSelectionModel.SelectionFlag.NoUpdate)
            else:
                selection.setCurrentIndex(
                    self.model.index(row, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect
                )
        finally:
            self._quiet = quiet

    def show_deleted(self, deleted: Deleted | None) -> None:
        """Offer Undo for what was just deleted (or hide the offer)."""
        self.undo_bar.show_deleted(deleted)

    def focus_search(self) -> None:
        """Put the keyboard in the search box, its words selected to be typed over."""
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    def rename(self, conversation_id: str) -> None:
        """Edit a conversation's title in its row."""
        row = self.model.row_of(conversation_id)
        if row >= 0:
            index = self.model.index(row, 0)
            self.list.setCurrentIndex(index)
            self.list.edit(index)

    def _search_now(self) -> None:
        """Enter (or Down) in the search box: search now and go to what it finds (`found`)."""
        self._search_timer.stop()
        self._entering = True
        self.search_changed.emit(self.search.text())

    def found(self) -> None:
        """The list shows what the search box asks for: after Enter, go to it."""
        if self._entering:
            self._entering = False
            if self.model.rowCount():
                self.list.enter_from_search()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Down in the search box moves into the results, as in a browser's address bar."""
        if (
            watched is self.search
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Down
        ):
            self._search_now()
            return True
        return super().eventFilter(watched, event)

    def _say_if_empty(self) -> None:
        words = self.search.text().strip()
        if self.model.rowCount():
            self.empty.hide()
            return
        if words:
            self.empty.setText(f"No chat has “{words}”. Press Esc to see every chat.")
        else:
            self.empty.setText("No chats yet. Write a message to start one.")
        self.empty.show()

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not self._quiet and current.isValid():
            self.conversation_selected.emit(current.data(ID_ROLE))

    def _selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        """A row selected without becoming the current one (a screen reader's "select"):
        it opens, as a click or an arrow key does."""
        chosen = selected.indexes()
        if not self._quiet and len(chosen) == 1 and chosen[0] != self.list.currentIndex():
            self.list.selectionModel().setCurrentIndex(
                chosen[0], QItemSelectionModel.SelectionFlag.NoUpdate
            )

    def _menu(self, position: QPoint) -> None:
        index = self.list.indexAt(position)
        if not index.isValid():
            return
        menu = QMenu(self)
        menu.setAccessibleName("Conversation menu")
        conversation_id = index.data(ID_ROLE)
        menu.addAction("Rename", lambda: self.rename(conversation_id))
        menu.addAction("Delete", lambda: self.delete_requested.emit(conversation_id))
        menu.popup(self.list.viewport().mapToGlobal(position))
        self.context_menu = menu  # kept, so it lives while it is open (and tests can reach it)
