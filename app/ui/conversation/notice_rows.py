"""How a notice row looks: its kind's label and accent, its words, and, opened, its details.

A notice says in one line or two what Sightline did (routing, disclosure, a
retry, a budget, an error); the why, when there is one, waits behind
"Details", shown when the row is clicked or Enter is pressed on it, as tool
rows open. Colours come from the theme: each kind keeps its accent in light
and dark palettes alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

from PySide6.QtCore import QPoint, QPointF, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPainterPath, QPen, QTextDocument
from PySide6.QtWidgets import QStyleOptionViewItem

from app.presenters.rows import Row
from app.ui.conversation.painting import (
    MARGIN_X,
    MARGIN_Y,
    PAD,
    DocumentRows,
    card_across,
    close_card,
    draw_document,
    label_font,
    paint_button,
    paint_pill,
    small_font,
)
from app.ui.conversation.row_buttons import GET_SEEING, RETRY_BUTTON, ButtonState
from app.ui.conversation.switch import Switch, paint_switch, place_switch
from app.ui.theme import Theme, blend
from routing.transcript import NOTICE_LABELS, NoticeKind

MORE, LESS = "Details", "Hide details"
RETRY = "Retry"
GET_SEEING_WORDS = "Get a model that sees"
_DOCUMENTS = 200  # laid-out notice texts kept


@dataclass
class NoticeLayout:
    """Where everything of one notice goes, relative to the row's top-left corner."""

    KIND: ClassVar[Literal["notice"]] = "notice"  # what the delegate tells layouts apart by
    height: int = 0
    card: QRect = field(default_factory=QRect)
    label: QRect = field(default_factory=QRect)
    body: QPoint = field(default_factory=QPoint)
    document: QTextDocument | None = None
    toggle: QRect = field(default_factory=QRect)  # "Details" / "Hide details"; empty without
    details_at: QPoint = field(default_factory=QPoint)
    details: QTextDocument | None = None  # only while opened
    switch: Switch | None = None  # "‹ 2 / 3 ›" when the response it begins has versions
    retry: QRect = field(default_factory=QRect)  # an error's "Retry"; empty on other kinds


