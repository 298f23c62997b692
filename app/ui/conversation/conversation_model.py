"""The open conversation as a Qt list model: one row per stored message or notice.

Rows change in place while an answer streams: the words are appended at once
(so the row is always current) but `dataChanged` is sent at most every few
frames, because each one makes the delegate lay the row's Markdown out again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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

from app.presenters.pdf_notes import pages_words
from app.presenters.tool_words import pretty_arguments, result_summary, shown_text
from app.store import StoredItem
from routing.answer_stats import stats_words
from routing.transcript import (
    CarriedPart,
    Message,
    MessageStatus,
    Notice,
    NoticeKind,
    ToolCall,
    starts_turn,
)

_Index = QModelIndex | QPersistentModelIndex
_COALESCE_MS = 33  # about 30 relayouts a second while streaming is plenty to read

# An agent's thinking and plan: rows of their own before its answer (app/ui/agents/agent_rows.py).
THOUGHT_ROW, PLAN_ROW = "thought", "plan"
# How the agent engine keeps them on its answers (app/turn/acp/recording.py THOUGHT and PLAN,
# repeated so opening a chat needn't load the agent protocol's SDK).
THOUGHT_SHAPE, PLAN_SHAPE = "acp_thought", "acp_plan"
_TICKS = {"completed": "\u2611", "in_progress": "\u25b8"}  # ☑ done, ▸ under way
_TO_DO = "\u2610"  # ☐


def plan_text(entries: object) -> str:
    """A plan as a checklist, a step a line: PlanEntry objects or the stored dicts."""
    lines = []
    for entry in entries if isinstance(entries, list | tuple) else ():
        if isinstance(entry, dict):
            content, status = str(entry.get("content", "")), str(entry.get("status", ""))
        else:
            content, status = str(getattr(entry, "content", "")), str(getattr(entry, "status", ""))
        lines.append(f"{_TICKS.get(status, _TO_DO)} {content}")
    return "\n".join(lines)


def agent_row_id(answer_id: int, kind: str) -> int:
    """The id of an answer's thinking or plan row: negative, so no stored item has it."""
    return -2 * answer_id - (1 if kind == PLAN_ROW else 0)


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


def author_of(message: Message) -> str:
    """Who wrote a message, as its author line says."""
    if message.role == "user":
        return "You"
    if message.role == "assistant":
        return message.model or "Assistant"
    return message.role.capitalize()


def _words(item: Message | Notice) -> str:
    """A row's words: a tool message has none of its own, so its results' words stand in."""
    if isinstance(item, Message) and item.role == "tool":
        return "\n\n".join(result.text for result in item.tool_results)
    return item.text


