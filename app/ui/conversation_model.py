"""The open conversation as a Qt list model: one row per stored message or notice.

Rows change in place while an answer streams: the words are appended at once
(so `data()` is always current) but `dataChanged` is sent at most every few
frames, because each one makes the delegate lay the row's Markdown out again.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
)

from app.store import StoredItem
from routing.transcript import Message, MessageStatus, Notice

_Index = QModelIndex | QPersistentModelIndex
_COALESCE_MS = 33  # about 30 relayouts a second while streaming is plenty to read


class Role(IntEnum):
    """The data roles a row answers; the delegate and the tests read these."""

    STORED = Qt.ItemDataRole.UserRole + 1  # the StoredItem as loaded (before streaming)
    ITEM_ID = Qt.ItemDataRole.UserRole + 2
    KIND = Qt.ItemDataRole.UserRole + 3  # "message" or "notice"
    TEXT = Qt.ItemDataRole.UserRole + 4  # the words, including those streamed since
    AUTHOR = Qt.ItemDataRole.UserRole + 5  # "You", the model's ref, "Tool", ...
    MESSAGE_ROLE = Qt.ItemDataRole.UserRole + 6  # user / assistant / tool / system
    STATUS = Qt.ItemDataRole.UserRole + 7  # MessageStatus, or None for a notice
    NOTICE_KIND = Qt.ItemDataRole.UserRole + 8  # NoticeKind, or None for a message
    PICTURES = Qt.ItemDataRole.UserRole + 9  # tuple[Picture, ...]
    TOOL_CALLS = Qt.ItemDataRole.UserRole + 10  # tuple[ToolCall, ...]
    TOOL_RESULTS = Qt.ItemDataRole.UserRole + 11  # tuple[ToolResult, ...]
    DETAILS = Qt.ItemDataRole.UserRole + 12  # a notice's details


@dataclass
class _Row:
    """One row; mutable so streamed words and the final status can land in place."""

    stored: StoredItem
    text: str
    status: MessageStatus | None


def _row(stored: StoredItem) -> _Row:
    item = stored.item
    if isinstance(item, Notice):
        return _Row(stored, item.text, None)
    return _Row(stored, item.text, item.status)


def author_of(message: Message) -> str:
    """Who wrote a message, as its author line says."""
    if message.role == "user":
        return "You"
    if message.role == "assistant":
        return message.model or "Assistant"
    return message.role.capitalize()


class ConversationModel(QAbstractListModel):
    """Rows of one conversation, updated by the controller's turn events."""

    def __init__(self, parent: QObject | None = None) -> None:
        """An empty conversation."""
        super().__init__(parent)
        self._rows: list[_Row] = []
        self._by_id: dict[int, int] = {}
        self._dirty: set[int] = set()
        self._flush = QTimer(self)
        self._flush.setSingleShot(True)
        self._flush.setInterval(_COALESCE_MS)
        self._flush.timeout.connect(self._emit_dirty)

    # -- Qt's model interface ---------------------------------------------------

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008  (Qt's own default)
        """How many rows (a list model has no children)."""
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """One value of one row, by role."""
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        item = row.stored.item
        if role in (Qt.ItemDataRole.DisplayRole, Role.TEXT):
            return row.text
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{self._author(item)}: {row.text}"
        if role == Role.STORED:
            return row.stored
        if role == Role.ITEM_ID:
            return row.stored.id
        if role == Role.KIND:
            return "notice" if isinstance(item, Notice) else "message"
        if role == Role.AUTHOR:
            return self._author(item)
        if role == Role.STATUS:
            return row.status
        if isinstance(item, Notice):
            if role == Role.NOTICE_KIND:
                return item.kind
            return item.details if role == Role.DETAILS else None
        if role == Role.MESSAGE_ROLE:
            return item.role
        if role == Role.PICTURES:
            return item.pictures
        if role == Role.TOOL_CALLS:
            return item.tool_calls
        return item.tool_results if role == Role.TOOL_RESULTS else None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        """Rows can be selected (to copy them) but not edited."""
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    @staticmethod
    def _author(item: Message | Notice) -> str:
        return author_of(item) if isinstance(item, Message) else str(item.kind).capitalize()

    # -- updates from the controller --------------------------------------------

    def set_items(self, items: list[StoredItem]) -> None:
        """Show another conversation (or none)."""
        self.beginResetModel()
        self._flush.stop()
        self._dirty.clear()
        self._rows = [_row(stored) for stored in items]
        self._by_id = {row.stored.id: i for i, row in enumerate(self._rows)}
        self.endResetModel()

    def add_item(self, stored: StoredItem) -> None:
        """Append a message or notice that just joined the conversation."""
        if stored.id in self._by_id:
            return
        position = len(self._rows)
        self.beginInsertRows(QModelIndex(), position, position)
        self._rows.append(_row(stored))
        self._by_id[stored.id] = position
        self.endInsertRows()

    def append_text(self, item_id: int, text: str) -> None:
        """Add streamed words to a row; ignored for a row this conversation doesn't have."""
        position = self._by_id.get(item_id)
        if position is None:
            return
        self._rows[position].text += text
        self._dirty.add(position)
        if not self._flush.isActive():
            self._flush.start()

    def finish_item(self, stored: StoredItem) -> None:
        """Replace a row with its final stored form (status, words, tool calls)."""
        position = self._by_id.get(stored.id)
        if position is None:
            return
        self._rows[position] = _row(stored)
        self._dirty.discard(position)
        self._changed(position)

    def row_of(self, item_id: int) -> int | None:
        """The row showing an item, if this conversation has it."""
        return self._by_id.get(item_id)

    def _emit_dirty(self) -> None:
        dirty, self._dirty = sorted(self._dirty), set()
        for position in dirty:
            self._changed(position)

    def _changed(self, position: int) -> None:
        index = self.index(position, 0)
        self.dataChanged.emit(index, index)
