"""The sidebar's list model and view on their own: its count follows its rows through
each kind of change, and laying out thousands of rows doesn't call into Python for each."""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import QListView
from pytestqt.qtbot import QtBot

from app.store import ConversationSummary
from app.ui.chat_list import ID_ROLE, ConversationListModel
from app.ui.chat_list_view import ConversationList


def _chats(count: int, first: int = 0) -> list[ConversationSummary]:
    return [
        ConversationSummary(f"c{n}", f"Chat {n}", "", 1.0, float(n))
        for n in range(first, first + count)
    ]


def _shown(model: ConversationListModel) -> list[str]:
    return [model.index(row, 0).data(ID_ROLE) for row in range(model.rowCount())]


def test_the_count_follows_the_rows_through_every_change(qtbot: QtBot) -> None:
    model = ConversationListModel()
    listed = _chats(4)
    model.set_conversations(listed)  # a reset
    assert _shown(model) == ["c0", "c1", "c2", "c3"]
    made = _chats(1, first=9)[0]
    model.set_conversations([made, *listed])  # one added at the top
    assert _shown(model) == ["c9", "c0", "c1", "c2", "c3"]
    model.set_conversations([listed[2], made, listed[0], listed[1], listed[3]])  # one moved up
    assert _shown(model) == ["c2", "c9", "c0", "c1", "c3"]
    model.set_conversations([listed[2], made, listed[1], listed[3]])  # one taken out
    assert _shown(model) == ["c2", "c9", "c1", "c3"]
    inserted: list[int] = []
    model.rowsInserted.connect(lambda _parent, first, _last: inserted.append(first))
    model.set_conversations([listed[2], made, listed[0], listed[1], listed[3]])  # one put back
    assert _shown(model) == ["c2", "c9", "c0", "c1", "c3"] and inserted == [2]
    model.set_conversations([listed[2], made, listed[1], listed[3]])
    assert not model.index(4, 0).isValid() and not model.index(0, 0, model.index(0, 0)).isValid()
    model.set_conversations([])
    assert model.rowCount() == 0 and not model.index(0, 0).isValid()
    # A title typed in the list shows at once; the count is as it was.
    model.set_conversations(listed)
    assert model.setData(model.index(1, 0), "  Renamed   here ")
    assert model.index(1, 0).data() == "Renamed here" and model.rowCount() == 4
    assert model.flags(model.index(1, 0)) & model.flags(model.index(1, 0)).ItemIsEditable
    assert not model.flags(QModelIndex())


def test_the_rows_change_between_the_about_to_and_the_done_signals(qtbot: QtBot) -> None:
    """As a model's must: what a view (or a screen reader's bridge) reads while a change is
    announced is the list before it, and once it is done the list after it."""
    model = ConversationListModel()
    view = ConversationList()
    qtbot.addWidget(view)
    view.setModel(model)  # connects after the model's own
    listed = _chats(3)
    model.set_conversations(listed)
    seen: list[tuple[str, list[str]]] = []
    for signal, name in (
        (model.rowsAboutToBeInserted, "about to insert"),
        (model.rowsInserted, "inserted"),
        (model.rowsAboutToBeRemoved, "about to remove"),
        (model.rowsRemoved, "removed"),
        (model.modelAboutToBeReset, "about to reset"),
        (model.modelReset, "reset"),
    ):
        signal.connect(lambda *_args, name=name: seen.append((name, _shown(model))))
    made = _chats(1, first=9)[0]
    model.set_conversations([made, *listed])
    model.set_conversations([made, listed[0], listed[2]])
    model.set_conversations(listed[:1])
    assert seen == [
        ("about to insert", ["c0", "c1", "c2"]),
        ("inserted", ["c9", "c0", "c1", "c2"]),
        ("about to remove", ["c9", "c0", "c1", "c2"]),
        ("removed", ["c9", "c0", "c2"]),
        ("about to reset", ["c9", "c0", "c2"]),
        ("reset", ["c0"]),
    ]


def test_laying_out_thousands_of_rows_calls_into_python_a_few_times(qtbot: QtBot) -> None:
    """A row added at the top lays every row out again (Qt's list does, in batches): the
    model answers that from C++, where a Python row count was two calls a row."""
    view = ConversationList()
    qtbot.addWidget(view)
    # In one pass here; the window's list lays out in batches, each doing the same per row.
    view.setLayoutMode(QListView.LayoutMode.SinglePass)
    model = ConversationListModel(view)
    view.setModel(model)
    view.setUniformItemSizes(True)
    view.resize(300, 400)
    view.show()
    listed = _chats(5_000)
    model.set_conversations(listed)
    view.doItemsLayout()
    calls: list[str] = []

    def counted(frame: FrameType, event: str, _arg: Any) -> None:
        if event == "call":
            calls.append(frame.f_code.co_name)

    model.set_conversations([*_chats(1, first=5_000), *listed])
    sys.setprofile(counted)
    try:
        view.doItemsLayout()
    finally:
        sys.setprofile(None)
    assert len(calls) < 500, f"{len(calls)} Python calls, most of them: {calls[:5]}"
