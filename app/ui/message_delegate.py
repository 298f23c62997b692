"""How one row of the conversation looks: a message with its author and Markdown, or a notice.

One function (`_layout`) places everything; painting and size hints both use it,
so what is measured is what is drawn. Laid-out documents are cached per row,
keyed by the row's words and the width, so scrolling a long chat re-lays nothing.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QPoint, QRect, QSize, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontMetrics,
    QImage,
    QPainter,
    QPalette,
    QTextDocument,
)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from app.ui.conversation_model import Role
from app.ui.icons import badge_image
from routing.transcript import MessageStatus, NoticeKind, ToolCall, ToolResult
from vision.pictures import Picture

_Index = QModelIndex | QPersistentModelIndex

# Kept apart from the palette: each kind must be recognisable at a glance in light
# and dark themes alike, so these are mid-tones that read on both.
NOTICE_STYLE: dict[NoticeKind, tuple[str, str]] = {
    NoticeKind.ROUTING: ("Routing", "#2f7df6"),
    NoticeKind.DISCLOSURE: ("Disclosure", "#9b5de5"),
    NoticeKind.HEAL: ("Retried", "#0f9d8a"),
    NoticeKind.BUDGET: ("Budget", "#d97706"),
    NoticeKind.ERROR: ("Error", "#dc2626"),
    NoticeKind.INFO: ("Note", "#6b7280"),
}
STATUS_TAGS: dict[MessageStatus, tuple[str, str]] = {
    MessageStatus.STREAMING: ("answering…", "#6b7280"),
    MessageStatus.STOPPED: ("stopped", "#d97706"),
    MessageStatus.FAILED: ("failed", "#dc2626"),
    MessageStatus.INTERRUPTED: ("interrupted", "#d97706"),
}

MARGIN_X = 18  # row edge to card
MARGIN_Y = 6  # between rows
PAD = 10  # card edge to its contents
GAP = 6  # between the parts of a card
THUMB = QSize(160, 110)  # largest thumbnail
USER_SHARE = 0.78  # a person's bubble takes at most this much of the width
_DOC_CACHE = 400  # laid-out documents kept; heights are kept for every row
_THUMB_CACHE = 200  # scaled thumbnails kept


@dataclass
class _Layout:
    """Where everything of one row goes, relative to the row's top-left corner."""

    height: int
    card: QRect
    author: QRect = field(default_factory=QRect)
    tag: QRect = field(default_factory=QRect)
    body: QPoint = field(default_factory=QPoint)
    document: QTextDocument | None = None
    label: QRect = field(default_factory=QRect)
    thumbnails: list[tuple[QRect, Picture]] = field(default_factory=list)
    lines: list[tuple[QRect, str]] = field(default_factory=list)


def _blend(base: QColor, accent: QColor, amount: float) -> QColor:
    """`accent` laid over `base` at `amount` opacity, as an opaque colour."""
    return QColor.fromRgbF(
        base.redF() + (accent.redF() - base.redF()) * amount,
        base.greenF() + (accent.greenF() - base.greenF()) * amount,
        base.blueF() + (accent.blueF() - base.blueF()) * amount,
    )


def _tool_line(call: ToolCall) -> str:
    arguments = ", ".join(f"{k}={v!r}" for k, v in call.arguments.items())
    if len(arguments) > 80:
        arguments = arguments[:79] + "…"
    return f"Tool call: {call.name}({arguments})"


def _result_line(result: ToolResult) -> str:
    first = next((line for line in result.text.splitlines() if line.strip()), "")
    if len(first) > 100:
        first = first[:99] + "…"
    state = "failed" if result.is_error else "result"
    pictures = f" [{len(result.pictures)} picture(s)]" if result.pictures else ""
    return f"Tool {state}: {result.name} — {first}{pictures}"


