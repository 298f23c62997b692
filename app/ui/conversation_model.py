"""The open conversation as a Qt list model: one row per stored message or notice.

Rows change in place while an answer streams: the words are appended at once
(so the row is always current) but `dataChanged` is sent at most every few
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
    """The data roles a row answers; each always has a value ("" or () when not applicable).

    Never `None`: PySide6 6.12 drops a reference to `None` each time Python reads
    an invalid QVariant (`index.data(role)` giving None), which in time aborts
    the interpreter. Python code in the window reads rows through `row()`.
    """

    STORED = Qt.ItemDataRole.UserRole + 1  # the StoredItem as loaded (before streaming)
    ITEM_ID = Qt.ItemDataRole.UserRole + 2
    KIND = Qt.ItemDataRole.UserRole + 3  # "message" or "notice"
    TEXT = Qt.ItemDataRole.UserRole + 4  # the words, including those streamed since
    AUTHOR = Qt.ItemDataRole.UserRole + 5  # "You", the model's ref, "Tool", or the notice kind
    MESSAGE_ROLE = Qt.ItemDataRole.UserRole + 6  # user / assistant / tool / system; "" on a notice
    STATUS = Qt.ItemDataRole.UserRole + 7  # a MessageStatus; "" on a notice
    NOTICE_KIND = Qt.ItemDataRole.UserRole + 8  # a NoticeKind; "" on a message
    PICTURES = Qt.ItemDataRole.UserRole + 9  # tuple[Picture, ...]
    TOOL_CALLS = Qt.ItemDataRole.UserRole + 10  # tuple[ToolCall, ...]
    TOOL_RESULTS = Qt.ItemDataRole.UserRole + 11  # tuple[ToolResult, ...]
    DETAILS = Qt.ItemDataRole.UserRole + 12  # a notice's details; "" on a message


def author_of(message: Message) -> str:
    """Who wrote a message, as its author line says."""
    if message.role == "user":
        return "You"
    if message.role == "assistant":
        return message.model or "Assistant"
    return message.role.capitalize()


@dataclass
class Row:
    """One row; mutable so streamed words and the final status land in place."""

    stored: StoredItem
    text: str
    status: MessageStatus | None

    @classmethod
    def of(cls, stored: StoredItem) -> Row:
        """A row showing a stored item."""
        item = stored.item
        return cls(stored, item.text, None if isinstance(item, Notice) else item.status)

    @property
    def item_id(self) -> int:
        """The stored item's id."""
        return self.stored.id

    @property
    def notice(self) -> Notice | None:
        """The notice shown, if this row is one."""
        item = self.stored.item
        return item if isinstance(item, Notice) else None

    @property
    def message(self) -> Message | None:
        """The message shown, if this row is one."""
        item = self.stored.item
        return item if isinstance(item, Message) else None

    @property
    def author(self) -> str:
        """The author line: "You", the answering model, or the notice's kind."""
        item = self.stored.item
        return author_of(item) if isinstance(item, Message) else str(item.kind).capitalize()

    @property
    def picture_words(self) -> str:
        """How many pictures a row shows, as words for a screen reader: " (2 pictures)" or ""."""
        message = self.message
        if message is None:
            return ""
        count = len(message.pictures) + sum(len(r.pictures) for r in message.tool_results)
        return f" ({count} picture{'s' * (count != 1)})" if count else ""

    def value(self, role: int) -> Any:
        """The value of one of the custom roles (see `Role`); None for any other role."""
        message, notice = self.message, self.notice
        values: dict[int, Any] = {
            Role.STORED: self.stored,
            Role.ITEM_ID: self.item_id,
            Role.KIND: "notice" if notice else "message",
            Role.TEXT: self.text,
            Role.AUTHOR: self.author,
            Role.MESSAGE_ROLE: message.role if message else "",
            Role.STATUS: self.status or "",
            Role.NOTICE_KIND: notice.kind if notice else "",
            Role.PICTURES: message.pictures if message else (),
            Role.TOOL_CALLS: message.tool_calls if message else (),
            Role.TOOL_RESULTS: message.tool_results if message else (),
            Role.DETAILS: notice.details if notice else "",
        }
        return values.get(role)


class ConversationModel(QAbstractListModel):
    """Rows of one conversation, updated by the controller's turn events."""

    def __init__(self, parent: QObject | None = None) -> None:
        """An empty conversation."""
        super().__init__(parent)
        self._rows: list[Row] = []
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
        """One value of one row by role (None, which only Qt reads, for roles not answered)."""
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return row.text
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{row.author}: {row.text}{row.picture_words}"
        return row.value(role)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        """Rows can be selected (to copy them) but not edited."""
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def row(self, position: int) -> Row:
        """A row, read directly (no QVariant round trip)."""
        return self._rows[position]

    # -- updates from the controller --------------------------------------------

    def set_items(self, items: list[StoredItem]) -> None:
        """Show another conversation (or none)."""
        self.beginResetModel()
        self._flush.stop()
        self._dirty.clear()
        self._rows = [Row.of(stored) for stored in items]
        self._by_id = {row.stored.id: i for i, row in enumerate(self._rows)}
        self.endResetModel()

    def add_item(self, stored: StoredItem) -> None:
        """Append a message or notice that just joined the conversation."""
        if stored.id in self._by_id:
            return
        position = len(self._rows)
        self.beginInsertRows(QModelIndex(), position, position)
        self._rows.append(Row.of(stored))
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
        self._rows[position] = Row.of(stored)
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
