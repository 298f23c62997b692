"""Every control of the window can be reached with Tab, and each says what it is; a chat,
its versions, a picture's description, the ledger and Settings from the keyboard alone."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMenu, QWidget
from pytestqt.qtbot import QtBot

from app.ui.session import Session
from tests.conftest import SightlineHome
from tests.servers.ollama import FakeOllama, Reply
from tests.ui.helpers import (
    OpenWindow,
    answers,
    cards,
    pick,
    reading_done,
    rows,
    send,
    shaded_picture,
    wait_for_models,
    wait_idle,
)
from tests.ui.test_chats import activate, seed, select

CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
DESCRIPTION = Qt.ItemDataRole.AccessibleDescriptionRole


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


def _menu_choose(qtbot: QtBot, menu: QMenu, words: str) -> None:
    """Move down an open menu with the arrow key until `words` is active, then press Enter."""
    for _ in range(len(menu.actions()) + 1):
        qtbot.keyClick(menu, Qt.Key.Key_Down)
        active = menu.activeAction()
        if active is not None and active.text() == words:
            qtbot.keyClick(menu, Qt.Key.Key_Return)
            return
    raise AssertionError(f"{words!r} not in {[a.text() for a in menu.actions()]}")


def test_a_chat_with_versions_a_description_the_ledger_and_settings_from_the_keyboard_alone(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    window = session.window
    activate(qtbot, session)
    # The model picker: Ctrl+K opens its list, the keyboard in it.
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(window.picker.view().isVisible)
    window.picker.hidePopup()
    pick(session, "ollama:llama3.2:3b")
    # Attach (Ctrl+O is File ▸ Attach files…, tested with the dialog in the menu's test);
    # here the picture comes as the dialog would hand it over.
    session.controller.attaching.attach_files([shaded_picture(tmp_path / "ramp.png", (64, 48))])
    qtbot.waitUntil(lambda: len(cards(session)) == 1 and reading_done(session))
    # The blind model's looker describes the picture first, then the model answers.
    fake_ollama.enqueue(Reply(text="A grey ramp."), Reply(text="First."))
    send(qtbot, session, "what is this?")
    qtbot.waitUntil(lambda: [a["text"] for a in answers(session)] == ["First."])
    wait_idle(qtbot, session)
    # Shift+Tab from the message box reaches the conversation (Attach is Ctrl+O's).
    view = window.view
    activate(qtbot, session)
    window.composer.edit.setFocus(Qt.FocusReason.OtherFocusReason)
    qtbot.waitUntil(window.composer.edit.hasFocus)
    stops: list[str] = []
    while not view.hasFocus() and len(stops) < 3:
        focused = QApplication.focusWidget()
        assert focused is not None
        stops.append(focused.accessibleName())
        qtbot.keyClick(focused, Qt.Key.Key_Backtab)
    assert view.hasFocus(), stops
    assert stops == ["Message"]
    answer = view.model().rowCount() - 1
    view.setCurrentIndex(view.model().index(answer, 0))
    asked = next(i for i, r in enumerate(rows(session)) if r["role"] == "user")
    while view.currentIndex().row() != asked:
        qtbot.keyClick(view, Qt.Key.Key_Up)
    # Shift+F10 opens the message's menu: Describe this picture.
    qtbot.keyClick(view, Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier)
    assert view.menu is not None
    _menu_choose(qtbot, view.menu, "Describe this picture")
    qtbot.waitUntil(lambda: "A grey ramp." in str(view.currentIndex().data(DESCRIPTION)))
    # The answer's menu: Regenerate; then Alt+Left and Alt+Right move between its versions.
    first = next(i for i, r in enumerate(rows(session)) if r["text"] == "First.")
    view.setCurrentIndex(view.model().index(first, 0))
    fake_ollama.enqueue(Reply(text="Second."))
    qtbot.keyClick(view, Qt.Key.Key_Menu)
    assert view.menu is not None
    _menu_choose(qtbot, view.menu, "Regenerate")
    qtbot.waitUntil(lambda: "Second." in [a["text"] for a in answers(session)])
    wait_idle(qtbot, session)
    view.setFocus()
    second = next(i for i, r in enumerate(rows(session)) if r["text"] == "Second.")
    view.setCurrentIndex(view.model().index(second, 0))
    qtbot.keyClick(view, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: "First." in [a["text"] for a in answers(session)])
    # The ledger and Settings have their keys; Esc closes Settings.
    activate(qtbot, session)  # offscreen, a closed popup leaves no window active
    qtbot.keyClick(view, Qt.Key.Key_L, CTRL_SHIFT)
    qtbot.waitUntil(window.ledger.isVisible)
    assert "1 crossing" in window.ledger.summary.text()
    qtbot.keyClick(view, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.settings_dialog is not None)
    dialog = window.settings_dialog
    assert dialog is not None
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.settings_dialog is None)
