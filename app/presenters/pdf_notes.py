"""What a PDF's card says: its pages and size, and what the chosen model gets of it.

Qt-free, like `pending`: `Attaching` decides, cards only show. Whether a PDF
is a scan was learned when it was attached (`AttachedPdf.scan`), so the note is
cheap to say again whenever the person picks another model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from app.presenters.pending import AttachedPdf, byte_words
from vision.pdf import PdfFile

if TYPE_CHECKING:  # the first paint needn't import routing's models
    from routing.models import ModelInfo


def pages_words(pdf: PdfFile) -> str:
    """A PDF's length and size for a person: "12 pages · 1.2 MB"."""
    if pdf.pages is None:
        pages = "page count unknown"
    else:
        pages = f"{pdf.pages} page{'s' * (pdf.pages != 1)}"
    return f"{pages} · {byte_words(pdf.size_bytes)}"


class PdfWay(StrEnum):
    """How the chosen model gets an attached PDF."""

    PDF = "pdf"  # the PDF itself: the model reads PDFs
    TEXT = "text"  # Sightline's read of its text
    PAGES = "pages"  # its pages as pictures, for a model that sees


@dataclass(frozen=True)
class PdfNote:
    """A PDF card's note: which way, its few words, and its tooltip."""

    way: PdfWay
    words: str
    tip: str


SENT_AS_PDF = "Sent as a PDF"
SENT_AS_TEXT = "Sent as its text"
PAGES_LOOKED_AT = "Pages read by a model that sees"


def pdf_note(ref: str, attached: AttachedPdf, models: Sequence[ModelInfo]) -> PdfNote:
    """What a PDF's card says when `ref` ("auto" or "provider:model") answers.

    Mirrors the turn (`app/seeing.py`): a model whose provider reads PDFs and
    that sees gets the PDF itself, within that API's limits; any other model
    gets Sightline's read: the text, or for a scan the pages, which a model
    that sees looks at.
    """
    from routing.documents import NATIVE_MAX_BYTES, NATIVE_MAX_PAGES

    pdf, name = attached.pdf, attached.pdf.name
    model = None if ref == "auto" else next((m for m in models if m.ref == ref), None)
    too_large = ""
    if model is not None and model.reads_pdfs:
        fits = (
            pdf.pages is not None
            and pdf.pages <= NATIVE_MAX_PAGES
            and pdf.size_bytes <= NATIVE_MAX_BYTES
        )
        if fits:
            return PdfNote(
                PdfWay.PDF, SENT_AS_PDF, f"{model.name} reads PDFs: it gets {name} as it is."
            )
        too_large = (
            f"{name} is beyond what {model.name} takes in one PDF "
            f"({NATIVE_MAX_PAGES} pages, {NATIVE_MAX_BYTES // (1024 * 1024)} MB), so "
        )
    if attached.scan:
        if model is None and ref == "auto":
            who = "Auto picks a model that sees to read them."
        elif model is not None and model.gets_pictures:
            who = f"{model.name} sees them."
        else:
            who = "A model that sees reads them, and the chosen model gets its words."
        return PdfNote(
            PdfWay.PAGES,
            PAGES_LOOKED_AT,
            f"{too_large}No text could be read from {name} (a scan?): its first pages "
            f"go as pictures. {who}",
        )
    return PdfNote(
        PdfWay.TEXT,
        SENT_AS_TEXT,
        f"{too_large}Sightline reads {name}'s text and sends that, a budget of pages at "
        "a time; the model is told which pages remain and can ask for them.",
    )
