"""How a message row looks: its author line, its card, its Markdown with code boxes, its files.

The person's bubble hugs its words on the right; an answer takes the width.
Each code box has a strip with its language and a "Copy" button, and the
author line has a "Copy" for the whole message (a person's own shows on hover).
Rendered Markdown is kept per row, keyed by the row's words, the font and the
theme, and only re-wrapped when just the width changes. A PDF the person
attached is a compact tile (pdf_tiles.py), one per line below the pictures. A
finished answer's stats (tokens, time to its first word, speed) are one small
faded line under its card.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Literal

from cachetools import LRUCache
from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

from app.presenters.rows import Row
from app.presenters.tool_words import call_line
from app.ui.conversation.conversation_model import ConversationModel
from app.ui.conversation.painting import (
    CODE_HEADER,
    CODE_PAD,
    GAP,
    MARGIN_X,
    MARGIN_Y,
    PAD,
    THUMB,
    blend,
    code_font,
    draw_document,
    paint_button,
    paint_code_box,
    paint_pill,
    paint_thumbnail,
    small_font,
)
from app.ui.conversation.pdf_tiles import paint_tile, tile_height, tile_width
from app.ui.conversation.row_buttons import MESSAGE, ButtonState
from app.ui.conversation.switch import Switch, paint_switch, place_switch
from app.ui.conversation.thumbnails import fit, shown_size
from app.ui.icons import badge_image
from app.ui.theme import STATUS_LABELS, Theme, theme_for
from routing.transcript import TextPart

if TYPE_CHECKING:
    from app.ui.conversation.markdown import CodeBlock, Rendered
    from vision.pdf import PdfFile
    from vision.pictures import Picture

USER_SHARE = 0.78  # a person's bubble takes at most this much of the width
COPY, COPIED = "Copy", "Copied"
_RENDERED = 300  # rendered messages kept (heights are kept by the delegate for every row)
STATS_GAP = 3  # the card's bottom to its stats line: close, so the line reads as the card's


@dataclass
class MessageLayout:
    """Where everything of a message goes, relative to the row's top-left corner."""

    KIND: ClassVar[Literal["message"]] = "message"  # what the delegate tells layouts apart by
    height: int = 0
    card: QRect = field(default_factory=QRect)
    author: QRect = field(default_factory=QRect)
    tag: QRect = field(default_factory=QRect)
    copy: QRect = field(default_factory=QRect)  # the message's "Copy"; empty without words
    body: QPoint = field(default_factory=QPoint)
    rendered: Rendered | None = None
    code: list[CodeBox] = field(default_factory=list)
    thumbnails: list[tuple[QRect, Picture, str]] = field(default_factory=list)  # with a caption
    lines: list[tuple[QRect, str]] = field(default_factory=list)
    documents: list[tuple[QRect, PdfFile]] = field(default_factory=list)  # the PDFs' tiles
    switch: Switch | None = None  # "‹ 2 / 3 ›" when the row has versions
    stats: tuple[QRect, str] | None = None  # a finished answer's stats line, as drawn


@dataclass
class CodeBox:
    """One code block as placed in the row: its box, header strip and copy button."""

    box: QRect
    strip: QRect
    button: QRect
    block: CodeBlock


