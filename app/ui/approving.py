"""The window's side of a tool call waiting for the person: the approval card shown for
the open chat's call, and the keyboard handed to it and back.

The controller's `Approvals` keeps the questions (app/presenters/approvals.py); a call of
another chat is asked again when the person opens that chat.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QApplication

if TYPE_CHECKING:
    from app.presenters.approvals import ApprovalRequest
    from app.ui.composer.approval_card import ApprovalCard
    from app.ui.main_window import MainWindow


class Approving:
    """Shows the open chat's waiting call on the window's approval card."""

    def __init__(self, window: MainWindow) -> None:
        """Follow the controller's questions and answers for `window`'s card."""
        self._window = window
        self._card: ApprovalCard | None = None
        c = window.controller
        c.approval_requested.connect(self.show)
        c.approval_settled.connect(self._settled)

    @property
    def card(self) -> ApprovalCard:
        """The card, made in its row above the composer the first time a call asks: most
        sessions never ask, and the card (its code font, its badges) costs the first paint
        7 ms and 2 MiB."""
        if self._card is None:
            from app.ui.composer.approval_card import ApprovalCard

            window = self._window
            self._card = ApprovalCard(window)
            window.arrangement.approval_row.addWidget(self._card)
            self._card.answered.connect(window.controller.answer_approval)
        return self._card

    def show_waiting(self, conversation_id: str) -> None:
        """A chat was opened: its waiting call on the card, or an empty card."""
        waiting = self._window.controller.waiting_approval(conversation_id)
        if waiting is not None:
            self.show(waiting)
        elif self._card is not None:
            self._card.clear()

    def show(self, request: ApprovalRequest) -> None:
        """Show `request` if it is the open chat's."""
        window = self._window
        if request.conversation_id != window.controller.current_id:
            return  # asked again when the person opens that chat
        self.card.show_request(request)
        # The card takes the keyboard (so it is heard and reachable by Tab), unless
        # the person is writing a draft: their keys must not go astray.
        edit = window.composer.edit
        if not (edit.hasFocus() and edit.toPlainText().strip()):
            self.card.setFocus()

    def _settled(self, request: ApprovalRequest) -> None:
        window, card = self._window, self._card
        if card is None or card.request is None or card.request.serial != request.serial:
            return
        focused = QApplication.focusWidget()
        had_focus = focused is not None and (focused is card or card.isAncestorOf(focused))
        card.clear()
        waiting = window.controller.waiting_approval(window.controller.current_id)
        if waiting is not None:
            self.show(waiting)
        elif had_focus:
            window.composer.edit.setFocus()
