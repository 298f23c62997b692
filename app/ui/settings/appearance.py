"""How the window looks: the System, Light or Dark theme, applied at once and remembered.

The choice is kept with the window's state (window.ini in the data folder), as it
belongs to this window on this computer. Light and Dark use Qt's Fusion style with a
palette of their own, so they look the same everywhere; System gives the platform's
style and palette back. The conversation's colours follow whatever palette is in
use (app/ui/theme.py), so every row repaints in the new theme.
"""

from __future__ import annotations

import contextlib
from enum import StrEnum
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

from app.private_files import create_private_file
from app.ui.window_state import FILE_NAME

_KEY = "appearance/theme"
_SYSTEM: dict[QApplication, tuple[str, QPalette]] = {}  # the platform's style and palette


class ThemeChoice(StrEnum):
    """What the person chose in Settings ▸ Appearance."""

    SYSTEM = "system"
    LIGHT = "light"
    DARK = "dark"


class Appearance:
    """Applies and remembers the theme of one application."""

    def __init__(self, app: QApplication, data_dir: Path) -> None:
        """Applies themes to `app`, keeping the choice in `data_dir`."""
        self._app = app
        self._path = data_dir / FILE_NAME
        self.choice = ThemeChoice.SYSTEM

    def _system(self) -> tuple[str, QPalette]:
        """The platform's own style and palette, to give back for System.

        Read once per process, just before the first theme is applied (a window opened
        later must still know what the platform gave), and not at start: asking for the
        style builds PySide6's QStyle class, about 15 ms, before a first paint that
        keeps the platform's look needs none of it.
        """
        app = self._app
        if app not in _SYSTEM:
            style = app.style()
            _SYSTEM[app] = (style.name() if style is not None else "", QPalette(app.palette()))
        return _SYSTEM[app]

    def remembered(self) -> ThemeChoice:
        """The choice kept from the last run (System when none, or unreadable)."""
        value = QSettings(str(self._path), QSettings.Format.IniFormat).value(_KEY, "system")
        try:
            return ThemeChoice(str(value))
        except ValueError:
            return ThemeChoice.SYSTEM

    def apply(self, choice: ThemeChoice, *, remember: bool = True) -> None:
        """Use this theme now (and from the next start)."""
        system_style, system_palette = self._system()  # before anything changes
        self.choice = choice
        app = self._app
        hints = QGuiApplication.styleHints()
        # The colour scheme first: changing it makes Qt hand out the platform's palette,
        # which the palette set after it then replaces.
        if choice == ThemeChoice.SYSTEM:
            hints.setColorScheme(Qt.ColorScheme.Unknown)
            if system_style:
                app.setStyle(system_style)
            app.setPalette(system_palette)
        else:
            dark = choice == ThemeChoice.DARK
            hints.setColorScheme(Qt.ColorScheme.Dark if dark else Qt.ColorScheme.Light)
            app.setStyle(QStyleFactory.create("Fusion"))
            app.setPalette(dark_palette() if dark else light_palette())
        if remember:
            with contextlib.suppress(OSError):  # 0600 before QSettings writes to it
                create_private_file(self._path)
            settings = QSettings(str(self._path), QSettings.Format.IniFormat)
            settings.setValue(_KEY, choice.value)
            settings.sync()


def _palette(colors: dict[QPalette.ColorRole, str], disabled_text: str) -> QPalette:
    palette = QPalette()
    for role, color in colors.items():
        palette.setColor(role, QColor(color))
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.ButtonText,
    ):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(disabled_text))
    return palette


def light_palette() -> QPalette:
    """A plain light palette."""
    r = QPalette.ColorRole
    return _palette(
        {
            r.Window: "#f3f3f3",
            r.WindowText: "#1c1c1c",
            r.Base: "#ffffff",
            r.AlternateBase: "#f0f2f5",
            r.Text: "#1c1c1c",
            r.Button: "#f3f3f3",
            r.ButtonText: "#1c1c1c",
            r.Highlight: "#2f6fdb",
            r.HighlightedText: "#ffffff",
            r.ToolTipBase: "#2b2b2b",
            r.ToolTipText: "#f5f5f5",
            r.PlaceholderText: "#7a7a7a",
            r.Link: "#1f5fc4",
            r.Mid: "#c8c8c8",
        },
        "#9a9a9a",
    )


def dark_palette() -> QPalette:
    """A calm dark palette (not pure black: long reading stays easy)."""
    r = QPalette.ColorRole
    return _palette(
        {
            # The chat's ground a step lighter than the window's: Fusion draws a box's edge
            # darker than the window, which must show against the ground it sits on.
            r.Window: "#1c1d20",
            r.WindowText: "#e8e8e8",
            r.Base: "#25262a",
            r.AlternateBase: "#2d2f33",
            r.Text: "#e8e8e8",
            r.Button: "#2b2d31",
            r.ButtonText: "#e8e8e8",
            r.Highlight: "#4c8dff",
            r.HighlightedText: "#ffffff",
            r.ToolTipBase: "#f0f0f0",
            r.ToolTipText: "#1c1c1c",
            r.PlaceholderText: "#8a8d91",
            r.Link: "#7fb0ff",
            r.Mid: "#4a4d52",
            r.Dark: "#5a5e64",
            r.Midlight: "#3a3d42",
            r.Light: "#44474c",
            r.Shadow: "#0b0b0c",
        },
        "#6f7277",
    )
