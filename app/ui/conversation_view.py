"""The conversation as a list view: follows a streaming answer unless the person scrolled up.

A click on a picture's thumbnail (or Enter on a row with pictures) asks for the
picture to be opened; the window shows it. A tool result row opens and closes
with a click on its line, or Enter or Space.
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QPoint, QRect, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFrame,
    QListView,
    QMenu,
    QStyleOptionViewItem,
    QWidget,
)

from app.ui.conversation_model import ConversationModel, Role
from app.ui.message_delegate import MessageDelegate
from vision.pictures import Picture

_BOTTOM_SLACK = 6  # pixels from the end that still count as "at the bottom"


class ConversationView(QListView):
    """Rows drawn by `MessageDelegate`; scrolls along with new words while at the bottom."""

    picture_clicked = Signal(object)  # the Picture whose thumbnail was clicked

    def __init__(self, model: ConversationModel, parent: QWidget | None = None) -> None:
        """A view over `model`."""
        super().__init__(parent)
        self.setAccessibleName("Conversation")
        self.setAccessibleDescription("Messages and notices of the open conversation")
        self.setModel(model)
        self._delegate = MessageDelegate(self)
        self.setItemDelegate(self._delegate)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setResizeMode(QListView.ResizeMode.Adjust)  # re-wrap every row on resize
        self.setUniformItemSizes(False)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setMouseTracking(True)  # the pointer becomes a hand over a thumbnail
        self._pressed: Picture | None = None
        self._pressed_header = -1  # the tool row whose line was pressed, or -1
        self.verticalScrollBar().setSingleStep(24)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)
        self.placeholder = "Send a message to start the conversation."
        self._follow = True
        bar = self.verticalScrollBar()
        bar.rangeChanged.connect(self._range_changed)
        bar.valueChanged.connect(self._value_changed)
        model.modelReset.connect(self._reset)
        model.dataChanged.connect(self._rows_changed)
        model.rowsInserted.connect(self._rows_inserted)

    # -- following the bottom ---------------------------------------------------

    def follows_bottom(self) -> bool:
        """Whether new words scroll the view (the person hasn't scrolled up)."""
        return self._follow

    def at_bottom(self) -> bool:
        """Whether the view shows the very end."""
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum() - _BOTTOM_SLACK

    def _value_changed(self, value: int) -> None:
        self._follow = value >= self.verticalScrollBar().maximum() - _BOTTOM_SLACK

    def _range_changed(self, _minimum: int, maximum: int) -> None:
        if self._follow:
            self.verticalScrollBar().setValue(maximum)

    def changeEvent(self, event: QEvent) -> None:
        """Lay every row out again in the new colours when the system palette changes."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.FontChange):
            self._delegate.clear()
            self.scheduleDelayedItemsLayout()

    def _reset(self) -> None:
        self._delegate.clear()
        self._follow = True  # another conversation opens at its end

    def _rows_changed(self, *_args: object) -> None:
        # A streamed row grew: its height must be measured again. (QListView only
        # repaints on dataChanged; it keeps the old geometry otherwise.)
        self.scheduleDelayedItemsLayout()

    def _rows_inserted(self, *_args: object) -> None:
        if self._follow:
            self.scrollToBottom()

    # -- pictures ---------------------------------------------------------------

    def thumbnails(self, index: QModelIndex | QPersistentModelIndex) -> list[tuple[QRect, Picture]]:
        """Where a row's thumbnails are, in viewport coordinates."""
        if not index.isValid():
            return []
        return self._delegate.thumbnails(self._option(index), index)

    def picture_at(self, point: QPoint) -> Picture | None:
        """The picture whose thumbnail is at `point` (viewport coordinates), if any."""
        index = self.indexAt(point)
        if not index.isValid():
            return None
        return self._delegate.picture_at(self._option(index), index, point)

    def _option(self, index: QModelIndex | QPersistentModelIndex) -> QStyleOptionViewItem:
        # The same option the view paints the row with, so hit and drawing agree.
        option = QStyleOptionViewItem()
        self.initViewItemOption(option)
        option.widget = self
        option.rect = self.visualRect(index)
        return option

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """Remember a press on a thumbnail: the release opens it."""
        left = event.button() == Qt.MouseButton.LeftButton
        point = event.position().toPoint()
        self._pressed = self.picture_at(point) if left else None
        self._pressed_header = self.header_at(point) if left else -1
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        """A click (press and release on one thumbnail) opens the picture."""
        super().mouseReleaseEvent(event)
        pressed, self._pressed = self._pressed, None
        header, self._pressed_header = self._pressed_header, -1
        if event.button() != Qt.MouseButton.LeftButton:
            return
        if header >= 0 and self.header_at(event.position().toPoint()) == header:
            self.toggle_row(header)
            return
        if pressed is None:
            return
        released = self.picture_at(event.position().toPoint())
        if released is not None and released.sha256 == pressed.sha256:
            self.picture_clicked.emit(released)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        """A hand over a thumbnail or a tool result's line: it can be clicked."""
        super().mouseMoveEvent(event)
        point = event.position().toPoint()
        over = self.picture_at(point) is not None or self.header_at(point) >= 0
        shape = Qt.CursorShape.PointingHandCursor if over else Qt.CursorShape.ArrowCursor
        if self.viewport().cursor().shape() != shape:
            self.viewport().setCursor(shape)

    def shown_texts(self, index: QModelIndex | QPersistentModelIndex) -> list[str]:
        """The blocks of words a row draws, in order."""
        return self._delegate.texts(self._option(index), index) if index.isValid() else []

    def header_at(self, point: QPoint) -> int:
        """The tool row whose result line is at `point` (viewport coordinates), or -1."""
        index = self.indexAt(point)
        if not index.isValid() or not self._delegate.header_at(self._option(index), index, point):
            return -1
        return index.row()

    def toggle_row(self, row: int) -> None:
        """Open or close a tool result row (other rows don't open)."""
        model = self.model()
        if isinstance(model, ConversationModel):
            model.toggle_expanded(row)

    def _open_first_picture(self) -> bool:
        pictures = self.thumbnails(self.currentIndex())
        if pictures:
            self.picture_clicked.emit(pictures[0][1])
        return bool(pictures)

    def _is_tool(self, index: QModelIndex | QPersistentModelIndex) -> bool:
        return index.isValid() and index.data(Role.MESSAGE_ROLE) == "tool"

    def _toggle(self, index: QModelIndex | QPersistentModelIndex) -> None:
        if index.isValid():
            self.toggle_row(index.row())

    # -- copying ----------------------------------------------------------------

    def copy_row(self, index: QModelIndex) -> None:
        """Put a row's words (Markdown for an answer) on the clipboard."""
        if index.isValid():
            QApplication.clipboard().setText(index.data(Role.TEXT) or "")

    def _menu(self, position: QPoint) -> None:
        index = self.indexAt(position)
        if not index.isValid():
            return
        menu = QMenu(self)
        menu.setAccessibleName("Message menu")
        menu.addAction("Copy text", lambda: self.copy_row(index))
        if self._is_tool(index):
            opened = bool(index.data(Role.EXPANDED))
            menu.addAction(
                "Hide details" if opened else "Show details", lambda: self._toggle(index)
            )
        for number, (_rect, picture) in enumerate(self.thumbnails(index), start=1):
            name = picture.label or f"picture {number}"
            menu.addAction(f"Open {name}", partial(self.picture_clicked.emit, picture))
        menu.exec(self.viewport().mapToGlobal(position))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Ctrl+C copies the selected row; Enter or Space opens a tool row, Enter a picture."""
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_row(self.currentIndex())
            return
        keys = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)
        if event.key() in keys and self._is_tool(self.currentIndex()):
            self._toggle(self.currentIndex())
            return
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self._open_first_picture():
            return
        super().keyPressEvent(event)

    # -- empty chat -------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        """Rows, or a hint when the conversation is empty."""
        super().paintEvent(event)
        model = self.model()
        if model is not None and model.rowCount() == 0 and self.placeholder:
            painter = QPainter(self.viewport())
            color = QColor(self.palette().color(QPalette.ColorRole.PlaceholderText))
            painter.setPen(color)
            painter.drawText(
                self.viewport().rect().adjusted(24, 24, -24, -24),
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                self.placeholder,
            )
            painter.end()
