"""PDFs, text first: text per page with a token estimate, and page pictures only when needed.

A *vision candidate* (rendered pages for a seeing model to read) is made only
when extraction yields no text (a scan) or a single requested page is still too
large to send as text. Rendering starts at the requested first page, covers at
most four pages, and is clipped to the document's real page count.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from vision.pictures import Picture, sniff

if TYPE_CHECKING:
    from pypdfium2 import PdfDocument

PAGE_TOKEN_LIMIT = 12_000  # one page above this is read as a picture instead
TEXT_TOKEN_BUDGET = 12_000  # text of a multi-page read stops near this
MAX_RENDER_PAGES = 4
RENDER_DPI = 110  # legible text for a describer at ~1 MB per A4 page
MAX_PDF_BYTES = 200 * 1024 * 1024
_RANGE = re.compile(r"^\s*([0-9]{1,6})\s*(?:-\s*([0-9]{0,6})\s*)?$")
_PASSWORD_ERROR = 4  # PDFium's FPDF_ERR_PASSWORD


class PdfError(ValueError):
    """A PDF that can't be read; the message says why and what to do."""


class PdfNeedsPassword(PdfError):
    """The PDF is encrypted: ask the person for its password."""


def estimate_tokens(text: str) -> int:
    """A rough token count (about four characters a token for prose)."""
    return (len(text) + 3) // 4


def parse_pages(spec: str | None) -> tuple[int, int | None]:
    """A page range like "4-8", "4-", "4" or None (from page 1) as (first, last or None)."""
    if spec is None or not str(spec).strip():
        return 1, None
    match = _RANGE.match(str(spec))
    if match is None:
        raise PdfError(f'pages must look like "4", "4-8" or "4-" (got {spec!r}).')
    first = int(match.group(1))
    last_text = match.group(2)
    last = int(last_text) if last_text else (None if "-" in str(spec) else first)
    if first < 1 or (last is not None and last < first):
        raise PdfError(f"pages {spec!r} is not a range of pages counted from 1.")
    return first, last


@dataclass(frozen=True)
class PdfPage:
    """One page's text and its estimated tokens."""

    number: int
    text: str

    @property
    def tokens(self) -> int:
        """Estimated tokens of the page's text."""
        return estimate_tokens(self.text)


@dataclass(frozen=True)
class VisionCandidate:
    """Pages rendered for a model that sees, with why and what to restore if that fails."""

    reason: str
    pictures: tuple[Picture, ...]
    first: int
    last: int
    extraction_error: str


@dataclass
class PdfRead:
    """What a read of a PDF gives: text pages, or a vision candidate, and what remains."""

    name: str
    total_pages: int
    first: int
    last: int
    pages: list[PdfPage] = field(default_factory=list)
    candidate: VisionCandidate | None = None

    @property
    def continuation(self) -> str:
        """Which pages remain and how to ask for them (always about the original PDF)."""
        if self.last >= self.total_pages:
            return ""
        nxt, upto = self.last + 1, min(self.total_pages, self.last + 8)
        return (
            f"[{self.name} has {self.total_pages} pages; pages {nxt}-{self.total_pages} were "
            f'not read. Read them with read_file and pages "{nxt}-{upto}".]'
        )

    def text(self) -> str:
        """The text pages with their numbers, and the continuation hint."""
        body = "\n\n".join(f"--- page {p.number} ---\n{p.text.strip()}" for p in self.pages)
        return "\n\n".join(part for part in (body, self.continuation) if part)


def read_pdf(
    source: Path | bytes, *, pages: str | None = None, password: str | None = None
) -> PdfRead:
    """Read a PDF text first; render a vision candidate only when text can't serve."""
    import pypdfium2 as pdfium

    name = source.name if isinstance(source, Path) else "the PDF"
    data = _load(source, name)
    first, last = parse_pages(pages)
    try:
        document = pdfium.PdfDocument(data, password=password)
    except pdfium.PdfiumError as exc:
        if getattr(exc, "err_code", None) == _PASSWORD_ERROR:
            raise PdfNeedsPassword(
                f"{name} is protected by a password"
                + (" (that one is wrong)." if password else ".")
            ) from None
        raise PdfError(f"{name} is damaged or not a PDF ({exc}).") from None
    try:
        return _read(document, name, first, last)
    except pdfium.PdfiumError as exc:
        # A page the document lists but can't load (a damaged /Kids entry, say).
        raise PdfError(f"{name} is damaged: {exc}") from None
    finally:
        document.close()


def _read(document: PdfDocument, name: str, first: int, last: int | None) -> PdfRead:
    total = len(document)
    if first > total:
        raise PdfError(f"{name} has {total} pages; there is no page {first}.")
    end = total if last is None else min(last, total)
    read = PdfRead(name, total, first, first - 1)
    budget = TEXT_TOKEN_BUDGET
    for number in range(first, end + 1):
        text = document[number - 1].get_textpage().get_text_bounded()
        page = PdfPage(number, text)
        if page.tokens > PAGE_TOKEN_LIMIT and not read.pages:
            read.candidate = _render(
                document,
                name,
                number,
                number,
                "the page is too large to read as text",
                f"Page {number} of {name} is too large to send as text "
                f"(about {page.tokens:,} tokens).",
            )
            read.last = number
            return read
        if read.pages and budget - page.tokens < 0:
            break  # the continuation hint tells how to read on
        read.pages.append(page)
        read.last = number
        budget -= page.tokens
    if read.pages and not any(p.text.strip() for p in read.pages):
        shown = min(end, first + MAX_RENDER_PAGES - 1)
        read.pages = []
        read.candidate = _render(
            document,
            name,
            first,
            shown,
            "no text could be extracted (a scan?)",
            f"No text could be extracted from pages {first}-{shown} of {name}: it may be "
            "a scan, which only a model that sees can read.",
        )
        read.last = shown
    return read


def _load(source: Path | bytes, name: str) -> bytes:
    if isinstance(source, bytes):
        data = source
    else:
        try:
            if source.stat().st_size > MAX_PDF_BYTES:
                raise PdfError(f"{name} is larger than {MAX_PDF_BYTES // (1024 * 1024)} MB.")
            data = source.read_bytes()
        except OSError as exc:
            raise PdfError(f"{name} can't be read: {exc.strerror or exc}.") from None
    if not data:
        raise PdfError(f"{name} is empty.")
    return data


def _render(
    document: PdfDocument, name: str, first: int, last: int, reason: str, error: str
) -> VisionCandidate:
    pictures = []
    for number in range(first, last + 1):
        image = document[number - 1].render(scale=RENDER_DPI / 72).to_pil()
        buffer = io.BytesIO()
        image.convert("RGB").save(buffer, format="JPEG", quality=80)
        pictures.append(sniff(buffer.getvalue(), label=f"{name}, page {number}"))
    return VisionCandidate(reason, tuple(pictures), first, last, error)
