"""The list of conversations: "New chat", a search box, the list (newest first), and Undo.

Rows rename in place (F2, double-click, or the context menu); Delete asks the
window to delete. The search box filters as the person types; the words are the
controller's to match, so the list only shows what it is given.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QFont, QFontMetrics, QKeyEvent, QKeySequence, QPainter, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFrame,
    QLabel,
    QListView,
    QMenu,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.store import ConversationSummary
from app.ui.chats import Deleted
from app.ui.edits import EscapeEdit
from app.ui.undo_bar import UndoBar

_Index = QModelIndex | QPersistentModelIndex
ID_ROLE = Qt.ItemDataRole.UserRole + 1
WHEN_ROLE = Qt.ItemDataRole.UserRole + 3  # when it was last used, in a few characters
SNIPPET_ROLE = Qt.ItemDataRole.UserRole + 2  # where a search matched inside; "" if the title
UNTITLED = "New chat"
SEARCH_DELAY_MS = 150  # typing quickly searches once, after the last key


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))


def short_when(timestamp: float, now: float | None = None) -> str:
    """When a chat was last used, in a few characters: "14:02", "Yesterday", "Mon",
    "12 Nov", "Nov 2025"."""
    moment, today = (
        time.localtime(timestamp),
        time.localtime(now if now is not None else time.time()),
    )
    days = (
        time.mktime((today.tm_year, today.tm_mon, today.tm_mday, 0, 0, 0, 0, 0, -1))
        - time.mktime((moment.tm_year, moment.tm_mon, moment.tm_mday, 0, 0, 0, 0, 0, -1))
    ) // 86_400
    if days <= 0:
        return time.strftime("%H:%M", moment)
    if days == 1:
        return "Yesterday"
    if days < 7:
        return time.strftime("%a", moment)
    if moment.tm_year == today.tm_year:
        return f"{moment.tm_mday} {time.strftime('%b', moment)}"
    return time.strftime("%b %Y", moment)


class ConversationListModel(QAbstractListModel):
    """Conversation summaries for the sidebar's list view; a title edited here is reported."""

    rename_requested = Signal(str, str)  # conversation id, new title

    def __init__(self, parent: QObject | None = None) -> None:
        """An empty list."""
        super().__init__(parent)
        self._rows: list[ConversationSummary] = []
        self._snippets: Mapping[str, str] = {}

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008  (Qt's own default)
        """How many conversations."""
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Title, id, snippet and tooltip of one conversation."""
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        summary = self._rows[index.row()]
        snippet = self._snippets.get(summary.id, "")
        if role == Qt.ItemDataRole.DisplayRole:
            return summary.title or UNTITLED  # a snippet is drawn under it by _Rows
        if role == Qt.ItemDataRole.AccessibleTextRole:
            title = f"{summary.title or UNTITLED}, last used {_when(summary.updated_at)}"
            return f"{title}, matches: {snippet}" if snippet else title
        if role == WHEN_ROLE:
            return short_when(summary.updated_at)
        if role == Qt.ItemDataRole.EditRole:
            return summary.title
        if role == ID_ROLE:
            return summary.id
        if role == SNIPPET_ROLE:
            return snippet
        if role == Qt.ItemDataRole.ToolTipRole:
            title, model = summary.title or UNTITLED, summary.model or "auto"
            found = f"\n“{snippet}”" if snippet else ""
            return f"{title}{found}\nModel: {model}\nLast used {_when(summary.updated_at)}"
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        """Rows can be selected and renamed."""
        return super().flags(index) | Qt.ItemFlag.ItemIsEditable

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """A title typed in the list: shown at once, and reported to be saved."""
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        title = " ".join(str(value).split())
        summary = self._rows[index.row()]
        if not title or title == summary.title:
            return False
        self._rows[index.row()] = replace(summary, title=title)
        self.dataChanged.emit(index, index)
        self.rename_requested.emit(summary.id, title)
        return True

    def set_conversations(
        self, summaries: list[ConversationSummary], snippets: Mapping[str, str] | None = None
    ) -> None:
        """Show a fresh list, with the words a search matched in each (if searching)."""
        self.beginResetModel()
        self._rows = list(summaries)
        self._snippets = dict(snippets or {})
        self.endResetModel()

    def row_of(self, conversation_id: str) -> int:
        """The row of a conversation, or -1."""
        return next((i for i, s in enumerate(self._rows) if s.id == conversation_id), -1)

    def summary(self, row: int) -> ConversationSummary:
        """The conversation on a row."""
        return self._rows[row]


class _Rows(QStyledItemDelegate):
    """Rows: the title, and under it (while searching) the words that matched inside the chat.

    Rows are renamed in a box that keeps Esc (cancel) from the window's Stop shortcut.
    """

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        """One line more for a snippet."""
        size = super().sizeHint(option, index)
        if index.data(SNIPPET_ROLE):
            size.setHeight(size.height() + QFontMetrics(_snippet_font(option.font)).lineSpacing())
        return size

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        """The row as the style draws it with its title elided before when it was last used
        (so two chats of one title tell apart), and the snippet in a quieter line below."""
        snippet = str(index.data(SNIPPET_ROLE) or "")
        when = str(index.data(WHEN_ROLE) or "")
        shown = QStyleOptionViewItem(option)
        self.initStyleOption(shown, index)
        font = _snippet_font(shown.font)
        small = QFontMetrics(font)
        lower = small.lineSpacing()
        widget = shown.widget
        style = widget.style() if widget is not None else QApplication.style()
        text = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, shown, widget)
        when_width = small.horizontalAdvance(when) + 10 if when else 0
        title = shown.text
        shown.text = QFontMetrics(shown.font).elidedText(
            title, Qt.TextElideMode.ElideRight, max(20, text.width() - when_width - 6)
        )
        if snippet:
            shown.displayAlignment = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, shown, painter, widget)
        selected = bool(shown.state & QStyle.StateFlag.State_Selected)
        role = (
            QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.PlaceholderText
        )
        # The style insets a row's text by the focus frame's margin: the lines line up.
        inset = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, widget) + 1
        painter.save()
        painter.setFont(font)
        painter.setPen(shown.palette.color(role))
        if when:
            top = QRect(
                text.left(),
                text.top(),
                text.width() - inset,
                text.height() - (lower if snippet else 0),
            )
            painter.drawText(
                top, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), when
            )
        if snippet:
            line = QRect(
                text.left() + inset, text.bottom() - lower + 1, text.width() - inset, lower
            )
            words = small.elidedText(snippet, Qt.TextElideMode.ElideRight, line.width())
            painter.drawText(
                line, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), words
            )
        painter.restore()

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget:
        """A one-line box for the new title."""
        editor = EscapeEdit(parent)
        editor.setAccessibleName("New title")
        editor.setFrame(True)
        return editor

    def setEditorData(self, editor: QWidget, index: _Index) -> None:
        """Start from the current title, all of it selected."""
        if isinstance(editor, EscapeEdit):
            editor.setText(str(index.data(Qt.ItemDataRole.EditRole) or ""))
            editor.selectAll()


def _snippet_font(font: QFont) -> QFont:
    smaller = QFont(font)
    smaller.setPointSizeF(max(7.0, font.pointSizeF() * 0.88))
    return smaller


class ConversationList(QListView):
    """The list itself; Delete asks to delete the selected conversation."""

    delete_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        """An empty list."""
        super().__init__(parent)
        # True while the keyboard moves through the list: the chat it opens must not
        # take the keyboard away, or the next arrow key would land in the composer.
        self.by_keyboard = False

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """The Delete key asks to delete the current conversation; arrows browse."""
        if event.matches(QKeySequence.StandardKey.Delete) or event.key() == Qt.Key.Key_Delete:
            # Checked first: reading an invalid index's data gives None, which
            # PySide6 6.12 miscounts (see conversation_model.Role).
            if self.currentIndex().isValid():
                self.delete_requested.emit(self.currentIndex().data(ID_ROLE))
            return
        self.by_keyboard = True
        try:
            super().keyPressEvent(event)
        finally:
            self.by_keyboard = False

    def enter_from_search(self) -> None:
        """Take the keyboard from the search box, on the first result (opened, focus kept)."""
        self.by_keyboard = True
        try:
            self.setFocus(Qt.FocusReason.TabFocusReason)
            if self.model().rowCount() and not self.currentIndex().isValid():
                self.setCurrentIndex(self.model().index(0, 0))
        finally:
            self.by_keyboard = False


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
        self.new_button = QPushButton("New chat", self)
        self.new_button.setAccessibleName("New chat")
        self.new_button.setToolTip("Start a new chat (Ctrl+N)")
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
        self.list.setItemDelegate(_Rows(self.list))
        self.list.setEditTriggers(
            QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.DoubleClicked
        )
        self.list.setFrameShape(QFrame.Shape.NoFrame)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # Airy rows on the sidebar's own background; selection keeps the palette's colour.
        self.list.setStyleSheet(
            "QListView { background: transparent; }"
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
        self.model.rename_requested.connect(self.rename_requested)
        self.list.delete_requested.connect(self.delete_requested)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.selectionModel().currentChanged.connect(self._current_changed)
        self.undo_bar.undo_requested.connect(self.undo_requested)
        self._quiet = False
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
        finally:
            self._quiet = False
        self._say_if_empty()

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
        """Enter (or Down) in the search box: search now and go to what it found."""
        self._search_timer.stop()
        self.search_changed.emit(self.search.text())
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
