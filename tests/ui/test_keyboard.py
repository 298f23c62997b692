"""Every control of the window can be reached with Tab, and each says what it is."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from tests.conftest import SightlineHome
from tests.ui.helpers import OpenWindow, wait_for_models
from tests.ui.test_chats import activate, seed, select


def tab_chain(qtbot: QtBot, start: QWidget, limit: int = 80) -> list[QWidget]:
    """The widgets Tab visits from `start` until it comes back round."""
    start.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(start.hasFocus)
    seen: list[QWidget] = [start]
    for _ in range(limit):
        focused = QApplication.focusWidget()
        assert focused is not None
        qtbot.keyClick(focused, Qt.Key.Key_Tab)
        now = QApplication.focusWidget()
        assert now is not None
        if now is start:
            return seen
        seen.append(now)
    raise AssertionError(f"Tab never came back to the start: {[w.accessibleName() for w in seen]}")


def reachable(window: QWidget) -> list[QWidget]:
    """Every control a person should be able to Tab to right now."""
    return [
        w
        for w in window.findChildren(QWidget)
        if w.isVisible()
        and w.isEnabled()
        and w.focusPolicy() & Qt.FocusPolicy.TabFocus
        and w.window() is window
        and not w.focusProxy()
    ]


def test_tab_reaches_every_control_and_each_is_named(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    ids = seed(home)
    session = open_window()
    window = session.window
    wait_for_models(qtbot, session)
    select(qtbot, session, ids["Trip to Lisbon"])
    window.show_ledger(True)
    activate(qtbot, session)

    chain = tab_chain(qtbot, window.sidebar.new_button)
    expected = [
        window.sidebar.new_button,
        window.sidebar.search,
        window.sidebar.list,
        window.picker,
        window.top.ledger_button,
        window.top.chat_button,
        window.top.settings_button,
        window.view,
        window.composer.edit,
        window.composer.button,
        window.ledger.close_button,
        window.ledger.list,
    ]
    assert window.ledger.list.isHidden()  # nothing crossed in this chat: no empty list
    expected.remove(window.ledger.list)
    missing = [w.accessibleName() for w in expected if w not in chain]
    assert missing == []
    # The order follows the screen: sidebar, top bar, conversation, composer, ledger.
    positions = [chain.index(w) for w in expected]
    assert positions == sorted(positions)
    unreachable = [
        f"{type(w).__name__} {w.accessibleName()!r}" for w in reachable(window) if w not in chain
    ]
    assert unreachable == []
    unnamed = [type(w).__name__ for w in chain if not w.accessibleName()]
    assert unnamed == []


def test_arrows_browse_the_list_without_leaving_it(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    ids = seed(home)
    session = open_window()
    sidebar = session.window.sidebar
    select(qtbot, session, ids["Bike gears"])  # newest first: the top row
    activate(qtbot, session)
    sidebar.list.setFocus()
    qtbot.keyClick(sidebar.list, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: session.controller.current_id == ids["Trip to Lisbon"])
    assert sidebar.list.hasFocus()
    qtbot.keyClick(sidebar.list, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: session.controller.current_id == ids["Sourdough starter"])
    assert sidebar.list.hasFocus()
