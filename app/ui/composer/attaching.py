"""The composer's attachments: what the next message carries, read off the UI thread.

No widgets, like the controller that owns it: files the person offers are read
as chores on the qasync loop, a locked PDF's password is asked through
`password_requested`, and the composer is told what to show through
`attachments_changed`. What a card says about sight comes from the current model
listing, which the controller hands in as a callable.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from functools import cached_property
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

# asyncio is not imported here at all: reading runs as a chore the controller
# starts (after the window's first paint), and `Passwords` imports it when it asks.
# The presenters' modules load where first used, not as the controller makes this one
# (before the window's first paint).
if TYPE_CHECKING:
    from pathlib import Path

    from app.presenters.listing import ModelListing
    from app.presenters.pdf_notes import PdfNote
    from app.presenters.pending import Attachments, Offered, PendingAttachments, SightNote
    from app.presenters.unlocking import PasswordRequest, Passwords

Chore = Callable[[Coroutine[object, object, None]], None]


class Attaching(QObject):
    """The pictures and PDFs waiting in the composer, and the passwords they need."""

    attachments_changed = Signal(object)  # Attachments
    password_requested = Signal(object)  # PasswordRequest: a locked PDF waits for its password
    password_settled = Signal(object)  # PasswordRequest: answered, or dropped on closing

    def __init__(
        self, listing: Callable[[], ModelListing], chore: Chore, parent: QObject | None = None
    ) -> None:
        """Read offered files with `chore`; say what cards show from `listing()`."""
        super().__init__(parent)
        self._listing = listing
        self._chore = chore

    @cached_property
    def _pending(self) -> PendingAttachments:
        from app.presenters.pending import PendingAttachments

        return PendingAttachments()

    @cached_property
    def _passwords(self) -> Passwords:  # made by the first file read
        from app.presenters.unlocking import Passwords

        return Passwords(self.password_requested.emit, self.password_settled.emit)

    @property
    def attachments(self) -> Attachments:
        """The pictures and PDFs the next message carries, and what went wrong attaching others."""
        return self._pending.snapshot()

    def attach_files(self, paths: list[Path]) -> None:
        """Attach picture and PDF files (the Attach dialog); they are read off the UI thread."""
        from app.presenters.pending import Offered

        self.attach(Offered(paths=tuple(paths)))

    def attach(self, offered: Offered) -> None:
        """Attach what the person offered; bad files become problems, named, and aren't attached."""
        self._pending.set_problems(offered.problems)
        if offered.count:
            self._pending.reading += offered.count
            self._chore(self._read(offered))
        self._show_attachments()

    async def _read(self, offered: Offered) -> None:
        from app.presenters.pending import read_offered
        from app.presenters.unlocking import unlock_each

        locked = 0  # locked PDFs count as being read until their password is settled
        try:
            read = await read_offered(offered, self._pending.unnamed_label)
            locked = len(read.locked)
        finally:
            self._pending.reading -= offered.count - locked
        self._pending.add_problems(read.problems)
        self._pending.add(read.pictures, read.pdfs)
        self._show_attachments()
        await unlock_each(read.locked, self._passwords.ask, self._pending, self._show_attachments)

    def answer_password(self, request: PasswordRequest, password: str | None) -> None:
        """The person's password for a locked PDF (None: they cancelled)."""
        self._passwords.answer(request.serial, password)

    def remove_attachment(self, sha256: str) -> None:
        """Take one picture or PDF off the next message."""
        self._pending.remove(sha256)
        self._show_attachments()

    def dismiss_problems(self) -> None:
        """The person has read what went wrong attaching."""
        self._pending.set_problems(())
        self._show_attachments()

    def sight_of(self, model_ref: str) -> SightNote:
        """What attachment cards say when `model_ref` answers (from the model's info)."""
        from app.presenters.pending import sight_note
        from routing.endpoints import endpoint_name

        listing = self._listing()
        hosts = {p.id: endpoint_name(p.base_url) for p in listing.providers}
        return sight_note(
            model_ref,
            listing.models,
            check_sight=listing.check_sight,
            vision_model=listing.vision_model,
            hosts=hosts,
        )

    def pdf_notes(self, model_ref: str) -> dict[str, PdfNote]:
        """What each attached PDF's card says when `model_ref` answers, by SHA-256."""
        from app.presenters.pdf_notes import pdf_note

        listing = self._listing()
        return {a.sha256: pdf_note(model_ref, a, listing.models) for a in self._pending.pdfs}

    # -- for the turn --------------------------------------------------------------

    def take(self) -> Attachments:
        """Everything attached, for the message being sent; the composer is left empty."""
        attached = self._pending.take()
        self._show_attachments()
        return attached

    def give_back(self, attached: Attachments) -> None:
        """Put a failed turn's attachments back in the composer."""
        if attached.anything:
            self._pending.give_back(attached)
            self._show_attachments()

    def _show_attachments(self) -> None:
        self.attachments_changed.emit(self._pending.snapshot())
