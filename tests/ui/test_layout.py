"""The window at 800×600: a long title ends in "…", nothing runs past the window's edge,
and the ledger doesn't squeeze the composer below a usable height."""

from __future__ import annotations

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from app.store import Store
from routing.transcript import user_message
from tests.conftest import SightlineHome
from tests.ui.helpers import OpenWindow, wait_for_models
from tests.ui.test_chats import select

LONG_TITLE = "Counting words in Python, quickly and correctly, for a very long report"


def test_at_800_by_600_the_title_elides_and_everything_fits(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    with Store.open(home.data) as store:
        chat = store.conversations.create(LONG_TITLE)
        store.add_message(chat, user_message("hello"))
    session = open_window()
    window = session.window
    wait_for_models(qtbot, session)
    select(qtbot, session, chat)
    window.resize(800, 600)
    qtbot.waitUntil(lambda: window.width() <= 800)
    window.show_ledger(True)
    window.repaint()
    title = window.title
    assert title.text() == LONG_TITLE  # the whole title is kept, and read out
    assert title.toolTip() == LONG_TITLE  # shown elided, its words in the tooltip
    assert window.windowTitle() == f"{LONG_TITLE} — Sightline"
    assert not window.top.model_label.isVisible() or window.top.width() >= 720
    # Every visible control lies inside the window.
    right = window.width()
    outside = [
        f"{type(w).__name__} {w.accessibleName()!r}"
        for w in window.findChildren(QWidget)
        if w.isVisible()
        and w.window() is window
        and w.mapTo(window, QPoint(w.width(), 0)).x() > right + 1
    ]
    assert outside == []
    # The composer keeps room to write in beside the ledger.
    assert window.composer.edit.height() >= window.composer.edit.fontMetrics().lineSpacing() * 2
    assert window.composer.button.isVisible()
