"""PDFs, text first: text per page with a token estimate, and page pictures only when needed.

A *vision candidate* (rendered pages for a seeing model to read) is made only
when extraction yields no text (a scan) or a single requested page is still too
large to send as text. Rendering starts at the requested first page, covers at
most four pages, and is clipped to the document's real page count. A document
whose page tree lies (it lists pages that can't be loaded) has an unknown page
count: a read stops at the last page that loads and says only that more pages
*may* exist.
"""

from __future__ import annotations

import io
import math
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from vision.files import FileRefused, content_hash, read_capped, too_large
from vision.labels import shown_name
from vision.page_choice import chosen, spans
from vision.pictures import Picture

if TYPE_CHECKING:
    from pypdfium2 import PdfDocument
    from pypdfium2 import PdfPage as PdfiumPage

PAGE_TOKEN_LIMIT = 12_000  # one page above this is read as a picture instead
TEXT_TOKEN_BUDGET = 12_000  # text of a multi-page read stops near this
MAX_RENDER_PAGES = 4
RENDER_DPI = 110  # legible text for a describer at ~1 MB per A4 page
# A page's pixels, whatever its media box claims (a 14,400 pt page is 484 MP at
# 110 DPI, 2 GB of pixels): larger pages are rendered smaller. Pictures leave at
# most 2048 pixels a side, so this still has twice that to spare.
MAX_RENDER_PIXELS = 16_000_000
MAX_RENDER_SIDE = 4096
MIN_RENDER_DPI = 10  # below this a page is refused rather than rendered as a smudge
MAX_PDF_BYTES = 200_000_000
MAX_READ_PAGES = 1000  # pages one read extracts at most, so a million blank pages can't stall it
NEXT_READ_PAGES = 8  # how many pages a continuation hint suggests reading next
# PDFium is not thread-safe: two reads at once corrupt its heap ("double free"). The
# window reads attachments in worker threads and a step's tool calls run at once, so
# every use of it, from opening a document to closing it, holds this lock.
_PDFIUM = threading.RLock()
_RANGE = re.compile(r"^\s*([0-9]{1,6})\s*(?:-\s*([0-9]{0,6})\s*)?$")
_PASSWORD_ERROR = 4  # PDFium's FPDF_ERR_PASSWORD
_REMOVE_SECURITY = 3  # PDFium's FPDF_REMOVE_SECURITY: save a decrypted copy


class PdfError(ValueError):
    """A PDF that can't be read; the message says why and what to do."""


class PdfNeedsPassword(PdfError):
    """The PDF is encrypted: ask the person for its password."""


@dataclass(frozen=True)
class PdfFile:
    """A PDF a person attached, as kept: readable without a password, with its facts.

    An encrypted PDF is kept decrypted (the person gave the password once), so
    every later read, by Sightline or by a model that takes PDFs, needs none.
    """

    data: bytes = field(repr=False)
    name: str
    sha256: str
    pages: int | None  # None: the page tree lists pages that can't be loaded

    @property
    def size_bytes(self) -> int:
        """How many bytes the PDF takes."""
        return len(self.data)


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


