"""The open conversation as a Qt list model: one row (app/presenters/rows.py) per stored
message or notice, and the roles Qt reads them by.

Rows change in place while an answer streams: the words are appended at once
(so the row is always current) but `dataChanged` is sent at most every few
frames, because each one makes the delegate lay the row's Markdown out again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from enum import IntEnum
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
)

from app.presenters.rows import (
    PLAN_ROW,
    THOUGHT_ROW,
    Row,
    agent_row_id,
    latest_turn,
    place_switches,
    plan_text,
    thought_and_plan_rows,
)

if TYPE_CHECKING:
    from app.store import PictureWords, StoredItem
    from routing.transcript import ToolCall

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
    EXPANDED = Qt.ItemDataRole.UserRole + 13  # a tool row or notice shows everything; else False
    PDFS = Qt.ItemDataRole.UserRole + 14  # tuple[PdfFile, ...]: the PDFs a person attached


def value(row: Row, role: int) -> Any:
    """A row's value for one of the custom roles (see `Role`); None for any other role."""
    message, notice = row.message, row.notice
    values: dict[int, Any] = {
        Role.STORED: row.stored,
        Role.ITEM_ID: row.item_id,
        Role.KIND: row.agent or ("notice" if notice else "message"),
        Role.TEXT: row.text,
        Role.AUTHOR: row.author,
        Role.MESSAGE_ROLE: message.role if message else "",
        Role.STATUS: row.status or "",
        Role.NOTICE_KIND: notice.kind if notice else "",
        Role.PICTURES: message.pictures if message else (),
        Role.TOOL_CALLS: row.tool_calls,
        Role.TOOL_RESULTS: message.tool_results if message else (),
        Role.DETAILS: notice.details if notice else "",
        Role.EXPANDED: row.expanded,
        Role.PDFS: message.pdfs if message else (),
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
        self._calls: dict[str, ToolCall] = {}  # call id -> the latest call with it
        self._flush = QTimer(self)
        self._flush.setSingleShot(True)
        self._flush.setInterval(_COALESCE_MS)
        self._flush.timeout.connect(self._emit_dirty)
        # The words held for pictures, by SHA-256 (the window's is the controller's
        # `describing.words`); asked only when a screen reader reads a row's description.
        self.picture_words: Callable[[Iterable[str]], Mapping[str, PictureWords]] = lambda _: {}

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
            return row.accessible_text
        if role == Qt.ItemDataRole.AccessibleDescriptionRole:
            pictures = row.pictures
            return row.pictures_described(self.picture_words(p.sha256 for p in pictures))
        return value(row, role)

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
        """Show another conversation (or none), or the end of a long one (`has_earlier`)."""
        self.beginResetModel()
        self._flush.stop()
        self._dirty.clear()
        self._calls = {}
        self._rows = self._rows_of(items)
        self._by_id = {row.stored.id: i for i, row in enumerate(self._rows)}
        place_switches(self._rows, 0)
        self.endResetModel()

    def has_earlier(self) -> bool:
        """Whether the conversation goes on above its first row (its first item follows one)."""
        return bool(self._rows) and self._rows[0].stored.parent_id is not None

    def first_item(self) -> int | None:
        """The id of the item in the first row, if any."""
        return self._rows[0].stored.id if self._rows else None

    def prepend_items(self, items: list[StoredItem]) -> None:
        """Show the page above the first row; none ends the conversation there."""
        if not items:  # what the first row follows is gone (deleted): nothing is above
            if self._rows:
                self._rows[0].stored = self._rows[0].stored._replace(parent_id=None)
            return
        # Pages begin where turns do: their calls, results and plans are their own.
        later_calls, self._calls = self._calls, {}
        rows = self._rows_of(items)
        self._calls = later_calls
        self.beginInsertRows(QModelIndex(), 0, len(rows) - 1)
        self._rows[:0] = rows
        self._by_id = {row.stored.id: i for i, row in enumerate(self._rows)}
        place_switches(self._rows, 0)  # the rows below begin a turn: theirs stay
        self.endInsertRows()

    def _rows_of(self, items: list[StoredItem]) -> list[Row]:
        if not items:  # a new chat: the transcript's classes needn't load yet
            return []
        from routing.transcript import Message, starts_turn  # loaded by the store's page

        rows: list[Row] = []
        plan = ""  # the turn's plan shown so far: each answer of a turn carries it again
        for stored in items:
            item = stored.item
            if isinstance(item, Message) and starts_turn(item):
                plan = ""
            elif isinstance(item, Message) and item.role == "assistant":
                thoughts, plan = thought_and_plan_rows(stored, item, plan)
                rows += thoughts
            rows.append(self._row(stored))
        return rows

    def add_item(self, stored: StoredItem) -> None:
        """Append a message or notice that just joined the conversation."""
        if stored.id in self._by_id:
            return
        position = len(self._rows)
        self.beginInsertRows(QModelIndex(), position, position)
        self._rows.append(self._row(stored))
        self._by_id[stored.id] = position
        self.endInsertRows()
        # A new answer may take its response's versions from the notice before it.
        for changed in place_switches(self._rows, latest_turn(self._rows)):
            self._changed(changed)

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
        row = self._row(stored)
        before = self._rows[position]
        row.expanded, row.switch, row.switch_at = before.expanded, before.switch, before.switch_at
        self._rows[position] = row
        self._dirty.discard(position)
        self._changed(position)

    def add_call(self, item_id: int, call: ToolCall) -> None:
        """Show a tool call an answer just made (before the answer is finished)."""
        position = self._by_id.get(item_id)
        if position is None:
            return
        self._rows[position].streamed_calls.append(call)
        self._calls[call.id] = call
        self._changed(position)

    def add_thought(self, item_id: int, text: str) -> None:
        """More of what an agent thinks aloud while answering `item_id`, shown before it."""
        position = self._by_id.get(agent_row_id(item_id, THOUGHT_ROW))
        if position is not None:
            self._rows[position].text += text
            self._dirty.add(position)
            if not self._flush.isActive():
                self._flush.start()
            return
        answer = self._by_id.get(item_id)
        if answer is not None:
            self._insert(answer, Row.agent_row(self._rows[answer].stored, THOUGHT_ROW, text))

    def set_plan(self, item_id: int, entries: object) -> None:
        """An agent's plan (whole each time) for the answer `item_id`, shown before it."""
        text = plan_text(entries)
        position = self._by_id.get(agent_row_id(item_id, PLAN_ROW))
        if position is not None:
            self._rows[position].text = text
            self._changed(position)
            return
        answer = self._by_id.get(item_id)
        if answer is not None:
            self._insert(answer, Row.agent_row(self._rows[answer].stored, PLAN_ROW, text))

    def _insert(self, position: int, row: Row) -> None:
        """A row placed before `position` (an answer's thinking, its plan)."""
        self.beginInsertRows(QModelIndex(), position, position)
        self._rows.insert(position, row)
        self._by_id = {r.stored.id: i for i, r in enumerate(self._rows)}
        self._dirty = {d + 1 if d >= position else d for d in self._dirty}
        self.endInsertRows()

    def toggle_expanded(self, position: int) -> None:
        """Open a tool result row (or a notice's details) to show everything, or close it."""
        if not 0 <= position < len(self._rows) or not self._rows[position].expandable:
            return
        row = self._rows[position]
        row.expanded = not row.expanded
        self._changed(position)

    def _row(self, stored: StoredItem) -> Row:
        """A row for a new item, its results matched to the calls shown before it."""
        row = Row.of(stored)
        message = row.message
        # Only answers make calls and only tool messages carry results (a long chat
        # opens faster for not asking the rest).
        if message is not None and message.role in ("assistant", "tool"):
            # Call ids repeat across steps with some providers ("call_0"), so a
            # result belongs to the latest call with its id *before* it.
            self._calls.update((call.id, call) for call in message.tool_calls)
            if message.role == "tool":
                row.result_calls = tuple(self._calls.get(r.call_id) for r in message.tool_results)
        return row

    def row_of(self, item_id: int) -> int | None:
        """The row showing an item, if this conversation has it."""
        return self._by_id.get(item_id)

    def _emit_dirty(self) -> None:
        dirty, self._dirty = sorted(self._dirty), set()
        for position in dirty:
            self._changed(position)

    def picture_described(self, sha256: str) -> None:
        """A picture has words now: the rows showing it describe it anew."""
        for position, row in enumerate(self._rows):
            if any(p.sha256 == sha256 for p in row.pictures):
                self._changed(position)

    def _changed(self, position: int) -> None:
        index = self.index(position, 0)
        self.dataChanged.emit(index, index)
