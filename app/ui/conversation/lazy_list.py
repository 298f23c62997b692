"""A list view for long conversations: rows are laid out when they come into view.

QListView measures every row before it shows any and lays every row out again
whenever one changes height; with 5,000 Markdown messages, and one of them
growing with each streamed token, that is far too slow. This view keeps the
QListView class (so screen readers still see a list of rows) but does its own
geometry with `RowHeights`: rows get a cheap estimate from the delegate and
are measured exactly when shown (and a screen beyond, while idle). When a row
above the view changes height, the first row in view keeps its place; while
the view follows the end of the chat, the end stays in view.
"""

from __future__ import annotations

from collections.abc import Sequence
from time import perf_counter
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QAbstractItemView, QListView, QWidget

from app.ui.conversation.positioned_list import PositionedListView

if TYPE_CHECKING:
    from PySide6.QtWidgets import QStyleOptionViewItem

_Index = QModelIndex | QPersistentModelIndex
_BOTTOM_SLACK = 6  # pixels from the end that still count as "at the bottom"
_IDLE_BUDGET_S = 0.006  # measuring while idle stops after this long, to keep input snappy


class LazyListView(PositionedListView):
    """Rows measured when shown: the delegate's `estimate_rows` first, its `sizeHint` then."""

    following_changed = Signal(bool)  # the view follows the end again, or stopped to
    near_top = Signal()  # the view shows, or is within a screen of, its first row

    def __init__(self, parent: QWidget | None = None) -> None:
        """An empty view that follows the end of its rows."""
        super().__init__(parent)  # first: the setters below already call the overrides
        self._width = -1  # the viewport width the rows were measured at
        self._follow = True
        self._quiet = False  # the view scrolls because rows changed: redrawn, not pixel-moved
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setUniformItemSizes(False)
        self._idle = QTimer(self)
        self._idle.setSingleShot(True)
        self._idle.setInterval(0)
        self._idle.timeout.connect(self._measure_nearby)
        self.verticalScrollBar().setSingleStep(24)
        self.verticalScrollBar().valueChanged.connect(self._value_changed)

    # -- following the end ------------------------------------------------------

    def follows_bottom(self) -> bool:
        """Whether new rows and words scroll the view (the person hasn't scrolled up)."""
        return self._follow

    def at_bottom(self) -> bool:
        """Whether the view shows the very end."""
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum() - _BOTTOM_SLACK

    def measured_rows(self) -> int:
        """How many rows have their real height (the rest are estimates)."""
        return len(self._rows) - self._rows.unmeasured

    def follow_end(self) -> None:
        """Show the end, and follow it again as rows and words arrive."""
        self._set_follow(True)
        self._set_range(self.verticalScrollBar().maximum())
        self._settle()

    def _set_follow(self, follow: bool) -> None:
        if follow != self._follow:
            self._follow = follow
            self.following_changed.emit(follow)

    def _value_changed(self, value: int) -> None:
        self._set_follow(value >= self.verticalScrollBar().maximum() - _BOTTOM_SLACK)
        if value < self.viewport().height() and not self._quiet:
            self.near_top.emit()

    # -- geometry -----------------------------------------------------------------

    def row_option(self, row: int) -> QStyleOptionViewItem:
        """The option a row is measured and painted with (its rect in viewport coordinates)."""
        from PySide6.QtWidgets import QStyleOptionViewItem  # built with the first row

        option = QStyleOptionViewItem()
        self.initViewItemOption(option)
        option.widget = self
        if 0 <= row < len(self._rows):
            option.rect = self.visualRect(self.model().index(row, 0))
        return option

    def _guesses(self, rows: range) -> list[int]:
        """The delegate's cheap estimates of these rows' heights."""
        estimate_rows = getattr(self.itemDelegate(), "estimate_rows", None)
        if estimate_rows is None or not rows:  # none: no option to build (a new chat's start)
            return [40] * len(rows)
        return list(estimate_rows(self.row_option(-1), self.model(), rows))

    def _rebuild(self) -> None:
        """Guess every row's height again (a reset, or rows that no longer match)."""
        model = self.model()
        self._rows.reset(self._guesses(range(model.rowCount() if model is not None else 0)))
        self._width = self.viewport().width()

    def _measure(self, row: int) -> int:
        """Measure one row exactly; how much it grew."""
        index = self.model().index(row, 0)
        height = self.itemDelegate().sizeHint(self.row_option(-1), index).height()
        return self._rows.set(row, max(1, height))

    def _anchor(self) -> tuple[int, int]:
        """The first row in view and how far the view's top is into it."""
        value = self.verticalScrollBar().value()
        row = self._rows.row_at(value)
        return row, value - self._rows.top(row)

    def _anchored(self, anchor: tuple[int, int]) -> int:
        """The scroll value that puts `anchor` back where it was."""
        row, offset = anchor
        return self._rows.top(row) + max(0, min(offset, self._rows.height(row) - 1))

    def _settle(self) -> bool:
        """Measure the rows in view, keeping the first one (or the end) in place; any change?"""
        rows = self._rows
        if not len(rows):
            return self._set_range(0)
        height = self.viewport().height()
        changed = False
        if self._follow:  # from the end up, until the view is full
            row, covered = len(rows) - 1, 0
            while row >= 0 and covered < height:
                changed = (not rows.exact(row) and bool(self._measure(row))) or changed
                covered += rows.height(row)
                row -= 1
            value = rows.total() - height
        else:  # from the first row in view down, then up if the end comes first
            anchor = self._anchor()
            row = anchor[0]
            while row < len(rows) and rows.top(row) < self._anchored(anchor) + height:
                changed = (not rows.exact(row) and bool(self._measure(row))) or changed
                row += 1
            row, missing = anchor[0] - 1, self._anchored(anchor) + height - rows.total()
            while row >= 0 and missing > 0:
                changed = (not rows.exact(row) and bool(self._measure(row))) or changed
                missing -= rows.height(row)
                row -= 1
            value = self._anchored(anchor)  # after the rows above it were measured
        if rows.unmeasured:
            self._idle.start()
        return self._set_range(value) or changed

    def _set_range(self, value: int, repaint: bool = True) -> bool:
        """The scroll range for the rows' height, at `value` (or the end); did anything move?"""
        bar = self.verticalScrollBar()
        height = self.viewport().height()
        maximum = max(0, self._rows.total() - height)
        before = (bar.maximum(), bar.value())
        self._quiet = True  # geometry changed under the view: draw it afresh, not scrolled
        try:
            bar.setRange(0, maximum)
            bar.setPageStep(height)
            bar.setValue(maximum if self._follow else min(max(0, value), maximum))
        finally:
            self._quiet = False
        moved = before != (bar.maximum(), bar.value())
        if moved and repaint:
            self.viewport().update()
        if bar.value() < height:
            self.near_top.emit()
        return moved

    def _measure_nearby(self) -> None:
        """While idle, measure a screen above and below the view, so scrolling finds them ready."""
        rows, bar = self._rows, self.verticalScrollBar()
        if not rows.unmeasured or not self.isVisible():
            return
        started = perf_counter()
        height = self.viewport().height()
        first = rows.row_at(bar.value() - height)
        last = rows.row_at(bar.value() + 2 * height)
        anchor = self._anchor()
        pending = False
        for row in (*range(anchor[0], last + 1), *range(anchor[0] - 1, first - 1, -1)):
            if not rows.exact(row):
                if perf_counter() - started > _IDLE_BUDGET_S:
                    pending = True
                    break
                self._measure(row)
        # The rows in view kept their heights, so nothing visible moves: no repaint.
        self._set_range(self._anchored(anchor), repaint=False)
        if pending:
            self._idle.start()

    # -- QListView's layout, replaced -------------------------------------------------

    def doItemsLayout(self) -> None:
        """Bring the heights in line with the model (Qt calls this after delayed changes)."""
        model = self.model()
        if model is not None and model.rowCount() != len(self._rows):
            self._rebuild()
        QAbstractItemView.doItemsLayout(self)  # stops Qt's pending layout, updates geometry

    def updateGeometries(self) -> None:
        """The scroll range, from the rows' heights (remeasured at a new width)."""
        if self.viewport().width() != self._width and len(self._rows):
            self._rows.forget()  # every row wraps differently at another width
            self._width = self.viewport().width()
        self._settle()
        QAbstractItemView.updateGeometries(self)

    def reset(self) -> None:
        """Another set of rows: guess them all, show the end."""
        QListView.reset(self)
        self._set_follow(True)
        self._rebuild()
        self._settle()

    def rowsInserted(self, parent: _Index, start: int, end: int) -> None:
        """New rows (at the end, as a chat grows): guessed now, measured when shown."""
        count = end - start + 1
        anchor = self._anchor() if len(self._rows) else None
        if parent.isValid() or len(self._rows) != self.model().rowCount() - count:
            self._rebuild()
        else:
            self._rows.insert(start, self._guesses(range(start, end + 1)))
            if anchor is not None and not self._follow and start <= anchor[0]:
                # Rows above the view (an earlier page): what was in view stays in place.
                self._set_range(self._anchored((anchor[0] + count, anchor[1])), repaint=False)
        QAbstractItemView.rowsInserted(self, parent, start, end)
        self._settle()
        self.viewport().update()

    def dataChanged(
        self, top_left: _Index, bottom_right: _Index, roles: Sequence[int] = ()
    ) -> None:
        """Rows whose words changed are measured again at once (a streamed answer grows)."""
        shown = False
        if len(self._rows) == self.model().rowCount() and len(self._rows):
            anchor, view = self._anchor(), self.viewport().rect()
            for row in range(
                max(0, top_left.row()), min(bottom_right.row(), len(self._rows) - 1) + 1
            ):
                self._measure(row)
                shown = shown or self.visualRect(self.model().index(row, 0)).intersects(view)
            self._set_range(self._anchored(anchor))  # redraws if the view had to move
        QAbstractItemView.dataChanged(self, top_left, bottom_right, list(roles))
        if shown:  # a row in view changed height: the rows below it moved
            self.viewport().update()

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Rows wrap again at a new width; the first row in view (or the end) stays."""
        QAbstractItemView.resizeEvent(self, event)  # updates the geometry, see above

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        """Move what is drawn with the scroll bar (unless the rows stayed put)."""
        if not self._quiet:
            self.viewport().scroll(0, dy)

    # -- scrolling to a row ------------------------------------------------------------

    def scrollTo(
        self,
        index: _Index,
        hint: QAbstractItemView.ScrollHint = QAbstractItemView.ScrollHint.EnsureVisible,
    ) -> None:
        """Bring a row into view, measured first so it lands where asked."""
        if not index.isValid() or index.row() >= len(self._rows):
            return
        row = index.row()
        if not self._rows.exact(row):
            self._measure(row)
        top, height = self._rows.top(row), self._rows.height(row)
        bar, view = self.verticalScrollBar(), self.viewport().height()
        hints = QAbstractItemView.ScrollHint
        if hint == hints.PositionAtTop or (hint == hints.EnsureVisible and top < bar.value()):
            value = top
        elif hint == hints.PositionAtBottom or (
            hint == hints.EnsureVisible and top + height > bar.value() + view
        ):
            value = top + height - view if height <= view else top
        elif hint == hints.PositionAtCenter:
            value = top + (height - view) // 2
        else:
            return
        self._follow = False
        self._set_range(value)
        self._set_follow(self.at_bottom())
        self._settle()

    # -- painting -------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        """Draw the rows in the damaged area, measuring any still estimated first."""
        from PySide6.QtWidgets import QStyle  # built with the first row drawn

        if self._settle():
            self.viewport().update()  # rows moved: the rest of the view needs drawing too
        rows = self._rows
        if not len(rows):
            return
        value = self.verticalScrollBar().value()
        painter = QPainter(self.viewport())
        delegate, model = self.itemDelegate(), self.model()
        selection, current = self.selectionModel(), self.currentIndex()
        drawn: set[int] = set()
        # Each part asked for apart: a row made current far from the one before asks for
        # two rows, not every row between them.
        for area in event.region():  # type: ignore[attr-defined]  # iterable at run time
            row = rows.row_at(value + area.top())
            while row < len(rows) and rows.top(row) - value <= area.bottom():
                if row not in drawn:
                    drawn.add(row)
                    index = model.index(row, 0)
                    option = self.row_option(row)
                    if selection is not None and selection.isSelected(index):
                        option.state |= QStyle.StateFlag.State_Selected
                    if index == current and self.hasFocus():
                        option.state |= QStyle.StateFlag.State_HasFocus
                    delegate.paint(painter, option, index)
                row += 1
        painter.end()
