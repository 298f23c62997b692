"""The sidebar's list on its own: a person scrolled down to an old chat keeps it in view
as chats come, go and move above it; a chat made current is shown; at the top, rows are
laid out a batch at a time as before."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QModelIndex, QPersistentModelIndex
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QApplication, QListView, QStyleOptionViewItem
from pytestqt.qtbot import QtBot

from app.store import ConversationSummary
from app.ui.chat_list import ID_ROLE, ChatRows, ConversationListModel
from app.ui.chat_list_view import ConversationList

CHATS = 500
_Index = QModelIndex | QPersistentModelIndex


def _chats() -> list[ConversationSummary]:
    return [ConversationSummary(f"c{n}", f"Chat {n}", "", 1.0, float(-n)) for n in range(CHATS)]


def _settle() -> None:
    for _ in range(CHATS // 50):  # every batch laid out
        QApplication.processEvents()


@pytest.fixture
def shown(
    qtbot: QtBot,
) -> tuple[ConversationList, ConversationListModel, list[ConversationSummary]]:
    view = ConversationList()
    qtbot.addWidget(view)
    model = ConversationListModel(view)
    view.setModel(model)
    view.setUniformItemSizes(True)
    view.resize(300, 400)
    view.show()
    listed = _chats()
    model.set_conversations(listed)
    _settle()
    return view, model, listed


def _top(view: ConversationList) -> str:
    return str(view.indexAt(view.viewport().rect().topLeft()).data(ID_ROLE))


@pytest.mark.parametrize(
    "change",
    ["one above taken out", "one above moved to the top", "one below moved to the top", "one made"],
)
def test_a_chat_scrolled_to_stays_at_the_top_as_others_change(
    shown: tuple[ConversationList, ConversationListModel, list[ConversationSummary]], change: str
) -> None:
    view, model, listed = shown
    view.scrollTo(model.index(400, 0), QListView.ScrollHint.PositionAtTop)
    assert _top(view) == "c400"
    if change == "one above taken out":
        model.set_conversations(listed[:200] + listed[201:])
    elif change == "one above moved to the top":
        model.set_conversations([listed[300], *listed[:300], *listed[301:]])
    elif change == "one below moved to the top":
        model.set_conversations([listed[450], *listed[:450], *listed[451:]])
    else:
        made = ConversationSummary("new", "New chat", "", 2.0, 2.0)
        model.set_conversations([made, *listed])
    _settle()
    assert _top(view) == "c400"  # in Qt's batches alone, the view fell back to about row 71


def test_a_chat_made_current_is_shown_instead(
    shown: tuple[ConversationList, ConversationListModel, list[ConversationSummary]],
) -> None:
    view, model, listed = shown
    view.scrollTo(model.index(400, 0), QListView.ScrollHint.PositionAtTop)
    made = ConversationSummary("new", "New chat", "", 2.0, 2.0)
    model.set_conversations([made, *listed])
    view.setCurrentIndex(model.index(0, 0))
    _settle()
    assert _top(view) == "new"


def test_a_chat_the_person_renamed_is_followed_to_the_top(
    shown: tuple[ConversationList, ConversationListModel, list[ConversationSummary]],
) -> None:
    """A rename is a use: the chat moves to the top, and the list shows it there."""
    view, model, listed = shown
    view.scrollTo(model.index(400, 0), QListView.ScrollHint.PositionAtTop)
    view.setCurrentIndex(model.index(420, 0))
    model.set_conversations([listed[420], *listed[:420], *listed[421:]])
    view.follow_current()  # what the sidebar does once the person's new title is listed
    _settle()
    assert _top(view) == "c420" and view.currentIndex().data(ID_ROLE) == "c420"
    # The next change (another app's chat answered, say) keeps the place again.
    view.scrollTo(model.index(400, 0), QListView.ScrollHint.PositionAtTop)
    before = _top(view)
    now = [model.summary(row) for row in range(model.rowCount())]
    model.set_conversations([now[450], *now[:450], *now[451:]])
    _settle()
    assert _top(view) == before


def test_at_the_top_changes_are_laid_out_a_batch_at_a_time(
    shown: tuple[ConversationList, ConversationListModel, list[ConversationSummary]],
) -> None:
    view, model, listed = shown
    assert view.verticalScrollBar().value() == 0
    model.set_conversations([listed[300], *listed[:300], *listed[301:]])
    assert view.layoutMode() == QListView.LayoutMode.Batched
    _settle()
    assert _top(view) == "c300"
    view.scrollTo(model.index(400, 0), QListView.ScrollHint.PositionAtTop)
    now = [model.summary(row) for row in range(model.rowCount())]
    model.set_conversations([now[450], *now[:450], *now[451:]])  # scrolled: in one pass
    assert view.layoutMode() == QListView.LayoutMode.SinglePass
    model.set_conversations(listed[:10], {"c1": "found"})  # another list: batches again
    assert view.layoutMode() == QListView.LayoutMode.Batched


class _CountingRows(ChatRows):
    """The sidebar's own rows, noting which it is asked to draw."""

    def __init__(self) -> None:
        super().__init__()
        self.drawn: list[int] = []

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        self.drawn.append(index.row())
        super().paint(painter, option, index)


def test_a_chat_opened_far_below_redraws_two_rows_not_those_between(
    shown: tuple[ConversationList, ConversationListModel, list[ConversationSummary]], qtbot: QtBot
) -> None:
    view, model, _listed = shown
    rows = _CountingRows()
    view.setItemDelegate(rows)
    view.setCurrentIndex(model.index(1, 0))
    qtbot.waitUntil(lambda: 1 in rows.drawn)
    rows.drawn.clear()
    view.setCurrentIndex(model.index(12, 0))  # both in view: 400 px shows about 20 rows
    qtbot.waitUntil(lambda: 12 in rows.drawn)
    QApplication.processEvents()
    assert sorted(set(rows.drawn)) == [1, 12]
