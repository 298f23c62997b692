"""The sidebar's list of conversations: its model and how a row looks (the list itself is
`chat_list_view.py`).

A row shows the chat's title elided before when it was last used (so two chats of one
title tell apart) — a chat another app had served by that app's name, with a small
"served" mark (and a screen reader says so) — and, while searching, the words that matched
inside it in a quieter line below. Titles rename in place, in a box that keeps Esc from
the window's Stop.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRect,
    QSize,
    QStringListModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QApplication, QStyledItemDelegate, QWidget

from app.presenters.served_chats import BADGE, DESCRIPTION, served_client, spoken
from app.presenters.when import full_when, short_when
from app.store import ConversationSummary
from app.ui.edits import EscapeEdit

if TYPE_CHECKING:  # Qt hands a delegate its options: built with the first row drawn
    from PySide6.QtWidgets import QStyleOptionViewItem

_Index = QModelIndex | QPersistentModelIndex
ID_ROLE = Qt.ItemDataRole.UserRole + 1
WHEN_ROLE = Qt.ItemDataRole.UserRole + 3  # when it was last used, in a few characters
SNIPPET_ROLE = Qt.ItemDataRole.UserRole + 2  # where a search matched inside; "" if the title
SERVED_ROLE = Qt.ItemDataRole.UserRole + 4  # the app it was served to; "" for the person's own
UNTITLED = "New chat"


class ConversationListModel(QStringListModel):
    """Conversation summaries for the sidebar's list view; a title edited here is reported.

    Its strings are only its count, kept as long as its rows: Qt's list asks its model
    for every row's index each time it lays the list out, which a row added or moved
    makes it do, and an index is checked against the row count. Counted in C++, that
    costs nothing; a Python `rowCount` was a call into Python for each row, twice:
    10,000 calls a layout with 5,000 chats. The string list's own insert, removal and
    reset tell the view; the rows change between its "about to" and its "done" signals,
    as a model's must.
    """

    rename_requested = Signal(str, str)  # conversation id, new title

    def __init__(self, parent: QObject | None = None) -> None:
        """An empty list."""
        super().__init__(parent)
        self._rows: list[ConversationSummary] = []
        self._snippets: Mapping[str, str] = {}
        # The rows and snippets once a change is done.
        self._next: tuple[list[ConversationSummary], Mapping[str, str]] | None = None
        # Connected before any view is (a view connects when it is given the model), so
        # the rows are the new ones for every receiver of these, the old ones before.
        self.rowsInserted.connect(self._take_next)
        self.rowsRemoved.connect(self._take_next)
        self.modelReset.connect(self._take_next)

    def _take_next(self, *_change: object) -> None:
        if self._next is not None:
            (self._rows, self._snippets), self._next = self._next, None

    def _change_to(
        self,
        rows: list[ConversationSummary],
        change: Callable[[], object],
        snippets: Mapping[str, str] | None = None,
    ) -> None:
        """`rows` (and `snippets`, else the same) shown through the string list's `change`,
        which tells the view."""
        self._next = (rows, self._snippets if snippets is None else snippets)
        change()
        self._next = None  # taken by then, unless the change was refused

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Title, id, snippet and tooltip of one conversation."""
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        summary = self._rows[index.row()]
        snippet = self._snippets.get(summary.id, "")
        if role == Qt.ItemDataRole.DisplayRole:
            # A served chat shows its app's name: the "served" mark beside it says the rest.
            return served_client(summary.title) or summary.title or UNTITLED
        if role == Qt.ItemDataRole.AccessibleTextRole:
            when = full_when(summary.updated_at)
            title = f"{spoken(summary.title or UNTITLED)}, last used {when}"
            return f"{title}, matches: {snippet}" if snippet else title
        if role == Qt.ItemDataRole.AccessibleDescriptionRole:
            return DESCRIPTION if served_client(summary.title) else ""
        if role == SERVED_ROLE:
            return served_client(summary.title) or ""
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
            served = f"\n{DESCRIPTION}." if served_client(summary.title) else ""
            when = full_when(summary.updated_at)
            return f"{title}{found}{served}\nModel: {model}\nLast used {when}"
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        """Rows can be selected and renamed."""
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return (
            Qt.ItemFlag.ItemIsSelectable
            | Qt.ItemFlag.ItemIsEnabled
            | Qt.ItemFlag.ItemIsEditable
            | Qt.ItemFlag.ItemNeverHasChildren
        )

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """A title typed in the list: shown at once, and reported to be saved."""
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        title = " ".join(str(value).split())
        summary = self._rows[index.row()]
        if not title or title == summary.title:
            return False
        self._rows[index.row()] = summary._replace(title=title)
        self.dataChanged.emit(index, index)
        self.rename_requested.emit(summary.id, title)
        return True

    def set_conversations(
        self, summaries: list[ConversationSummary], snippets: Mapping[str, str] | None = None
    ) -> None:
        """Show a fresh list, with the words a search matched in each (if searching). A
        list that only has one chat moved or added to the top moves or adds that row, one
        that only lost a chat removes its row, and one that only got a chat back inserts
        its row (the others, the same objects, are as they were): a send's turn, a delete
        or its Undo in a list of thousands doesn't lay them all out again."""
        snippets = dict(snippets or {})
        if (
            not snippets
            and not self._snippets
            and (
                (summaries and self._onto_top(summaries))
                or self._one_gone(summaries)
                or self._one_back(summaries)
            )
        ):
            return
        reset = partial(self.setStringList, [""] * len(summaries))
        self._change_to(list(summaries), reset, snippets)

    def _onto_top(self, summaries: list[ConversationSummary]) -> bool:
        """Whether `summaries` is the list shown with its first chat moved or added to the
        top, then shown so; False changes nothing."""
        top = summaries[0]
        old = self.row_of(top.id)
        # Slices compare in C, each row first by identity: the same objects are quick.
        rest = self._rows if old == -1 else self._rows[:old] + self._rows[old + 1 :]
        if summaries[1:] != rest:
            return False
        if old == -1:
            self._change_to([top, *self._rows], lambda: self.insertRows(0, 1))
            return True
        if old > 0:
            self.beginMoveRows(QModelIndex(), old, old, QModelIndex(), 0)
            self._rows.insert(0, self._rows.pop(old))
            self.endMoveRows()
        self._rows[0] = top
        self.dataChanged.emit(self.index(0, 0), self.index(0, 0))
        return True

    def _one_gone(self, summaries: list[ConversationSummary]) -> bool:
        """Whether `summaries` is the list shown with one row taken out (the others the same
        objects, in order), then shown so; False changes nothing."""
        if len(summaries) != len(self._rows) - 1:
            return False
        row = _first_change(summaries, self._rows)
        if summaries[row:] != self._rows[row + 1 :]:
            return False
        self._change_to(self._rows[:row] + self._rows[row + 1 :], lambda: self.removeRows(row, 1))
        return True

    def _one_back(self, summaries: list[ConversationSummary]) -> bool:
        """Whether `summaries` is the list shown with one row put in (the others the same
        objects, in order), then shown so; False changes nothing."""
        if len(summaries) != len(self._rows) + 1:
            return False
        row = _first_change(summaries, self._rows)
        if summaries[row + 1 :] != self._rows[row:]:
            return False
        self._change_to(
            [*self._rows[:row], summaries[row], *self._rows[row:]], lambda: self.insertRows(row, 1)
        )
        return True

    def row_of(self, conversation_id: str) -> int:
        """The row of a conversation, or -1."""
        return next((i for i, s in enumerate(self._rows) if s.id == conversation_id), -1)

    def summary(self, row: int) -> ConversationSummary:
        """The conversation on a row."""
        return self._rows[row]


