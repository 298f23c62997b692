"""The conversation's colours, for the palette in use: light, dark, and high contrast.

Everything the rows paint comes from a `Theme`: surfaces are blended from the
palette (so a custom palette is followed), while the accents that must stay
recognisable (a notice's kind, a tool's outcome, a status) come from hand-picked
sets, mid-tones on light backgrounds and brighter tones on dark ones. Whether the
palette is dark, or high contrast (pure black and white, as
app/ui/settings/appearance.py gives when asked), is read from its colours, the
thing actually painted behind the rows; the system's colour scheme (Qt 6.5+) only
tells the view when to look again. A high-contrast theme keeps every accent at
4.5:1 or more on the grounds it is painted on (tests/ui/test_contrast.py), draws
cards with a visible edge and the keyboard's place with a thick frame.

Words that say something went wrong, outside the conversation (a field's error, the
composer's attach problems, a full context), are the one place such colours live too:
`problem_color` gives the theme's own, and `show_problem` keeps a widget's words in it
as the theme changes (each theme's at 4.5:1 or more on its window, tests/ui/test_contrast.py).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QWidget

from routing.message_status import MessageStatus
from routing.notice_kind import NoticeKind

# Each notice kind's accent, light and dark (its label is routing.transcript.NOTICE_LABELS).
_NOTICE_LIGHT = {
    NoticeKind.ROUTING: "#2f6fdb",
    NoticeKind.DISCLOSURE: "#8b46d9",
    NoticeKind.HEAL: "#0b8a78",
    NoticeKind.BUDGET: "#c26a05",
    NoticeKind.ERROR: "#d42020",
    NoticeKind.INFO: "#64707d",
    NoticeKind.SIGHT: "#0b7285",
    NoticeKind.NOBODY_SEES: "#c2410c",
}
_NOTICE_DARK = {
    NoticeKind.ROUTING: "#6ea8ff",
    NoticeKind.DISCLOSURE: "#c39bff",
    NoticeKind.HEAL: "#3fd0b8",
    NoticeKind.BUDGET: "#f5a742",
    NoticeKind.ERROR: "#ff6b6b",
    NoticeKind.INFO: "#a3adb8",
    NoticeKind.SIGHT: "#66c7d6",
    NoticeKind.NOBODY_SEES: "#f08a4b",
}
# High contrast: on pure black the accents are light and saturated, on pure white deep.
_NOTICE_CONTRAST_DARK = {
    NoticeKind.ROUTING: "#8cc8ff",
    NoticeKind.DISCLOSURE: "#dcb0ff",
    NoticeKind.HEAL: "#40f0d0",
    NoticeKind.BUDGET: "#ffc857",
    NoticeKind.ERROR: "#ff8c8c",
    NoticeKind.INFO: "#d8d8d8",
    NoticeKind.SIGHT: "#6ee8f8",
    NoticeKind.NOBODY_SEES: "#ffa868",
}
_NOTICE_CONTRAST_LIGHT = {
    NoticeKind.ROUTING: "#0038a8",
    NoticeKind.DISCLOSURE: "#5c12a8",
    NoticeKind.HEAL: "#005e52",
    NoticeKind.BUDGET: "#7a3c00",
    NoticeKind.ERROR: "#a80000",
    NoticeKind.INFO: "#3a3a3a",
    NoticeKind.SIGHT: "#00566a",
    NoticeKind.NOBODY_SEES: "#8f2c00",
}
STATUS_LABELS: dict[str, str] = {
    MessageStatus.STREAMING: "answering…",
    MessageStatus.STOPPED: "stopped",
    MessageStatus.FAILED: "failed",
    MessageStatus.INTERRUPTED: "interrupted",
}
# Warning, danger, success and neutral accents, light and dark.
_ACCENTS_LIGHT = {"warn": "#c26a05", "danger": "#d42020", "ok": "#15803d", "muted": "#64707d"}
_ACCENTS_DARK = {"warn": "#f5a742", "danger": "#ff6b6b", "ok": "#4ade80", "muted": "#a3adb8"}
_ACCENTS_CONTRAST_DARK = {
    "warn": "#ffc857",
    "danger": "#ff8c8c",
    "ok": "#6af59a",
    "muted": "#d8d8d8",
}
_ACCENTS_CONTRAST_LIGHT = {
    "warn": "#7a3c00",
    "danger": "#a80000",
    "ok": "#005f24",
    "muted": "#3a3a3a",
}
# Text on its ground at this ratio or more, in the window as in its fields, is high
# contrast: pure black and white (21:1) and their near neighbours. Many platforms' light
# palettes have black text on white fields (offscreen Qt's and Windows' do), but none a
# window so white: theirs is a light grey (#efefef against black: 18.3:1).
HIGH_CONTRAST_RATIO = 19.5
_STATUS_ACCENT = {
    MessageStatus.STREAMING: "muted",
    MessageStatus.STOPPED: "warn",
    MessageStatus.FAILED: "danger",
    MessageStatus.INTERRUPTED: "warn",
}
# Pygments styles whose colours read on the code background of each set.
PYGMENTS_LIGHT = "default"
PYGMENTS_DARK = "github-dark"


def blend(base: QColor, accent: QColor, amount: float) -> QColor:
    """`accent` laid over `base` at `amount` opacity, as an opaque colour."""
    return QColor.fromRgbF(
        base.redF() + (accent.redF() - base.redF()) * amount,
        base.greenF() + (accent.greenF() - base.greenF()) * amount,
        base.blueF() + (accent.blueF() - base.blueF()) * amount,
    )


def is_dark(palette: QPalette) -> bool:
    """Whether the palette paints light text on a dark ground."""
    base = palette.color(QPalette.ColorRole.Base)
    text = palette.color(QPalette.ColorRole.Text)
    return base.lightnessF() < text.lightnessF()


def luminance(color: QColor) -> float:
    """A colour's relative luminance, as WCAG 2 defines it (0 black, 1 white)."""

    def linear(channel: float) -> float:
        return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * linear(color.redF())
        + 0.7152 * linear(color.greenF())
        + 0.0722 * linear(color.blueF())
    )


