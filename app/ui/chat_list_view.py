"""The sidebar's list itself: its rows laid out a batch at a time, the place a person
scrolled to kept as chats come, go and move, and the keys it takes (Delete asks to delete).

Qt lays every row out again when one is added, moved, taken out or changed. A batch at a
time (what keeps a start with thousands of chats quick), that leaves the view within the
first batch, a hundred rows from the top: a person scrolled down to an old chat would
see the list jump whenever another chat's answer ends. So while the view is scrolled
down, a change is laid out in one pass, and the chat at its top is kept at its top; at
the top, where new and moved chats show, the batches stay.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QKeyEvent, QPaintEvent
from PySide6.QtWidgets import QAbstractItemView, QListView, QWidget

from app.ui.chat_list import ID_ROLE
from app.ui.viewport import own_viewport

if TYPE_CHECKING:
    from PySide6.QtCore import QTimerEvent  # only Qt makes them: not built to start

_Index = QModelIndex | QPersistentModelIndex


class ConversationList(QListView):
    """The list itself; Delete asks to delete the selected conversation."""

    delete_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        """An empty list."""
        super().__init__(parent)
        own_viewport(self)
        # Rows laid out a batch at a time, between events: the first paint lays out the
        # first rows, not every chat a person keeps (10,000 chats: 27 ms of the start).
        self._mode = QListView.LayoutMode.Batched
        self.setLayoutMode(self._mode)
        # The current row, chosen before its batch was laid out: scrolled to once it is.
        self._reveal = QPersistentModelIndex()
        # The chat at the top of a scrolled-down view while a change is laid out again.
        self._place = QPersistentModelIndex()
        # True while the keyboard moves through the list: the chat it opens must not
        # take the keyboard away, or the next arrow key would land in the composer.
        self.by_keyboard = False

    def setModel(self, model: QAbstractItemModel | None) -> None:
        """Show `model`'s rows, keeping the place scrolled to as they change."""
        if model is not None:
            # Before Qt's own view hears of a change: by then it no longer says which row
            # is at the top.
            model.rowsAboutToBeInserted.connect(self._keep_place)
            model.rowsAboutToBeRemoved.connect(self._keep_place)
            model.rowsAboutToBeMoved.connect(self._keep_place)
            model.dataChanged.connect(self._keep_place)  # Qt lays the list out again for it
            model.modelAboutToBeReset.connect(self._new_list)
        super().setModel(model)
        if model is not None:
            # After Qt's own view has heard of it: its layout is then waiting to be done.
            model.rowsInserted.connect(self._put_back)
            model.rowsRemoved.connect(self._put_back)
            model.rowsMoved.connect(self._put_back)
            model.dataChanged.connect(self._put_back)

    def _keep_place(self, *_change: object) -> None:
        """A chat comes, goes, moves or changes: scrolled down, the list will be laid out
        again in one pass and the chat at its top kept there; at the top, a batch at a time."""
        # At the top nothing is kept, nor asked (asking where a row is lays the list out).
        scrolled = self.verticalScrollBar().value() > 0
        top = self.indexAt(self.viewport().rect().topLeft()) if scrolled else QModelIndex()
        if not top.isValid():
            self._lay_out(QListView.LayoutMode.Batched)
            return
        self._lay_out(QListView.LayoutMode.SinglePass)
        self._place = QPersistentModelIndex(top)

    def _lay_out(self, mode: QListView.LayoutMode) -> None:
        """The layout mode from now on (told Qt only when it changes: a change to the list
        asks for it each time)."""
        if mode != self._mode:
            self._mode = mode
            self.setLayoutMode(mode)

    def _put_back(self, *_change: object) -> None:
        """The change is made: laid out again now, in one pass, and the chat kept at the
        top put back there."""
        place, self._place = self._place, QPersistentModelIndex()
        if place.isValid():
            self.executeDelayedItemsLayout()
            self.scrollTo(place, QAbstractItemView.ScrollHint.PositionAtTop)

    def _new_list(self) -> None:
        """Another list (a search's finds, or all chats again): from its top, in batches."""
        self._lay_out(QListView.LayoutMode.Batched)
        self._place = QPersistentModelIndex()

    def follow_current(self) -> None:
        """The person's own change moved the current chat (a rename moves it to the top):
        the list shows it there, not the place scrolled to."""
        self._place = QPersistentModelIndex()
        if self.currentIndex().isValid():
            self.executeDelayedItemsLayout()
            self.scrollTo(self.currentIndex())

    def currentChanged(self, current: _Index, previous: _Index) -> None:
        """Qt scrolls to the current row (or will, as the list shows); one not yet laid out
        has no place to scroll to, so it is scrolled to when its batch is."""
        super().currentChanged(current, previous)
        laid_out = not current.isValid() or self.visualRect(current).isValid()
        self._reveal = QPersistentModelIndex() if laid_out else QPersistentModelIndex(current)

    def paintEvent(self, event: QPaintEvent) -> None:
        """Each part asked for, apart: a chat opened far from the one before asks for two
        rows, and Qt's list draws every row meeting the rectangle around them (a click 18
        rows down drew all 19, each a Python call of the delegate: 5.8–7.9 ms, now 1.1)."""
        region = event.region()
        if region.rectCount() < 2:
            super().paintEvent(event)
            return
        for part in region:  # type: ignore[attr-defined]  # iterable at run time; stubs omit it
            super().paintEvent(QPaintEvent(part))

    def timerEvent(self, event: QTimerEvent) -> None:
        """A batch of rows laid out (Qt's own timer): the current row, if it waited for it."""
        super().timerEvent(event)
        if self._reveal.isValid() and self.visualRect(self._reveal).isValid():
            self.scrollTo(self._reveal)
            self._reveal = QPersistentModelIndex()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """The Delete key asks to delete the current conversation; arrows browse."""
        from PySide6.QtGui import QKeySequence  # with the first key pressed (see menu_bar.py)

        if event.matches(QKeySequence.StandardKey.Delete) or event.key() == Qt.Key.Key_Delete:
            # Checked first: reading an invalid index's data gives None, which
            # PySide6 6.12 miscounts (see conversation_model.Role).
            if self.currentIndex().isValid():
                self.delete_requested.emit(self.currentIndex().data(ID_ROLE))
            return
        self.by_keyboard = True
        try:
            super().keyPressEvent(event)
        finally:
            self.by_keyboard = False

    def enter_from_search(self) -> None:
        """Take the keyboard from the search box, on the first result (opened, focus kept)."""
        self.by_keyboard = True
        try:
            self.setFocus(Qt.FocusReason.TabFocusReason)
            if self.model().rowCount() and not self.currentIndex().isValid():
                self.setCurrentIndex(self.model().index(0, 0))
        finally:
            self.by_keyboard = False
