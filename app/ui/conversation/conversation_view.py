"""The conversation as a list view: copy buttons, openable rows, pictures, and the theme.

A click on a code block's "Copy" copies exactly that block's code; the "Copy"
beside an answer's author copies the message's Markdown source. The same is
reachable by keyboard: Ctrl+C copies the current message, and the context menu
(the Menu key or Shift+F10 included) lists "Copy message" and "Copy code block
N". A tool result row or a notice with details opens and closes with a click,
Enter or Space; a click on a thumbnail or a PDF's tile (or Enter on a row with
pictures or PDFs) asks for it to be opened. When the system's colours change (light and
dark), rows are drawn again in the new theme.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QGuiApplication,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
)
from PySide6.QtWidgets import QAbstractItemView, QApplication, QFrame, QMenu, QWidget

from app.presenters.rows import Row
from app.ui.conversation.conversation_model import ConversationModel
from app.ui.conversation.jump_button import JumpButton
from app.ui.conversation.message_delegate import MESSAGE
from app.ui.conversation.row_buttons import GET_SEEING, NEXT, PREVIOUS, RETRY_BUTTON
from app.ui.conversation.row_geometry import RowGeometryView

if TYPE_CHECKING:
    from app.ui.conversation.message_actions import MenuModel
    from vision.pdf import PdfFile
    from vision.pictures import Picture

_Index = QModelIndex | QPersistentModelIndex
_COPIED_MS = 1500  # how long a button says "Copied"


class _Pressed(NamedTuple):
    """What a mouse press landed on: a copy button, a row that opens, a picture or a PDF.

    A named tuple, not a dataclass: made with the first press, it is defined at every start,
    where a dataclass compiles its methods (about 3.7 M instructions before the first paint).
    """

    kind: str  # "copy", "open", "picture" or "pdf"
    row: int = -1
    block: int = MESSAGE
    picture: Picture | None = None
    pdf: PdfFile | None = None


class ConversationView(RowGeometryView):
    """Rows drawn by `MessageDelegate`; scrolls along with new words while at the bottom."""

    picture_clicked = Signal(object)  # the Picture whose thumbnail was clicked
    describe_clicked = Signal(object)  # the Picture the person asked to have described
    pdf_clicked = Signal(object)  # the PdfFile whose tile was clicked
    # A Requested (conversation/message_actions.py): answer again, edit, delete, a version.
    action_requested = Signal(object)

    def __init__(self, model: ConversationModel, parent: QWidget | None = None) -> None:
        """A view over `model`."""
        super().__init__(parent)
        self._pressed: _Pressed | None = None  # what a press landed on
        self.menu: QMenu | None = None  # the open context menu, if any
        self.setAccessibleName("Conversation")
        self.setAccessibleDescription("Messages and notices of the open conversation")
        self.setModel(model)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setMouseTracking(True)  # the pointer becomes a hand over what can be clicked
        self._copied = QTimer(self)
        self._copied.setSingleShot(True)
        self._copied.setInterval(_COPIED_MS)
        self._copied.timeout.connect(self._forget_copied)
        # Code drawn plain, its language's lexer not built yet: built after that paint.
        self._colouring = QTimer(self)
        self._colouring.setSingleShot(True)
        self._colouring.setInterval(0)
        self._colouring.timeout.connect(self._colour_code)
        self.placeholder = "Send a message to start the conversation."
        # Scrolled up while the chat goes on: one click (or Ctrl+End) back to the newest.
        self.jump_button = JumpButton(self)
        self.jump_button.clicked.connect(self.jump_to_latest)
        self.following_changed.connect(self.jump_button.show_if_wanted)
        model.rowsInserted.connect(self.jump_button.show_if_wanted)
        # The models a "… with" submenu offers, (ref, label) pairs: the window's picker's.
        self.models_for_menu: Callable[[], list[MenuModel]] = list
        hints = QGuiApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):  # Qt 6.5+: the system went light or dark
            hints.colorSchemeChanged.connect(self._restyle)

    # -- the end of the chat ----------------------------------------------------

    def jump_to_latest(self) -> None:
        """Show the newest message and follow the chat again."""
        self.follow_end()
        self.jump_button.show_if_wanted()

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Keep the jump button at the bottom middle."""
        super().resizeEvent(event)
        self.jump_button.place()

    def changeEvent(self, event: QEvent) -> None:
        """New colours are a repaint; a new font is a new layout of every row."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle()
        elif event.type() == QEvent.Type.FontChange:
            self._lay_out_again()

    def _lay_out_again(self) -> None:
        """Every row laid out and measured again, then drawn."""
        self._delegate.clear()
        self._width = -1  # measure every row again
        self.scheduleDelayedItemsLayout()
        self.viewport().update()

    def _colour_code(self) -> None:
        """Build the lexers the code just drawn plain waited for, and draw it coloured (as
        a new font: bold words may be wider, and wrap otherwise)."""
        from app.ui.conversation import highlight

        if highlight.build_wanted():
            self._lay_out_again()

    def _restyle(self, *_args: object) -> None:
        # Heights don't depend on colours, and rendered words are cached per theme:
        # drawing again picks the new theme's (see MessageRows).
        self.viewport().update()

    # -- rows -------------------------------------------------------------------

    def reset(self) -> None:
        """Another conversation: its end in view, nothing pressed."""
        self._pressed = None
        super().reset()

    def toggle_row(self, row: int) -> None:
        """Open or close a tool result row or a notice's details (other rows don't open)."""
        model = self.model()
        if isinstance(model, ConversationModel):
            model.toggle_expanded(row)

    # -- copying ----------------------------------------------------------------

    def copy_row(self, index: _Index) -> None:
        """Put a row's words (an answer's Markdown source) on the clipboard."""
        if index.isValid():
            self._copy(index, MESSAGE, self.row_at(index).text)

    def copy_code(self, index: _Index, number: int) -> None:
        """Put exactly one code block's code on the clipboard."""
        block = next((b for b in self.code_blocks(index) if b.number == number), None)
        if block is not None:
            self._copy(index, number, block.code)

    def _copy(self, index: _Index, block: int, text: str) -> None:
        QApplication.clipboard().setText(text)
        self._delegate.buttons.copied = (self.row_at(index).item_id, block)
        self._copied.start()
        self.viewport().update(self.visualRect(index))

    def _forget_copied(self) -> None:
        self._delegate.buttons.copied = None
        self.viewport().update()

    def latest_version(self, step: int) -> None:
        """The version before (-1) or after (+1) of the newest row that has versions."""
        model = self.model()
        for position in range(model.rowCount() - 1, -1, -1):
            row = self.row_at(model.index(position, 0))
            if row.switch:
                self._row_button(row, PREVIOUS if step < 0 else NEXT)
                return

    def _row_button(self, row: Row, block: int) -> None:
        """A version arrow leads to that version; Retry answers the failed turn again."""
        from app.ui.conversation.message_actions import Requested

        if block == RETRY_BUTTON:
            self.action_requested.emit(Requested("regenerate", row.item_id))
            return
        if block == GET_SEEING:
            self.action_requested.emit(Requested("get_seeing", row.item_id))
            return
        beside = row.version_beside(-1 if block == PREVIOUS else +1)
        if beside is not None:
            self.action_requested.emit(Requested("version", beside))

    # -- the mouse --------------------------------------------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """Remember what a press landed on: the release acts on it."""
        self._pressed = None
        point = event.position().toPoint()
        if event.button() == Qt.MouseButton.LeftButton:
            button = self._button_at(point)
            if button is not None:
                self._pressed = _Pressed("copy", button[0], button[1])
            elif (picture := self.picture_at(point)) is not None:
                self._pressed = _Pressed("picture", picture=picture)
            elif (pdf := self.pdf_at(point)) is not None:
                self._pressed = _Pressed("pdf", pdf=pdf)
            elif (row := self.header_at(point)) >= 0:
                self._pressed = _Pressed("open", row)
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        """A click (press and release on the same thing) copies, opens or shows."""
        super().mouseReleaseEvent(event)
        pressed, self._pressed = self._pressed, None
        if event.button() != Qt.MouseButton.LeftButton or pressed is None:
            return
        point = event.position().toPoint()
        if pressed.kind == "copy" and self._button_at(point) == (pressed.row, pressed.block):
            index = self.model().index(pressed.row, 0)
            if pressed.block in (PREVIOUS, NEXT, RETRY_BUTTON, GET_SEEING):
                self._row_button(self.row_at(index), pressed.block)
            elif pressed.block == MESSAGE:
                self.copy_row(index)
            else:
                self.copy_code(index, pressed.block)
        elif pressed.kind == "open" and self.header_at(point) == pressed.row:
            self.toggle_row(pressed.row)
        elif pressed.kind == "picture" and pressed.picture is not None:
            released = self.picture_at(point)
            if released is not None and released.sha256 == pressed.picture.sha256:
                self.picture_clicked.emit(released)
        elif pressed.kind == "pdf" and pressed.pdf is not None:
            document = self.pdf_at(point)
            if document is not None and document.sha256 == pressed.pdf.sha256:
                self.pdf_clicked.emit(document)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        """A hand over what a click acts on; a copy button lights up under the pointer."""
        super().mouseMoveEvent(event)
        point = event.position().toPoint()
        button = self._button_at(point)
        hovered = None
        if button is not None:
            hovered = (self.row_at(self.model().index(button[0], 0)).item_id, button[1])
        index = self.indexAt(point)
        row = self.row_at(index).item_id if index.isValid() else -1
        buttons = self._delegate.buttons
        if hovered != buttons.hovered or row != buttons.hovered_row:
            buttons.hovered, buttons.hovered_row = hovered, row
            self.viewport().update()
        over = (
            button is not None
            or self.picture_at(point) is not None
            or self.pdf_at(point) is not None
            or self.header_at(point) >= 0
        )
        shape = Qt.CursorShape.PointingHandCursor if over else Qt.CursorShape.ArrowCursor
        if self.viewport().cursor().shape() != shape:
            self.viewport().setCursor(shape)

    def leaveEvent(self, event: QEvent) -> None:
        """No button is hovered once the pointer leaves."""
        super().leaveEvent(event)
        buttons = self._delegate.buttons
        if buttons.hovered is not None or buttons.hovered_row >= 0:
            buttons.hovered, buttons.hovered_row = None, -1
            self.viewport().update()

    # -- the menu and the keyboard ----------------------------------------------

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        """The row's menu: under the pointer, or (from the keyboard) at the current row."""
        if event.reason() == QContextMenuEvent.Reason.Keyboard:
            self.open_menu()
        else:
            position = self.viewport().mapFrom(self, event.pos())
            self.open_menu(self.indexAt(position), position)

    def open_menu(self, index: _Index | None = None, position: QPoint | None = None) -> None:
        """Pop up a row's menu (the current row's, by its top-left corner, without arguments)."""
        if index is None:
            index = self.currentIndex()
            self.scrollTo(index)
        if not index.isValid():
            return
        if position is None:
            rect = self.visualRect(index).intersected(self.viewport().rect())
            position = rect.topLeft() + QPoint(24, min(24, rect.height() // 2))
        if self.menu is not None:
            self.menu.close()
        from app.ui.conversation.row_menu import row_menu  # with the first menu, not at start

        self.menu = row_menu(self, index)
        self.menu.aboutToHide.connect(self.menu.deleteLater)
        self.menu.destroyed.connect(self._menu_gone)
        # popup, not exec: no nested event loop under qasync.
        self.menu.popup(self.viewport().mapToGlobal(position))

    def _menu_gone(self, *_args: object) -> None:
        self.menu = None

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Ctrl+C copies; the Menu key opens the menu; Enter or Space opens a row or a picture."""
        from PySide6.QtGui import QKeySequence  # with the first key pressed (see menu_bar.py)

        index = self.currentIndex()
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_row(index)
            return
        shift = event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        if event.key() == Qt.Key.Key_Menu or (event.key() == Qt.Key.Key_F10 and shift):
            self.open_menu()  # where the platform doesn't turn these keys into a menu event
            return
        alt = event.modifiers() & Qt.KeyboardModifier.AltModifier
        if alt and event.key() in (Qt.Key.Key_Left, Qt.Key.Key_Right) and index.isValid():
            # Alt+Left / Alt+Right: the version before or after, as the arrows do.
            block = PREVIOUS if event.key() == Qt.Key.Key_Left else NEXT
            self._row_button(self.row_at(index), block)
            return
        keys = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)
        if event.key() in keys and index.isValid() and self.row_at(index).expandable:
            self.toggle_row(index.row())
            return
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self._open_first():
            return
        super().keyPressEvent(event)

    def _open_first(self) -> bool:
        """Open the current row's first picture, else its first PDF; whether there was one."""
        index = self.currentIndex()
        pictures = self.thumbnails(index)
        if pictures:
            self.picture_clicked.emit(pictures[0][1])
            return True
        documents = self.documents(index)
        if documents:
            self.pdf_clicked.emit(documents[0][1])
        return bool(documents)

    # -- empty chat -------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        """Rows, or a hint when the conversation is empty; code drawn plain for want of its
        lexer is coloured next, once this paint is done."""
        super().paintEvent(event)
        from app.ui.conversation import highlight  # light: Pygments loads with a lexer

        if highlight.wanted():
            self._colouring.start()
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
