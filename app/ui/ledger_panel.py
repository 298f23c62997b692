"""“Where your data went”: the open conversation's ledger, beside it (app.ledger builds it)."""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPalette, QTextDocument
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QStyledItemDelegate,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.presenters.ledger_words import NO_CHAT, TITLE
from app.presenters.when import today_or_full_when
from app.ui.viewport import own_viewport

if TYPE_CHECKING:
    from PySide6.QtWidgets import QStyleOptionViewItem  # Qt hands it over with a row

    from app.ledger import Crossing

_Index = QModelIndex | QPersistentModelIndex
_PAD, _GAP, _STRIPE = 10, 6, 4
# The stripe says where the data went: it left this computer, stayed on it, or unknown.
_AWAY, _HERE, _UNKNOWN = QColor("#d97706"), QColor("#16a34a"), QColor("#8a94a0")


class LedgerRole(IntEnum):
    """Data roles of the ledger's rows (tests read these, not pixels)."""

    MODEL = Qt.ItemDataRole.UserRole + 1
    HOST = Qt.ItemDataRole.UserRole + 2
    WHAT = Qt.ItemDataRole.UserRole + 3
    WHY = Qt.ItemDataRole.UserRole + 4
    HTML = Qt.ItemDataRole.UserRole + 5  # the card's words, as rich text
    LOCAL = Qt.ItemDataRole.UserRole + 6  # "yes", "no" or "unknown"


