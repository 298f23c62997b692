"""How the window looks: the System, Light, Dark or High contrast theme, applied at once
and remembered.

The choice is kept with the window's state (window.ini in the data folder,
app/ui/window_state.py), as it belongs to this window on this computer. Light and
Dark use Qt's Fusion style with a palette of their own, so they look the same
everywhere; System gives the platform's style and palette back, unless the platform
asks for high contrast (Qt 6.10+'s accessibility hints, followed while running). High
contrast is pure black and white (dark or light as the platform's own palette is),
with a style sheet that draws every field's and button's edge and a thick frame where
the keyboard is. The conversation's colours follow whatever palette is in use
(app/ui/theme.py), so every row repaints in the new theme.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

from app.ui.theme import is_dark

if TYPE_CHECKING:
    from app.ui.window_state import WindowState

_KEY = "appearance/theme"
_SYSTEM: dict[QApplication, tuple[str, QPalette]] = {}  # the platform's style and palette


class ThemeChoice(StrEnum):
    """What the person chose in Settings ▸ Appearance."""

    SYSTEM = "system"
    LIGHT = "light"
    DARK = "dark"
    HIGH_CONTRAST = "high-contrast"


def platform_contrast() -> bool:
    """Whether the platform asks for high contrast (Qt 6.10+; earlier: never)."""
    hints = QGuiApplication.styleHints()
    if not hasattr(hints, "accessibility"):
        return False
    preference = hints.accessibility().contrastPreference()
    return bool(preference == Qt.ContrastPreference.HighContrast)


class Appearance(QObject):
    """Applies and remembers the theme of one application."""

    changed = Signal(str)  # the ThemeChoice just applied (from Settings, the menu or the system)

    def __init__(
        self, app: QApplication, state: WindowState, parent: QObject | None = None
    ) -> None:
        """Applies themes to `app`, keeping the choice with the window's `state`."""
        super().__init__(parent)
        self._app = app
        self._state = state
        self.choice = ThemeChoice.SYSTEM
        self.platform_contrast = platform_contrast()
        hints = QGuiApplication.styleHints()
        if hasattr(hints, "accessibility"):  # Qt 6.10+: the platform's setting, followed
            hints.accessibility().contrastPreferenceChanged.connect(self._contrast_changed)

    @property
    def high_contrast(self) -> bool:
        """Whether the window is in high contrast now (chosen, or System asked for it)."""
        return self.choice == ThemeChoice.HIGH_CONTRAST or (
            self.choice == ThemeChoice.SYSTEM and self.platform_contrast
        )

    def restore(self) -> None:
        """Put back the theme of the last run, before the first paint.

        System with the platform's usual contrast changes nothing (and builds no QStyle).
        """
        choice = self.remembered()
        self.choice = choice
        if choice != ThemeChoice.SYSTEM or self.platform_contrast:
            self.apply(choice, remember=False)

    def _contrast_changed(self, preference: Qt.ContrastPreference) -> None:
        self.platform_contrast = preference == Qt.ContrastPreference.HighContrast
        if self.choice == ThemeChoice.SYSTEM:
            self.apply(ThemeChoice.SYSTEM, remember=False)

    def _plain(self) -> None:
        """No high-contrast style sheet (cleared only if there is one: clearing restyles
        every widget)."""
        if self._app.styleSheet():
            self._app.setStyleSheet("")

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
        try:
            return ThemeChoice(self._state.value(_KEY, ThemeChoice.SYSTEM.value))
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
        if self.high_contrast:
            dark = is_dark(system_palette)
            hints.setColorScheme(Qt.ColorScheme.Dark if dark else Qt.ColorScheme.Light)
            app.setStyle(QStyleFactory.create("Fusion"))
            palette = contrast_palette(dark=dark)
            app.setPalette(palette)
            app.setStyleSheet(contrast_style_sheet(palette))
        elif choice == ThemeChoice.SYSTEM:
            self._plain()
            hints.setColorScheme(Qt.ColorScheme.Unknown)
            if system_style:
                app.setStyle(system_style)
            app.setPalette(system_palette)
        else:
            self._plain()
            dark = choice == ThemeChoice.DARK
            hints.setColorScheme(Qt.ColorScheme.Dark if dark else Qt.ColorScheme.Light)
            app.setStyle(QStyleFactory.create("Fusion"))
            app.setPalette(dark_palette() if dark else light_palette())
            if dark:
                app.setStyleSheet(dark_style_sheet(app.palette()))
        _restyle_own_sheets(app)
        if remember:
            self._state.keep(_KEY, choice.value)
        self.changed.emit(choice.value)