@dataclass
class Row:
    """One row; mutable so streamed words, tool calls and the final status land in place."""

    stored: StoredItem
    text: str
    status: MessageStatus | None
    streamed_calls: list[ToolCall] = field(default_factory=list)  # before the message ends
    # A tool row's calls, one per result (None when not found), for its arguments.
    result_calls: tuple[ToolCall | None, ...] = ()
    expanded: bool = False
    # The versions this row switches between ("‹ 2 / 3 ›"), and which is shown: an
    # answer's, or the person's message's own. () when there is one version.
    switch: tuple[int, ...] = ()
    switch_at: int = 0
    agent: str = ""  # THOUGHT_ROW or PLAN_ROW: an agent's thinking or plan, not an item

    @classmethod
    def agent_row(cls, answer: StoredItem, kind: str, text: str) -> Row:
        """An answer's thinking or plan row (a quiet note to the rest of the window)."""
        label = "Thinking" if kind == THOUGHT_ROW else "Plan"
        notice = Notice(NoticeKind.INFO, label)
        stored = StoredItem(
            agent_row_id(answer.id, kind),
            answer.conversation_id,
            answer.seq,
            answer.created_at,
            notice,
        )
        return cls(stored, text, None, agent=kind)

    @classmethod
    def of(cls, stored: StoredItem) -> Row:
        """A row showing a stored item."""
        item = stored.item
        return cls(stored, _words(item), None if isinstance(item, Notice) else item.status)

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
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The calls an answer made: stored ones, and those streamed since."""
        message = self.message
        stored = message.tool_calls if message else ()
        have = {call.id for call in stored}
        return stored + tuple(c for c in self.streamed_calls if c.id not in have)

    @property
    def is_tool(self) -> bool:
        """Whether this row shows tool results (a collapsible row)."""
        message = self.message
        return message is not None and message.role == "tool"

    @property
    def expandable(self) -> bool:
        """Whether the row opens to show more: tool results, a notice with details, or an
        agent's thinking (its plan is always shown whole)."""
        if self.agent:
            return self.agent == THOUGHT_ROW
        notice = self.notice
        return self.is_tool or (notice is not None and bool(notice.details))

    @property
    def shape(self) -> int:
        """A hash of everything that changes the row's height."""
        return hash((self.text, self.status, len(self.tool_calls), self.expanded, self.switch))

    @property
    def version_words(self) -> str:
        """ " (version 2 of 3)" for a row with versions, else ""."""
        if not self.switch:
            return ""
        return f" (version {self.switch_at + 1} of {len(self.switch)})"

    def version_beside(self, step: int) -> int | None:
        """The version `step` away (-1 the one before, +1 the one after), if there is one."""
        at = self.switch_at + step
        return self.switch[at] if self.switch and 0 <= at < len(self.switch) else None

    @property
    def accessible_text(self) -> str:
        """What a screen reader says for the row."""
        message, notice = self.message, self.notice
        if self.agent == THOUGHT_ROW:
            if self.expanded:
                return f"The agent's thinking (expanded): {self.text}"
            return (
                f"The agent's thinking, {len(self.text.split())} words (collapsed, Enter shows it)"
            )
        if self.agent == PLAN_ROW:
            return f"The agent's plan:\n{self.text}"
        if notice is not None:
            said = f"{self.author} notice{self.version_words}: {notice.text}"
            if not notice.details:
                return said
            if self.expanded:
                return f"{said}\nDetails: {notice.details}"
            return f"{said} (collapsed, Enter shows details)"
        if message is not None and message.role == "tool":
            if not self.expanded:
                results = "; ".join(result_summary(r) for r in message.tool_results)
                return f"Tool result (collapsed, Enter shows all): {results}"
            # Open, it says all the row shows, as a sighted person reads it.
            parts = []
            for result, call in zip(message.tool_results, self.result_calls, strict=False):
                arguments = f" with {pretty_arguments(call.arguments)}" if call else ""
                parts.append(f"{result_summary(result)}{arguments}. {shown_text(result.text)}")
            return "Tool result (expanded): " + "\n".join(parts)
        said = f"{self.author}{self.version_words}: {self.text}{self.picture_words}"
        return f"{said}{self._spoken_stats}"

    @property
    def _spoken_stats(self) -> str:
        """A finished answer's stats, as its quiet line under the card shows them, in words
        for a screen reader on a line of their own ("(12 tokens in, 148 out, …)"), or ""."""
        message = self.message
        if message is None or message.role != "assistant" or message.stats is None:
            return ""
        if self.status == MessageStatus.STREAMING:
            return ""
        spoken = stats_words(message.stats, spoken=True)
        return f"\n({spoken})" if spoken else ""

    @property
    def author(self) -> str:
        """The author line: "You", the answering model, or the notice's kind."""
        item = self.stored.item
        if self.agent:
            return item.text if isinstance(item, Notice) else self.agent
        return author_of(item) if isinstance(item, Message) else str(item.kind).capitalize()

    @property
    def picture_words(self) -> str:
        """What a row shows beside its words, for a screen reader: " (2 pictures)" or "".

        PDFs are named with their pages: " (1 picture; PDF report.pdf, 12 pages · 1.2 MB)".
        """
        message = self.message
        if message is None:
            return ""
        count = len(message.pictures) + sum(len(r.pictures) for r in message.tool_results)
        said = [f"{count} picture{'s' * (count != 1)}"] if count else []
        said += [f"PDF {pdf.name}, {pages_words(pdf)}" for pdf in message.pdfs]
        return f" ({'; '.join(said)})" if said else ""

    def value(self, role: int) -> Any:
        """The value of one of the custom roles (see `Role`); None for any other role."""
        message, notice = self.message, self.notice
        values: dict[int, Any] = {
            Role.STORED: self.stored,
            Role.ITEM_ID: self.item_id,
            Role.KIND: self.agent or ("notice" if notice else "message"),
            Role.TEXT: self.text,
            Role.AUTHOR: self.author,
            Role.MESSAGE_ROLE: message.role if message else "",
            Role.STATUS: self.status or "",
            Role.NOTICE_KIND: notice.kind if notice else "",
            Role.PICTURES: message.pictures if message else (),
            Role.TOOL_CALLS: self.tool_calls,
            Role.TOOL_RESULTS: message.tool_results if message else (),
            Role.DETAILS: notice.details if notice else "",
            Role.EXPANDED: self.expanded,
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
        self._calls = {}
        self._rows = []
        plan = ""  # the turn's plan shown so far: each answer of a turn carries it again
        for stored in items:
            item = stored.item
            if isinstance(item, Message) and starts_turn(item):
                plan = ""
            elif isinstance(item, Message) and item.role == "assistant":
                plan = self._agent_rows(stored, item, plan)
            self._rows.append(self._row(stored))
        self._by_id = {row.stored.id: i for i, row in enumerate(self._rows)}
        place_switches(self._rows, 0)
        self.endResetModel()

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
        for changed in place_switches(self._rows, _latest_turn(self._rows)):
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

    def _agent_rows(self, stored: StoredItem, message: Message, plan: str) -> str:
        """A stored answer's thinking and plan rows (a plan its turn showed already, once);
        the turn's plan now."""
        for part in message.parts:
            if not isinstance(part, CarriedPart):
                continue
            if part.shape == THOUGHT_SHAPE and str(part.data.get("text", "")).strip():
                text = str(part.data["text"])
                self._rows.append(Row.agent_row(stored, THOUGHT_ROW, text))
            elif part.shape == PLAN_SHAPE:
                text = plan_text(part.data.get("entries"))
                if text and text != plan:
                    self._rows.append(Row.agent_row(stored, PLAN_ROW, text))
                    plan = text
        return plan

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

    def _changed(self, position: int) -> None:
        index = self.index(position, 0)
        self.dataChanged.emit(index, index)


def _starts_turn(row: Row) -> bool:
    message = row.message
    return message is not None and starts_turn(message)


def _latest_turn(rows: list[Row]) -> int:
    """The position of the latest message of the person (0 when there is none)."""
    return next((i for i in range(len(rows) - 1, -1, -1) if _starts_turn(rows[i])), 0)


def place_switches(rows: list[Row], start: int) -> list[int]:
    """Put each version switch from `start` on where people look for it; the rows changed.

    A person's edited message switches on itself. An answer given again switches on
    its first answer, even when a notice (routing, say) came first in the response.
    """
    changed = []
    holder: Row | None = None  # the row of the response's first item, while versions wait
    for position in range(start, len(rows)):
        row = rows[position]
        wanted = row.stored.versions
        at = wanted.index(row.stored.id) if wanted else 0
        if _starts_turn(row):
            holder = None
        elif row.notice is not None and wanted:
            holder = row  # the notice keeps them unless an answer follows
        elif holder is not None and row.message is not None and row.message.role == "assistant":
            wanted, at = holder.switch or holder.stored.versions, holder.switch_at
            if not holder.switch:
                at = holder.stored.versions.index(holder.stored.id)
            if holder.switch:
                holder.switch, holder.switch_at = (), 0
                changed.append(rows.index(holder))
            holder = None
        if (row.switch, row.switch_at) != (wanted, at):
            row.switch, row.switch_at = wanted, at
            changed.append(position)
    return changed
