"""How one row of the conversation looks: a message with its author and Markdown, or a notice.

One function (`_layout`) places everything; painting and size hints both use it,
so what is measured is what is drawn. Laid-out documents are cached per row,
keyed by the row's words and the width, so scrolling a long chat lays out
nothing twice; thumbnails are sized from the picture's header and drawn from
cached pixmaps (app.ui.thumbnails). Rows are read from the model directly, not
through `index.data`.
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
    QPainter,
    QPainterPath,
    QPalette,
    QTextBlockFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from app.ui.conversation_model import ConversationModel, Row
from app.ui.icons import badge_image
from app.ui.thumbnails import fit, shown_size, thumbnail
from routing.transcript import MessageStatus, NoticeKind, ToolCall, ToolResult
from vision.pictures import Picture

_Index = QModelIndex | QPersistentModelIndex

# Not from the palette: each kind must be recognisable at a glance in light and
# dark themes alike, so these are mid-tones that read on both.
NOTICE_STYLE: dict[str, tuple[str, str]] = {
    NoticeKind.ROUTING: ("Routing", "#2f7df6"),
    NoticeKind.DISCLOSURE: ("Disclosure", "#9b5de5"),
    NoticeKind.HEAL: ("Retried", "#0f9d8a"),
    NoticeKind.BUDGET: ("Budget", "#d97706"),
    NoticeKind.ERROR: ("Error", "#dc2626"),
    NoticeKind.INFO: ("Note", "#6b7280"),
}
STATUS_TAGS: dict[str, tuple[str, str]] = {
    MessageStatus.STREAMING: ("answering…", "#6b7280"),
    MessageStatus.STOPPED: ("stopped", "#d97706"),
    MessageStatus.FAILED: ("failed", "#dc2626"),
    MessageStatus.INTERRUPTED: ("interrupted", "#d97706"),
}

MARGIN_X = 18  # row edge to card
MARGIN_Y = 6  # between rows
PAD = 10  # card edge to its contents
GAP = 6  # between the parts of a card
THUMB = QSize(240, 180)  # largest thumbnail: a screenshot stays legible, a chat stays compact
USER_SHARE = 0.78  # a person's bubble takes at most this much of the width
_DOC_CACHE = 400  # laid-out documents kept; heights are kept for every row


@dataclass
class _Layout:
    """Where everything of one row goes, relative to the row's top-left corner."""

    height: int = 0
    card: QRect = field(default_factory=QRect)
    author: QRect = field(default_factory=QRect)
    tag: QRect = field(default_factory=QRect)
    body: QPoint = field(default_factory=QPoint)
    document: QTextDocument | None = None
    label: QRect = field(default_factory=QRect)
    thumbnails: list[tuple[QRect, Picture, str]] = field(default_factory=list)  # with a caption
    lines: list[tuple[QRect, str]] = field(default_factory=list)


def blend(base: QColor, accent: QColor, amount: float) -> QColor:
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


def _small(font: QFont, scale: float, weight: QFont.Weight) -> QFont:
    small = QFont(font)
    small.setPointSizeF(max(7.0, font.pointSizeF() * scale))
    small.setWeight(weight)
    return small


