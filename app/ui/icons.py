"""Sightline's icons: the app icon and the small badges, tinted to the palette.

`QIcon` and `QImage` are imported where they are made, not with the module: the
model picker loads it for the badges' sizes before a start's first paint, and
PySide6 builds a class's enums (`QIcon`'s 157 theme names) at its first import.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap

import resources
from resources import Badge

if TYPE_CHECKING:
    from PySide6.QtGui import QIcon, QImage


def app_icon() -> QIcon:
    """The window icon, given after the first paint (a PNG: no SVG plugin loads for it)."""
    from PySide6.QtGui import QIcon

    pixmap = QPixmap()
    pixmap.loadFromData(resources.read_bytes(resources.APP_ICON), "PNG")
    return QIcon(pixmap)


@cache
def _svg_text(name: Badge) -> bytes:
    return resources.read_bytes(f"icons/{name}.svg")


def badge_image(name: Badge, color: QColor, size: int, ratio: float = 1.0) -> QImage:
    """An SVG badge (`eye`, `tools`) drawn in `color`, `size` logical pixels square."""
    return _badge_image(name, color.name(QColor.NameFormat.HexArgb), size, round(ratio * 4) / 4)


def _canvas(size: int, ratio: float) -> tuple[QImage, QPainter]:
    """A clear square image of `size` logical pixels at `ratio`, in device pixels (the
    caller sets its pixel ratio once drawn), and an antialiased painter on it."""
    from PySide6.QtGui import QImage

    pixels = max(1, round(size * ratio))
    image = QImage(pixels, pixels, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    return image, painter


@cache
def _badge_image(name: Badge, color: str, size: int, ratio: float) -> QImage:
    from PySide6.QtSvg import QSvgRenderer  # only once a badge is first drawn

    svg = _svg_text(name).replace(b"currentColor", QColor(color).name().encode())
    renderer = QSvgRenderer(svg)
    image, painter = _canvas(size, ratio)
    painter.setOpacity(QColor(color).alphaF())
    renderer.render(painter, QRectF(image.rect()))
    painter.end()
    image.setDevicePixelRatio(ratio)
    return image


def struck_badge_image(name: Badge, color: QColor, size: int, ratio: float = 1.0) -> QImage:
    """A badge struck through corner to corner: an eye that can't see."""
    image = badge_image(name, color, size, ratio).copy()
    painter = QPainter(image)  # in logical pixels: the image keeps its pixel ratio
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    start, end = QPointF(size * 0.12, size * 0.12), QPointF(size * 0.88, size * 0.88)
    # A clear gap either side of the stroke, so it reads as a slash, not part of the eye.
    for mode, tint, width in (
        (QPainter.CompositionMode.CompositionMode_Clear, QColor("black"), 0.24),
        (QPainter.CompositionMode.CompositionMode_SourceOver, QColor(color.name()), 0.1),
    ):
        pen = QPen(tint, size * width)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setCompositionMode(mode)
        painter.setPen(pen)
        painter.drawLine(start, end)
    painter.end()
    return image


def icon_of(image: QImage) -> QIcon:
    """An icon showing one image (already at its device pixel ratio)."""
    from PySide6.QtGui import QIcon

    return QIcon(QPixmap.fromImage(image))


BADGE = 16  # a badge's size in logical pixels
BADGE_GAP = 4


def badges_icon(sees: bool | None, tools: bool, color: QColor) -> QIcon:
    """One icon with a model's badges side by side, only those it has: eye, then wrench.

    Unknown sight is a faint eye (the tooltip says "sight unknown"); a model with
    no badge gets a null icon.
    """
    from PySide6.QtGui import QIcon

    images: list[tuple[Badge, QColor]] = []
    if sees is not False:
        eye = QColor(color)
        eye.setAlphaF(1.0 if sees else 0.35)
        images.append(("eye", eye))
    if tools:
        images.append(("tools", QColor(color)))
    icon = QIcon()
    if not images:
        return icon
    width = len(images) * BADGE + (len(images) - 1) * BADGE_GAP
    for ratio in (1.0, 2.0):
        pixmap = QPixmap(round(width * ratio), round(BADGE * ratio))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        for slot, (name, tint) in enumerate(images):
            painter.drawImage(slot * (BADGE + BADGE_GAP), 0, badge_image(name, tint, BADGE, ratio))
        painter.end()
        icon.addPixmap(pixmap)
    return icon
