"""Locked PDFs: the window asks for the password, and asks again while it is wrong.

Qt-free, like `approvals`: `Attaching` asks through `Passwords` (one future
per question), the window answers from its dialog. A password goes from the
answer straight to the worker thread that opens the PDF, and is kept nowhere:
not in the question, not in a log, not in the store (the PDF is kept decrypted).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.attachments import AttachmentError
from app.presenters.pending import AttachedPdf, PendingAttachments, read_file
from app.presenters.questions import Questions
from vision.pdf import PdfNeedsPassword
from vision.pictures import Picture

if TYPE_CHECKING:  # asyncio itself loads after the window's first paint
    import asyncio

Ask = Callable[[str, bool], Awaitable[str | None]]  # (file name, last one wrong) -> password


@dataclass(frozen=True)
class PasswordRequest:
    """One question: the password of this PDF, please (again, when the last was wrong)."""

    serial: int
    name: str  # the file's name
    wrong: bool  # the password given last time was wrong


def needs_password(name: str) -> str:
    """The problem line of a locked PDF the person didn't unlock."""
    return f"{name} was not attached: it needs its password."


class Passwords(Questions[PasswordRequest, str | None]):
    """Questions for passwords, asked one at a time (one dialog, never a stack of them)."""

    def __init__(
        self, asked: Callable[[PasswordRequest], None], settled: Callable[[PasswordRequest], None]
    ) -> None:
        """Call `asked` when a question opens and `settled` once it is answered or dropped."""
        super().__init__(asked, settled)
        self._one_at_a_time: asyncio.Lock | None = None  # made on the first question

    async def ask(self, name: str, wrong: bool) -> str | None:
        """Wait for the person's password for `name` (None: they cancelled)."""
        import asyncio  # here, not at the top: the window paints before asyncio loads

        if self._one_at_a_time is None:
            self._one_at_a_time = asyncio.Lock()
        async with self._one_at_a_time:
            return await self.put(PasswordRequest(self.next_serial(), name, wrong))


async def unlock(path: Path, ask: Ask) -> AttachedPdf | str:
    """Ask for a locked PDF's password until it opens or the person gives up.

    The PDF, opened (and kept decrypted), or the problem to show in words.
    """
    import asyncio  # here, not at the top: the window paints before asyncio loads

    wrong = False
    while True:
        password = await ask(path.name, wrong)
        if password is None:
            return needs_password(path.name)
        try:
            # A closure, not arguments: an executor's debug log prints a call's arguments.
            found = await asyncio.to_thread(_reader(path, password))
        except PdfNeedsPassword:
            wrong = True
            continue
        except AttachmentError as exc:  # it changed since, or is damaged past its lock
            return str(exc)
        if isinstance(found, AttachedPdf):
            return found
        return f"{path.name} was not attached: it is no longer a PDF."


def _reader(path: Path, password: str) -> Callable[[], Picture | AttachedPdf]:
    def read() -> Picture | AttachedPdf:
        return read_file(path, password)

    return read


async def unlock_each(
    paths: list[Path], ask: Ask, pending: PendingAttachments, changed: Callable[[], None]
) -> None:
    """Unlock locked PDFs one by one: each is attached, or its problem shown; `changed` after each.

    Each was counted in `pending.reading` by the caller and stays counted until
    settled, so a message can't leave without a PDF whose password is being typed.
    """
    pending.locked.extend(path.name for path in paths)
    changed()  # the strip says which PDF waits for its password
    for path in paths:
        try:
            found = await unlock(path, ask)
        finally:
            pending.reading -= 1
            pending.locked.remove(path.name)
        if isinstance(found, str):
            pending.add_problems((found,))
        else:
            pending.add(pdfs=(found,))
        changed()
