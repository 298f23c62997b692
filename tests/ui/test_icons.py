"""The icons Sightline draws: the badges, from their SVGs, tinted."""

from __future__ import annotations

from collections import Counter

from PySide6.QtGui import QColor

from app.ui.icons import BADGE, badge_image, badges_icon, struck_badge_image
from tests.ui.helpers import inked


def test_a_badge_is_drawn_from_its_svg_in_the_colour_and_pixel_ratio_given(qapp: object) -> None:
    eye = badge_image("eye", QColor("#2a7ae2"), 16, 2.0)
    assert (eye.width(), eye.height(), eye.devicePixelRatio()) == (32, 32, 2.0)
    assert inked(eye)
    solid = Counter(
        eye.pixelColor(x, y).name()
        for y in range(32)
        for x in range(32)
        if eye.pixelColor(x, y).alpha() == 255
    )
    assert solid.most_common(1)[0][0] == "#2a7ae2"


def test_a_struck_badge_clears_a_gap_along_its_stroke(qapp: object) -> None:
    eye = badge_image("eye", QColor("black"), 32)
    struck = struck_badge_image("eye", QColor("black"), 32)
    assert inked(struck) != inked(eye)


def test_a_model_with_no_badge_gets_a_null_icon_and_one_with_both_a_wide_one(qapp: object) -> None:
    assert badges_icon(False, False, QColor("black")).isNull()
    both = badges_icon(True, True, QColor("black"))
    assert both.availableSizes()[0].width() > BADGE
