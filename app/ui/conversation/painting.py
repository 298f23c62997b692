"""Small painting helpers the conversation's rows share: colours, pills, thumbnails, text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontDatabase,
    QPainter,
    QPainterPath,
    QPalette,
    QPen,
    QTextDocument,
    QTextOption,
)

from app.ui.theme import blend

if TYPE_CHECKING:
    from cachetools import LRUCache
    from PySide6.QtWidgets import QWidget

    from vision.pictures import Picture

MARGIN_X = 18  # row edge to card
MARGIN_Y = 6  # between rows
PAD = 10  # card edge to its contents
GAP = 6  # between the parts of a card
THUMB = QSize(240, 180)  # largest thumbnail: a screenshot stays legible, a chat stays compact
CODE_PAD = 10  # a code box's edge to its code
CODE_HEADER = 26  # the strip above a code block's code: the language's name and "Copy"
# A PDF's band: the red people know PDFs by, dark enough for white letters in either theme.
PDF_RED = QColor("#c6362f")

__all__ = [  # blend lives with the theme; painting code has long found it here
    "CODE_HEADER",
    "CODE_PAD",
    "GAP",
    "MARGIN_X",
    "MARGIN_Y",
    "PAD",
    "PDF_RED",
    "THUMB",
    "PlainDocuments",
    "blend",
    "card_across",
    "close_card",
    "code_font",
    "draw_document",
    "label_font",
    "paint_button",
    "paint_code_box",
    "paint_document",
    "paint_pill",
    "paint_thumbnail",
    "small_font",
]


def card_across(width: int) -> QRect:
    """A card row's card: the view's `width` inside the row's margins, its height set by
    `close_card` once what it holds is placed."""
    return QRect(MARGIN_X, MARGIN_Y, width - 2 * MARGIN_X, 0)


def close_card(card: QRect, bottom: int) -> int:
    """End `card` at `bottom` (below what it holds, padding included); the row's height,
    the margin to the next row included."""
    card.setHeight(bottom - card.y())
    return card.bottom() + 1 + MARGIN_Y


def small_font(font: QFont, scale: float, weight: QFont.Weight) -> QFont:
    """`font` scaled (never below 7 pt) and weighted: for author lines, labels and captions."""
    small = QFont(font)
    small.setPointSizeF(max(7.0, font.pointSizeF() * scale))
    small.setWeight(weight)
    return small


def code_font(font: QFont, scale: float = 0.9) -> QFont:
    """The system's fixed-width font, sized against `font`: for tool calls and their output."""
    code = QFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    code.setPointSizeF(max(7.0, font.pointSizeF() * scale))
    return code


def label_font(font: QFont) -> QFont:
    """The small capitals-style font of pills ("ROUTING", "OK")."""
    label = small_font(font, 0.78, QFont.Weight.Bold)
    label.setLetterSpacing(QFont.SpacingType.PercentageSpacing, 106)
    return label


def paint_pill(painter: QPainter, rect: QRect, label: str, color: QColor, base: QColor) -> None:
    """A rounded tag: `label` in `color` on a faint wash of it."""
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(blend(base, color, 0.16))
    painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
    painter.setPen(color)
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)


def paint_thumbnail(
    painter: QPainter,
    rect: QRect,
    picture: Picture,
    border: QColor,
    ratio: float,
    widget: QWidget | None = None,
) -> None:
    """A picture in rounded corners with a hairline border; a framed word if it can't be
    read; a faint frame while a large one is decoded for `widget`, which then draws again."""
    from app.ui.conversation.thumbnails import ready  # with the first picture drawn

    pixmap = ready(picture, rect.size(), ratio, widget)
    path = QPainterPath()
    path.addRoundedRect(rect.toRectF().adjusted(0.5, 0.5, -0.5, -0.5), 4, 4)
    painter.save()
    if pixmap is None:
        wash = QColor(border)
        wash.setAlphaF(0.25)
        painter.setPen(border)
        painter.setBrush(wash)
        painter.drawPath(path)
    elif pixmap.isNull():
        painter.setPen(border)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(path)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, "picture")
    else:
        painter.setClipPath(path)
        painter.drawPixmap(rect, pixmap)
        painter.setClipping(False)
        painter.setPen(border)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(path)
    painter.restore()


def draw_document(
    painter: QPainter, document: QTextDocument, at: QPoint, color: QColor, link: QColor
) -> None:
    """Draw a laid-out document with its top-left corner at `at`, in the palette's colours."""
    painter.save()
    painter.translate(at)
    context = QAbstractTextDocumentLayout.PaintContext()
    # A document paints black unless told otherwise; follow the palette.
    context.palette.setColor(QPalette.ColorRole.Text, color)
    context.palette.setColor(QPalette.ColorRole.Link, link)
    document.documentLayout().draw(painter, context)
    painter.restore()


