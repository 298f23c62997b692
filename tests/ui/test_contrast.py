"""High contrast: pure black and white that reads at 7:1 and more, chosen or asked for by the
platform, followed while running and kept for next time."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPalette
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from app.store import Store
from app.ui.session import Session
from app.ui.settings import appearance
from app.ui.settings.appearance import ThemeChoice, contrast_palette, dark_palette, light_palette
from app.ui.theme import (
    blend,
    contrast_ratio,
    is_high_contrast,
    problem_color,
    show_problem,
    shows_problem,
    theme_for,
)
from routing.transcript import NoticeKind, user_message
from tests.conftest import SightlineHome
from tests.ui.helpers import OpenWindow, close_session, open_settings

TEXT, QUIET = 7.0, 4.5  # WCAG AAA for words, AA for the smaller, quieter words and accents


@pytest.fixture
def system_look_back(qapp: QApplication) -> Iterator[None]:
    """The application is shared by every test: its style, palette and sheet are put back."""
    style, palette = qapp.style().name(), qapp.palette()
    yield
    preference = Qt.ContrastPreference.NoPreference
    QGuiApplication.styleHints().accessibility().contrastPreferenceChanged.emit(preference)
    qapp.setStyleSheet("")
    QGuiApplication.styleHints().setColorScheme(Qt.ColorScheme.Unknown)
    qapp.setStyle(style)
    qapp.setPalette(palette)


def _ratios(dark: bool) -> dict[str, float]:
    palette = contrast_palette(dark=dark)
    theme = theme_for(palette)
    assert theme.high_contrast and theme.dark == dark
    r = QPalette.ColorRole
    ratios = {
        "window text": contrast_ratio(palette.color(r.Window), palette.color(r.WindowText)),
        "button text": contrast_ratio(palette.color(r.Button), palette.color(r.ButtonText)),
        "tooltip": contrast_ratio(palette.color(r.ToolTipBase), palette.color(r.ToolTipText)),
        "text": contrast_ratio(theme.base, theme.text),
        "text on a person's card": contrast_ratio(theme.user_card, theme.text),
        "text on an answer's card": contrast_ratio(theme.answer_card, theme.text),
        "code": contrast_ratio(theme.code_background, theme.code_text),
        "link": contrast_ratio(theme.base, theme.link),
        "selected text": contrast_ratio(
            palette.color(r.Highlight), palette.color(r.HighlightedText)
        ),
    }
    quiet = {
        "author line": contrast_ratio(theme.answer_card, theme.faded),
        "author line, a person's": contrast_ratio(theme.user_card, theme.faded),
        "code label": contrast_ratio(theme.code_header, theme.code_label),
        "placeholder": contrast_ratio(palette.color(r.Base), palette.color(r.PlaceholderText)),
        "disabled": contrast_ratio(
            palette.color(r.Base), palette.color(QPalette.ColorGroup.Disabled, r.Text)
        ),
    }
    # A notice, as notice_rows.py paints it: its card, pill, words, details and toggle.
    for kind in NoticeKind:
        accent = theme.notice(kind)
        ground = blend(theme.base, accent, 0.1 if theme.dark else 0.07)
        ratios[f"{kind} words"] = contrast_ratio(ground, theme.text)
        words = blend(theme.text, accent, 0.6) if kind == NoticeKind.ERROR else theme.text
        quiet[f"{kind} words as painted"] = contrast_ratio(ground, words)
        quiet[f"{kind} label"] = contrast_ratio(blend(theme.base, accent, 0.16), accent)
        quiet[f"{kind} details"] = contrast_ratio(ground, theme.faded)
        quiet[f"{kind} toggle"] = contrast_ratio(ground, blend(theme.text, accent, 0.5))
    for name, accent in theme.accents.items():  # a status tag's pill, a tool's outcome
        quiet[f"{name} tag"] = contrast_ratio(blend(theme.base, accent, 0.16), accent)
    assert theme.outline is not None and contrast_ratio(theme.base, theme.outline) >= 3.0
    assert theme.focus_width >= 2
    return {f"{n} ≥ {TEXT}": v for n, v in ratios.items() if v < TEXT} | {
        f"{n} ≥ {QUIET}": v for n, v in quiet.items() if v < QUIET
    }


@pytest.mark.parametrize("dark", [True, False], ids=["white on black", "black on white"])
def test_every_colour_of_high_contrast_reads(qapp: QApplication, dark: bool) -> None:
    assert _ratios(dark) == {}
    # The accents stay apart: no two notice kinds share a colour.
    theme = theme_for(contrast_palette(dark=dark))
    assert len({theme.notice(kind).name() for kind in NoticeKind}) == len(NoticeKind)


def test_only_pure_black_and_white_is_high_contrast(qapp: QApplication) -> None:
    assert not is_high_contrast(light_palette()) and not is_high_contrast(dark_palette())
    assert not is_high_contrast(QPalette())  # the platform's own: black text on white fields
    assert is_high_contrast(contrast_palette(dark=True))
    assert is_high_contrast(contrast_palette(dark=False))
    assert contrast_ratio(QColor("black"), QColor("white")) == pytest.approx(21.0)


def test_high_contrast_from_the_menu_and_settings_is_kept(
    open_window: OpenWindow,
    session: Session,
    qtbot: QtBot,
    run: Callable[[Awaitable[None]], None],
    system_look_back: None,
) -> None:
    window, menus = session.window, session.window.menus
    assert [a.text().replace("&", "") for a in menus.themes.values()][-1] == "High contrast"
    menus.themes[ThemeChoice.HIGH_CONTRAST].trigger()
    assert is_high_contrast(QApplication.palette())
    assert menus.themes[ThemeChoice.HIGH_CONTRAST].isChecked()
    qtbot.waitUntil(lambda: window.view.theme().high_contrast)  # the conversation follows
    # Every field has an edge, and the keyboard's place a thick frame.
    assert "QLineEdit:focus" in QApplication.instance().styleSheet()  # type: ignore[union-attr]
    window.sidebar.search.setFocus()
    qtbot.waitUntil(window.sidebar.search.hasFocus)
    close_session(session, run)

    again = open_window()
    assert is_high_contrast(QApplication.palette())
    assert again.window.menus.themes[ThemeChoice.HIGH_CONTRAST].isChecked()
    page = open_settings(qtbot, again).appearance_page
    assert page.buttons[ThemeChoice.HIGH_CONTRAST].isChecked()
    assert page.buttons[ThemeChoice.HIGH_CONTRAST].accessibleName() == "High contrast theme"
    page.buttons[ThemeChoice.DARK].click()
    assert not is_high_contrast(QApplication.palette())
    sheet = QApplication.instance().styleSheet()  # type: ignore[union-attr]
    assert "QLineEdit:focus" not in sheet and "QRadioButton::indicator" in sheet  # Dark's rings
    page.buttons[ThemeChoice.SYSTEM].click()
    assert QApplication.instance().styleSheet() == ""  # type: ignore[union-attr]
    assert not is_high_contrast(QApplication.palette())


def test_system_follows_the_platforms_contrast_while_running(
    home: SightlineHome,
    open_window: OpenWindow,
    qtbot: QtBot,
    run: Callable[[Awaitable[None]], None],
    monkeypatch: pytest.MonkeyPatch,
    system_look_back: None,
) -> None:
    session = open_window()
    window = session.window
    assert window.appearance.choice == ThemeChoice.SYSTEM
    assert not is_high_contrast(QApplication.palette())
    hints = QGuiApplication.styleHints().accessibility()
    hints.contrastPreferenceChanged.emit(Qt.ContrastPreference.HighContrast)
    assert is_high_contrast(QApplication.palette())
    qtbot.waitUntil(lambda: window.view.theme().high_contrast)
    assert window.menus.themes[ThemeChoice.SYSTEM].isChecked()  # still the person's choice
    hints.contrastPreferenceChanged.emit(Qt.ContrastPreference.NoPreference)
    assert not is_high_contrast(QApplication.palette())
    qtbot.waitUntil(lambda: not window.view.theme().high_contrast)

    # A person who chose Dark keeps it, whatever the platform asks.
    window.menus.themes[ThemeChoice.DARK].trigger()
    hints.contrastPreferenceChanged.emit(Qt.ContrastPreference.HighContrast)
    assert not is_high_contrast(QApplication.palette())
    window.menus.themes[ThemeChoice.SYSTEM].trigger()
    assert is_high_contrast(QApplication.palette())
    hints.contrastPreferenceChanged.emit(Qt.ContrastPreference.NoPreference)
    close_session(session, run)

    # A platform in high contrast at start: the first paint is already in it.
    monkeypatch.setattr(appearance, "platform_contrast", lambda: True)
    again = open_window()
    assert again.window.appearance.high_contrast and is_high_contrast(QApplication.palette())


def _themes() -> dict[str, QPalette]:
    return {
        "the platform's": QPalette(),
        "light": light_palette(),
        "dark": dark_palette(),
        "high contrast, white on black": contrast_palette(dark=True),
        "high contrast, black on white": contrast_palette(dark=False),
    }


def test_words_of_a_problem_read_in_every_theme(qapp: QApplication) -> None:
    r = QPalette.ColorRole
    low = {
        f"{name} on its {ground}": round(ratio, 2)
        for name, palette in _themes().items()
        for ground, role in (("window", r.Window), ("fields", r.Base))
        if (ratio := contrast_ratio(palette.color(role), problem_color(palette))) < QUIET
    }
    assert low == {}
    # Each theme has its own: light on dark grounds, deep on light ones.
    assert len({problem_color(p).name() for p in _themes().values()}) >= 4


def test_problems_follow_a_theme_switched_while_running(
    session: Session, qtbot: QtBot, system_look_back: None
) -> None:
    window = session.window
    label = window.composer.problems.label  # the composer's attach problems
    assert shows_problem(label)
    meter = QLabel("Context 95 % full", window)
    show_problem(meter)  # as the context meter shows a chat near its limit
    r = QPalette.ColorRole
    for choice in (ThemeChoice.DARK, ThemeChoice.HIGH_CONTRAST, ThemeChoice.LIGHT):
        window.menus.themes[choice].trigger()
        palette = QApplication.palette()
        wanted = problem_color(palette)
        for shown in (label, meter):
            shown.ensurePolished()  # as when shown: its sheet made its palette
            assert shown.palette().color(r.WindowText) == wanted, choice
            assert contrast_ratio(palette.color(r.Window), wanted) >= QUIET, choice
    show_problem(meter, False)
    assert not shows_problem(meter) and meter.styleSheet() == ""


def _most_contrast(image: QImage, rect: QRect, ground: QColor) -> float:
    """The highest contrast of any pixel in `rect` of `image` against `ground`."""
    return max(
        contrast_ratio(image.pixelColor(x, y), ground)
        for x in range(max(0, rect.left()), min(image.width(), rect.right() + 1))
        for y in range(max(0, rect.top()), min(image.height(), rect.bottom() + 1))
    )


def test_other_chats_titles_read_after_a_live_theme_switch(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot, system_look_back: None
) -> None:
    with Store.open(home.data) as store:
        for title in ("Holiday photos", "Budget for March", "A poem about rain"):
            store.add_message(store.conversations.create(title), user_message("hello"))
    session = open_window()
    window = session.window
    listing = window.sidebar.list
    qtbot.waitUntil(lambda: listing.model().rowCount() == 3)
    r = QPalette.ColorRole
    for choice in (ThemeChoice.DARK, ThemeChoice.LIGHT, ThemeChoice.DARK, ThemeChoice.LIGHT):
        window.menus.themes[choice].trigger()
        qtbot.wait(20)  # the repaint
        image = listing.viewport().grab().toImage()
        ground = window.sidebar.palette().color(r.Window)
        for row in range(3):
            index = listing.model().index(row, 0)
            if listing.selectionModel().isSelected(index):
                continue
            row_rect = listing.visualRect(index)
            assert _most_contrast(image, row_rect, ground) >= TEXT, (choice, index.data())
        assert listing.palette().color(r.Text) == QApplication.palette().color(r.Text)


def test_the_theme_menu_ticks_what_settings_chose(
    session: Session, qtbot: QtBot, system_look_back: None
) -> None:
    menus = session.window.menus
    page = open_settings(qtbot, session).appearance_page
    for choice in (ThemeChoice.DARK, ThemeChoice.HIGH_CONTRAST, ThemeChoice.LIGHT):
        page.buttons[choice].click()
        ticked = [c for c, action in menus.themes.items() if action.isChecked()]
        assert ticked == [choice]
    menus.themes[ThemeChoice.SYSTEM].trigger()
    assert [c for c, action in menus.themes.items() if action.isChecked()] == [ThemeChoice.SYSTEM]


def test_an_unticked_radio_button_shows_its_ring_in_dark(
    session: Session, qtbot: QtBot, system_look_back: None
) -> None:
    from PySide6.QtWidgets import QRadioButton

    session.window.appearance.apply(ThemeChoice.DARK, remember=False)
    button = QRadioButton("", session.window)  # the ring alone: no words to measure
    button.resize(24, 24)
    button.show()
    qtbot.waitExposed(button)
    picture = button.grab().toImage()
    ground = button.palette().color(QPalette.ColorRole.Window)
    ring = max(
        (
            contrast_ratio(ground, QColor(picture.pixel(x, y)))
            for x in range(picture.width())
            for y in range(picture.height())
        ),
        default=1.0,
    )
    assert ring >= 3.0  # WCAG's least for the parts of a control (1.4.11)
    button.deleteLater()
