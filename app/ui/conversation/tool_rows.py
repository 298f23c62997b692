"""How a tool result row looks: one line per result, or, opened, arguments, words and pictures.

A row of role "tool" holds the results of one step of tool calls. Closed, each
result is one line: the tool's name, how it went, and its first line of words.
Open, each also shows the call's arguments, its words and its pictures. As in
the message delegate, one function places everything and painting follows it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from cachetools import LRUCache
from PySide6.QtCore import QPoint, QPointF, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPainterPath, QTextDocument
from PySide6.QtWidgets import QStyleOptionViewItem

from app.presenters.rows import Row
from app.presenters.tool_words import (
    Outcome,
    first_line,
    outcome_of,
    picture_count,
    pretty_arguments,
    shown_text,
)
from app.ui.conversation.painting import (
    GAP,
    PAD,
    THUMB,
    blend,
    card_across,
    close_card,
    code_font,
    draw_document,
    label_font,
    paint_pill,
    paint_thumbnail,
    small_font,
)
from app.ui.conversation.thumbnails import fit, shown_size
from app.ui.icons import badge_image
from app.ui.theme import Theme
from routing.transcript import ToolResult
from vision.pictures import Picture

# Each outcome's accent in the theme's light or dark set.
OUTCOME_ACCENTS: dict[Outcome, str] = {
    Outcome.OK: "ok",
    Outcome.ERROR: "danger",
    Outcome.DENIED: "warn",
    Outcome.STOPPED: "warn",
}
_CHEVRON = 10  # the open/closed marker's box
_ICON = 14  # the wrench
_DOCUMENTS = 200  # laid-out argument and result documents kept


@dataclass
class Header:
    """One result's line: where it is and what it says."""

    rect: QRect
    result: ToolResult
    outcome: Outcome
    name: QRect = field(default_factory=QRect)
    pill: QRect = field(default_factory=QRect)
    words: QRect = field(default_factory=QRect)
    text: str = ""  # the first line, elided to fit
    count: QRect = field(default_factory=QRect)  # "1 picture", on the right


@dataclass
class ToolLayout:
    """Where everything of one tool row goes, relative to the row's top-left corner."""

    KIND: ClassVar[Literal["tool"]] = "tool"  # what the delegate tells layouts apart by
    height: int = 0
    card: QRect = field(default_factory=QRect)
    headers: list[Header] = field(default_factory=list)
    captions: list[tuple[QRect, str]] = field(default_factory=list)  # "Arguments", "Result"
    documents: list[tuple[QPoint, QTextDocument, Outcome]] = field(default_factory=list)
    thumbnails: list[tuple[QRect, Picture, str]] = field(default_factory=list)  # with a caption