def paint_button(
    painter: QPainter, rect: QRect, label: str, color: QColor, wash: QColor | None
) -> None:
    """A flat text button ("Copy"): its words, on a rounded wash while hovered."""
    if wash is not None:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(wash)
        painter.drawRoundedRect(rect, 4, 4)
    painter.setPen(color)
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)


def paint_code_box(
    painter: QPainter, box: QRect, header: QRect, background: QColor, strip: QColor
) -> None:
    """A code block's rounded box, its header strip a shade apart from the code."""
    path = QPainterPath()
    path.addRoundedRect(box.toRectF(), 6, 6)
    painter.save()
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(background)
    painter.drawPath(path)
    painter.setClipPath(path)
    painter.fillRect(header, strip)
    painter.restore()


def paint_document(painter: QPainter, rect: QRect, paper: QColor, ink: QColor) -> None:
    """A PDF's mark: a page with a folded corner and lines of text, a red "PDF" band across it.

    Drawn, not a thumbnail of the first page: a document reads as one at any
    size, and nothing has to be rendered to show it.
    """
    page = QRectF(rect).adjusted(0.5, 0.5, -0.5, -0.5)
    fold = page.width() * 0.3
    outline = QPainterPath(page.topLeft())
    outline.lineTo(page.right() - fold, page.top())
    outline.lineTo(page.right(), page.top() + fold)
    outline.lineTo(page.bottomRight())
    outline.lineTo(page.bottomLeft())
    outline.closeSubpath()
    corner = QPainterPath(QPointF(page.right() - fold, page.top()))
    corner.lineTo(page.right() - fold, page.top() + fold)
    corner.lineTo(page.right(), page.top() + fold)
    corner.closeSubpath()
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(blend(paper, ink, 0.6), 1.0))  # a hairline, not a black box
    painter.setBrush(paper)
    painter.drawPath(outline)
    painter.setBrush(blend(paper, ink, 0.18))
    painter.drawPath(corner)
    # Lines of text above the band, the first short where the corner folds.
    painter.setPen(QPen(blend(paper, ink, 0.45), max(1.0, page.height() / 28)))
    left, right = page.left() + page.width() * 0.16, page.right() - page.width() * 0.16
    for number in range(3):
        y = page.top() + page.height() * (0.24 + 0.12 * number)
        painter.drawLine(QPointF(left, y), QPointF(right - (fold if number == 0 else 0), y))
    band = QRectF(
        page.left() - page.width() * 0.1,
        page.top() + page.height() * 0.6,
        page.width() * 0.86,
        page.height() * 0.26,
    )
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(PDF_RED)
    painter.drawRoundedRect(band, 2, 2)
    font = QFont(painter.font())
    font.setBold(True)
    font.setPixelSize(max(6, round(band.height() * 0.72)))
    painter.setFont(font)
    painter.setPen(QColor("white"))
    painter.drawText(band, Qt.AlignmentFlag.AlignCenter, "PDF")
    painter.restore()


def wrapping_document(font: QFont) -> QTextDocument:
    """An empty document in `font`, no margin, whose long words and code lines break
    rather than run out of their card."""
    document = QTextDocument()
    document.setDocumentMargin(0)
    document.setDefaultFont(font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    document.setDefaultTextOption(option)
    return document


class PlainDocuments:
    """Plain words laid out as documents that wrap anywhere, kept by words, width and font
    (a relayout reuses what was laid out)."""

    def __init__(self, maxsize: int) -> None:
        """Nothing laid out yet; at most `maxsize` kept."""
        from cachetools import LRUCache  # with the first notice, not before the first paint

        self._kept: LRUCache[tuple[str, int, int, int], QTextDocument] = LRUCache(maxsize=maxsize)

    def clear(self) -> None:
        """Forget everything laid out (another font or palette)."""
        self._kept.clear()

    def get(self, text: str, font: QFont, width: int) -> QTextDocument:
        """`text` in `font`, wrapped at `width`."""
        key = (text, width, font.pointSize(), font.weight().value)
        document = self._kept.get(key)
        if document is None:
            document = wrapping_document(font)
            document.setPlainText(text)
            document.setTextWidth(width)
            self._kept[key] = document
        return document


class DocumentRows:
    """A kind of row whose words are plain documents, kept (`self._documents`) until another
    font or palette; the notice rows and the agent rows are."""

    def __init__(self, kept: int) -> None:
        """Nothing laid out yet; at most `kept` documents kept."""
        self._documents = PlainDocuments(kept)

    def clear(self) -> None:
        """Forget laid-out words (another font or palette)."""
        self._documents.clear()
