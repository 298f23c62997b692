"""The menu bar: File, Edit, View, Help; each entry does what the window's own controls do,
and the usual shortcuts reach them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QShortcut
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot

from app.ui.session import load_settings, open_session
from app.ui.settings.appearance import ThemeChoice
from app.ui.theme import is_dark
from app.version import installed_version
from tests.conftest import SightlineHome
from tests.servers.ollama import FakeOllama
from tests.ui.helpers import OpenWindow, answers, close_session, send, wait_for_models, wait_idle


@pytest.fixture
def system_palette_back(qapp: QApplication) -> Iterator[None]:
    style, palette = qapp.style().name(), qapp.palette()
    yield
    qapp.setStyle(style)
    qapp.setPalette(palette)


def test_the_menus_and_their_entries(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    session = open_window()
    bar = session.window.menuBar()
    menus: dict[str, QMenu] = {}
    for action in bar.actions():
        menu = action.menu()
        assert isinstance(menu, QMenu)
        menus[action.text().replace("&", "")] = menu
    assert list(menus) == ["File", "Edit", "View", "Help"]
    words = {
        name: [a.text().replace("&", "") for a in menu.actions() if a.text()]
        for name, menu in menus.items()
    }
    assert words["File"] == [
        "New chat",
        "Attach files…",
        "Export chat…",
        "Settings…",
        "Local models…",
        "Quit",
    ]
    assert words["Edit"] == ["Copy message", "Find chats", "Chat settings…"]
    assert words["View"] == ["Data ledger", "Theme", "Zoom in", "Zoom out", "Actual size"]
    assert words["Help"] == ["About Sightline", "Open the log folder"]
    menus_ = session.window.menus
    shortcuts = {
        "new": menus_.new_chat.shortcut().toString(),
        "quit": menus_.quit.shortcut().toString(),
        "find": menus_.find.shortcut().toString(),
        "settings": menus_.settings.shortcut().toString(),
        "zoom in": menus_.zoom_in.shortcut().toString(),
        "zoom out": menus_.zoom_out.shortcut().toString(),
    }
    assert shortcuts == {
        "new": "Ctrl+N",
        "quit": "Ctrl+Q",
        "find": "Ctrl+F",
        "settings": "Ctrl+,",
        "zoom in": "Ctrl+=",
        "zoom out": "Ctrl+-",
    }


def test_the_four_menus_are_in_the_first_frame_and_their_entries_come_just_after(
    home: SightlineHome, qtbot: QtBot, run: Callable[[Awaitable[None]], None]
) -> None:
    """The bar keeps its height from the first frame; the entries and the shortcuts are
    there as the paint is noted, before the window reads a key."""
    session = open_session(load_settings())
    try:
        window = session.window
        titles = [action.text() for action in window.menuBar().actions()]
        assert titles == ["&File", "&Edit", "&View", "&Help"]
        menu = window.menuBar().actions()[0].menu()
        assert isinstance(menu, QMenu)
        assert menu.actions() == []  # not filled before the paint
        seen: list[int] = []
        window.first_painted.connect(lambda: seen.append(len(menu.actions())))
        session.show()
        qtbot.waitUntil(lambda: session.painted_at is not None, timeout=10_000)
        assert seen == [0]  # the time was noted before the entries were added
        assert next(a.text() for a in menu.actions() if a.text()) == "&New chat"
        assert window.menus.new_chat.shortcut().toString() == "Ctrl+N"
        shortcuts = window.findChildren(QShortcut)
        assert {s.key().toString() for s in shortcuts} >= {"Esc", "Ctrl+K", "F2", "Ctrl+End"}
        window.menus.fill()  # again: nothing added twice
        assert [a.text() for a in menu.actions() if a.text()].count("&New chat") == 1
    finally:
        close_session(session, run)


def test_entries_do_what_the_window_does(
    home: SightlineHome,
    fake_ollama: FakeOllama,
    open_window: OpenWindow,
    qtbot: QtBot,
    system_palette_back: None,
) -> None:
    session = open_window()
    window, menus = session.window, session.window.menus
    wait_for_models(qtbot, session)
    window.picker.set_current_ref("ollama:llama3.2:3b")
    send(qtbot, session, "hello")
    qtbot.waitUntil(lambda: bool(answers(session)))
    wait_idle(qtbot, session)

    # View: the ledger, the theme, the text size.
    menus.ledger.trigger()
    assert window.ledger.isVisible() and menus.ledger.isChecked()
    menus.ledger.trigger()
    assert not window.ledger.isVisible() and not menus.ledger.isChecked()
    menus.themes[ThemeChoice.DARK].trigger()
    assert is_dark(QApplication.palette()) and menus.themes[ThemeChoice.DARK].isChecked()
    menus.themes[ThemeChoice.SYSTEM].trigger()
    size = window.view.font().pointSizeF()
    window.view.setFocus()
    qtbot.keyClick(window.view, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert window.view.font().pointSizeF() == pytest.approx(size * 1.1)
    # The whole window's text, not the conversation's alone (tests/ui/test_text_size.py).
    assert window.composer.edit.font().pointSizeF() == window.view.font().pointSizeF()
    qtbot.keyClick(window.view, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(window.view, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert window.view.font().pointSizeF() == pytest.approx(size * 0.9)
    menus.zoom_reset.trigger()
    assert window.view.font().pointSizeF() == pytest.approx(size)

    # Edit: copy the current message; find.
    window.view.setCurrentIndex(window.conversation.index(1, 0))
    menus.copy.trigger()
    assert QApplication.clipboard().text() == "You said: hello"
    menus.find.trigger()
    assert window.sidebar.search.hasFocus()

    # File: export, settings, new chat.
    menus.export.trigger()
    assert window.export_dialog is not None
    window.export_dialog.reject()
    menus.settings.trigger()
    qtbot.waitUntil(lambda: window.settings_dialog is not None)
    settings = window.settings_dialog
    assert settings is not None
    settings.reject()
    menus.new_chat.trigger()
    assert session.controller.current_id == ""

    # Help: About names the version.
    box = menus.show_about()
    assert installed_version() in box.text()
    box.close()
