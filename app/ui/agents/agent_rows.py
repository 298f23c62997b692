"""How an agent's thinking and plan look: a row before its answer, in a notice's quiet style.

What an agent thinks aloud is not its answer, so it waits collapsed behind one line
("Thinking · 12 words") and opens on a click or Enter, as a tool row does. Its plan
is a checklist, always shown: each step ticked, under way, or still to do. The rows
are the conversation model's (`Row.agent` "thought" or "plan"), placed before the
answer they belong to; their words are the row's text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QTextDocument
from PySide6.QtWidgets import QStyleOptionViewItem

from app.presenters.rows import PLAN_ROW, THOUGHT_ROW, Row
from app.ui.conversation.painting import (
    PAD,
    DocumentRows,
    card_across,
    close_card,
    draw_document,
    label_font,
    paint_pill,
    small_font,
)
from app.ui.theme import Theme, blend
from routing.transcript import NoticeKind

LABELS = {THOUGHT_ROW: "Thinking", PLAN_ROW: "Plan"}
SHOW, HIDE = "Show", "Hide"
_DOCUMENTS = 100


@dataclass
class AgentLayout:
    """Where everything of a thinking or plan row goes, relative to the row's top-left."""

    KIND: ClassVar[Literal["agent"]] = "agent"  # what the delegate tells layouts apart by
    height: int = 0
    card: QRect = field(default_factory=QRect)
    label: QRect = field(default_factory=QRect)
    line: QRect = field(default_factory=QRect)  # a closed thought's one line
    line_text: str = ""
    toggle: QRect = field(default_factory=QRect)  # "Show" / "Hide" on a thought
    body: QPoint = field(default_factory=QPoint)
    document: QTextDocument | None = None  # an open thought's words, or the plan's steps


class AgentRows(DocumentRows):
    """Lays out and paints an agent's thinking and plan rows."""

    def __init__(self) -> None:
        """Nothing laid out yet."""
        super().__init__(_DOCUMENTS)

    def layout(self, option: QStyleOptionViewItem, row: Row, width: int) -> AgentLayout:
        """Place the label, a thought's line (or, open, its words), or the plan's steps."""
        labels = QFontMetrics(label_font(option.font))
        small = small_font(option.font, 0.9, QFont.Weight.Normal)
        metrics = QFontMetrics(option.font)
        line = metrics.height()
        card = card_across(width)
        label = LABELS.get(row.agent, row.agent).upper()
        size = QSize(labels.horizontalAdvance(label) + 14, labels.height() + 4)
        y = card.y() + PAD - 3
        layout = AgentLayout(card=card)
        layout.label = QRect(QPoint(card.x() + PAD + 4, y + (line - size.height()) // 2), size)
        text_x = layout.label.right() + 11
        right = card.right() - PAD
        if row.agent == THOUGHT_ROW:
            words = QFontMetrics(small)
            toggle = max(words.horizontalAdvance(SHOW), words.horizontalAdvance(HIDE)) + 8
            layout.toggle = QRect(right - toggle, y, toggle, line)
            right = layout.toggle.left() - 8
            count = len(row.text.split())
            said = f"{count} word{'s' * (count != 1)}"
            # Closed, its first words hint at it; open, they are shown in full below.
            first = row.text.strip().splitlines()[0] if row.text.strip() else ""
            first = "" if row.expanded else first
            layout.line = QRect(text_x, y, max(0, right - text_x), line)
            layout.line_text = metrics.elidedText(
                f"{said} — {first}" if first else said,
                Qt.TextElideMode.ElideRight,
                layout.line.width(),
            )
            y += line
            if row.expanded:
                y += 6
                layout.document = self._documents.get(row.text, small, max(80, right - text_x))
                layout.body = QPoint(text_x, y)
                y += int(layout.document.size().height())
        else:
            layout.document = self._documents.get(row.text, option.font, max(80, right - text_x))
            layout.body = QPoint(text_x, y)
            y += max(line, int(layout.document.size().height()))
        layout.height = close_card(card, y + PAD - 3)
        return layout

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        row: Row,
        layout: AgentLayout,
        theme: Theme,
    ) -> None:
        """Draw a row laid out by `layout`: a notice's quiet card, in the note's accent."""
        accent = theme.notice(NoticeKind.INFO)
        ground = blend(theme.base, accent, 0.06 if theme.dark else 0.04)
        painter.setPen(blend(theme.base, accent, 0.25))
        painter.setBrush(ground)
        painter.drawRoundedRect(layout.card.adjusted(0, 0, -1, -1), 8, 8)
        painter.setFont(label_font(option.font))
        label = LABELS.get(row.agent, row.agent).upper()
        paint_pill(painter, layout.label, label, accent, theme.base)
        faded = blend(theme.base, theme.text, 0.65)
        if layout.line_text:
            painter.setFont(option.font)
            painter.setPen(faded)
            painter.drawText(layout.line, Qt.AlignmentFlag.AlignVCenter, layout.line_text)
        if layout.toggle.isValid():
            painter.setFont(small_font(option.font, 0.9, QFont.Weight.Normal))
            painter.setPen(blend(theme.text, accent, 0.5))
            painter.drawText(
                layout.toggle,
                Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight,
                HIDE if row.expanded else SHOW,
            )
        if layout.document is not None:
            color = faded if row.agent == THOUGHT_ROW else theme.text
            draw_document(painter, layout.document, layout.body, color, theme.link)