class NoticeRows(DocumentRows):
    """Lays out and paints notice rows; keeps their laid-out words."""

    def __init__(self) -> None:
        """Nothing laid out yet."""
        super().__init__(_DOCUMENTS)

    def estimate(self, option: QStyleOptionViewItem, row: Row, width: int) -> int:
        """A cheap guess of the row's height, before it is laid out."""
        metrics = QFontMetrics(option.font)
        inner = max(80, width - 2 * MARGIN_X - 2 * PAD - 90)
        lines = 1 + len(row.text) * metrics.averageCharWidth() // inner
        return lines * metrics.lineSpacing() + 2 * (PAD - 3) + 2 * MARGIN_Y

    def layout(self, option: QStyleOptionViewItem, row: Row, width: int) -> NoticeLayout:
        """Place a notice's label, words, "Details" and (opened) details at the view's width."""
        notice = row.notice
        assert notice is not None
        labels = QFontMetrics(label_font(option.font))
        small = small_font(option.font, 0.9, QFont.Weight.Normal)
        label = NOTICE_LABELS.get(notice.kind, NOTICE_LABELS[NoticeKind.INFO]).upper()
        label_size = QSize(labels.horizontalAdvance(label) + 14, labels.height() + 4)
        card = card_across(width)
        text_x = card.x() + PAD + 4 + label_size.width() + 10
        toggle_width = 0
        if notice.details:
            words = QFontMetrics(small)
            toggle_width = max(words.horizontalAdvance(MORE), words.horizontalAdvance(LESS)) + 18
        right = card.right() - PAD - (toggle_width + 8 if toggle_width else 0)
        line = QFontMetrics(option.font).height()
        pad_y = PAD - 3
        y = card.y() + pad_y
        buttons = QFontMetrics(small)
        retry = QRect()
        actions = {NoticeKind.ERROR: RETRY, NoticeKind.NOBODY_SEES: GET_SEEING_WORDS}
        if notice.kind in actions:  # a failed turn is answered again from here
            width = buttons.horizontalAdvance(actions[notice.kind]) + 16
            retry = QRect(right - width, y + (line - buttons.height() - 4) // 2, width, 0)
            retry.setHeight(buttons.height() + 4)
            right = retry.left() - 8
        switch = None
        if row.switch:
            switch = place_switch(
                buttons, row, right, y + (line - buttons.height()) // 2, leftwards=True
            )
            right = switch.rect.left() - 8
        document = self._documents.get(notice.text, option.font, max(80, right - text_x))
        layout = NoticeLayout(
            card=card, document=document, body=QPoint(text_x, y), switch=switch, retry=retry
        )
        # The label and the toggle sit on the first line of words, centred on it.
        layout.label = QRect(
            QPoint(card.x() + PAD + 4, y + (line - label_size.height()) // 2), label_size
        )
        if toggle_width:
            layout.toggle = QRect(card.right() - PAD - toggle_width, y, toggle_width, line)
        y += max(int(document.size().height()), line)
        if row.expanded and notice.details:
            y += 6
            details = self._documents.get(
                notice.details, small, max(80, card.right() - PAD - text_x)
            )
            layout.details, layout.details_at = details, QPoint(text_x, y)
            y += int(details.size().height())
        layout.height = close_card(card, y + pad_y)
        return layout

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        row: Row,
        layout: NoticeLayout,
        theme: Theme,
        buttons: ButtonState,
    ) -> None:
        """Draw a notice laid out by `layout`."""
        notice = row.notice
        assert notice is not None
        accent = theme.notice(notice.kind)
        painter.setPen(QPen(accent) if theme.outline is not None else Qt.PenStyle.NoPen)
        painter.setBrush(blend(theme.base, accent, 0.1 if theme.dark else 0.07))
        painter.drawRoundedRect(layout.card, 8, 8)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(accent)
        painter.drawRoundedRect(QRect(layout.card.topLeft(), QSize(4, layout.card.height())), 2, 2)
        painter.setFont(label_font(option.font))
        label = NOTICE_LABELS.get(notice.kind, NOTICE_LABELS[NoticeKind.INFO]).upper()
        paint_pill(painter, layout.label, label, accent, theme.base)
        # An error's words take some of its red; other notices keep the text colour.
        color = blend(theme.text, accent, 0.6) if notice.kind == NoticeKind.ERROR else theme.text
        if layout.document is not None:
            draw_document(painter, layout.document, layout.body, color, theme.link)
        if layout.details is not None:
            draw_document(painter, layout.details, layout.details_at, theme.faded, theme.link)
        ground = blend(theme.base, accent, 0.1 if theme.dark else 0.07)
        if layout.switch is not None or layout.retry.isValid():
            painter.setFont(small_font(option.font, 0.9, QFont.Weight.Normal))
        if layout.switch is not None:
            paint_switch(painter, layout.switch, row, theme, ground, buttons)
        if layout.retry.isValid():
            block = RETRY_BUTTON if notice.kind == NoticeKind.ERROR else GET_SEEING
            hovered = buttons.hovered == (row.item_id, block)
            wash = blend(ground, theme.text, 0.14 if hovered else 0.07)
            label = RETRY if notice.kind == NoticeKind.ERROR else GET_SEEING_WORDS
            paint_button(painter, layout.retry, label, theme.text, wash)
        if layout.toggle.isValid():
            small = small_font(option.font, 0.9, QFont.Weight.Normal)
            painter.setFont(small)
            painter.setPen(blend(theme.text, accent, 0.5))
            words = layout.toggle.adjusted(0, 0, -14, 0)
            painter.drawText(
                words,
                Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight,
                LESS if row.expanded else MORE,
            )
            _chevron(
                painter,
                QPointF(layout.toggle.right() - 9, layout.toggle.center().y()),
                row.expanded,
                blend(theme.text, accent, 0.5),
            )


def _chevron(painter: QPainter, centre: QPointF, opened: bool, color: QColor) -> None:
    """A small triangle: pointing right when closed, down when opened."""
    s = 4.0
    if opened:
        points = [QPointF(-s, -s / 2), QPointF(s, -s / 2), QPointF(0, s * 0.75)]
    else:
        points = [QPointF(-s / 2, -s), QPointF(s * 0.75, 0), QPointF(-s / 2, s)]
    path = QPainterPath()
    path.moveTo(centre + points[0])
    for point in points[1:]:
        path.lineTo(centre + point)
    path.closeSubpath()
    painter.save()
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color)
    painter.drawPath(path)
    painter.restore()
