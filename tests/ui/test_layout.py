"""The window at 800×600: a long title ends in "…", nothing runs past the window's edge,
the ledger doesn't squeeze the conversation (the sidebar steps aside), the model box shows
whole names, and a status message moves nothing."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from app.store import Store
from app.ui.ledger_panel import LedgerPanel
from app.ui.main_window import MainWindow
from app.ui.models.model_picker import AUTO, AUTO_LABEL
from app.ui.session import Session
from app.ui.window_layout import CHAT_MIN
from routing.transcript import user_message
from tests.conftest import SightlineHome
from tests.ui.helpers import OpenWindow, pick, wait_for_models
from tests.ui.test_chats import select

LONG_TITLE = "Counting words in Python, quickly and correctly, for a very long report"


def small_with_the_ledger(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot, title: str
) -> MainWindow:
    """The window at 800×600 on a chat called `title`, its ledger opened."""
    with Store.open(home.data) as store:
        chat = store.conversations.create(title)
        store.add_message(chat, user_message("hello"))
    session = open_window()
    window = session.window
    wait_for_models(qtbot, session)
    select(qtbot, session, chat)
    window.resize(800, 600)
    qtbot.waitUntil(lambda: window.width() <= 800)
    window.show_ledger(True)
    return window


def test_at_800_by_600_the_title_elides_and_everything_fits(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    window = small_with_the_ledger(home, open_window, qtbot, LONG_TITLE)
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


def test_at_800_by_600_with_the_ledger_the_conversation_keeps_its_room(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    window = small_with_the_ledger(home, open_window, qtbot, "Holiday photos")
    qtbot.waitUntil(lambda: window.view.width() >= CHAT_MIN)
    assert window.ledger.isVisible() and window.ledger.width() >= window.ledger.minimumWidth()
    assert not window.sidebar.isVisible()  # it stepped aside for the conversation
    assert window.composer.edit.width() >= 280  # a message box to write in, not a slot
    # Looking for a chat brings the sidebar back: the ledger closes to make room.
    window.menus.find.trigger()
    qtbot.waitUntil(window.sidebar.isVisible)
    assert window.sidebar.search.hasFocus() and window.ledger.isHidden()
    assert window.view.width() >= CHAT_MIN
    # A wide window has room for all three.
    window.show_ledger(True)
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() >= 1280)
    qtbot.waitUntil(window.sidebar.isVisible)
    assert window.ledger.isVisible() and window.view.width() >= CHAT_MIN
    # ...and the sidebar its own width back, not the least a small window left it.
    qtbot.waitUntil(lambda: window.sidebar.width() == window.arrangement.sidebar_width)
    assert window.arrangement.sidebar_width == 250


def test_the_ledger_is_made_when_first_opened_and_sits_beside_the_conversation(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    session = open_window()
    window = session.window
    assert window.findChildren(LedgerPanel) == []  # never opened: never made
    window.menus.ledger.trigger()  # View ▸ Data ledger
    qtbot.waitUntil(lambda: bool(window.findChildren(LedgerPanel)))
    [panel] = window.findChildren(LedgerPanel)
    splitter = window.arrangement.chat_splitter
    assert splitter.indexOf(panel) == 1 and panel.isVisible()
    assert window.top.ledger_button.isChecked()
    qtbot.mouseClick(panel.close_button, Qt.MouseButton.LeftButton)
    assert panel.isHidden() and not window.top.ledger_button.isChecked()
    window.show_ledger(True)  # opened again: the same panel
    assert window.findChildren(LedgerPanel) == [panel] and panel.isVisible()


def test_the_model_box_shows_the_whole_name(session: Session, qtbot: QtBot) -> None:
    from PySide6.QtWidgets import QStyle, QStyleOptionComboBox

    window = session.window
    window.resize(800, 600)
    picker = window.picker
    for ref in (AUTO, *(m.ref for m in picker.models())):
        pick(session, ref)
        qtbot.wait(30)  # laid out again
        option = QStyleOptionComboBox()
        picker.initStyleOption(option)
        field = picker.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox,
            option,
            QStyle.SubControl.SC_ComboBoxEditField,
            picker,
        )
        icon = (
            picker.iconSize().width() + 4
            if not picker.itemIcon(picker.currentIndex()).isNull()
            else 0
        )
        text = picker.fontMetrics().horizontalAdvance(picker.currentText())
        assert field.width() - icon >= text, picker.currentText()
    pick(session, AUTO)
    assert picker.currentText() == AUTO_LABEL


def test_a_status_message_leaves_the_message_box_where_it_is(
    session: Session, qtbot: QtBot
) -> None:
    window = session.window
    edit = window.composer.edit
    before = edit.mapTo(window, QPoint(0, 0)), edit.size()
    window.statusBar().showMessage("There is no log folder yet.", 8000)
    qtbot.wait(50)
    assert window.statusBar().isVisible()
    assert (edit.mapTo(window, QPoint(0, 0)), edit.size()) == before
    window.statusBar().clearMessage()
    qtbot.wait(50)
    assert (edit.mapTo(window, QPoint(0, 0)), edit.size()) == before