def page_span(first: int, last: int) -> str:
    """Pages in words: "page 4" or "pages 4-6"."""
    return f"page {first}" if first == last else f"pages {first}-{last}"


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
    total_pages: int | None  # None: unknown (pages listed but not loadable)
    first: int
    last: int
    pages: list[PdfPage] = field(default_factory=list)
    candidate: VisionCandidate | None = None
    # Pages between first and last left out, the text not fitting whole: those that answer
    # the question were chosen (vision/page_choice.py).
    skipped: list[int] = field(default_factory=list)

    @property
    def continuation(self) -> str:
        """Which pages remain and how to ask for them (always about the original PDF)."""
        if self.skipped:
            sent = spans([p.number for p in self.pages])
            left = self.skipped + list(range(self.last + 1, (self.total_pages or self.last) + 1))
            first = left[0]
            upto = min(left[-1], first + NEXT_READ_PAGES - 1)
            return (
                f"[{self.name} has {self.total_pages or 'an unknown number of'} pages; it "
                f"does not fit whole, so pages {sent} were sent (the first, and those that "
                f"best answer the question); pages {spans(left)} were not. Read them with "
                f'read_file and pages "{first}-{upto}".]'
            )
        nxt = self.last + 1
        if self.total_pages is None:
            return (
                f"[{self.name}'s page count is unknown: more pages may exist after page "
                f'{self.last}. Try read_file with pages "{nxt}-{self.last + NEXT_READ_PAGES}".]'
            )
        if self.last >= self.total_pages:
            return ""
        upto = min(self.total_pages, self.last + NEXT_READ_PAGES)
        return (
            f"[{self.name} has {self.total_pages} pages; pages {nxt}-{self.total_pages} were "
            f'not read. Read them with read_file and pages "{nxt}-{upto}".]'
        )

    @property
    def heading(self) -> str:
        """Which pages of how many this read covers, e.g. "pages 1-4 of 30"."""
        of = f"of {self.total_pages}" if self.total_pages is not None else "(page count unknown)"
        if self.skipped:
            return f"pages {spans([p.number for p in self.pages])} {of}"
        return f"{page_span(self.first, self.last)} {of}"

    def text(self) -> str:
        """The text pages with their numbers, and the continuation hint."""
        body = "\n\n".join(f"--- page {p.number} ---\n{p.text.strip()}" for p in self.pages)
        return "\n\n".join(part for part in (body, self.continuation) if part)


def open_pdf(source: Path | bytes, *, name: str = "", password: str | None = None) -> PdfFile:
    """Check a PDF opens and keep it (decrypted when a password was needed and given)."""
    import pypdfium2 as pdfium

    name = shown_name(name or (source.name if isinstance(source, Path) else "the PDF"))
    data = _load(source, name)
    with _PDFIUM:
        document = _open(data, name, password)
        try:
            pages = _count_pages(document)
            if password is not None:
                out = io.BytesIO()
                document.save(out, flags=_REMOVE_SECURITY)
                data = out.getvalue()
        except pdfium.PdfiumError as exc:
            raise PdfError(f"{name} is damaged: {exc}") from None
        finally:
            document.close()
    return PdfFile(data, name, content_hash(data), pages)


def read_pdf(
    source: Path | bytes | PdfFile,
    *,
    pages: str | None = None,
    password: str | None = None,
    name: str = "",
    budget: int = TEXT_TOKEN_BUDGET,
    question: str = "",
) -> PdfRead:
    """Read a PDF text first; render a vision candidate only when text can't serve. Within
    `budget` tokens: the first pages, or, given a `question`, the first page and those that
    best answer it."""
    import pypdfium2 as pdfium

    if isinstance(source, PdfFile):
        name, data = name or source.name, source.data
    else:
        name = shown_name(name or (source.name if isinstance(source, Path) else "the PDF"))
        data = _load(source, name)
    first, last = parse_pages(pages)
    with _PDFIUM:
        document = _open(data, name, password)
        try:
            return _read(document, name, first, last, budget, question)
        except pdfium.PdfiumError as exc:
            raise PdfError(f"{name} is damaged: {exc}") from None
        except MemoryError:
            raise PdfError(f"{name} is too large to read with the memory there is.") from None
        finally:
            document.close()  # its pages and text pages too, while the lock is held


def _open(data: bytes, name: str, password: str | None) -> PdfDocument:
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(data, password=password)
    except pdfium.PdfiumError as exc:
        if getattr(exc, "err_code", None) == _PASSWORD_ERROR:
            raise PdfNeedsPassword(
                f"{name} is protected by a password"
                + (" (that one is wrong)." if password else ".")
            ) from None
        why = str(exc).rstrip(".")  # PDFium's words end with their own full stop
        raise PdfError(f"{name} is damaged or not a PDF: {why}.") from None


def _count_pages(document: PdfDocument) -> int | None:
    """The page count, or None when the last listed page can't be loaded (a lying tree)."""
    listed = len(document)
    if listed == 0:
        return 0
    return listed if _page(document, listed) is not None else None


def _page(document: PdfDocument, number: int) -> PdfiumPage | None:
    """Page `number` (from 1), or None when the document lists it but can't load it."""
    import pypdfium2 as pdfium

    try:
        return document[number - 1]
    except pdfium.PdfiumError:
        return None