class MessageDelegate(QStyledItemDelegate):
    """Draws messages and notices at the width of the view's viewport."""

    def __init__(self, parent: QObject | None = None) -> None:
        """A delegate with empty caches."""
        super().__init__(parent)
        self._documents: OrderedDict[tuple[int, int, int], QTextDocument] = OrderedDict()
        self._heights: dict[int, tuple[int, int, int]] = {}  # item id -> (words, width, height)

    def clear(self) -> None:
        """Forget cached layouts (another conversation is shown)."""
        self._documents.clear()
        self._heights.clear()

    # -- Qt's delegate interface ------------------------------------------------

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        """The row's height at the view's width, from the cache when the words are unchanged."""
        row = _row(index)
        width = self._width(option)
        words = hash((row.text, row.status))
        cached = self._heights.get(row.item_id)
        if cached is not None and cached[:2] == (words, width):
            return QSize(width, cached[2])
        height = self._layout(option, row, width).height
        self._heights[row.item_id] = (words, width, height)
        return QSize(width, height)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        """Draw one row inside `option.rect`."""
        row = _row(index)
        layout = self._layout(option, row, option.rect.width())
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.translate(option.rect.topLeft())
        palette = option.palette
        if option.state & QStyle.StateFlag.State_Selected:
            highlight = QColor(palette.color(QPalette.ColorRole.Highlight))
            highlight.setAlphaF(0.16)
            painter.fillRect(QRect(0, 0, option.rect.width(), layout.height), highlight)
        if row.notice is not None:
            self._paint_notice(painter, option, row, layout)
        else:
            self._paint_message(painter, option, row, layout)
        painter.restore()

    def thumbnails(
        self, option: QStyleOptionViewItem, index: _Index
    ) -> list[tuple[QRect, Picture]]:
        """Where a row's pictures are drawn, in the row's `option.rect` coordinates."""
        row = _row(index)
        if row.message is None:
            return []
        layout = self._layout(option, row, option.rect.width())
        origin = option.rect.topLeft()
        return [(rect.translated(origin), picture) for rect, picture, _ in layout.thumbnails]

    def picture_at(
        self, option: QStyleOptionViewItem, index: _Index, point: QPoint
    ) -> Picture | None:
        """The picture whose thumbnail is under `point` (view coordinates), if any."""
        return next((p for rect, p in self.thumbnails(option, index) if rect.contains(point)), None)

    # -- layout -----------------------------------------------------------------

    def _width(self, option: QStyleOptionViewItem) -> int:
        view = option.widget
        viewport = getattr(view, "viewport", None)
        return max(240, viewport().width() if viewport else option.rect.width())

    def _document(
        self, row: Row, option: QStyleOptionViewItem, width: int, markdown: bool
    ) -> QTextDocument:
        key = (row.item_id, hash(row.text), width)
        document = self._documents.get(key)
        if document is not None:
            self._documents.move_to_end(key)
            return document
        document = QTextDocument()
        document.setDocumentMargin(0)
        document.setDefaultFont(option.font)
        if markdown:
            document.setMarkdown(row.text)
            palette = option.palette
            _shade_code(
                document,
                blend(
                    palette.color(QPalette.ColorRole.Base),
                    palette.color(QPalette.ColorRole.Text),
                    0.07,
                ),
            )
        else:
            document.setPlainText(row.text)
        document.setTextWidth(width)
        self._documents[key] = document
        while len(self._documents) > _DOC_CACHE:
            self._documents.popitem(last=False)
        return document

    def _layout(self, option: QStyleOptionViewItem, row: Row, width: int) -> _Layout:
        if row.notice is not None:
            return self._notice_layout(option, row, width)
        return self._message_layout(option, row, width)

    def _message_layout(self, option: QStyleOptionViewItem, row: Row, width: int) -> _Layout:
        message = row.message
        assert message is not None
        small = QFontMetrics(_small(option.font, 0.88, QFont.Weight.DemiBold))
        is_user = message.role == "user"
        full = width - 2 * MARGIN_X
        inner_max = max(80, (int(full * USER_SHARE) if is_user else full) - 2 * PAD)
        document = self._document(row, option, inner_max, markdown=True)
        has_words = bool(row.text.strip())
        lines = [_tool_line(c) for c in message.tool_calls]
        lines += [_result_line(r) for r in message.tool_results]
        # A tool's pictures are captioned with the tool's name; the person's are not.
        pictures = [(picture, "") for picture in message.pictures]
        for result in message.tool_results:
            pictures.extend((picture, result.name) for picture in result.pictures)
        box = QSize(min(THUMB.width(), inner_max), THUMB.height())
        sizes = [fit(shown_size(picture), box) for picture, _ in pictures]

        # The person's bubble hugs its words (on the right); an answer takes the width.
        inner = inner_max
        if is_user:
            widths = [int(document.idealWidth()) + 1 if has_words else 0]
            widths += [small.horizontalAdvance(line) + small.height() + 6 for line in lines]
            widths += [sum(size.width() + GAP for size in sizes) - GAP] if sizes else []
            inner = max(40, min(inner_max, max(widths)))
        card_width = inner + 2 * PAD
        card_x = width - MARGIN_X - card_width if is_user else MARGIN_X
        layout = _Layout()

        y = MARGIN_Y
        author_width = small.horizontalAdvance(row.author)
        author_x = card_x + card_width - author_width - 4 if is_user else card_x + 4
        layout.author = QRect(author_x, y, author_width, small.height())
        tag = STATUS_TAGS.get(row.status or "")
        if tag is not None:
            tag_width = small.horizontalAdvance(tag[0]) + 14
            tag_x = author_x - tag_width - 8 if is_user else author_x + author_width + 8
            layout.tag = QRect(tag_x, y, tag_width, small.height())
        y += small.height() + 4

        card_top = y
        y += PAD
        if has_words:
            layout.document = document
            layout.body = QPoint(card_x + PAD, y)
            y += int(document.size().height())
        line_height = small.height() + 4
        for line in lines:
            y += GAP if y > card_top + PAD else 0
            text = small.elidedText(line, Qt.TextElideMode.ElideRight, inner - line_height)
            layout.lines.append((QRect(card_x + PAD, y, inner, line_height), text))
            y += line_height
        if pictures:
            y += GAP if y > card_top + PAD else 0
            caption = small.height() + 4
            x, tallest = card_x + PAD, 0
            for (picture, name), size in zip(pictures, sizes, strict=True):
                if x > card_x + PAD and x + size.width() > card_x + PAD + inner:
                    x, y, tallest = card_x + PAD, y + tallest + GAP, 0
                layout.thumbnails.append((QRect(QPoint(x, y), size), picture, name))
                x += size.width() + GAP
                tallest = max(tallest, size.height() + (caption if name else 0))
            y += tallest
        if y == card_top + PAD:  # nothing yet (an answer about to stream): one empty line
            y += QFontMetrics(option.font).height()
        y += PAD
        layout.card = QRect(card_x, card_top, card_width, y - card_top)
        layout.height = y + MARGIN_Y
        return layout

    def _notice_layout(self, option: QStyleOptionViewItem, row: Row, width: int) -> _Layout:
        notice = row.notice
        assert notice is not None
        small = QFontMetrics(_label_font(option.font))
        label, _ = NOTICE_STYLE.get(notice.kind, NOTICE_STYLE[NoticeKind.INFO])
        label_size = QSize(small.horizontalAdvance(label.upper()) + 14, small.height() + 4)
        card = QRect(MARGIN_X, MARGIN_Y, width - 2 * MARGIN_X, 0)
        text_x = card.x() + PAD + 4 + label_size.width() + 10
        document = self._document(row, option, max(80, card.right() - PAD - text_x), False)
        line = QFontMetrics(option.font).height()
        body_height = max(int(document.size().height()), line)
        pad_y = PAD - 3
        card.setHeight(body_height + 2 * pad_y)
        # The label sits on the first line of text, centred on it.
        label_y = card.y() + pad_y + (line - label_size.height()) // 2
        return _Layout(
            height=card.bottom() + 1 + MARGIN_Y,
            card=card,
            document=document,
            body=QPoint(text_x, card.y() + pad_y),
            label=QRect(QPoint(card.x() + PAD + 4, label_y), label_size),
        )

    # -- painting ---------------------------------------------------------------

    def _paint_message(
        self, painter: QPainter, option: QStyleOptionViewItem, row: Row, layout: _Layout
    ) -> None:
        palette = option.palette
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        is_user = row.message is not None and row.message.role == "user"
        painter.setPen(Qt.PenStyle.NoPen)
        accent = palette.color(QPalette.ColorRole.Highlight)
        painter.setBrush(blend(base, accent, 0.13) if is_user else blend(base, text, 0.04))
        painter.drawRoundedRect(layout.card, 10, 10)

        small = _small(option.font, 0.88, QFont.Weight.DemiBold)
        painter.setFont(small)
        painter.setPen(blend(base, text, 0.62))
        painter.drawText(layout.author, Qt.AlignmentFlag.AlignVCenter, row.author)
        tag = STATUS_TAGS.get(row.status or "")
        if tag is not None and layout.tag.isValid():
            _paint_pill(painter, layout.tag, tag[0], QColor(tag[1]), base)

        painter.setFont(option.font)
        _draw_document(painter, layout, text, palette.color(QPalette.ColorRole.Link))
        painter.setFont(small)
        small_metrics = QFontMetrics(small)
        ratio = painter.device().devicePixelRatioF()
        for rect, line in layout.lines:
            size = rect.height() - 4
            icon = badge_image("tools", blend(base, text, 0.55), size, ratio)
            painter.drawImage(QPoint(rect.x(), rect.y() + 2), icon)
            painter.setPen(blend(base, text, 0.78))
            painter.drawText(rect.adjusted(size + 6, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, line)
        for rect, picture, caption in layout.thumbnails:
            _paint_thumbnail(painter, rect, picture, blend(base, text, 0.2), ratio)
            if caption:
                painter.setPen(blend(base, text, 0.62))
                below = QRect(rect.x(), rect.bottom() + 3, rect.width(), small_metrics.height())
                elided = small_metrics.elidedText(
                    caption, Qt.TextElideMode.ElideRight, rect.width()
                )
                painter.drawText(below, Qt.AlignmentFlag.AlignLeft, elided)

    def _paint_notice(
        self, painter: QPainter, option: QStyleOptionViewItem, row: Row, layout: _Layout
    ) -> None:
        notice = row.notice
        assert notice is not None
        palette = option.palette
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        label, hex_color = NOTICE_STYLE.get(notice.kind, NOTICE_STYLE[NoticeKind.INFO])
        accent = QColor(hex_color)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(blend(base, accent, 0.08))
        painter.drawRoundedRect(layout.card, 8, 8)
        painter.setBrush(accent)
        painter.drawRoundedRect(QRect(layout.card.topLeft(), QSize(4, layout.card.height())), 2, 2)
        painter.setFont(_label_font(option.font))
        _paint_pill(painter, layout.label, label.upper(), accent, base)
        painter.setFont(option.font)
        # An error's words take some of its red; other notices keep the text colour.
        color = blend(text, accent, 0.6) if notice.kind == NoticeKind.ERROR else text
        _draw_document(painter, layout, color, palette.color(QPalette.ColorRole.Link))


def _paint_thumbnail(
    painter: QPainter, rect: QRect, picture: Picture, border: QColor, ratio: float
) -> None:
    """A picture in rounded corners with a hairline border; a framed word if it can't be read."""
    pixmap = thumbnail(picture, rect.size(), ratio)
    path = QPainterPath()
    path.addRoundedRect(rect.toRectF().adjusted(0.5, 0.5, -0.5, -0.5), 4, 4)
    painter.save()
    if pixmap.isNull():
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


def _shade_code(document: QTextDocument, background: QColor) -> None:
    """Give code blocks a background, so code stands apart from prose."""
    shade = QTextBlockFormat()
    shade.setBackground(background)
    block = document.begin()
    while block.isValid():
        # Qt's Markdown reader marks code blocks as lines that must not wrap.
        if block.blockFormat().nonBreakableLines():
            QTextCursor(block).mergeBlockFormat(shade)
        block = block.next()


def _row(index: _Index) -> Row:
    model = index.model()
    assert isinstance(model, ConversationModel)
    return model.row(index.row())


def _label_font(font: QFont) -> QFont:
    label = _small(font, 0.78, QFont.Weight.Bold)
    label.setLetterSpacing(QFont.SpacingType.PercentageSpacing, 106)
    return label


def _paint_pill(painter: QPainter, rect: QRect, label: str, color: QColor, base: QColor) -> None:
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(blend(base, color, 0.16))
    painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
    painter.setPen(color)
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)


def _draw_document(painter: QPainter, layout: _Layout, color: QColor, link: QColor) -> None:
    if layout.document is None:
        return
    painter.save()
    painter.translate(layout.body)
    context = QAbstractTextDocumentLayout.PaintContext()
    # A document paints black unless told otherwise; follow the palette.
    context.palette.setColor(QPalette.ColorRole.Text, color)
    context.palette.setColor(QPalette.ColorRole.Link, link)
    layout.document.documentLayout().draw(painter, context)
    painter.restore()
