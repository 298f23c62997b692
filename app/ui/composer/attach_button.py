"""The composer's Attach button: a flat tool button with a paper clip drawn on it.

The clip is painted with the button, in its text colour, not handed to it as a
`QIcon`: the button is in the first frame, and the first use of `QIcon` from
Python builds its theme icons' 157 names into a Python enum (about 10 M
instructions, 3 ms here) before anything shows. Drawn on each paint, the clip
also follows a changed palette and any pixel ratio with nothing kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QPainter, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import QToolButton

if TYPE_CHECKING:
    from PySide6.QtGui import QColor, QPaintEvent
    from PySide6.QtWidgets import QWidget

CLIP = QSize(20, 20)  # the clip's size in logical pixels
_GRID = 24  # the design's units (tests/ui/composer/paper_clip.svg)


def paint_paper_clip(painter: QPainter, target: QRectF, color: QColor) -> None:
    """Draw the paper clip filling the square `target`, in `color`.

    The strokes are those of tests/ui/composer/paper_clip.svg on its 24-unit grid, drawn
    upright and shown tilted by 40°.
    """
    clip = QPainterPath(QPointF(10, 8))  # inner wire, down
    clip.lineTo(10, 15.5)
    clip.arcTo(QRectF(10, 13.5, 4, 4), 180, 180)  # inner bend, below
    clip.lineTo(14, 5.5)
    clip.arcTo(QRectF(7, 2, 7, 7), 0, 180)  # top bend
    clip.lineTo(7, 17)
    clip.arcTo(QRectF(7, 12, 10, 10), 180, 180)  # outer bend, below
    clip.lineTo(17, 9)
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.translate(target.topLeft())
    painter.scale(target.width() / _GRID, target.height() / _GRID)
    painter.translate(_GRID / 2, _GRID / 2)
    painter.rotate(40)
    painter.translate(-_GRID / 2, -_GRID / 2)
    pen = QPen(color, 1.9)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawPath(clip)
    painter.restore()


class AttachButton(QToolButton):
    """A flat (auto-raised) tool button the size of a `CLIP` icon, showing the paper clip."""

    def __init__(self, parent: QWidget | None = None) -> None:
        """A button with no icon: its size comes from the icon size, its clip from paint."""
        super().__init__(parent)
        self.setAutoRaise(True)
        self.setIconSize(CLIP)

    def paintEvent(self, event: QPaintEvent) -> None:
        """The style's panel (raised under the pointer, pressed), then the clip centred."""
        super().paintEvent(event)
        group = (
            QPalette.ColorGroup.Disabled
            if not self.isEnabled()
            else QPalette.ColorGroup.Active
            if self.isActiveWindow()
            else QPalette.ColorGroup.Inactive
        )
        color = self.palette().color(group, QPalette.ColorRole.ButtonText)
        side = min(CLIP.width(), self.width(), self.height())
        target = QRectF((self.width() - side) / 2, (self.height() - side) / 2, side, side)
        painter = QPainter(self)
        paint_paper_clip(painter, target, color)
        painter.end()
