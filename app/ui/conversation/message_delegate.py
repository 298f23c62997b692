"""How one row of the conversation looks: a message, a notice, or a tool's results.

Each kind of row has one layout function (`MessageRows`, `NoticeRows`,
`ToolRows`); painting, size hints and hit-testing (copy buttons, rows that
open) all use it, so what is measured is what is drawn and what is clicked.
Heights are cached per row and width, so scrolling a long chat lays out
nothing twice, and rows not yet shown get a cheap estimate instead. Rows are
read from the model directly, not through `index.data`. The three kinds of row
load with the first row laid out: an empty chat is painted without them.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, TypeAlias

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QStyledItemDelegate

from app.presenters.rows import Row
from app.ui.conversation.conversation_model import ConversationModel
from app.ui.conversation.row_buttons import GET_SEEING, MESSAGE, RETRY_BUTTON, ButtonState
from app.ui.theme import Theme, blend, theme_for

if TYPE_CHECKING:
    from PySide6.QtWidgets import QStyleOptionViewItem  # Qt hands it over with a row

    from app.ui.agents.agent_rows import AgentLayout, AgentRows
    from app.ui.conversation.markdown import CodeBlock
    from app.ui.conversation.message_rows import MessageLayout, MessageRows
    from app.ui.conversation.notice_rows import NoticeLayout, NoticeRows
    from app.ui.conversation.tool_rows import ToolLayout, ToolRows
    from vision.pdf import PdfFile
    from vision.pictures import Picture

    _Layout: TypeAlias = MessageLayout | ToolLayout | NoticeLayout | AgentLayout  # by KIND

__all__ = ["MESSAGE", "MessageDelegate"]  # MESSAGE: read by the view and tests

_Index = QModelIndex | QPersistentModelIndex
_HEIGHTS = 100_000  # rows whose heights are kept (a few bytes each) before starting afresh
# The widest the conversation is laid out: lines of about 90 characters read comfortably;
# a wider window centres the column.
MAX_COLUMN = 960


class MessageDelegate(QStyledItemDelegate):
    """Draws messages, notices and tool results at the width of the view's viewport."""

    def __init__(self, parent: QObject | None = None) -> None:
        """A delegate with empty caches."""
        super().__init__(parent)
        self._heights: dict[int, tuple[int, int, int]] = {}  # item id -> (shape, width, height)
        self._kinds: _Kinds | None = None  # made for the first row
        self.buttons = ButtonState()  # the view says which copy button is hovered or used

    @property
    def _messages(self) -> MessageRows:
        return self._rows().messages

    @property
    def _tools(self) -> ToolRows:
        return self._rows().tools

    @property
    def _notices(self) -> NoticeRows:
        return self._rows().notices

    @property
    def _agents(self) -> AgentRows:
        return self._rows().agents

    def _rows(self) -> _Kinds:
        if self._kinds is None:
            self._kinds = _Kinds()
        return self._kinds

    def clear(self) -> None:
        """Forget cached layouts (another font or palette)."""
        self._heights.clear()
        if self._kinds is not None:
            self._kinds.clear()

    # -- Qt's delegate interface ------------------------------------------------

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        """The row's height at the view's width, from the cache when the words are unchanged."""
        row = _row(index)
        width = self._width(option)
        shape = row.shape
        cached = self._heights.get(row.item_id)
        if cached is not None and cached[:2] == (shape, width):
            return QSize(width, cached[2])
        height = self._layout(option, row, column_width(width)).height
        if len(self._heights) >= _HEIGHTS:
            self._heights.clear()
        self._heights[row.item_id] = (shape, width, height)
        return QSize(width, height)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        """Draw one row inside `option.rect`."""
        from PySide6.QtWidgets import QStyle  # built with the first row drawn

        row = _row(index)
        layout = self._layout(option, row, column_width(option.rect.width()))
        theme = theme_for(option.palette)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        origin = column_origin(option)
        painter.translate(origin)
        if option.state & QStyle.StateFlag.State_Selected:
            highlight = QColor(theme.highlight)
            highlight.setAlphaF(0.16)
            across = QRect(option.rect.left() - origin.x(), 0, option.rect.width(), layout.height)
            painter.fillRect(across, highlight)
        if layout.KIND == "tool":
            self._tools.paint(painter, option, row, layout, theme)
        elif layout.KIND == "agent":
            self._agents.paint(painter, option, row, layout, theme)
        elif layout.KIND == "notice":
            self._notices.paint(painter, option, row, layout, theme, self.buttons)
        else:
            self._messages.paint(painter, option, row, layout, theme, self.buttons)
        if option.state & QStyle.StateFlag.State_HasFocus:  # where the keyboard is
            # Thick in high contrast, where the keyboard's place must be seen at a glance.
            painter.setPen(QPen(blend(theme.base, theme.highlight, 0.8), theme.focus_width))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(layout.card.adjusted(-2, -2, 1, 1), 9, 9)
        painter.restore()

    # -- what the view asks ---------------------------------------------------------

    def estimate_rows(
        self, option: QStyleOptionViewItem, model: ConversationModel, rows: range
    ) -> list[int]:
        """Cheap guesses of rows' heights, for rows not laid out yet (a long chat opening)."""
        if not rows:
            return []  # an empty chat: the kinds of row needn't load
        width = column_width(self._width(option))
        guesses = self._messages.estimate(option, model, rows, width)
        for position, guess in zip(rows, guesses, strict=True):
            if guess is None:  # a notice (estimated) or tool results (one line each: laid out)
                row = model.row(position)
                guesses[position - rows.start] = (
                    self._notices.estimate(option, row, width)
                    if row.notice is not None
                    else self._tools.layout(option, row, width).height
                )
        return [guess or 0 for guess in guesses]

    def theme(self, option: QStyleOptionViewItem) -> Theme:
        """The colours rows are drawn in, for the option's palette."""
        return theme_for(option.palette)

    def row_colors(self, option: QStyleOptionViewItem, index: _Index) -> dict[str, QColor]:
        """The colours one row is painted with: its card, words, accent and code."""
        row, theme = _row(index), self.theme(option)
        notice, message = row.notice, row.message
        if notice is not None:
            accent = theme.notice(notice.kind)
            card = blend(theme.base, accent, 0.1 if theme.dark else 0.07)
        else:
            accent = theme.status(row.status or "") if row.status else theme.highlight
            user = message is not None and message.role == "user"
            card = theme.user_card if user else theme.answer_card
        return {"card": card, "text": theme.text, "accent": accent, "code": theme.code_background}

    def html(self, option: QStyleOptionViewItem, index: _Index) -> str:
        """The row's words as rendered, as HTML (coloured code shows as styled spans)."""
        layout = self._layout(option, _row(index), column_width(option.rect.width()))
        rendered = layout.rendered if layout.KIND == "message" else None
        return rendered.document.toHtml() if rendered is not None else ""

    def code_blocks(self, option: QStyleOptionViewItem, index: _Index) -> list[CodeBlock]:
        """A message's code blocks, in order (each with its exact code)."""
        layout = self._layout(option, _row(index), column_width(option.rect.width()))
        return [box.block for box in layout.code] if layout.KIND == "message" else []

    def buttons_at(self, option: QStyleOptionViewItem, index: _Index) -> dict[int, QRect]:
        """Where a row's copy buttons are (view coordinates), by block number or MESSAGE."""
        row = _row(index)
        layout = self._layout(option, row, column_width(option.rect.width()))
        if layout.KIND == "tool" or layout.KIND == "agent":
            return {}
        origin = column_origin(option)
        found: dict[int, QRect] = {}
        if layout.switch is not None:  # the version arrows, on a message or a notice
            found |= {b: rect.translated(origin) for b, rect in layout.switch.buttons(row).items()}
        if layout.KIND == "notice":
            if layout.retry.isValid():
                notice = row.notice
                error = notice is not None and notice.kind == "error"
                found[RETRY_BUTTON if error else GET_SEEING] = layout.retry.translated(origin)
            return found
        found |= {box.block.number: box.button.translated(origin) for box in layout.code}
        if layout.copy.isValid():
            found[MESSAGE] = layout.copy.translated(origin)
        return found

    def button_at(self, option: QStyleOptionViewItem, index: _Index, point: QPoint) -> int | None:
        """The copy button at `point` (view coordinates): a code block's number, or MESSAGE."""
        found = self.buttons_at(option, index).items()
        return next((number for number, rect in found if rect.contains(point)), None)

    def thumbnails(
        self, option: QStyleOptionViewItem, index: _Index
    ) -> list[tuple[QRect, Picture]]:
        """Where a row's pictures are drawn, in the row's `option.rect` coordinates."""
        layout = self._layout(option, _row(index), column_width(option.rect.width()))
        if layout.KIND == "notice" or layout.KIND == "agent":
            return []
        origin = column_origin(option)
        return [(rect.translated(origin), picture) for rect, picture, _ in layout.thumbnails]

    def documents(self, option: QStyleOptionViewItem, index: _Index) -> list[tuple[QRect, PdfFile]]:
        """Where a message's PDF tiles are drawn, in the row's `option.rect` coordinates."""
        layout = self._layout(option, _row(index), column_width(option.rect.width()))
        if layout.KIND != "message":
            return []
        origin = column_origin(option)
        return [(rect.translated(origin), pdf) for rect, pdf in layout.documents]

    def texts(self, option: QStyleOptionViewItem, index: _Index) -> list[str]:
        """The words a row draws as text blocks, in order (a tool row's only once opened)."""
        layout = self._layout(option, _row(index), column_width(option.rect.width()))
        if layout.KIND == "tool":
            return [document.toPlainText() for _at, document, _tint in layout.documents]
        if layout.KIND == "notice":
            documents = (layout.document, layout.details)
            return [d.toPlainText() for d in documents if d is not None]
        if layout.KIND == "agent":
            shown = [layout.line_text] if layout.line_text else []
            return shown + ([layout.document.toPlainText()] if layout.document else [])
        return [layout.rendered.document.toPlainText()] if layout.rendered is not None else []

    def header_at(self, option: QStyleOptionViewItem, index: _Index, point: QPoint) -> bool:
        """Whether `point` (view coordinates) opens the row: a tool's line, a notice's card."""
        row = _row(index)
        if not row.expandable:
            return False
        layout = self._layout(option, row, column_width(option.rect.width()))
        local = point - column_origin(option)
        if layout.KIND == "tool":
            return any(header.rect.contains(local) for header in layout.headers)
        return layout.card.contains(local)

    # -- layout -----------------------------------------------------------------

    def _width(self, option: QStyleOptionViewItem) -> int:
        view = option.widget
        viewport = getattr(view, "viewport", None)
        return max(240, viewport().width() if viewport else option.rect.width())

    def _layout(self, option: QStyleOptionViewItem, row: Row, width: int) -> _Layout:
        if row.agent:  # an agent's thinking or plan, before its answer
            return self._agents.layout(option, row, width)
        if row.is_tool:
            return self._tools.layout(option, row, width)
        if row.notice is not None:
            return self._notices.layout(option, row, width)
        return self._messages.layout(option, row, width)


