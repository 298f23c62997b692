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
    QColor,
    QFont,
    QFontMetrics,
    QPainter,
    QPalette,
    QTextBlockFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from app.ui.conversation_model import ConversationModel, Row
from app.ui.icons import badge_image
from app.ui.painting import (
    GAP,
    MARGIN_X,
    MARGIN_Y,
    PAD,
    THUMB,
    blend,
    code_font,
    draw_document,
    label_font,
    paint_pill,
    paint_thumbnail,
    small_font,
)
from app.ui.thumbnails import fit, shown_size
from app.ui.tool_rows import ToolLayout, ToolRows
from app.ui.tool_words import call_line
from routing.transcript import MessageStatus, NoticeKind
from vision.pictures import Picture

__all__ = ["THUMB", "MessageDelegate", "blend"]  # THUMB and blend: read by tests and cards

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


class MessageDelegate(QStyledItemDelegate):
    """Draws messages and notices at the width of the view's viewport."""

    def __init__(self, parent: QObject | None = None) -> None:
        """A delegate with empty caches."""
        super().__init__(parent)
        self._documents: OrderedDict[tuple[int, int, int], QTextDocument] = OrderedDict()
        self._heights: dict[int, tuple[int, int, int]] = {}  # item id -> (shape, width, height)
        self._tools = ToolRows()

    def clear(self) -> None:
        """Forget cached layouts (another conversation is shown)."""
        self._documents.clear()
        self._heights.clear()
        self._tools.clear()

    # -- Qt's delegate interface ------------------------------------------------

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        """The row's height at the view's width, from the cache when the words are unchanged."""
        row = _row(index)
        width = self._width(option)
        shape = row.shape
        cached = self._heights.get(row.item_id)
        if cached is not None and cached[:2] == (shape, width):
            return QSize(width, cached[2])
        height = self._layout(option, row, width).height
        self._heights[row.item_id] = (shape, width, height)
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
        if isinstance(layout, ToolLayout):
            self._tools.paint(painter, option, row, layout)
        elif row.notice is not None:
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

    def texts(self, option: QStyleOptionViewItem, index: _Index) -> list[str]:
        """The words a row draws as text blocks, in order (a tool row's only once opened)."""
        layout = self._layout(option, _row(index), option.rect.width())
        if isinstance(layout, ToolLayout):
            return [document.toPlainText() for _at, document, _tint in layout.documents]
        return [layout.document.toPlainText()] if layout.document is not None else []

    def header_at(self, option: QStyleOptionViewItem, index: _Index, point: QPoint) -> bool:
        """Whether `point` (view coordinates) is on a tool result's line, which opens the row."""
        row = _row(index)
        if not row.is_tool:
            return False
        layout = self._layout(option, row, option.rect.width())
        assert isinstance(layout, ToolLayout)
        local = point - option.rect.topLeft()
        return any(header.rect.contains(local) for header in layout.headers)

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

    def _layout(self, option: QStyleOptionViewItem, row: Row, width: int) -> _Layout | ToolLayout:
        if row.is_tool:
            return self._tools.layout(option, row, width)
        if row.notice is not None:
            return self._notice_layout(option, row, width)
        return self._message_layout(option, row, width)

    def _message_layout(self, option: QStyleOptionViewItem, row: Row, width: int) -> _Layout:
        message = row.message
        assert message is not None
        small = QFontMetrics(small_font(option.font, 0.88, QFont.Weight.DemiBold))
        is_user = message.role == "user"
        full = width - 2 * MARGIN_X
        inner_max = max(80, (int(full * USER_SHARE) if is_user else full) - 2 * PAD)
        document = self._document(row, option, inner_max, markdown=True)
        has_words = bool(row.text.strip())
        code = QFontMetrics(code_font(option.font, 0.88))
        lines = [call_line(c) for c in row.tool_calls]  # results have rows of their own
        pictures = [(picture, "") for picture in message.pictures]
        box = QSize(min(THUMB.width(), inner_max), THUMB.height())
        sizes = [fit(shown_size(picture), box) for picture, _ in pictures]

        # The person's bubble hugs its words (on the right); an answer takes the width.
        inner = inner_max
        if is_user:
            widths = [int(document.idealWidth()) + 1 if has_words else 0]
            widths += [code.horizontalAdvance(line) + code.height() + 6 for line in lines]
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
        line_height = code.height() + 4
        for line in lines:
            y += GAP if y > card_top + PAD else 0
            text = code.elidedText(line, Qt.TextElideMode.ElideRight, inner - line_height)
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
        small = QFontMetrics(label_font(option.font))
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

        small = small_font(option.font, 0.88, QFont.Weight.DemiBold)
        painter.setFont(small)
        painter.setPen(blend(base, text, 0.62))
        painter.drawText(layout.author, Qt.AlignmentFlag.AlignVCenter, row.author)
        tag = STATUS_TAGS.get(row.status or "")
        if tag is not None and layout.tag.isValid():
            paint_pill(painter, layout.tag, tag[0], QColor(tag[1]), base)

        painter.setFont(option.font)
        _draw_document(painter, layout, text, palette.color(QPalette.ColorRole.Link))
        painter.setFont(code_font(option.font, 0.88))
        ratio = painter.device().devicePixelRatioF()
        for rect, line in layout.lines:
            size = rect.height() - 4
            icon = badge_image("tools", blend(base, text, 0.55), size, ratio)
            painter.drawImage(QPoint(rect.x(), rect.y() + 2), icon)
            painter.setPen(blend(base, text, 0.78))
            painter.drawText(rect.adjusted(size + 6, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, line)
        painter.setFont(small)
        small_metrics = QFontMetrics(small)
        for rect, picture, caption in layout.thumbnails:
            paint_thumbnail(painter, rect, picture, blend(base, text, 0.2), ratio)
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
        painter.setFont(label_font(option.font))
        paint_pill(painter, layout.label, label.upper(), accent, base)
        painter.setFont(option.font)
        # An error's words take some of its red; other notices keep the text colour.
        color = blend(text, accent, 0.6) if notice.kind == NoticeKind.ERROR else text
        _draw_document(painter, layout, color, palette.color(QPalette.ColorRole.Link))


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


def _draw_document(painter: QPainter, layout: _Layout, color: QColor, link: QColor) -> None:
    if layout.document is not None:
        draw_document(painter, layout.document, layout.body, color, link)
