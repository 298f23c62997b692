"""The version switch, "‹ 2 / 3 ›": on an answer given again or a message edited and sent
again. Its arrows are buttons like "Copy" (hovered, clicked through the same state), so
the delegate and the view treat them alike; the words between say which version shows."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter

from app.presenters.rows import Row
from app.ui.conversation.painting import blend, paint_button
from app.ui.conversation.row_buttons import NEXT, PREVIOUS, ButtonState
from app.ui.theme import Theme

_ARROW_PAD = 10


@dataclass(frozen=True)
class Switch:
    """Where a row's switch is drawn, relative to the row."""

    previous: QRect
    label: QRect
    next: QRect
    words: str

    @property
    def rect(self) -> QRect:
        """All of it."""
        return self.previous.united(self.next)

    def buttons(self, row: Row) -> dict[int, QRect]:
        """The arrows that lead somewhere (the first version has no "previous")."""
        found = {}
        if row.version_beside(-1) is not None:
            found[PREVIOUS] = self.previous
        if row.version_beside(+1) is not None:
            found[NEXT] = self.next
        return found


def place_switch(metrics: QFontMetrics, row: Row, x: int, y: int, *, leftwards: bool) -> Switch:
    """The switch of a row with versions at (x, y) of a line `metrics` high: starting at
    `x`, or (`leftwards`) ending there."""
    words = f"{row.switch_at + 1} / {len(row.switch)}"
    arrow = metrics.horizontalAdvance("‹") + _ARROW_PAD
    label = metrics.horizontalAdvance(words) + 8
    height = metrics.height() + 4
    left = x - (2 * arrow + label) if leftwards else x
    return Switch(
        QRect(left, y - 2, arrow, height),
        QRect(left + arrow, y - 2, label, height),
        QRect(left + arrow + label, y - 2, arrow, height),
        words,
    )


def paint_switch(
    painter: QPainter, switch: Switch, row: Row, theme: Theme, ground: QColor, buttons: ButtonState
) -> None:
    """Draw the switch: live arrows like buttons, a dead one faint, the position between."""
    faint = blend(ground, theme.faded, 0.35)
    for block, rect, arrow in ((PREVIOUS, switch.previous, "‹"), (NEXT, switch.next, "›")):
        step = -1 if block == PREVIOUS else +1
        if row.version_beside(step) is None:
            paint_button(painter, rect, arrow, faint, None)
            continue
        hovered = buttons.hovered == (row.item_id, block)
        wash = blend(ground, theme.text, 0.1) if hovered else None
        paint_button(painter, rect, arrow, theme.text if hovered else theme.faded, wash)
    painter.setPen(theme.faded)
    painter.drawText(switch.label, Qt.AlignmentFlag.AlignCenter, switch.words)