class MessageRows:
    """Lays out and paints message rows; keeps their rendered Markdown."""

    def __init__(self) -> None:
        """Nothing rendered yet."""
        self._rendered: LRUCache[tuple[int, int, tuple[bool, bool, int, int, int], str], Rendered]
        self._rendered = LRUCache(maxsize=_RENDERED)

    def clear(self) -> None:
        """Forget rendered words (another font or palette)."""
        self._rendered.clear()

    def estimate(
        self, option: QStyleOptionViewItem, model: ConversationModel, rows: range, width: int
    ) -> list[int | None]:
        """Cheap guesses of message rows' heights from their length (None for other rows)."""
        metrics = QFontMetrics(option.font)
        line, char = metrics.lineSpacing(), max(1, metrics.averageCharWidth())
        small = QFontMetrics(small_font(option.font, 0.88, QFont.Weight.DemiBold)).height()
        answer_chars = max(20, (width - 2 * MARGIN_X - 2 * PAD) // char)
        user_chars = max(20, int(answer_chars * USER_SHARE))
        chrome = small + 4 + 2 * PAD + 2 * MARGIN_Y
        code_box = CODE_HEADER + 2 * CODE_PAD
        guesses: list[int | None] = []
        for position in rows:
            row = model.row(position)
            message = row.message
            if message is None or message.role == "tool":
                guesses.append(None)
                continue
            text = row.text
            per_line = user_chars if message.role == "user" else answer_chars
            lines = len(text) // per_line + 1 + text.count("\n") // 2
            height = chrome + lines * line + text.count("```") // 2 * code_box
            parts = message.parts
            if len(parts) > 1 or (parts and not isinstance(parts[0], TextPart)):
                height += THUMB.height() + GAP if message.pictures else 0
                height += len(message.tool_calls) * (line + GAP)
                height += len(message.pdfs) * (tile_height(option) + GAP)
            height += _stats_height(option) if row.stats_words() else 0
            guesses.append(height + len(row.streamed_calls) * (line + GAP))
        return guesses

    def _rendered_text(self, row: Row, option: QStyleOptionViewItem, width: int) -> Rendered:
        theme = theme_for(option.palette)
        key = (row.item_id, hash(row.text), theme.key, option.font.key())
        rendered = self._rendered.get(key)
        if rendered is None:
            # Markdown's machinery loads with the first message shown, not before the first paint.
            from app.ui.conversation.markdown import render

            rendered = render(row.text, option.font, theme)
            self._rendered[key] = rendered
        if rendered.document.textWidth() != width:
            rendered.document.setTextWidth(width)  # re-wrapped, not re-read
        return rendered

    # -- layout -----------------------------------------------------------------

    def layout(self, option: QStyleOptionViewItem, row: Row, width: int) -> MessageLayout:
        """Place a message's author line, words, code boxes, calls and pictures at `width`."""
        message = row.message
        assert message is not None
        small = QFontMetrics(small_font(option.font, 0.88, QFont.Weight.DemiBold))
        is_user = message.role == "user"
        full = width - 2 * MARGIN_X
        inner_max = max(80, (int(full * USER_SHARE) if is_user else full) - 2 * PAD)
        has_words = bool(row.text.strip())
        rendered = self._rendered_text(row, option, inner_max) if has_words else None
        code = QFontMetrics(code_font(option.font, 0.88))
        lines = [call_line(c) for c in row.tool_calls]  # results have rows of their own
        pictures = [(picture, "") for picture in message.pictures]
        box = QSize(min(THUMB.width(), inner_max), THUMB.height())
        sizes = [fit(shown_size(picture), box) for picture, _ in pictures]
        blocks = rendered.code_blocks() if rendered is not None else []
        tiles = [tile_width(option, pdf, inner_max) for pdf in message.pdfs]

        # The person's bubble hugs its words (on the right); an answer takes the width.
        inner = inner_max
        if is_user and not blocks:  # code boxes take the bubble's whole width
            widths = [int(rendered.document.idealWidth()) + 1 if rendered else 0]
            widths += [code.horizontalAdvance(line) + code.height() + 6 for line in lines]
            widths += [sum(size.width() + GAP for size in sizes) - GAP] if sizes else []
            widths += tiles
            inner = max(40, min(inner_max, max(widths)))
        card_width = inner + 2 * PAD
        card_x = width - MARGIN_X - card_width if is_user else MARGIN_X
        layout = MessageLayout(rendered=rendered)

        y = MARGIN_Y
        author_width = small.horizontalAdvance(row.author)
        author_x = card_x + card_width - author_width - 4 if is_user else card_x + 4
        layout.author = QRect(author_x, y, author_width, small.height())
        tag = STATUS_LABELS.get(row.status or "")
        if tag is not None:
            tag_width = small.horizontalAdvance(tag) + 14
            tag_x = author_x - tag_width - 8 if is_user else author_x + author_width + 8
            layout.tag = QRect(tag_x, y, tag_width, small.height())
        if row.switch:
            # After the author (and its tag) on an answer; before them on a bubble.
            beside = layout.tag if layout.tag.isValid() else layout.author
            x = beside.left() - 8 if is_user else beside.right() + 8
            layout.switch = place_switch(small, row, x, y, leftwards=is_user)
        if has_words:
            copy_width = small.horizontalAdvance(COPIED) + 12
            # Opposite the author: the right end of an answer, the left end of a bubble.
            copy_x = card_x if is_user else card_x + card_width - copy_width
            layout.copy = QRect(copy_x, y - 2, copy_width, small.height() + 4)
            taken = [layout.tag, layout.author, layout.switch.rect if layout.switch else QRect()]
            if any(layout.copy.intersects(rect) for rect in taken):
                layout.copy = QRect()  # a narrow bubble: the menu and Ctrl+C still copy
        y += small.height() + 4

        card_top = y
        y += PAD
        if rendered is not None:
            layout.body = QPoint(card_x + PAD, y)
            y += int(rendered.document.size().height())
            layout.code = [
                self._code_box(block, layout.body, card_x, inner, small) for block in blocks
            ]
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
        tall = tile_height(option)
        for pdf, wide in zip(message.pdfs, tiles, strict=True):
            y += GAP if y > card_top + PAD else 0
            layout.documents.append((QRect(card_x + PAD, y, wide, tall), pdf))
            y += tall
        if y == card_top + PAD:  # nothing yet (an answer about to stream): one empty line
            y += QFontMetrics(option.font).height()
        y += PAD
        layout.card = QRect(card_x, card_top, card_width, y - card_top)
        said = row.stats_words()
        if said:
            metrics = QFontMetrics(stats_font(option.font))
            y += STATS_GAP
            shown = metrics.elidedText(said, Qt.TextElideMode.ElideRight, card_width - 8)
            layout.stats = (QRect(card_x + 4, y, card_width - 8, metrics.height()), shown)
            y += metrics.height()
        layout.height = y + MARGIN_Y
        return layout

    def _code_box(
        self, block: CodeBlock, body: QPoint, card_x: int, inner: int, small: QFontMetrics
    ) -> CodeBox:
        """A code block's box in row coordinates, with its copy button at the strip's right."""
        box = block.box.toRect().translated(body)
        box.setLeft(max(box.left(), card_x + PAD))
        box.setRight(card_x + PAD + inner - 1)
        strip = QRect(box.x(), box.y(), box.width(), int(block.header.height()))
        height = small.height() + 6
        width = small.horizontalAdvance(COPIED) + 16
        top = strip.y() + (strip.height() - height) // 2
        return CodeBox(box, strip, QRect(box.right() - width - 4, top, width, height), block)

    # -- painting ---------------------------------------------------------------

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        row: Row,
        layout: MessageLayout,
        theme: Theme,
        buttons: ButtonState,
    ) -> None:
        """Draw a message laid out by `layout`."""
        is_user = row.message is not None and row.message.role == "user"
        # High contrast draws the card's edge: its fill alone is too faint to see.
        painter.setPen(theme.outline if theme.outline is not None else Qt.PenStyle.NoPen)
        painter.setBrush(theme.user_card if is_user else theme.answer_card)
        painter.drawRoundedRect(layout.card, 10, 10)

        small = small_font(option.font, 0.88, QFont.Weight.DemiBold)
        painter.setFont(small)
        painter.setPen(theme.faded)
        painter.drawText(layout.author, Qt.AlignmentFlag.AlignVCenter, row.author)
        tag = STATUS_LABELS.get(row.status or "")
        if tag is not None and layout.tag.isValid():
            paint_pill(painter, layout.tag, tag, theme.status(row.status or ""), theme.base)
        if layout.switch is not None:
            painter.setFont(small)
            paint_switch(painter, layout.switch, row, theme, theme.base, buttons)
        # A person's own words rarely need copying: their button shows on hover or selection.
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if not is_user or buttons.hovered_row == row.item_id or selected:
            _button(painter, layout.copy, (row.item_id, MESSAGE), theme, theme.base, buttons)

        for code in layout.code:
            paint_code_box(painter, code.box, code.strip, theme.code_background, theme.code_header)
            painter.setPen(theme.code_label)
            label = code.strip.adjusted(CODE_PAD, 0, -code.button.width() - 8, 0)
            painter.drawText(label, Qt.AlignmentFlag.AlignVCenter, code.block.language or "code")
            which = (row.item_id, code.block.number)
            _button(painter, code.button, which, theme, theme.code_header, buttons)

        painter.setFont(option.font)
        if layout.rendered is not None:
            draw_document(painter, layout.rendered.document, layout.body, theme.text, theme.link)
        painter.setFont(code_font(option.font, 0.88))
        ratio = painter.device().devicePixelRatioF()
        for rect, line in layout.lines:
            size = rect.height() - 4
            icon = badge_image("tools", blend(theme.base, theme.text, 0.55), size, ratio)
            painter.drawImage(QPoint(rect.x(), rect.y() + 2), icon)
            painter.setPen(blend(theme.base, theme.text, 0.78))
            painter.drawText(rect.adjusted(size + 6, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, line)
        painter.setFont(small)
        small_metrics = QFontMetrics(small)
        for rect, picture, caption in layout.thumbnails:
            paint_thumbnail(painter, rect, picture, theme.border, ratio, option.widget)
            if caption:
                painter.setPen(theme.faded)
                below = QRect(rect.x(), rect.bottom() + 3, rect.width(), small_metrics.height())
                elided = small_metrics.elidedText(
                    caption, Qt.TextElideMode.ElideRight, rect.width()
                )
                painter.drawText(below, Qt.AlignmentFlag.AlignLeft, elided)
        for rect, pdf in layout.documents:
            paint_tile(painter, option, rect, pdf, theme, is_user)
        if layout.stats is not None:
            rect, said = layout.stats
            painter.setFont(stats_font(option.font))
            painter.setPen(theme.faded)
            painter.drawText(rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, said)


def stats_font(font: QFont) -> QFont:
    """The stats line's font: smaller and lighter than the author line's."""
    return small_font(font, 0.82, QFont.Weight.Normal)


def _stats_height(option: QStyleOptionViewItem) -> int:
    return STATS_GAP + QFontMetrics(stats_font(option.font)).height()


def _button(
    painter: QPainter,
    rect: QRect,
    which: tuple[int, int],
    theme: Theme,
    ground: QColor,
    buttons: ButtonState,
) -> None:
    """A copy button: "Copy", or "Copied" just after; brighter, on a wash, under the pointer."""
    if not rect.isValid():
        return
    hovered = buttons.hovered == which
    words = COPIED if buttons.copied == which else COPY
    rest = theme.faded if which[1] == MESSAGE else theme.code_label
    wash = blend(ground, theme.text, 0.1) if hovered else None
    paint_button(painter, rect, words, theme.text if hovered else rest, wash)