class _CrossingCards(QStyledItemDelegate):
    """Each crossing as a card: a stripe for where it went, the model, the host, what and why."""

    def __init__(self, view: QListView) -> None:
        super().__init__(view)
        self._view = view

    def _document(self, option: QStyleOptionViewItem, index: _Index, width: int) -> QTextDocument:
        document = QTextDocument()
        document.setDefaultFont(option.font)
        document.setDocumentMargin(0)
        document.setTextWidth(max(40, width))
        document.setHtml(str(index.data(LedgerRole.HTML) or ""))
        return document

    def _text_width(self) -> int:
        return self._view.viewport().width() - 2 * _GAP - 2 * _PAD - _STRIPE

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        """Tall enough for the words, wrapped at the list's width."""
        document = self._document(option, index, self._text_width())
        return QSize(self._view.viewport().width(), int(document.size().height()) + 2 * _PAD + _GAP)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        """A rounded card on the list's background."""
        from PySide6.QtWidgets import QStyle  # built with the first row drawn

        rect = option.rect.adjusted(_GAP, _GAP // 2, -_GAP, -_GAP // 2)
        palette: QPalette = option.palette
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        stripe = {"no": _AWAY, "yes": _HERE}.get(str(index.data(LedgerRole.LOCAL)), _UNKNOWN)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(
            palette.color(QPalette.ColorRole.Highlight) if selected else Qt.PenStyle.NoPen
        )
        painter.setBrush(palette.color(QPalette.ColorRole.Base))
        painter.drawRoundedRect(QRectF(rect), 6, 6)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(stripe)
        painter.drawRoundedRect(QRectF(rect.x(), rect.y(), _STRIPE, rect.height()), 2, 2)
        document = self._document(option, index, self._text_width())
        painter.translate(rect.x() + _STRIPE + _PAD, rect.y() + _PAD)
        document.drawContents(painter)
        painter.restore()


class LedgerPanel(QFrame):
    """Every crossing of the open conversation: when, to which model and host, what, and why."""

    close_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        """An empty, hidden panel."""
        super().__init__(parent)
        self.setObjectName("ledgerPanel")
        self.setAccessibleName(TITLE)
        self.setBackgroundRole(QPalette.ColorRole.Window)
        self.setAutoFillBackground(True)
        self.title = QLabel(TITLE, self)
        self.title.setAccessibleName("Ledger title")
        font = QFont(self.title.font())
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.title.setFont(font)
        self.close_button = QToolButton(self)
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setAccessibleName("Close the ledger")
        self.close_button.setToolTip("Hide “Where your data went”")
        self.close_button.clicked.connect(self.close_requested)
        self.summary = QLabel(self)
        self.summary.setAccessibleName("Ledger summary")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.explainer = QLabel(
            "Each time a picture, a page or a message of this chat went to a model other "
            "than its own, or to the cloud. Built from the chat's own notices.",
            self,
        )
        self.explainer.setAccessibleName("About the ledger")
        self.explainer.setWordWrap(True)
        self.explainer.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.list = QListWidget(self)
        self.list.setAccessibleName("Crossings")
        self.list.setAccessibleDescription("Newest last; each row says when, to whom, what and why")
        self.list.setResizeMode(QListView.ResizeMode.Adjust)  # rewrap when the panel resizes
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setVerticalScrollMode(QListView.ScrollMode.ScrollPerPixel)
        self.list.setFrameShape(QFrame.Shape.NoFrame)
        self.list.setItemDelegate(_CrossingCards(self.list))
        own_viewport(self.list).setAutoFillBackground(False)  # the cards sit on the panel

        heading = QHBoxLayout()
        heading.addWidget(self.title, 1)
        heading.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 10, 10)
        layout.setSpacing(8)
        layout.addLayout(heading)
        layout.addWidget(self.summary)
        layout.addWidget(self.list, 1)
        self._spacer = QWidget(self)  # holds the place of an empty list
        layout.addWidget(self._spacer, 1)
        layout.addWidget(self.explainer)
        self.setMinimumWidth(260)

    def show_crossings(self, crossings: list[Crossing], *, has_chat: bool = True) -> None:
        """Show a conversation's crossings (oldest first, as they happened)."""
        from app.ledger import summary  # once the ledger is shown: not before the first paint

        self.list.clear()
        self.summary.setText(summary(crossings) if has_chat else NO_CHAT)
        for crossing in crossings:
            item = QListWidgetItem(self._words(crossing), self.list)
            item.setToolTip(f"{crossing.model} at {crossing.where}\n{crossing.why}")
            item.setData(LedgerRole.MODEL, crossing.model)
            item.setData(LedgerRole.HOST, crossing.host)
            item.setData(LedgerRole.WHAT, crossing.what)
            item.setData(LedgerRole.WHY, crossing.why)
            item.setData(LedgerRole.HTML, self._card(crossing))
            local = {True: "yes", False: "no", None: "unknown"}[crossing.local]
            item.setData(LedgerRole.LOCAL, local)
        self.list.setVisible(bool(crossings))
        self._spacer.setVisible(not crossings)

    def _card(self, crossing: Crossing) -> str:
        """The card's words: model and time, where, then what was sent and why."""
        import html  # here, not at the top: its entity table (~1 ms) isn't needed to paint

        dim = self.palette().color(QPalette.ColorRole.PlaceholderText).name()
        model = html.escape(crossing.model or "a model")
        when = today_or_full_when(crossing.when)
        return (
            f"<b>{model}</b> <span style='color:{dim}'>· {when}</span><br>"
            f"<span style='color:{dim}'>{html.escape(crossing.where)}</span>"
            f"<p style='margin-top:4px'><b>Sent:</b> {html.escape(crossing.what)}<br>"
            f"<b>Why:</b> {html.escape(crossing.why)}"
            + (f"<br><b>On:</b> {html.escape(crossing.version)}" if crossing.version else "")
            + "</p>"
        )

    @staticmethod
    def _words(crossing: Crossing) -> str:
        model = crossing.model or "a model"
        return (
            f"{today_or_full_when(crossing.when)} · {model}\n"
            f"{crossing.where}\n"
            f"Sent: {crossing.what}\n"
            f"Why: {crossing.why}" + (f"\nOn: {crossing.version}" if crossing.version else "")
        )

    def rows(self) -> list[str]:
        """Each row's words (for tests and screen readers)."""
        items = (self.list.item(i) for i in range(self.list.count()))
        return [item.text() for item in items if item is not None]
