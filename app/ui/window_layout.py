"""Where the main window's widgets sit: sidebar | (top bar, model status or welcome,
conversation, approval, bars, composer) | ledger; and what an empty chat shows.

The window makes its widgets and hands them here; the ledger sits beside the
conversation, under the top bar, so opening it narrows the conversation and never widens
the window past the top bar's width. In a small window the panels give way so the
conversation keeps `CHAT_MIN` pixels (`fit`): the sidebar narrows, then steps aside
(back as soon as there is room, or when the person looks for a chat), then the ledger
narrows to its least.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QSplitter, QVBoxLayout, QWidget

from app.presenters.first_run import is_first_run

if TYPE_CHECKING:
    from app.ui.ledger_panel import LedgerPanel
    from app.ui.main_window import MainWindow

_LEDGER_WIDTH = 340
CHAT_MIN = 440  # the conversation's column is never narrower while a panel can give way
SIDEBAR_MIN = 180


class WindowLayout:
    """The window's splitters and columns, and the ledger's width as the person left it."""

    def __init__(self, window: MainWindow) -> None:
        """Lay out the window's widgets (made already) in their places."""
        self._window = window
        self.ledger_width = _LEDGER_WIDTH  # the width the person last gave the ledger
        self.sidebar_aside = False  # the sidebar stepped aside for the conversation's room
        # The conversation's column: status or welcome, the conversation, approval, composer.
        body = QWidget(window)
        body.setAccessibleName("Conversation")
        column = QVBoxLayout(body)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        # The model status (or, the first time, the welcome) sits above the
        # conversation; in an empty chat it takes the middle of the pane (`arrange`).
        self.panel_area = QWidget(window)
        area = QVBoxLayout(self.panel_area)
        area.setContentsMargins(18, 8, 18, 8)
        area.addStretch(1)
        for panel in (window.panel, window.welcome):
            centred = QHBoxLayout()
            centred.addStretch(1)
            centred.addWidget(panel, 100)
            centred.addStretch(1)
            area.addLayout(centred)
        area.addStretch(1)
        column.addWidget(self.panel_area)
        column.addWidget(window.view, 1)
        # The card and the bars line up with the composer's box. The approval card's row
        # stays empty until a tool call first asks (app/ui/approving.py makes the card then).
        self.approval_row = QHBoxLayout()
        for bar in (None, window.message_undo, window.editing_bar):
            bar_row = self.approval_row if bar is None else QHBoxLayout()
            bar_row.setContentsMargins(16, 6, 16, 0)
            if bar is not None:
                bar_row.addWidget(bar)
            column.addLayout(bar_row)
        column.addWidget(window.composer)
        self._column = column

        self.chat_splitter = QSplitter(Qt.Orientation.Horizontal, window)
        self.chat_splitter.setAccessibleName("Conversation and ledger")
        self.chat_splitter.setChildrenCollapsible(False)
        self.chat_splitter.addWidget(body)
        self.chat_splitter.setStretchFactor(0, 1)
        self._ledger: LedgerPanel | None = None  # made the first time it is wanted

        chat = QWidget(window)
        chat.setAccessibleName("Chat")
        chat.setBackgroundRole(QPalette.ColorRole.Base)
        chat.setAutoFillBackground(True)
        chat_column = QVBoxLayout(chat)
        chat_column.setContentsMargins(0, 0, 0, 0)
        chat_column.setSpacing(0)
        chat_column.addWidget(window.top)
        chat_column.addWidget(self.chat_splitter, 1)

        splitter = QSplitter(Qt.Orientation.Horizontal, window)
        splitter.setAccessibleName("Sidebar and chat")
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(window.sidebar)
        splitter.addWidget(chat)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([250, 870])
        window.sidebar.setMinimumWidth(SIDEBAR_MIN)
        self.splitter = splitter
        window.setCentralWidget(splitter)
        self._body = body
        # The sidebar's width as the person left it (or restored): a small window narrows it
        # for as long as it is small, and a wider one gives it back.
        self.sidebar_width = 250
        # A handle dragged so far the conversation would be squeezed: the panel gives way.
        splitter.splitterMoved.connect(self._sidebar_moved)
        self.chat_splitter.splitterMoved.connect(self._ledger_moved)

    def arrange(self) -> None:
        """The model status or the welcome above the chat; an empty chat shows only that."""
        w = self._window
        c = w.controller
        no_models = not c.listing.models and not w.picker.agents()  # an agent answers too
        empty = w.conversation.rowCount() == 0
        # The first time (no config file, no chat yet) the empty chat says hello instead.
        first = empty and is_first_run(c.config.source is not None, c.chats.has_any())
        greeting = None
        if first:
            from app.presenters.welcome import welcome  # its words: a first run's alone

            greeting = welcome(c.listing)
        if greeting is not None:
            w.welcome.show_welcome(greeting)
        w.welcome.setVisible(greeting is not None)
        w.panel.setVisible(greeting is None and no_models)
        self.panel_area.setVisible(greeting is not None or no_models)
        # An empty chat with something to say shows only that, centred.
        centred = empty and (greeting is not None or no_models)
        w.view.setVisible(not centred)
        self._column.setStretchFactor(self.panel_area, 1 if centred else 0)

    def ledger(self) -> LedgerPanel:
        """The ledger beside the chat, hidden, made the first time it is wanted: a window
        may never open it, and it is not in the first frame."""
        if self._ledger is None:
            from app.ui.ledger_panel import LedgerPanel

            self._ledger = LedgerPanel(self._window)
            self._ledger.hide()
            self.chat_splitter.addWidget(self._ledger)
            self._ledger.close_requested.connect(lambda: self._window.show_ledger(False))
        return self._ledger

    @property
    def ledger_open(self) -> bool:
        """Whether the ledger shows (one never made doesn't)."""
        return self._ledger is not None and not self._ledger.isHidden()

    def show_ledger(self, shown: bool) -> None:
        """Show or hide the ledger beside the chat, at the width the person left it (the
        sidebar stepping aside if the conversation would be too narrow beside it)."""
        if shown or self._ledger is not None:
            self.ledger().setVisible(shown)
        self.fit()

    def show_sidebar(self) -> None:
        """Bring the sidebar back when the person looks for a chat: the ledger closes if
        that makes room, else the conversation narrows for as long as the window does."""
        w = self._window
        if not self.sidebar_aside:
            return
        if self.ledger_open:
            w.show_ledger(False)  # fits again, which brings the sidebar back if it can
        if self.sidebar_aside:
            self.sidebar_aside = False
            w.sidebar.show()
            self.fit(keep_sidebar=True)

    def fit(self, *, keep_sidebar: bool = False) -> None:
        """Share the window's width so the conversation keeps `CHAT_MIN` pixels: the
        sidebar narrows to its least, then steps aside; the ledger gives what is left
        down to its least. A sidebar that stepped aside comes back once there is room."""
        w = self._window
        total = self.splitter.width()
        if total <= 0:
            return
        handle = self.splitter.handleWidth()
        ledger = self._ledger if self.ledger_open else None
        ledger_least = 0 if ledger is None else ledger.minimumWidth()
        gap = self.chat_splitter.handleWidth()
        needed = CHAT_MIN + (0 if ledger is None else ledger_least + gap)
        room = total - handle - needed  # what the sidebar may have
        if room < SIDEBAR_MIN and not w.sidebar.isHidden() and not keep_sidebar:
            w.sidebar.hide()
            self.sidebar_aside = True
        elif room >= SIDEBAR_MIN and self.sidebar_aside:
            w.sidebar.show()
            self.sidebar_aside = False
        chat = total
        if not w.sidebar.isHidden():
            side = max(SIDEBAR_MIN, min(self.sidebar_width, room))
            chat = total - side - handle
            if self.splitter.sizes() != [side, chat]:
                self.splitter.setSizes([side, chat])
        if ledger is not None:
            width = max(ledger_least, min(self.ledger_width, chat - gap - CHAT_MIN))
            if self.chat_splitter.sizes() != [chat - gap - width, width]:
                self.chat_splitter.setSizes([chat - gap - width, width])

    def remember_sidebar(self) -> None:
        """The sidebar's width now is the person's (they dragged it); a width a window not
        laid out yet reports is not."""
        width = self.splitter.sizes()[0]
        if not self._window.sidebar.isHidden() and width >= SIDEBAR_MIN:
            self.sidebar_width = width

    def _sidebar_moved(self, *_args: object) -> None:
        """The person dragged the sidebar's edge: its width is theirs, within the room."""
        self.remember_sidebar()
        self.fit()

    def _ledger_moved(self, *_args: object) -> None:
        """The person dragged the ledger's edge: its width is theirs, within the room."""
        if self.ledger_open and self.chat_splitter.sizes()[1]:
            self.ledger_width = self.chat_splitter.sizes()[1]
        self.fit()

    def ledger_width_now(self) -> int:
        """The ledger's width to remember: as the person last left it (not as a small
        window narrowed it)."""
        return self.ledger_width