class _Kinds:
    """The kinds of row, each laying out and painting its own. Each is made, and its module
    loaded, with the first row of its kind: a chat of words and notices shown in the first
    frame loads neither the tools' rows (nor, through them, the attachments' reading) nor
    the agents'."""

    @cached_property
    def messages(self) -> MessageRows:
        from app.ui.conversation.message_rows import MessageRows

        return MessageRows()

    @cached_property
    def tools(self) -> ToolRows:
        from app.ui.conversation.tool_rows import ToolRows

        return ToolRows()

    @cached_property
    def notices(self) -> NoticeRows:
        from app.ui.conversation.notice_rows import NoticeRows

        return NoticeRows()

    @cached_property
    def agents(self) -> AgentRows:
        from app.ui.agents.agent_rows import AgentRows

        return AgentRows()

    def clear(self) -> None:
        for kind in ("messages", "tools", "notices", "agents"):
            if kind in self.__dict__:  # made: its cached property keeps it there
                self.__dict__[kind].clear()


def column_width(width: int) -> int:
    """The width rows are laid out at: the view's, up to a comfortable reading column."""
    return min(width, MAX_COLUMN)


def column_origin(option: QStyleOptionViewItem) -> QPoint:
    """Where a row's column starts: centred in a view wider than the column."""
    spare = option.rect.width() - column_width(option.rect.width())
    return option.rect.topLeft() + QPoint(max(0, spare) // 2, 0)


def _row(index: _Index) -> Row:
    model = index.model()
    assert isinstance(model, ConversationModel)
    return model.row(index.row())