def contrast_ratio(one: QColor, other: QColor) -> float:
    """WCAG 2's contrast ratio of two colours, from 1 (the same) to 21 (black and white)."""
    lighter, darker = sorted((luminance(one), luminance(other)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def is_high_contrast(palette: QPalette) -> bool:
    """Whether the palette is a high-contrast one: text at about 21:1 on the window's ground
    and the fields' alike."""
    roles = QPalette.ColorRole
    fields = contrast_ratio(palette.color(roles.Base), palette.color(roles.Text))
    window = contrast_ratio(palette.color(roles.Window), palette.color(roles.WindowText))
    return min(fields, window) >= HIGH_CONTRAST_RATIO


class Theme(NamedTuple):
    """Every colour a conversation row uses, for one palette.

    A named tuple: it is defined and made before every start's first paint, where a
    frozen dataclass of this size takes about 2 ms to define (it compiles its methods).
    """

    dark: bool
    high_contrast: bool
    base: QColor
    text: QColor
    link: QColor
    highlight: QColor
    faded: QColor  # author lines, captions
    border: QColor  # hairlines around thumbnails
    user_card: QColor
    answer_card: QColor
    code_background: QColor
    code_header: QColor
    code_label: QColor  # the language's name and the copy button's words
    code_text: QColor
    inline_code: QColor  # the ground of `code` in prose: a step darker than the cards
    pygments_style: str
    notices: dict[str, QColor]
    accents: dict[str, QColor]
    outline: QColor | None = None  # cards' edge; None: a card shows by its fill alone
    focus_width: float = 1.0  # the frame around the row the keyboard is on

    @property
    def key(self) -> tuple[bool, bool, int, int, int]:
        """What identifies the theme in a cache key: laid-out documents carry its colours."""
        return (self.dark, self.high_contrast, self.base.rgba(), self.text.rgba(), self.link.rgba())

    def notice(self, kind: str) -> QColor:
        """A notice kind's accent (an unknown kind reads as a note)."""
        return self.notices.get(kind, self.notices[NoticeKind.INFO])

    def status(self, status: str) -> QColor:
        """A message status tag's colour."""
        return self.accents[
            _STATUS_ACCENT.get(MessageStatus(status), "muted") if status else "muted"
        ]


def theme_for(palette: QPalette) -> Theme:
    """The theme of a palette (cached: rows ask for it on every paint)."""
    roles = QPalette.ColorRole
    return _theme(
        palette.color(roles.Base).rgba(),
        palette.color(roles.Text).rgba(),
        palette.color(roles.Link).rgba(),
        palette.color(roles.Highlight).rgba(),
        is_dark(palette),
        is_high_contrast(palette),
    )


@lru_cache(maxsize=8)
def _theme(
    base_rgba: int,
    text_rgba: int,
    link_rgba: int,
    highlight_rgba: int,
    dark: bool,
    high_contrast: bool,
) -> Theme:
    base, text = QColor.fromRgba(base_rgba), QColor.fromRgba(text_rgba)
    highlight = QColor.fromRgba(highlight_rgba)
    if high_contrast:
        return _high_contrast(base, text, QColor.fromRgba(link_rgba), highlight, dark)
    # Dark grounds need a little more contrast between layers to read as layers.
    lift = 1.6 if dark else 1.0
    code = blend(base, text, 0.07 * lift)
    return Theme(
        dark=dark,
        high_contrast=False,
        base=base,
        text=text,
        link=QColor.fromRgba(link_rgba),
        highlight=highlight,
        faded=blend(base, text, 0.62),
        border=blend(base, text, 0.2),
        user_card=blend(base, highlight, 0.13 * lift),
        answer_card=blend(base, text, 0.04 * lift),
        code_background=code,
        code_header=blend(code, text, 0.05 * lift),
        code_label=blend(code, text, 0.66),
        code_text=blend(base, text, 0.92),
        inline_code=blend(base, text, 0.1 * lift),
        pygments_style=PYGMENTS_DARK if dark else PYGMENTS_LIGHT,
        notices={k: QColor(v) for k, v in (_NOTICE_DARK if dark else _NOTICE_LIGHT).items()},
        accents={k: QColor(v) for k, v in (_ACCENTS_DARK if dark else _ACCENTS_LIGHT).items()},
    )


def _high_contrast(
    base: QColor, text: QColor, link: QColor, highlight: QColor, dark: bool
) -> Theme:
    """Pure grounds, words near full strength, edges drawn, accents of their own."""
    code = blend(base, text, 0.1)
    return Theme(
        dark=dark,
        high_contrast=True,
        base=base,
        text=text,
        link=link,
        highlight=highlight,
        faded=blend(base, text, 0.85),
        border=blend(base, text, 0.75),
        user_card=blend(base, highlight, 0.16),
        answer_card=blend(base, text, 0.06),
        code_background=code,
        code_header=blend(code, text, 0.1),
        code_label=blend(code, text, 0.9),
        code_text=text,
        inline_code=blend(base, text, 0.14),
        pygments_style=PYGMENTS_DARK if dark else PYGMENTS_LIGHT,
        notices={
            k: QColor(v)
            for k, v in (_NOTICE_CONTRAST_DARK if dark else _NOTICE_CONTRAST_LIGHT).items()
        },
        accents={
            k: QColor(v)
            for k, v in (_ACCENTS_CONTRAST_DARK if dark else _ACCENTS_CONTRAST_LIGHT).items()
        },
        outline=blend(base, text, 0.75),
        focus_width=3.0,
    )


def problem_color(palette: QPalette) -> QColor:
    """The colour of words saying something went wrong, on this palette's window: the
    theme's danger accent (deep on light grounds, light on dark ones)."""
    danger = theme_for(palette).accents["danger"]
    # A copy the caller may change. Not QColor(danger): PySide6 tries QByteArray for that
    # first, building its enums before the first paint.
    return danger.toRgb()


_PROBLEM = "sightline_problem"  # the property marking a widget whose words show a problem


class _ProblemWords(QObject):
    """Keeps each marked widget's words in the problem colour of the palette in use."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if isinstance(watched, QWidget) and event.type() in (
            QEvent.Type.PaletteChange,
            QEvent.Type.ApplicationPaletteChange,
        ):
            _paint_problem(watched)
        return False


_FOLLOWER: list[_ProblemWords] = []  # one for the process, made when first needed


def _paint_problem(widget: QWidget) -> None:
    # The application's palette, not the widget's: the sheet below sets the widget's own.
    sheet = f"color: {problem_color(QGuiApplication.palette()).name()};"
    if widget.styleSheet() != sheet:
        widget.setStyleSheet(sheet)


def show_problem(widget: QWidget, on: bool = True) -> None:
    """Show `widget`'s words in the theme's problem colour, following the theme while it
    changes (`on` False: back to the usual colour)."""
    if not _FOLLOWER:
        _FOLLOWER.append(_ProblemWords())
    follower = _FOLLOWER[0]
    if on:
        if widget.property(_PROBLEM) is not True:
            widget.setProperty(_PROBLEM, True)
            widget.installEventFilter(follower)
        _paint_problem(widget)
    elif widget.property(_PROBLEM) is True:
        widget.setProperty(_PROBLEM, False)
        widget.removeEventFilter(follower)
        widget.setStyleSheet("")
    elif widget.styleSheet():
        widget.setStyleSheet("")


def shows_problem(widget: QWidget) -> bool:
    """Whether `widget`'s words are shown as a problem (`show_problem`)."""
    return widget.property(_PROBLEM) is True