def _read(
    document: PdfDocument, name: str, first: int, last: int | None, budget: int, question: str
) -> PdfRead:
    listed = len(document)
    total = _count_pages(document)
    if first > listed:
        raise PdfError(f"{name} has {listed} pages; there is no page {first}.")
    end = min(listed if last is None else last, listed, first + MAX_READ_PAGES - 1)
    read = PdfRead(name, total, first, first - 1)
    whole = budget  # what the pages read so far may take in all
    for number in range(first, end + 1):
        loaded = _page(document, number)
        if loaded is None:
            if number == first:
                raise PdfError(f"Page {number} of {name} can't be read: the file is damaged.")
            break  # the count can't be trusted past here; the hint says more *may* exist
        page = PdfPage(number, loaded.get_textpage().get_text_bounded())
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
            read.last = read.candidate.last
            return read
        if read.pages and budget - page.tokens < 0 and not question:
            break  # the continuation hint tells how to read on
        read.pages.append(page)
        read.last = number
        budget -= page.tokens
    if question and budget < 0:  # it doesn't fit whole: the pages that answer the question
        sent = chosen(read.pages, lambda p: p.text, lambda p: p.tokens, whole, question)
        numbers = {p.number for p in sent}
        read.skipped = [p.number for p in read.pages if p.number not in numbers]
        read.pages = sent
    if read.pages and not any(p.text.strip() for p in read.pages):
        shown = min(read.last, first + MAX_RENDER_PAGES - 1)
        read.pages = []
        read.candidate = _render(
            document,
            name,
            first,
            shown,
            "no text could be extracted (a scan?)",
            f"No text could be extracted from {page_span(first, shown)} of {name}: it may "
            "be a scan, which only a model that sees can read.",
        )
        read.last = read.candidate.last
    return read


def _load(source: Path | bytes, name: str) -> bytes:
    if isinstance(source, bytes):
        data = source
    else:
        try:
            data = read_capped(source, MAX_PDF_BYTES, what="PDF")
        except FileRefused as exc:
            raise PdfError(str(exc)) from None
    if not data:
        raise PdfError(f"{name} is empty.")
    if len(data) > MAX_PDF_BYTES:
        raise PdfError(too_large(name, len(data), MAX_PDF_BYTES, "PDF"))
    return data


def _render(
    document: PdfDocument, name: str, first: int, last: int, reason: str, error: str
) -> VisionCandidate:
    """Pages `first`-`last` as pictures, stopping before a page that can't be rendered.

    When even the first can't, the read fails with the extraction error and why.
    """
    pictures: list[Picture] = []
    for number in range(first, last + 1):
        picture = _rendered(document, name, number)
        if isinstance(picture, str):
            if not pictures:
                raise PdfError(f"{error} {picture}")
            error = f"{error} {picture}"
            break
        pictures.append(picture)
    return VisionCandidate(reason, tuple(pictures), first, first + len(pictures) - 1, error)


def render_scale(width: float, height: float) -> float | None:
    """The scale a page of this size in points renders at (1 = 72 DPI); None: too large."""
    if not (width > 0 and height > 0):  # also NaN
        return None
    scale = min(
        RENDER_DPI / 72,
        math.sqrt(MAX_RENDER_PIXELS / (width * height)),
        MAX_RENDER_SIDE / max(width, height),
    )
    return scale if scale >= MIN_RENDER_DPI / 72 else None


def _rendered(document: PdfDocument, name: str, number: int) -> Picture | str:
    """Page `number` as a JPEG picture within the pixel budget, or why it can't be one."""
    import pypdfium2 as pdfium

    try:
        page = document[number - 1]
        width, height = page.get_size()
        scale = render_scale(width, height)
        if scale is None:
            return (
                f"Page {number} can't be shown as a picture either: at {width:,.0f}×"
                f"{height:,.0f} points it is too large to render at a readable size."
            )
        image = page.render(scale=scale, rev_byteorder=True).to_pil()
        if image.mode != "RGB":
            image = image.convert("RGB")
        buffer = io.BytesIO()
        image.save(buffer, format="JPEG", quality=80)
    except (pdfium.PdfiumError, MemoryError, OSError, ValueError) as exc:
        return f"Page {number} could not be rendered as a picture ({exc or type(exc).__name__})."
    data = buffer.getvalue()
    label = f"{name}, page {number}"
    sha256 = content_hash(data)
    return Picture(data, "image/jpeg", image.width, image.height, sha256, label)
