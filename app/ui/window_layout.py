"""Where the main window's widgets sit: sidebar | (top bar, model status or welcome,
conversation, approval, bars, composer) | ledger; and what an empty chat shows.

The window makes its widgets and hands them here; the ledger sits beside the
conversation, under the top bar, so opening it narrows the conversation and never widens
the window past the top bar's width.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QSplitter, QVBoxLayout, QWidget

from app.presenters.welcome import is_first_run, welcome

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow

_LEDGER_WIDTH = 340


class WindowLayout:
    """The window's splitters and columns, and the ledger's width as the person left it."""

    def __init__(self, window: MainWindow) -> None:
        """Lay out the window's widgets (made already) in their places."""
        self._window = window
        self.ledger_width = _LEDGER_WIDTH  # the width the person last gave the ledger
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
        # The card and the bars line up with the composer's box.
        for bar in (window.approval, window.message_undo, window.editing_bar):
            bar_row = QHBoxLayout()
            bar_row.setContentsMargins(16, 6, 16, 0)
            bar_row.addWidget(bar)
            column.addLayout(bar_row)
        column.addWidget(window.composer)
        self._column = column

        self.chat_splitter = QSplitter(Qt.Orientation.Horizontal, window)
        self.chat_splitter.setAccessibleName("Conversation and ledger")
        self.chat_splitter.setChildrenCollapsible(False)
        self.chat_splitter.addWidget(body)
        self.chat_splitter.addWidget(window.ledger)
        self.chat_splitter.setStretchFactor(0, 1)
        window.ledger.hide()

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
        window.sidebar.setMinimumWidth(180)
        self.splitter = splitter
        window.setCentralWidget(splitter)

    def arrange(self) -> None:
        """The model status or the welcome above the chat; an empty chat shows only that."""
        w = self._window
        c = w.controller
        no_models = not c.listing.models and not w.picker.agents()  # an agent answers too
        empty = w.conversation.rowCount() == 0
        # The first time (no config file, no chat yet) the empty chat says hello instead.
        first = empty and is_first_run(c.config.source is not None, c.chats.has_any())
        greeting = welcome(c.listing) if first else None
        if greeting is not None:
            w.welcome.show_welcome(greeting)
        w.welcome.setVisible(greeting is not None)
        w.panel.setVisible(greeting is None and no_models)
        self.panel_area.setVisible(greeting is not None or no_models)
        # An empty chat with something to say shows only that, centred.
        centred = empty and (greeting is not None or no_models)
        w.view.setVisible(not centred)
        self._column.setStretchFactor(self.panel_area, 1 if centred else 0)

    def show_ledger(self, shown: bool) -> None:
        """Show or hide the ledger beside the chat, at the width the person left it."""
        ledger = self._window.ledger
        if shown:
            total = sum(self.chat_splitter.sizes())
            width = min(self.ledger_width, total // 2)
            ledger.show()
            self.chat_splitter.setSizes([total - width, width])
        else:
            self.ledger_width = self.chat_splitter.sizes()[1] or self.ledger_width
            ledger.hide()

    def ledger_width_now(self) -> int:
        """The ledger's width to remember: as shown, else as the person last left it."""
        if not self._window.ledger.isHidden():
            self.ledger_width = self.chat_splitter.sizes()[1]
        return self.ledger_width
