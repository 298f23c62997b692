"""A PDF the person attached, as a message row shows it: a compact tile with a drawn
document mark, the file's name, and its pages and size.

One tile a line below the pictures, in the order the message carries them; a long name
is elided in the middle, so the tile stays compact.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter
from PySide6.QtWidgets import QStyleOptionViewItem

from app.ui.conversation.painting import blend, paint_document, small_font
from app.ui.theme import Theme

if TYPE_CHECKING:
    from vision.pdf import PdfFile

TILE_WIDTH = 320  # a PDF tile's widest: a long name is elided, the tile stays compact
TILE_PAD = 8  # a PDF tile's edge to its mark and words


def _tile_fonts(option: QStyleOptionViewItem) -> tuple[QFont, QFont]:
    """A PDF tile's fonts: its name's, and its pages line's."""
    return (
        small_font(option.font, 0.95, QFont.Weight.DemiBold),
        small_font(option.font, 0.85, QFont.Weight.Normal),
    )


def tile_height(option: QStyleOptionViewItem) -> int:
    """A PDF tile's height: its name's line and its pages line, inside its padding."""
    name, pages = (QFontMetrics(font) for font in _tile_fonts(option))
    return max(40, name.height() + pages.height() + 2 * TILE_PAD + 2)


def _mark_size(height: int) -> QSize:
    """The document mark inside a tile of `height`: a page's proportions."""
    mark_height = height - 2 * TILE_PAD
    return QSize(round(mark_height * 0.78), mark_height)


def _pages_said(pdf: PdfFile) -> str:
    """Its pages and size, in the composer's words. Loaded with the first tile: the
    presenter brings the reading of attachments and PDFs, which a chat without one
    (the one left open, shown in the first frame) doesn't need."""
    from app.presenters.pdf_notes import pages_words

    return pages_words(pdf)


def tile_width(option: QStyleOptionViewItem, pdf: PdfFile, room: int) -> int:
    """A PDF tile's width: its mark and its longer line, within `room` and `TILE_WIDTH`."""
    name, pages = (QFontMetrics(font) for font in _tile_fonts(option))
    words = max(name.horizontalAdvance(pdf.name), pages.horizontalAdvance(_pages_said(pdf)))
    mark = _mark_size(tile_height(option)).width()
    return min(room, TILE_WIDTH, 2 * TILE_PAD + mark + 10 + words + 2)


def paint_tile(
    painter: QPainter,
    option: QStyleOptionViewItem,
    rect: QRect,
    pdf: PdfFile,
    theme: Theme,
    is_user: bool,
) -> None:
    """One PDF's tile: a rounded box with the document mark, the name, pages and size."""
    card = theme.user_card if is_user else theme.answer_card
    painter.setPen(theme.border)
    painter.setBrush(blend(card, theme.base, 0.7))
    painter.drawRoundedRect(rect.adjusted(0, 0, -1, -1), 6, 6)
    mark = QRect(QPoint(rect.x() + TILE_PAD, rect.y() + TILE_PAD), _mark_size(rect.height()))
    paint_document(painter, mark, theme.base, theme.text)
    name_font, pages_font = _tile_fonts(option)
    name, pages = QFontMetrics(name_font), QFontMetrics(pages_font)
    left = mark.right() + 10
    width = max(0, rect.right() - TILE_PAD - left)
    top = rect.y() + (rect.height() - name.height() - pages.height() - 2) // 2
    painter.setFont(name_font)
    painter.setPen(theme.text)
    shown = name.elidedText(pdf.name, Qt.TextElideMode.ElideMiddle, width)
    painter.drawText(QRect(left, top, width, name.height()), Qt.AlignmentFlag.AlignLeft, shown)
    painter.setFont(pages_font)
    painter.setPen(theme.faded)
    below = QRect(left, top + name.height() + 2, width, pages.height())
    said = pages.elidedText(_pages_said(pdf), Qt.TextElideMode.ElideRight, width)
    painter.drawText(below, Qt.AlignmentFlag.AlignLeft, said)
