"""Sightline's icons: the app icon and the small badges, tinted to the palette."""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QImage, QPainter, QPixmap

from app.paths import resources_dir


def icon_file(name: str) -> str:
    """The path of an icon in `resources/icons/`, as a string for Qt."""
    return str(resources_dir() / "icons" / name)


def app_icon() -> QIcon:
    """The window icon (PNG, so no SVG plugin has to load before the first paint)."""
    return QIcon(icon_file("sightline.png"))


@cache
def _svg_text(name: str) -> bytes:
    with open(icon_file(f"{name}.svg"), encoding="utf-8") as handle:
        return handle.read().encode("utf-8")


def badge_image(name: str, color: QColor, size: int, ratio: float = 1.0) -> QImage:
    """An SVG badge (`eye`, `tools`) drawn in `color`, `size` logical pixels square."""
    return _badge_image(name, color.name(QColor.NameFormat.HexArgb), size, round(ratio * 4) / 4)


@cache
def _badge_image(name: str, color: str, size: int, ratio: float) -> QImage:
    from PySide6.QtSvg import QSvgRenderer  # only once a badge is first drawn

    svg = _svg_text(name).replace(b"currentColor", QColor(color).name().encode())
    renderer = QSvgRenderer(svg)
    pixels = max(1, round(size * ratio))
    image = QImage(pixels, pixels, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setOpacity(QColor(color).alphaF())
    renderer.render(painter, QRectF(0, 0, pixels, pixels))
    painter.end()
    image.setDevicePixelRatio(ratio)
    return image


def badges_icon(sees: bool | None, tools: bool | None, color: QColor, size: int = 16) -> QIcon:
    """One icon showing a model's abilities side by side: eye, then wrench.

    An absent ability leaves its slot empty so names line up in a list; unknown
    sight is a faint eye (the tooltip says "sight unknown").
    """
    gap = size // 4
    icon = QIcon()
    for ratio in (1.0, 2.0):
        pixmap = QPixmap(round((size * 2 + gap) * ratio), round(size * ratio))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        if sees is not False:
            eye = QColor(color)
            if sees is None:
                eye.setAlphaF(0.35)
            painter.drawImage(0, 0, badge_image("eye", eye, size, ratio))
        if tools:
            painter.drawImage(size + gap, 0, badge_image("tools", color, size, ratio))
        painter.end()
        icon.addPixmap(pixmap)
    return icon
