"""The list of conversations: a "New chat" button over a list view, newest first."""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    Qt,
    Signal,
)
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QFrame, QListView, QMenu, QPushButton, QVBoxLayout, QWidget

from app.store import ConversationSummary

_Index = QModelIndex | QPersistentModelIndex
ID_ROLE = Qt.ItemDataRole.UserRole + 1
UNTITLED = "New chat"


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))


class ConversationListModel(QAbstractListModel):
    """Conversation summaries for the sidebar's list view."""

    def __init__(self, parent: QObject | None = None) -> None:
        """An empty list."""
        super().__init__(parent)
        self._rows: list[ConversationSummary] = []

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008  (Qt's own default)
        """How many conversations."""
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Title, id and tooltip of one conversation."""
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        summary = self._rows[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return summary.title or UNTITLED
        if role == ID_ROLE:
            return summary.id
        if role == Qt.ItemDataRole.ToolTipRole:
            title, model = summary.title or UNTITLED, summary.model or "auto"
            return f"{title}\nModel: {model}\nLast used {_when(summary.updated_at)}"
        return None

    def set_conversations(self, summaries: list[ConversationSummary]) -> None:
        """Show a fresh list."""
        self.beginResetModel()
        self._rows = list(summaries)
        self.endResetModel()

    def row_of(self, conversation_id: str) -> int:
        """The row of a conversation, or -1."""
        return next((i for i, s in enumerate(self._rows) if s.id == conversation_id), -1)

    def summary(self, row: int) -> ConversationSummary:
        """The conversation on a row."""
        return self._rows[row]


class ConversationList(QListView):
    """The list itself; Delete asks to delete the selected conversation."""

    delete_requested = Signal(str)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """The Delete key asks to delete the current conversation."""
        if event.matches(QKeySequence.StandardKey.Delete) or event.key() == Qt.Key.Key_Delete:
            # Checked first: reading an invalid index's data gives None, which
            # PySide6 6.12 miscounts (see conversation_model.Role).
            if self.currentIndex().isValid():
                self.delete_requested.emit(self.currentIndex().data(ID_ROLE))
            return
        super().keyPressEvent(event)


class Sidebar(QWidget):
    """New chat, and the saved conversations; reports choices, decides nothing."""

    new_chat_requested = Signal()
    conversation_selected = Signal(str)
    delete_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        """An empty sidebar."""
        super().__init__(parent)
        self.setAccessibleName("Conversations")
        self.new_button = QPushButton("New chat", self)
        self.new_button.setAccessibleName("New chat")
        self.new_button.setToolTip("Start a new chat (Ctrl+N)")
        self.model = ConversationListModel(self)
        self.list = ConversationList(self)
        self.list.setAccessibleName("Conversation list")
        self.list.setModel(self.model)
        self.list.setUniformItemSizes(True)
        self.list.setFrameShape(QFrame.Shape.NoFrame)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        # Airy rows on the sidebar's own background; selection keeps the palette's colour.
        self.list.setStyleSheet(
            "QListView { background: transparent; }"
            "QListView::item { padding: 6px 8px; border-radius: 6px; }"
            "QListView::item:selected {"
            " background: palette(highlight); color: palette(highlighted-text); }"
        )
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 4, 10)
        layout.setSpacing(8)
        layout.addWidget(self.new_button)
        layout.addWidget(self.list, 1)

        self.new_button.clicked.connect(self.new_chat_requested)
        self.list.delete_requested.connect(self.delete_requested)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.selectionModel().currentChanged.connect(self._current_changed)
        self._quiet = False

    def set_conversations(self, summaries: list[ConversationSummary], current: str) -> None:
        """Show the list with `current` selected (without reporting it as a choice)."""
        self._quiet = True
        try:
            self.model.set_conversations(summaries)
            self.show_current(current)
        finally:
            self._quiet = False

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

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not self._quiet and current.isValid():
            self.conversation_selected.emit(current.data(ID_ROLE))

    def _menu(self, position: QPoint) -> None:
        index = self.list.indexAt(position)
        if not index.isValid():
            return
        menu = QMenu(self)
        menu.setAccessibleName("Conversation menu")
        conversation_id = index.data(ID_ROLE)
        menu.addAction("Delete…", lambda: self.delete_requested.emit(conversation_id))
        menu.exec(self.list.viewport().mapToGlobal(position))
