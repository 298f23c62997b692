"""Files a person attaches: a picture as a picture, a PDF as the PDF itself.

A PDF is checked when it is attached (it opens, its password is right) and kept
whole; what each model gets of it is decided per request (routing/documents.py).
Only regular files are read, each within its kind's cap (vision/files.py), so a
device, a pipe, a folder or a file of gigabytes is one clear line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vision.files import FileRefused, read_head
from vision.pdf import PdfError, PdfFile, PdfNeedsPassword, open_pdf
from vision.pictures import Picture, PictureError, open_picture


class AttachmentError(ValueError):
    """A file that can't be attached; the message names it and says why."""


@dataclass(frozen=True)
class Attachment:
    """What an attached file adds to the person's message: a picture or a PDF."""

    pictures: tuple[Picture, ...] = ()
    pdfs: tuple[PdfFile, ...] = ()


def _head(path: Path) -> bytes:
    """The file's first five bytes; FileRefused (never a wait) for a pipe, device or folder."""
    return read_head(path, 5, what="picture or PDF")[0]


def load_attachment(path: Path, *, password: str | None = None) -> Attachment:
    """Read one attached file; raises AttachmentError (PdfNeedsPassword for a locked PDF)."""
    try:
        head = _head(path)
    except FileRefused as exc:
        raise AttachmentError(str(exc)) from None
    if head == b"%PDF-":  # by its first bytes, not its name
        try:
            return Attachment(pdfs=(open_pdf(path, password=password),))
        except PdfNeedsPassword:
            raise  # the window asks for the password; `ask` says it needs one
        except PdfError as exc:
            raise AttachmentError(str(exc)) from None
    try:
        return Attachment(pictures=(open_picture(path),))
    except PictureError as exc:
        raise AttachmentError(str(exc)) from None


def combined(attachments: list[Attachment]) -> tuple[tuple[Picture, ...], tuple[PdfFile, ...]]:
    """All the attachments' pictures, and all their PDFs, in order."""
    pictures = tuple(p for a in attachments for p in a.pictures)
    pdfs = tuple(p for a in attachments for p in a.pdfs)
    return pictures, pdfs