class MessageDelegate(QStyledItemDelegate):
    """Draws messages and notices; the view passes its viewport width."""

    def __init__(self, parent: QObject | None = None) -> None:
        """A delegate with empty caches."""
        super().__init__(parent)
        self._documents: OrderedDict[tuple[int, int, int], QTextDocument] = OrderedDict()
        self._heights: dict[int, tuple[int, int, int]] = {}  # item id -> (words hash, width, h)
        self._thumbs: OrderedDict[str, QImage] = OrderedDict()

    def clear(self) -> None:
        """Forget cached layouts (another conversation is shown)."""
        self._documents.clear()
        self._heights.clear()

    # -- Qt's delegate interface ------------------------------------------------

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        """The row's height at the view's width, from the cache when the words are unchanged."""
        width = self._width(option)
        item_id = index.data(Role.ITEM_ID)
        words = hash((index.data(Role.TEXT), index.data(Role.STATUS)))
        cached = self._heights.get(item_id)
        if cached is not None and cached[:2] == (words, width):
            return QSize(width, cached[2])
        height = self._layout(option, index, width).height
        self._heights[item_id] = (words, width, height)
        return QSize(width, height)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        """Draw one row inside `option.rect`."""
        layout = self._layout(option, index, option.rect.width())
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.translate(option.rect.topLeft())
        palette = option.palette
        if option.state & QStyle.StateFlag.State_Selected:
            highlight = QColor(palette.color(QPalette.ColorRole.Highlight))
            highlight.setAlphaF(0.16)
            painter.fillRect(QRect(0, 0, option.rect.width(), layout.height), highlight)
        if index.data(Role.KIND) == "notice":
            self._paint_notice(painter, palette, index, layout)
        else:
            self._paint_message(painter, palette, index, layout)
        painter.restore()

    # -- layout -----------------------------------------------------------------

    def _width(self, option: QStyleOptionViewItem) -> int:
        view = option.widget
        if view is not None and hasattr(view, "viewport"):
            return max(200, view.viewport().width())
        return max(200, option.rect.width())

    def _fonts(self, option: QStyleOptionViewItem) -> tuple[QFont, QFont]:
        small = QFont(option.font)
        small.setPointSizeF(max(7.0, option.font.pointSizeF() * 0.88))
        small.setWeight(QFont.Weight.DemiBold)
        return option.font, small

    def _text_document(
        self, index: _Index, option: QStyleOptionViewItem, width: int, markdown: bool
    ) -> QTextDocument:
        text = index.data(Role.TEXT) or ""
        key = (index.data(Role.ITEM_ID), hash(text), width)
        document = self._documents.get(key)
        if document is None:
            document = QTextDocument()
            document.setDocumentMargin(0)
            document.setDefaultFont(option.font)
            if markdown:
                document.setMarkdown(text)
            else:
                document.setPlainText(text)
            document.setTextWidth(width)
            self._documents[key] = document
            while len(self._documents) > _DOC_CACHE:
                self._documents.popitem(last=False)
        else:
            self._documents.move_to_end(key)
        return document

    def _layout(self, option: QStyleOptionViewItem, index: _Index, width: int) -> _Layout:
        if index.data(Role.KIND) == "notice":
            return self._notice_layout(option, index, width)
        return self._message_layout(option, index, width)

    def _message_layout(self, option: QStyleOptionViewItem, index: _Index, width: int) -> _Layout:
        font, small = self._fonts(option)
        small_metrics, metrics = QFontMetrics(small), QFontMetrics(font)
        is_user = index.data(Role.MESSAGE_ROLE) == "user"
        full = width - 2 * MARGIN_X
        inner_max = (int(full * USER_SHARE) if is_user else full) - 2 * PAD
        document = self._text_document(index, option, max(80, inner_max), markdown=True)
        has_words = bool((index.data(Role.TEXT) or "").strip())
        lines = [_tool_line(c) for c in index.data(Role.TOOL_CALLS) or ()]
        lines += [_result_line(r) for r in index.data(Role.TOOL_RESULTS) or ()]
        pictures = list(index.data(Role.PICTURES) or ())
        for result in index.data(Role.TOOL_RESULTS) or ():
            pictures.extend(result.pictures)

        # The person's bubble hugs its words; an answer uses the whole width.
        inner = inner_max
        if is_user:
            widest = max(
                [int(document.idealWidth()) if has_words else 0]
                + [small_metrics.horizontalAdvance(line) for line in lines]
                + [min(THUMB.width(), inner_max)] * bool(pictures)
            )
            inner = max(40, min(inner_max, widest + 1))
        card_width = inner + 2 * PAD
        card_x = width - MARGIN_X - card_width if is_user else MARGIN_X

        y = MARGIN_Y
        author_height = small_metrics.height()
        author_width = small_metrics.horizontalAdvance(index.data(Role.AUTHOR) or "")
        author_x = card_x + card_width - author_width - PAD if is_user else card_x + PAD
        layout = _Layout(height=0, card=QRect())
        layout.author = QRect(author_x, y, author_width, author_height)
        tag = STATUS_TAGS.get(index.data(Role.STATUS))
        if tag is not None:
            tag_width = small_metrics.horizontalAdvance(tag[0]) + 12
            tag_x = author_x - tag_width - 8 if is_user else author_x + author_width + 8
            layout.tag = QRect(tag_x, y, tag_width, author_height)
        y += author_height + 3

        card_top = y
        y += PAD
        if has_words:
            layout.document = document
            layout.body = QPoint(card_x + PAD, y)
            y += int(document.size().height())
        line_height = small_metrics.height() + 2
        for line in lines:
            y += GAP if y > card_top + PAD else 0
            text = small_metrics.elidedText(line, Qt.TextElideMode.ElideRight, inner)
            layout.lines.append((QRect(card_x + PAD, y, inner, line_height), text))
            y += line_height
        if pictures:
            y += GAP if y > card_top + PAD else 0
            x, row_height = card_x + PAD, 0
            for picture in pictures:
                size = self._thumb_size(picture, inner)
                if x > card_x + PAD and x + size.width() > card_x + PAD + inner:
                    x, y, row_height = card_x + PAD, y + row_height + GAP, 0
                layout.thumbnails.append((QRect(QPoint(x, y), size), picture))
                x += size.width() + GAP
                row_height = max(row_height, size.height())
            y += row_height
        if y == card_top + PAD:  # nothing yet (an answer about to stream): one empty line
            y += metrics.height()
        y += PAD
        layout.card = QRect(card_x, card_top, card_width, y - card_top)
        layout.height = y + MARGIN_Y
        return layout

    def _notice_layout(self, option: QStyleOptionViewItem, index: _Index, width: int) -> _Layout:
        _, small = self._fonts(option)
        small_metrics = QFontMetrics(small)
        label, _ = NOTICE_STYLE.get(index.data(Role.NOTICE_KIND), ("Note", "#6b7280"))
        label_width = small_metrics.horizontalAdvance(label.upper()) + 14
        card = QRect(MARGIN_X, MARGIN_Y, width - 2 * MARGIN_X, 0)
        text_x = card.x() + PAD + 4 + label_width + 8
        document = self._text_document(index, option, max(80, card.right() - PAD - text_x), False)
        body_height = max(int(document.size().height()), small_metrics.height() + 4)
        card.setHeight(body_height + 2 * (PAD - 3))
        layout = _Layout(height=card.bottom() + 1 + MARGIN_Y, card=card, document=document)
        layout.label = QRect(card.x() + PAD + 4, card.y() + PAD - 3, label_width, small_metrics.height() + 4)
        layout.body = QPoint(text_x, card.y() + PAD - 3)
        return layout

    def _thumb_size(self, picture: Picture, limit: int) -> QSize:
        box = QSize(min(THUMB.width(), limit), THUMB.height())
        size = QSize(max(1, picture.width), max(1, picture.height))
        return size.scaled(box, Qt.AspectRatioMode.KeepAspectRatio) if (
            size.width() > box.width() or size.height() > box.height()
        ) else size

    # -- painting ---------------------------------------------------------------

    def _draw_document(self, painter: QPainter, layout: _Layout, color: QColor, link: QColor) -> None:
        if layout.document is None:
            return
        painter.save()
        painter.translate(layout.body)
        context = QAbstractTextDocumentLayout.PaintContext()
        # The document paints black unless told; follow the palette instead.
        context.palette.setColor(QPalette.ColorRole.Text, color)
        context.palette.setColor(QPalette.ColorRole.Link, link)
        layout.document.documentLayout().draw(painter, context)
        painter.restore()

    def _paint_message(self, painter: QPainter, palette: QPalette, index: _Index, layout: _Layout) -> None:
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        accent = palette.color(QPalette.ColorRole.Highlight)
        is_user = index.data(Role.MESSAGE_ROLE) == "user"
        painter.setPen(Qt.PenStyle.NoPen)
        fill = _blend(base, accent, 0.14) if is_user else _blend(base, text, 0.035)
        painter.setBrush(fill)
        painter.drawRoundedRect(layout.card, 10, 10)

        font = QFont(painter.font())
        small = QFont(font)
        small.setPointSizeF(max(7.0, font.pointSizeF() * 0.88))
        small.setWeight(QFont.Weight.DemiBold)
        painter.setFont(small)
        painter.setPen(_blend(base, text, 0.62))
        painter.drawText(layout.author, Qt.AlignmentFlag.AlignVCenter, index.data(Role.AUTHOR) or "")
        tag = STATUS_TAGS.get(index.data(Role.STATUS))
        if tag is not None and layout.tag.isValid():
            self._paint_tag(painter, layout.tag, tag[0], QColor(tag[1]), base)

        self._draw_document(painter, layout, text, palette.color(QPalette.ColorRole.Link))
        painter.setFont(small)
        icon_color = _blend(base, text, 0.55)
        for rect, line in layout.lines:
            size = rect.height() - 4
            painter.drawImage(rect.x(), rect.y() + 2, badge_image("tools", icon_color, size, painter.device().devicePixelRatioF()))
            painter.setPen(_blend(base, text, 0.75))
            painter.drawText(rect.adjusted(size + 6, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, line)
        for rect, picture in layout.thumbnails:
            image = self._thumbnail(picture, rect.size())
            if image.isNull():
                painter.setPen(_blend(base, text, 0.5))
                painter.drawRect(rect.adjusted(0, 0, -1, -1))
                painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, "picture")
            else:
                painter.drawImage(rect, image)
        painter.setFont(font)

    def _paint_tag(self, painter: QPainter, rect: QRect, label: str, color: QColor, base: QColor) -> None:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(_blend(base, color, 0.16))
        painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
        painter.setPen(color)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)

    def _paint_notice(self, painter: QPainter, palette: QPalette, index: _Index, layout: _Layout) -> None:
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        label, hex_color = NOTICE_STYLE.get(index.data(Role.NOTICE_KIND), ("Note", "#6b7280"))
        accent = QColor(hex_color)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(_blend(base, accent, 0.09))
        painter.drawRoundedRect(layout.card, 8, 8)
        painter.setBrush(accent)
        bar = QRect(layout.card.x(), layout.card.y(), 4, layout.card.height())
        painter.drawRoundedRect(bar, 2, 2)
        font = QFont(painter.font())
        small = QFont(font)
        small.setPointSizeF(max(7.0, font.pointSizeF() * 0.8))
        small.setWeight(QFont.Weight.Bold)
        small.setLetterSpacing(QFont.SpacingType.PercentageSpacing, 106)
        painter.setFont(small)
        self._paint_tag(painter, layout.label, label.upper(), accent, base)
        painter.setFont(font)
        is_error = index.data(Role.NOTICE_KIND) == NoticeKind.ERROR
        color = _blend(text, accent, 0.55) if is_error else text
        self._draw_document(painter, layout, color, palette.color(QPalette.ColorRole.Link))

    def _thumbnail(self, picture: Picture, size: QSize) -> QImage:
        key = f"{picture.sha256}:{size.width()}x{size.height()}"
        image = self._thumbs.get(key)
        if image is None:
            image = QImage.fromData(picture.data)
            if not image.isNull():
                image = image.scaled(
                    size, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
                )
            self._thumbs[key] = image
            while len(self._thumbs) > _THUMB_CACHE:
                self._thumbs.popitem(last=False)
        return image
