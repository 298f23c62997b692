"""The context meter under the composer: the picked model's window and how full the next
turn leaves it (app/presenters/context_meter.py), as the draft is typed.

How full the chat was is read from the store when a chat opens and when a turn ends:
the last answer that said so, found from the end (reading a long chat whole, on opening
or after every turn, was most of its cost); the draft's share is estimated on every
keystroke (a string knows its length).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.ui.theme import show_problem

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow


class ContextMeter:
    """Keeps the composer's meter label true to the picked model, the chat and the draft."""

    def __init__(self, window: MainWindow) -> None:
        """Follow `window`'s picker, chats, turns and draft."""
        self._window = window
        self._used: int | None = None  # how full the window was after the last answer
        c = window.controller
        c.conversation_loaded.connect(self.chat_opened)
        c.busy_changed.connect(self.chat_changed)
        c.attaching.attachments_changed.connect(self.show)
        window.picker.currentIndexChanged.connect(self.show)
        window.composer.edit.textChanged.connect(self.show)

    def chat_opened(self, *_args: object) -> None:
        """A chat opened: how full its last answer left the window."""
        self.chat_changed()

    def chat_changed(self, *_args: object) -> None:
        """A turn began or ended: read how full its last answer left the window."""
        c = self._window.controller
        self._used = None
        if c.current_id and not c.busy:
            self._used = c.store.context_used(c.current_id)
        self.show()

    def show(self, *_args: object) -> None:
        """Show the meter for the picked model, or hide it where no window is known."""
        w = self._window
        label = w.composer.meter
        ref = w.picker.current_ref()
        model = next((m for m in w.picker.models() if m.ref == ref), None)
        window = getattr(model, "context_length", None)
        if not window:  # Auto, an agent, or nothing listed yet: nothing to show
            label.hide()
            return
        # Here, not at the top: the estimate loads routing, which the first paint does without.
        from app.presenters.context_meter import reading
        from routing.token_estimate import PDF_TOKENS, Estimator, text_tokens

        attached = w.controller.attaching.attachments
        estimator = Estimator("")
        draft = text_tokens(w.composer.text())
        draft += sum(estimator.picture(p) for p in attached.pictures) + PDF_TOKENS * len(
            attached.pdfs
        )
        shown = reading(window, self._used, draft)
        label.setVisible(shown is not None)
        if shown is None:
            return
        label.setText(shown.text)
        label.setProperty("warn", shown.warn)
        show_problem(label, shown.warn)
