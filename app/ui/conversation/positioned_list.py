"""A list view whose rows stand where a `RowHeights` puts them, not where QListView would.

Everything Qt asks a list view about positions is answered from the heights: where a
row is and which row is at a point, the keyboard moving a row or a page, the rows a
rubber band selects, and (since QListView's own would name row -1, having no layout of
its own) which row assistive technology hears has the focus or was selected.
`LazyListView` (lazy_list.py) measures the heights.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QRect,
    Qt,
)
from PySide6.QtGui import QRegion
from PySide6.QtWidgets import QAbstractItemView, QListView, QWidget

from app.presenters.row_heights import RowHeights
from app.ui.viewport import own_viewport

_Index = QModelIndex | QPersistentModelIndex


class PositionedListView(QListView):
    """Rows placed by `self._rows`, top to bottom, each the viewport's width."""

    def __init__(self, parent: QWidget | None = None) -> None:
        """No rows yet."""
        super().__init__(parent)
        own_viewport(self)
        self._rows = RowHeights()

    # -- where rows are ---------------------------------------------------------------

    def visualRect(self, index: _Index) -> QRect:
        """A row's rectangle in viewport coordinates (estimated if not yet measured)."""
        row = index.row()
        if not index.isValid() or row >= len(self._rows):
            return QRect()
        top = self._rows.top(row) - self.verticalScrollBar().value()
        return QRect(0, top, self.viewport().width(), self._rows.height(row))

    def indexAt(self, point: QPoint) -> QModelIndex:
        """The row at `point` (viewport coordinates)."""
        y = point.y() + self.verticalScrollBar().value()
        if not len(self._rows) or not 0 <= y < self._rows.total():
            return QModelIndex()
        return self.model().index(self._rows.row_at(y), 0)

    # -- moving and selecting -----------------------------------------------------------

    def moveCursor(
        self, action: QAbstractItemView.CursorAction, modifiers: Qt.KeyboardModifier
    ) -> QModelIndex:
        """Up and down a row, a page, or to the first and last rows."""
        count = len(self._rows)
        if not count:
            return QModelIndex()
        current = self.currentIndex().row() if self.currentIndex().isValid() else -1
        actions = QAbstractItemView.CursorAction
        page = self.viewport().height()
        if action in (actions.MoveUp, actions.MovePrevious):
            row = current - 1 if current > 0 else 0
        elif action in (actions.MoveDown, actions.MoveNext):
            row = min(count - 1, current + 1)
        elif action == actions.MovePageUp:
            row = self._rows.row_at(self._rows.top(max(current, 0)) - page)
        elif action == actions.MovePageDown:
            row = self._rows.row_at(self._rows.top(max(current, 0)) + page)
        elif action == actions.MoveHome:
            row = 0
        elif action == actions.MoveEnd:
            row = count - 1
        else:
            row = max(current, 0)
        return self.model().index(row, 0)

    def horizontalOffset(self) -> int:
        """Rows are never wider than the view."""
        return 0

    def verticalOffset(self) -> int:
        """How far the view is scrolled down."""
        return self.verticalScrollBar().value()

    def setSelection(self, rect: QRect, command: QItemSelectionModel.SelectionFlag) -> None:
        """Select the rows `rect` (viewport coordinates) touches."""
        top, bottom = self.indexAt(rect.topLeft()), self.indexAt(rect.bottomLeft())
        if not top.isValid():
            return
        bottom = bottom if bottom.isValid() else top
        self.selectionModel().select(QItemSelection(top, bottom), command)

    def visualRegionForSelection(self, selection: QItemSelection) -> QRegion:
        """Where the selected rows are drawn."""
        region = QRegion()
        for index in selection.indexes():
            region += self.visualRect(index)
        return region

    # -- what screen readers hear ------------------------------------------------------

    def currentChanged(self, current: _Index, previous: _Index) -> None:
        """Tell assistive technology which row has the focus."""
        if current.isValid() and self.hasFocus():
            # Imported here: the view is built before the first paint, and no row has
            # the focus then (QAccessible costs about 5 ms to load).
            from PySide6.QtGui import QAccessible, QAccessibleEvent

            if QAccessible.isActive():
                event = QAccessibleEvent(self, QAccessible.Event.Focus)
                event.setChild(current.row())
                QAccessible.updateAccessibility(event)
        QAbstractItemView.currentChanged(self, current, previous)

    def selectionChanged(self, selected: QItemSelection, deselected: QItemSelection) -> None:
        """Tell assistive technology which row was selected."""
        added, removed = selected.indexes(), deselected.indexes()
        if added or removed:
            from PySide6.QtGui import QAccessible, QAccessibleEvent

            if QAccessible.isActive():
                for indexes, kind in (
                    (added, QAccessible.Event.SelectionAdd),
                    (removed, QAccessible.Event.SelectionRemove),
                ):
                    if indexes:
                        event = QAccessibleEvent(self, kind)
                        event.setChild(indexes[0].row())
                        QAccessible.updateAccessibility(event)
        QAbstractItemView.selectionChanged(self, selected, deselected)