def _restyle_own_sheets(app: QApplication) -> None:
    """Widgets with a style sheet of their own take the new palette: Qt polishes them
    while the colour scheme changes, before the palette does, and they would keep the
    theme before (the sidebar's chat titles near-white on a light sidebar)."""
    for widget in app.allWidgets():
        if sheet := widget.styleSheet():
            widget.setStyleSheet(sheet)


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


def contrast_palette(*, dark: bool) -> QPalette:
    """Pure black and white, the highlight and links in colours of their own."""
    r = QPalette.ColorRole
    ground, ink = ("#000000", "#ffffff") if dark else ("#ffffff", "#000000")
    return _palette(
        {
            r.Window: ground,
            r.WindowText: ink,
            r.Base: ground,
            r.AlternateBase: ground,
            r.Text: ink,
            r.Button: ground,
            r.ButtonText: ink,
            r.BrightText: ink,
            r.Highlight: "#1aebff" if dark else "#1c00cc",
            r.HighlightedText: "#000000" if dark else "#ffffff",
            r.ToolTipBase: ground,
            r.ToolTipText: ink,
            r.PlaceholderText: "#c8c8c8" if dark else "#404040",
            r.Link: "#ffff00" if dark else "#00009f",
            r.LinkVisited: "#ffb0ff" if dark else "#5a0080",
            # Fusion draws frames and bevels from these: edges that show on the ground.
            r.Mid: "#b0b0b0" if dark else "#505050",
            r.Dark: "#d0d0d0" if dark else "#303030",
            r.Midlight: "#808080",
            r.Light: "#404040" if dark else "#c0c0c0",
            r.Shadow: ink,
        },
        "#a0a0a0" if dark else "#5c5c5c",
    )


def contrast_style_sheet(palette: QPalette) -> str:
    """Edges on every field and button in the text's colour, and a thick frame in the
    highlight's where the keyboard is (Fusion draws its edges from the ground, darkened,
    which vanish on black). Unfocused, the frame's room is kept, so nothing moves."""
    r = QPalette.ColorRole
    ink, ground = palette.color(r.Text).name(), palette.color(r.Base).name()
    focus = palette.color(r.Highlight).name()
    faint = palette.color(QPalette.ColorGroup.Disabled, r.Text).name()
    fields = "QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox, QComboBox"
    framed = "QToolButton, QAbstractItemView, QCheckBox, QRadioButton"

    def on(names: str, state: str) -> str:
        return ", ".join(f"{name.strip()}:{state}" for name in names.split(","))

    return "\n".join(
        (
            f"{fields} {{ border: 1px solid {ink}; border-radius: 3px; padding: 3px; }}",
            f"QPushButton {{ border: 1px solid {ink}; border-radius: 4px; padding: 4px 11px; }}",
            f"{framed} {{ border: 2px solid transparent; border-radius: 4px; }}",
            f"QToolButton:hover {{ border-color: {ink}; }}",
            f"{on(fields, 'disabled')}, QPushButton:disabled {{ border-color: {faint}; }}",
            f"{on(fields, 'focus')} {{ border: 2px solid {focus}; padding: 2px; }}",
            f"QPushButton:focus {{ border: 2px solid {focus}; padding: 3px 10px; }}",
            f"{on(framed, 'focus')} {{ border-color: {focus}; }}",
            f"QToolTip {{ border: 1px solid {ink}; }}",
            # Fusion draws a box's and a dot's ring in a grey that fades on white.
            indicator_rules(ring=ink, ground=ground, mark=ink),
        )
    )


def indicator_rules(*, ring: str, ground: str, mark: str) -> str:
    """Check boxes and radio buttons drawn with a ring of `ring`, on `ground`, ticked with
    `mark`: Fusion's own ring is darker than the ground, and vanishes on a dark one."""
    return "\n".join(
        (
            f"QCheckBox::indicator, QRadioButton::indicator {{ width: 11px; height: 11px;"
            f" border: 2px solid {ring}; background: {ground}; }}",
            "QRadioButton::indicator { border-radius: 7px; }",
            f"QCheckBox::indicator:checked {{ background: {mark}; }}",
            "QRadioButton::indicator:checked { background: qradialgradient(cx: 0.5, cy: 0.5,"
            f" radius: 0.5, fx: 0.5, fy: 0.5, stop: 0 {mark}, stop: 0.55 {mark},"
            f" stop: 0.6 {ground}, stop: 1 {ground}); }}",
        )
    )


def dark_style_sheet(palette: QPalette) -> str:
    """Dark's only rules: rings an unticked box or dot shows against the dark ground."""
    r = QPalette.ColorRole
    return indicator_rules(
        ring=palette.color(r.PlaceholderText).name(),
        ground=palette.color(r.Base).name(),
        mark=palette.color(r.Highlight).name(),
    )
