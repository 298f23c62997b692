"""Settings ▸ Appearance: System, Light or Dark, applied at once and kept for next time."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.ui.session import Session
from app.ui.settings.appearance import ThemeChoice
from app.ui.theme import is_dark
from tests.conftest import SightlineHome
from tests.ui.helpers import OpenWindow, close_session, open_settings


@pytest.fixture
def system_palette_back(qapp: QApplication) -> Iterator[None]:
    """The application is shared by every test: its style and palette are put back."""
    style = qapp.style().name()
    palette = qapp.palette()
    yield
    qapp.setStyle(style)
    qapp.setPalette(palette)


def test_dark_and_light_apply_at_once_and_are_remembered(
    open_window: OpenWindow,
    session: Session,
    qtbot: QtBot,
    run: Callable[[Awaitable[None]], None],
    system_palette_back: None,
) -> None:
    started_dark = is_dark(QApplication.palette())
    dialog = open_settings(qtbot, session)
    page = dialog.appearance_page
    dialog.tabs.setCurrentWidget(page)
    page.buttons[ThemeChoice.DARK].click()
    assert is_dark(QApplication.palette())
    qtbot.waitUntil(lambda: session.window.view.theme().dark)  # the conversation follows
    page.buttons[ThemeChoice.LIGHT].click()
    assert not is_dark(QApplication.palette())
    qtbot.waitUntil(lambda: not session.window.view.theme().dark)
    page.buttons[ThemeChoice.DARK].click()
    dialog.reject()  # no Save needed: it is kept already
    close_session(session, run)

    again = open_window()
    assert is_dark(QApplication.palette())
    again_page = open_settings(qtbot, again).appearance_page
    assert again_page.buttons[ThemeChoice.DARK].isChecked()
    again_page.buttons[ThemeChoice.SYSTEM].click()
    assert is_dark(QApplication.palette()) == started_dark  # the system's own, back


def test_the_settings_tabs_are_grouped(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    session = open_window()
    tabs = open_settings(qtbot, session).tabs
    names = [
        tabs.tabText(n).replace("&&", "\0").replace("&", "").replace("\0", "&")
        for n in range(tabs.count())
    ]
    assert names == ["Providers", "Agents", "Tools", "Privacy & routing", "Serving", "Appearance"]
