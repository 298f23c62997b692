"""Files a person attaches: pictures as pictures, PDFs as their text (scans as page pictures)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vision.pdf import PdfError, PdfNeedsPassword, read_pdf
from vision.pictures import Picture, PictureError, open_picture


class AttachmentError(ValueError):
    """A file that can't be attached; the message names it and says why."""


@dataclass(frozen=True)
class Attachment:
    """What an attached file adds to the person's message: words, pictures, or both."""

    text: str = ""
    pictures: tuple[Picture, ...] = ()


def is_pdf(path: Path) -> bool:
    """Whether the file is a PDF (by its first bytes, not its name)."""
    try:
        with path.open("rb") as handle:
            return handle.read(5) == b"%PDF-"
    except OSError:
        return False


def load_attachment(path: Path, *, password: str | None = None) -> Attachment:
    """Read one attached file; raises AttachmentError (PdfNeedsPassword for a locked PDF)."""
    if is_pdf(path):
        try:
            read = read_pdf(path, password=password)
        except PdfNeedsPassword:
            raise  # the window asks for the password; `ask` says it needs one
        except PdfError as exc:
            raise AttachmentError(str(exc)) from None
        header = f"[Attached {path.name}: pages {read.first}-{read.last} of {read.total_pages}]"
        if read.candidate is not None:
            words = f"{header}\n{read.candidate.extraction_error}"
            if read.continuation:
                words += f"\n{read.continuation}"
            return Attachment(words, read.candidate.pictures)
        return Attachment(f"{header}\n{read.text()}")
    try:
        return Attachment(pictures=(open_picture(path),))
    except PictureError as exc:
        raise AttachmentError(str(exc)) from None


def combined(text: str, attachments: list[Attachment]) -> tuple[str, tuple[Picture, ...]]:
    """The person's words followed by the attachments' words, and all their pictures."""
    words = [text] + [a.text for a in attachments if a.text]
    pictures = tuple(p for a in attachments for p in a.pictures)
    return "\n\n".join(w for w in words if w), pictures