class ToolRows:
    """Lays out and paints tool result rows; keeps their laid-out documents."""

    def __init__(self) -> None:
        """Nothing laid out yet."""
        self._documents: LRUCache[tuple[int, int, str, int, int], QTextDocument] = LRUCache(
            maxsize=_DOCUMENTS
        )

    def clear(self) -> None:
        """Forget laid-out documents (another conversation, or other colours)."""
        self._documents.clear()

    def _document(
        self, key: tuple[int, int, str, int, int], text: str, font: QFont
    ) -> QTextDocument:
        document = self._documents.get(key)
        if document is not None:
            return document
        document = QTextDocument()
        document.setDocumentMargin(0)
        document.setDefaultFont(font)
        document.setPlainText(text)
        document.setTextWidth(key[3])
        self._documents[key] = document
        return document

    # -- layout -----------------------------------------------------------------

    def layout(self, option: QStyleOptionViewItem, row: Row, width: int) -> ToolLayout:
        """Place a tool row's lines (and, open, its blocks) at the view's width."""
        message = row.message
        assert message is not None
        font = option.font
        metrics = QFontMetrics(font)
        names = QFontMetrics(small_font(font, 1.0, QFont.Weight.DemiBold))
        small = QFontMetrics(small_font(font, 0.86, QFont.Weight.Normal))
        labels = QFontMetrics(label_font(font))
        code = code_font(font)
        card = card_across(width)
        inner_x = card.x() + PAD
        inner = max(80, card.width() - 2 * PAD)
        line = max(metrics.height(), labels.height() + 4) + 6
        layout = ToolLayout(card=card)
        y = card.y() + 4
        for number, result in enumerate(message.tool_results):
            if number and row.expanded:
                y += GAP * 2  # open results stand apart
            outcome = outcome_of(result)
            header = Header(QRect(card.x(), y, card.width(), line), result, outcome)
            x = inner_x + _CHEVRON + 6 + _ICON + 6
            name_width = names.horizontalAdvance(result.name) + 1
            header.name = QRect(x, y, name_width, line)
            x += name_width + 8
            pill_size = QSize(labels.horizontalAdvance(outcome.upper()) + 14, labels.height() + 4)
            header.pill = QRect(QPoint(x, y + (line - pill_size.height()) // 2), pill_size)
            x += pill_size.width() + 10
            count = picture_count(result)
            count_width = small.horizontalAdvance(count) if count else 0
            right = card.right() - PAD - (count_width + 10 if count else 0)
            header.count = QRect(right + 10, y, count_width, line)
            header.words = QRect(x, y, max(0, right - x), line)
            # Open, the words are shown in full below; the line needn't repeat them.
            words = "" if row.expanded else first_line(result.text)
            header.text = metrics.elidedText(
                words, Qt.TextElideMode.ElideRight, header.words.width()
            )
            layout.headers.append(header)
            y += line
            if row.expanded:
                y = self._place_blocks(layout, row, number, result, code, small, y, inner)
        layout.height = close_card(card, y + 4)
        return layout

    def _place_blocks(
        self,
        layout: ToolLayout,
        row: Row,
        number: int,
        result: ToolResult,
        code: QFont,
        small: QFontMetrics,
        y: int,
        inner: int,
    ) -> int:
        """An open result's arguments, words and pictures, below its line; the new bottom."""
        x = layout.card.x() + PAD + _CHEVRON + 6  # under the wrench, past the marker
        width = max(80, inner - (_CHEVRON + 6))
        outcome = outcome_of(result)
        call = row.result_calls[number] if number < len(row.result_calls) else None
        blocks: list[tuple[str, str, Outcome]] = []
        if call is not None and call.arguments:
            blocks.append(("Arguments", pretty_arguments(call.arguments), Outcome.OK))
        if result.text.strip():
            blocks.append(("Error" if outcome is Outcome.ERROR else "Result", result.text, outcome))
        for title, text, tint in blocks:
            y += 4
            layout.captions.append((QRect(x, y, width, small.height()), title))
            y += small.height() + 2
            words = shown_text(text) if title != "Arguments" else text
            key = (row.item_id, number, title, width, hash(words))
            document = self._document(key, words, code)
            layout.documents.append((QPoint(x, y), document, tint))
            y += int(document.size().height())
        pictures = result.pictures
        if pictures:
            y += GAP
            box = QSize(min(THUMB.width(), width), THUMB.height())
            caption = small.height() + 4
            left, tallest = x, 0
            from app.presenters.pending import size_words  # with a tool's first picture

            for picture in pictures:
                size = fit(shown_size(picture), box)
                if left > x and left + size.width() > x + width:
                    left, y, tallest = x, y + tallest + GAP, 0
                layout.thumbnails.append(
                    (QRect(QPoint(left, y), size), picture, size_words(picture))
                )
                left += size.width() + GAP
                tallest = max(tallest, size.height() + caption)
            y += tallest
        return y + 4

    # -- painting ---------------------------------------------------------------

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        row: Row,
        layout: ToolLayout,
        theme: Theme,
    ) -> None:
        """Draw a tool row laid out by `layout`."""
        base, text = theme.base, theme.text
        worst = _worst(h.outcome for h in layout.headers)
        accent = theme.accents[OUTCOME_ACCENTS[worst]]
        painter.setPen(blend(base, accent if worst is not Outcome.OK else text, 0.22))
        painter.setBrush(blend(base, text, 0.025))
        painter.drawRoundedRect(layout.card.adjusted(0, 0, -1, -1), 8, 8)
        ratio = painter.device().devicePixelRatioF()
        faded = blend(base, text, 0.6)
        for number, header in enumerate(layout.headers):
            self._paint_header(painter, option, header, number == 0, row.expanded, ratio, theme)
        painter.setFont(small_font(option.font, 0.86, QFont.Weight.DemiBold))
        for rect, caption in layout.captions:
            painter.setPen(faded)
            painter.drawText(rect, Qt.AlignmentFlag.AlignVCenter, caption)
        for at, document, tint in layout.documents:
            tinted = blend(text, theme.accents[OUTCOME_ACCENTS[tint]], 0.7)
            draw_document(painter, document, at, text if tint is Outcome.OK else tinted, theme.link)
        small = small_font(option.font, 0.86, QFont.Weight.Normal)
        painter.setFont(small)
        small_metrics = QFontMetrics(small)
        for rect, picture, caption in layout.thumbnails:
            paint_thumbnail(painter, rect, picture, blend(base, text, 0.2), ratio, option.widget)
            painter.setPen(faded)
            below = QRect(rect.x(), rect.bottom() + 3, rect.width(), small_metrics.height())
            elided = small_metrics.elidedText(caption, Qt.TextElideMode.ElideRight, rect.width())
            painter.drawText(below, Qt.AlignmentFlag.AlignLeft, elided)

    def _paint_header(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        header: Header,
        first: bool,
        expanded: bool,
        ratio: float,
        theme: Theme,
    ) -> None:
        base, text = theme.base, theme.text
        accent = theme.accents[OUTCOME_ACCENTS[header.outcome]]
        middle = header.rect.center().y()
        x = header.rect.x() + PAD
        if first:  # one marker: the whole row opens and closes at once
            _paint_chevron(painter, QPoint(x, middle - _CHEVRON // 2), expanded, text)
        x += _CHEVRON + 6
        icon = badge_image("tools", blend(base, text, 0.55), _ICON, ratio)
        painter.drawImage(QPoint(x, middle - _ICON // 2), icon)
        name_font = small_font(option.font, 1.0, QFont.Weight.DemiBold)
        painter.setFont(name_font)
        painter.setPen(text)
        painter.drawText(header.name, Qt.AlignmentFlag.AlignVCenter, header.result.name)
        painter.setFont(label_font(option.font))
        paint_pill(painter, header.pill, header.outcome.upper(), accent, base)
        painter.setFont(option.font)
        # A failed call's words take some of its colour, so they read as a problem.
        words = (
            blend(base, text, 0.72) if header.outcome is Outcome.OK else blend(text, accent, 0.6)
        )
        painter.setPen(words)
        painter.drawText(header.words, Qt.AlignmentFlag.AlignVCenter, header.text)
        count = picture_count(header.result)
        if count:
            painter.setFont(small_font(option.font, 0.86, QFont.Weight.Normal))
            painter.setPen(blend(base, text, 0.55))
            painter.drawText(header.count, Qt.AlignmentFlag.AlignVCenter, count)


def _worst(outcomes: Iterable[Outcome]) -> Outcome:
    """The outcome the card's border shows: an error before a refusal before success."""
    order = [Outcome.ERROR, Outcome.DENIED, Outcome.STOPPED, Outcome.OK]
    seen = set(outcomes)
    return next((o for o in order if o in seen), Outcome.OK)


def _paint_chevron(painter: QPainter, at: QPoint, expanded: bool, color: QColor) -> None:
    """A small triangle: pointing right when closed, down when open."""
    s = float(_CHEVRON)
    if expanded:
        points = [QPointF(0, s * 0.25), QPointF(s, s * 0.25), QPointF(s / 2, s * 0.85)]
    else:
        points = [QPointF(s * 0.25, 0), QPointF(s * 0.85, s / 2), QPointF(s * 0.25, s)]
    path = QPainterPath()
    path.moveTo(points[0] + QPointF(at))
    for point in points[1:]:
        path.lineTo(point + QPointF(at))
    path.closeSubpath()
    painter.save()
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color)
    painter.drawPath(path)
    painter.restore()
