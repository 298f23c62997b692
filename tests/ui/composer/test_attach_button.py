"""The composer's Attach button: its paper clip against the SVG design, drawn on the button."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPalette
from PySide6.QtSvg import QSvgRenderer
from pytestqt.qtbot import QtBot

from app.ui.composer.attach_button import CLIP, AttachButton, paint_paper_clip
from tests.ui.helpers import inked

DESIGN = Path(__file__).with_name("paper_clip.svg")


def _blank(pixels: int) -> QImage:
    image = QImage(pixels, pixels, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    return image


def _svg_image(svg: bytes, pixels: int) -> QImage:
    image = _blank(pixels)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    QSvgRenderer(svg).render(painter, QRectF(0, 0, pixels, pixels))
    painter.end()
    return image


def _drawn(color: QColor, pixels: int) -> QImage:
    image = _blank(pixels)
    painter = QPainter(image)
    paint_paper_clip(painter, QRectF(0, 0, pixels, pixels), color)
    painter.end()
    return image


def _overlap(a: set[tuple[int, int]], b: set[tuple[int, int]]) -> float:
    return len(a & b) / len(a | b)


@pytest.mark.parametrize("pixels", [20, 48, 96])
def test_the_drawn_paper_clip_is_the_designed_one(qapp: object, pixels: int) -> None:
    design = _svg_image(DESIGN.read_bytes().replace(b"currentColor", b"#000000"), pixels)
    assert _overlap(inked(_drawn(QColor("black"), pixels)), inked(design)) > 0.95


def test_the_comparison_tells_another_clip_apart(qapp: object) -> None:
    """The same strokes left upright (no tilt) do not pass as the design."""
    upright = DESIGN.read_bytes().replace(b' transform="rotate(40 12 12)"', b"")
    assert upright != DESIGN.read_bytes()
    design = _svg_image(DESIGN.read_bytes().replace(b"currentColor", b"#000000"), 48)
    other = _svg_image(upright.replace(b"currentColor", b"#000000"), 48)
    assert _overlap(inked(other), inked(design)) < 0.6


def test_the_paper_clip_is_drawn_in_the_colour_given(qapp: object) -> None:
    solid = {
        color.name()
        for image in [_drawn(QColor("#2a7ae2"), 40)]
        for y in range(40)
        for x in range(40)
        if (color := image.pixelColor(x, y)).alpha() == 255
    }
    assert solid == {"#2a7ae2"}


def _shown(qtbot: QtBot, text: str, ratio: float = 1.0) -> tuple[AttachButton, QImage]:
    button = AttachButton()
    qtbot.addWidget(button)
    palette = button.palette()
    palette.setColor(QPalette.ColorRole.ButtonText, QColor(text))
    button.setPalette(palette)
    button.show()
    qtbot.waitExposed(button)
    return button, button.grab().toImage()


def _colours(image: QImage) -> set[str]:
    return {
        image.pixelColor(x, y).name() for y in range(image.height()) for x in range(image.width())
    }


def test_the_button_shows_the_clip_in_its_text_colour_and_follows_a_new_palette(
    qtbot: QtBot,
) -> None:
    button, first = _shown(qtbot, "#2a7ae2")
    assert "#2a7ae2" in _colours(first)
    palette = button.palette()
    palette.setColor(QPalette.ColorRole.ButtonText, QColor("#c0392b"))
    button.setPalette(palette)
    again = button.grab().toImage()
    assert "#c0392b" in _colours(again)
    assert "#2a7ae2" not in _colours(again)


def test_the_clip_sits_in_the_middle_of_a_button_at_least_its_size(qtbot: QtBot) -> None:
    button, image = _shown(qtbot, "#2a7ae2")
    hint = button.sizeHint()
    assert hint.width() >= CLIP.width() and hint.height() >= CLIP.height()
    inked = [
        (x, y)
        for y in range(image.height())
        for x in range(image.width())
        if image.pixelColor(x, y).name() == "#2a7ae2"
    ]
    xs, ys = [x for x, _ in inked], [y for _, y in inked]
    middle_x, middle_y = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    assert abs(middle_x - image.width() / 2) <= 2
    assert abs(middle_y - image.height() / 2) <= 2


def test_a_disabled_button_draws_its_clip_in_the_disabled_colour(qtbot: QtBot) -> None:
    button = AttachButton()
    qtbot.addWidget(button)
    palette = button.palette()
    palette.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor("#777777"))
    palette.setColor(QPalette.ColorGroup.Active, QPalette.ColorRole.ButtonText, QColor("#2a7ae2"))
    palette.setColor(QPalette.ColorGroup.Inactive, QPalette.ColorRole.ButtonText, QColor("#2a7ae2"))
    button.setPalette(palette)
    button.setEnabled(False)
    button.show()
    qtbot.waitExposed(button)
    colours = _colours(button.grab().toImage())
    assert "#777777" in colours and "#2a7ae2" not in colours
