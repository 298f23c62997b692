"""PDFs in a request: the PDF itself for a model that reads PDFs, a text-first read for the rest.

An attached PDF is stored as it is (a `PdfPart`). Per request it becomes either
the PDF, for a model that takes PDFs and sees (within that API's limits), or
what Sightline read of it: a heading, the text of the first pages within a
budget, rendered pages when the text can't serve (a `PagesPart`), and a hint
naming the pages that remain. Reads are kept by hash, so the steps of a long
turn don't read the same PDF again.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field, replace

from cachetools import LRUCache

from routing.transcript import Message, PagesPart, Part, PdfPart, PicturePart, TextPart, ToolResult
from vision.pdf import PdfError, PdfFile, read_pdf

# Anthropic's PDF input: at most 100 pages and 32 MB in one request, all PDFs
# together; base64 makes a PDF 4/3 larger, and the rest of the request needs room.
NATIVE_MAX_PAGES = 100
NATIVE_MAX_BYTES = 20 * 1024 * 1024
_KEPT_READS = 16

log = logging.getLogger(__name__)


@dataclass
class PdfsForModel:
    """The messages with each PDF as this model gets it, and which went how."""

    messages: tuple[Message, ...]
    native: list[PdfFile] = field(default_factory=list)  # sent as PDFs
    too_large: list[PdfFile] = field(default_factory=list)  # read instead: over the limits


class _Reads:
    """The text-first reads of recent PDFs, by hash and name.

    Shared by the turn and the window's attach step (a worker thread), so a lock
    guards the dict; the read itself runs outside it.
    """

    def __init__(self, size: int = _KEPT_READS) -> None:
        self._size = size
        self._kept: LRUCache[tuple[str, str], tuple[Part, ...]] = LRUCache(maxsize=size)
        self._lock = threading.Lock()

    def parts(self, pdf: PdfFile) -> tuple[Part, ...]:
        key = (pdf.sha256, pdf.name)
        with self._lock:
            if key in self._kept:
                return self._kept[key]
        found = _read(pdf)
        with self._lock:
            self._kept[key] = found
        return found


_reads = _Reads()


def _read(pdf: PdfFile) -> tuple[Part, ...]:
    """What a model that doesn't take PDFs gets for one: the read, in parts."""
    try:
        read = read_pdf(pdf)
    except PdfError as exc:  # it opened when attached; a damaged store is still no crash
        return (_unread(pdf, str(exc)),)
    except Exception as exc:  # a PDF kept in a chat must never end its every later turn
        log.exception("reading %s failed", pdf.name)
        return (_unread(pdf, f"Sightline could not prepare it ({type(exc).__name__})."),)
    heading = TextPart(f"\n\n[Attached {pdf.name}: {read.heading}]\n")
    if read.candidate is None:
        return (TextPart(heading.text + read.text()),)
    parts: list[Part] = [
        heading,
        PagesPart.from_candidate(pdf.name, read.candidate, read.total_pages),
    ]
    if read.continuation:
        parts.append(TextPart("\n" + read.continuation))
    return tuple(parts)


def _unread(pdf: PdfFile, why: str) -> TextPart:
    return TextPart(f"\n\n[Attached {pdf.name}, which could not be read: {why}]")


def pdf_reading(pdf: PdfFile) -> tuple[Part, ...]:
    """What Sightline reads of a PDF, as a model that doesn't take PDFs gets it: its words,
    and rendered pages of a scan (kept for the request that follows)."""
    return _reads.parts(pdf)


def is_scan(pdf: PdfFile) -> bool:
    """Whether a model that doesn't take PDFs gets rendered pages of it (slow the first time:
    it reads the PDF, and keeps the read for the request that follows)."""
    return any(isinstance(part, PagesPart) for part in _reads.parts(pdf))


def pdfs_for_model(messages: tuple[Message, ...], *, reads_pdfs: bool) -> PdfsForModel:
    """Each attached PDF as the PDF (newest first, within the limits) or as its read."""
    out = PdfsForModel(messages)
    if not any(m.pdfs for m in messages):
        return out
    pages_left, bytes_left = NATIVE_MAX_PAGES, NATIVE_MAX_BYTES
    shaped: list[Message] = []
    for message in reversed(messages):
        if not message.pdfs:
            shaped.append(message)
            continue
        parts: list[Part] = []
        for part in message.parts:
            if not isinstance(part, PdfPart):
                parts.append(part)
                continue
            pdf, pages = part.pdf, part.pdf.pages  # None pages: unknown, so never sent whole
            if (
                reads_pdfs
                and pages is not None
                and pages <= pages_left
                and pdf.size_bytes <= bytes_left
            ):
                pages_left -= pages
                bytes_left -= pdf.size_bytes
                out.native.append(pdf)
                parts.append(part)
                continue
            if reads_pdfs:
                out.too_large.append(pdf)
            parts.extend(_reads.parts(pdf))
        shaped.append(replace(message, parts=tuple(parts)))
    out.messages = tuple(reversed(shaped))
    return out


def flatten_pages(messages: tuple[Message, ...]) -> tuple[Message, ...]:
    """Rendered pages as a wire sends them: the lead-in, then one picture per page."""

    def flat(parts: tuple[Part, ...]) -> tuple[Part, ...]:
        out: list[Part] = []
        for part in parts:
            if isinstance(part, PagesPart):
                out.append(TextPart(part.lead_in))
                out.extend(PicturePart(p) for p in part.pictures)
            elif isinstance(part, ToolResult) and any(isinstance(p, PagesPart) for p in part.parts):
                pieces = flat(part.parts)
                out.append(
                    replace(
                        part,
                        parts=tuple(p for p in pieces if isinstance(p, TextPart | PicturePart)),
                    )
                )
            else:
                out.append(part)
        return tuple(out)

    return tuple(
        replace(m, parts=flat(m.parts)) if any(_has_pages(p) for p in m.parts) else m
        for m in messages
    )


def _has_pages(part: Part) -> bool:
    if isinstance(part, PagesPart):
        return True
    return isinstance(part, ToolResult) and any(isinstance(p, PagesPart) for p in part.parts)
