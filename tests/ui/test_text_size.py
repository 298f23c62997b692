"""View ▸ Zoom: the whole window's text grows and shrinks, dialogs opened after it too, and the
size is kept for the next start."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

import pytest
from PySide6.QtWidgets import QApplication, QLabel, QWidget
from pytestqt.qtbot import QtBot

from app.ui.menu_bar import base_font
from app.ui.session import Session
from app.ui.settings.appearance import ThemeChoice
from tests.ui.helpers import OpenWindow, close_session, open_settings


@pytest.fixture
def actual_size_back(qapp: QApplication) -> Iterator[None]:
    """The application is shared by every test: its font is put back."""
    yield
    qapp.setFont(base_font())


def _sizes(session: Session) -> dict[str, float]:
    window = session.window
    sidebar_label = window.sidebar.findChild(QLabel)
    assert sidebar_label is not None
    parts: dict[str, QWidget] = {
        "sidebar label": sidebar_label,
        "sidebar search": window.sidebar.search,
        "top bar title": window.title,
        "composer box": window.composer.edit,
        "ledger panel": window.ledger,
        "ledger title": window.ledger.title,  # a size of its own, larger than the rest
        "conversation": window.view,
    }
    return {name: widget.font().pointSizeF() for name, widget in parts.items()}


def test_zoom_reaches_every_part_of_the_window_and_is_kept(
    open_window: OpenWindow,
    session: Session,
    qtbot: QtBot,
    run: Callable[[Awaitable[None]], None],
    actual_size_back: None,
) -> None:
    menus = session.window.menus
    before = _sizes(session)
    assert before["ledger title"] > before["ledger panel"]
    menus.zoom_in.trigger()
    menus.zoom_in.trigger()
    assert menus.zoom_factor == 1.25
    grown = _sizes(session)
    assert grown == pytest.approx({name: size * 1.25 for name, size in before.items()})
    # The conversation lays its rows out again at the new size.
    qtbot.waitUntil(lambda: session.window.view.font().pointSizeF() == grown["conversation"])
    # A dialog opened afterwards is in the larger text too.
    dialog = open_settings(qtbot, session)
    assert dialog.font().pointSizeF() == pytest.approx(grown["composer box"])
    dialog.reject()
    close_session(session, run)

    again = open_window()
    assert again.window.menus.zoom_factor == 1.25
    assert _sizes(again) == pytest.approx(grown)
    again.window.menus.zoom_reset.trigger()
    assert _sizes(again) == pytest.approx(before)
    close_session(again, run)

    third = open_window()  # actual size is kept too
    assert third.window.menus.zoom_factor == 1.0
    assert _sizes(third) == pytest.approx(before)


def test_zoom_reaches_the_window_in_high_contrast_too(
    session: Session, qtbot: QtBot, actual_size_back: None
) -> None:
    # High contrast's style sheet keeps widgets from following the application's font alone.
    qapp = QApplication.instance()
    assert isinstance(qapp, QApplication)
    style, palette = qapp.style().name(), qapp.palette()
    menus = session.window.menus
    try:
        menus.themes[ThemeChoice.HIGH_CONTRAST].trigger()
        before = _sizes(session)
        menus.zoom_in.trigger()
        assert _sizes(session) == pytest.approx({n: size * 1.1 for n, size in before.items()})
        menus.zoom_reset.trigger()
        assert _sizes(session) == pytest.approx(before)
    finally:
        menus.themes[ThemeChoice.SYSTEM].trigger()
        qapp.setStyle(style)
        qapp.setPalette(palette)
