"""The icons Sightline draws: the composer's paper clip against its SVG design, the badges."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from app.ui.icons import badge_image, paper_clip_image

DESIGN = Path(__file__).with_name("paper_clip.svg")


def _svg_image(svg: bytes, pixels: int) -> QImage:
    image = QImage(pixels, pixels, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    QSvgRenderer(svg).render(painter, QRectF(0, 0, pixels, pixels))
    painter.end()
    return image


def _inked(image: QImage) -> set[tuple[int, int]]:
    """The pixels at least half covered."""
    return {
        (x, y)
        for y in range(image.height())
        for x in range(image.width())
        if image.pixelColor(x, y).alpha() >= 128
    }


def _overlap(a: set[tuple[int, int]], b: set[tuple[int, int]]) -> float:
    return len(a & b) / len(a | b)


@pytest.mark.parametrize("pixels", [20, 48, 96])
def test_the_drawn_paper_clip_is_the_designed_one(qapp: object, pixels: int) -> None:
    design = _svg_image(DESIGN.read_bytes().replace(b"currentColor", b"#000000"), pixels)
    drawn = paper_clip_image(QColor("black"), pixels)
    assert (drawn.width(), drawn.height()) == (pixels, pixels)
    assert _overlap(_inked(drawn), _inked(design)) > 0.95


def test_the_comparison_tells_another_clip_apart(qapp: object) -> None:
    """The same strokes left upright (no tilt) do not pass as the design."""
    upright = DESIGN.read_bytes().replace(b' transform="rotate(40 12 12)"', b"")
    assert upright != DESIGN.read_bytes()
    design = _svg_image(DESIGN.read_bytes().replace(b"currentColor", b"#000000"), 48)
    other = _svg_image(upright.replace(b"currentColor", b"#000000"), 48)
    assert _overlap(_inked(other), _inked(design)) < 0.6


def test_the_paper_clip_takes_the_colour_and_the_screens_pixel_ratio(qapp: object) -> None:
    drawn = paper_clip_image(QColor("#2a7ae2"), 20, 2.0)
    assert (drawn.width(), drawn.height(), drawn.devicePixelRatio()) == (40, 40, 2.0)
    solid = [
        drawn.pixelColor(x, y)
        for y in range(40)
        for x in range(40)
        if drawn.pixelColor(x, y).alpha() == 255
    ]
    assert solid
    assert {color.name() for color in solid} == {"#2a7ae2"}


def test_a_badge_is_still_drawn_from_its_svg(qapp: object) -> None:
    eye = badge_image("eye", QColor("black"), 16)
    assert _inked(eye)
