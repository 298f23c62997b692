"""The conversation's colours, for the palette in use: a light set and a dark set.

Everything the rows paint comes from a `Theme`: surfaces are blended from the
palette (so a custom palette is followed), while the accents that must stay
recognisable (a notice's kind, a tool's outcome, a status) come from one of two
hand-picked sets, mid-tones on light backgrounds and brighter tones on dark
ones. Whether the palette is dark is read from its colours, the thing actually
painted behind the rows; the system's colour scheme (Qt 6.5+) only tells the
view when to look again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from PySide6.QtGui import QColor, QPalette

from routing.transcript import MessageStatus, NoticeKind

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
STATUS_LABELS: dict[str, str] = {
    MessageStatus.STREAMING: "answering…",
    MessageStatus.STOPPED: "stopped",
    MessageStatus.FAILED: "failed",
    MessageStatus.INTERRUPTED: "interrupted",
}
# Warning, danger, success and neutral accents, light and dark.
_ACCENTS_LIGHT = {"warn": "#c26a05", "danger": "#d42020", "ok": "#15803d", "muted": "#64707d"}
_ACCENTS_DARK = {"warn": "#f5a742", "danger": "#ff6b6b", "ok": "#4ade80", "muted": "#a3adb8"}
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


@dataclass(frozen=True)
class Theme:
    """Every colour a conversation row uses, for one palette."""

    dark: bool
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
    notices: dict[str, QColor] = field(default_factory=dict)
    accents: dict[str, QColor] = field(default_factory=dict)

    @property
    def key(self) -> tuple[bool, int, int, int]:
        """What identifies the theme in a cache key: laid-out documents carry its colours."""
        return (self.dark, self.base.rgba(), self.text.rgba(), self.link.rgba())

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
    )


@lru_cache(maxsize=8)
def _theme(
    base_rgba: int, text_rgba: int, link_rgba: int, highlight_rgba: int, dark: bool
) -> Theme:
    base, text = QColor.fromRgba(base_rgba), QColor.fromRgba(text_rgba)
    highlight = QColor.fromRgba(highlight_rgba)
    # Dark grounds need a little more contrast between layers to read as layers.
    lift = 1.6 if dark else 1.0
    code = blend(base, text, 0.07 * lift)
    return Theme(
        dark=dark,
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