def _first_change(new: list[ConversationSummary], old: list[ConversationSummary]) -> int:
    """The first place where `new` holds another object than `old` (the shorter one's
    length where none does): the rows after a chat put in or taken out are the same."""
    return next(
        (n for n, (one, other) in enumerate(zip(new, old, strict=False)) if one is not other),
        min(len(new), len(old)),
    )


class ChatRows(QStyledItemDelegate):
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
        from PySide6.QtWidgets import QStyle, QStyleOptionViewItem  # with the first row drawn

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
        badge_width = small.horizontalAdvance(BADGE) + 12 if index.data(SERVED_ROLE) else 0
        title = shown.text
        room = text.width() - when_width - badge_width - 6
        shown.text = QFontMetrics(shown.font).elidedText(
            title, Qt.TextElideMode.ElideRight, max(20, room)
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
        top = QRect(
            text.left(), text.top(), text.width() - inset, text.height() - (lower if snippet else 0)
        )
        if when:
            painter.drawText(
                top, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), when
            )
        if badge_width:
            _draw_badge(painter, top.adjusted(0, 0, -when_width, 0), badge_width, small)
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


def _draw_badge(painter: QPainter, line: QRect, width: int, metrics: QFontMetrics) -> None:
    """The "served" mark at the right of `line`: its word in a thin rounded frame, in the
    pen already chosen (quiet, or the selection's text colour)."""
    height = metrics.height() + 2
    box = QRect(line.right() - width + 4, line.center().y() - height // 2, width - 4, height)
    painter.drawRoundedRect(box, 4, 4)
    painter.drawText(box, int(Qt.AlignmentFlag.AlignCenter), BADGE)


def _snippet_font(font: QFont) -> QFont:
    smaller = QFont(font)
    smaller.setPointSizeF(max(7.0, font.pointSizeF() * 0.88))
    return smaller
