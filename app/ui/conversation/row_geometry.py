"""The conversation's rows as `MessageDelegate` draws them, and where each one's parts are.

Every question about a row's parts (its copy buttons, the header that opens it, its
thumbnails and PDF tiles, its words and code blocks) is answered by the delegate from
the same layout it paints, with the option the row is painted with, so what is
clicked is what is drawn. `ConversationView` adds what the person does with them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPoint, QRect
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget

from app.presenters.rows import Row
from app.ui.conversation.conversation_model import ConversationModel
from app.ui.conversation.lazy_list import LazyListView
from app.ui.conversation.message_delegate import MessageDelegate
from app.ui.theme import Theme

if TYPE_CHECKING:
    from PySide6.QtWidgets import QStyleOptionViewItem  # Qt hands it over with a row

    from app.ui.conversation.markdown import CodeBlock
    from vision.pdf import PdfFile
    from vision.pictures import Picture

_Index = QModelIndex | QPersistentModelIndex


class RowGeometryView(LazyListView):
    """A lazy list of the conversation's rows, drawn by `MessageDelegate`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        """An empty view with its delegate."""
        super().__init__(parent)
        self._delegate = MessageDelegate(self)
        self.setItemDelegate(self._delegate)

    def theme(self) -> Theme:
        """The colours rows are drawn in now."""
        return self._delegate.theme(self.row_option(-1))

    def row_colors(self, index: _Index) -> dict[str, QColor]:
        """The colours a row is drawn in (card, text, accent, code)."""
        return self._delegate.row_colors(self._option(index), index)

    def _option(self, index: _Index) -> QStyleOptionViewItem:
        # The option the row is painted with, so hits and drawing agree.
        return self.row_option(index.row() if index.isValid() else -1)

    def thumbnails(self, index: _Index) -> list[tuple[QRect, Picture]]:
        """Where a row's thumbnails are, in viewport coordinates."""
        if not index.isValid():
            return []
        return self._delegate.thumbnails(self._option(index), index)

    def picture_at(self, point: QPoint) -> Picture | None:
        """The picture whose thumbnail is at `point` (viewport coordinates), if any."""
        shown = self.thumbnails(self.indexAt(point))
        return next((picture for rect, picture in shown if rect.contains(point)), None)

    def documents(self, index: _Index) -> list[tuple[QRect, PdfFile]]:
        """Where a row's PDF tiles are, in viewport coordinates."""
        if not index.isValid():
            return []
        return self._delegate.documents(self._option(index), index)

    def pdf_at(self, point: QPoint) -> PdfFile | None:
        """The PDF whose tile is at `point` (viewport coordinates), if any."""
        shown = self.documents(self.indexAt(point))
        return next((pdf for rect, pdf in shown if rect.contains(point)), None)

    def shown_texts(self, index: _Index) -> list[str]:
        """The blocks of words a row draws, in order."""
        return self._delegate.texts(self._option(index), index) if index.isValid() else []

    def html(self, index: _Index) -> str:
        """A message's words as rendered, as HTML."""
        return self._delegate.html(self._option(index), index) if index.isValid() else ""

    def code_blocks(self, index: _Index) -> list[CodeBlock]:
        """A message's code blocks, in order."""
        return self._delegate.code_blocks(self._option(index), index) if index.isValid() else []

    def copy_buttons(self, index: _Index) -> dict[int, QRect]:
        """Where a row's copy buttons are (viewport coordinates): by block number, or MESSAGE."""
        return self._delegate.buttons_at(self._option(index), index) if index.isValid() else {}

    def header_at(self, point: QPoint) -> int:
        """The row that opens when `point` (viewport coordinates) is clicked, or -1."""
        index = self.indexAt(point)
        if not index.isValid() or not self._delegate.header_at(self._option(index), index, point):
            return -1
        return index.row()

    def _button_at(self, point: QPoint) -> tuple[int, int] | None:
        index = self.indexAt(point)
        if not index.isValid():
            return None
        block = self._delegate.button_at(self._option(index), index, point)
        return None if block is None else (index.row(), block)

    def row_at(self, index: _Index) -> Row:
        """The row at `index` (valid), read from the model directly."""
        model = self.model()
        assert isinstance(model, ConversationModel)
        return model.row(index.row())
