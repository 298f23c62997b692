"""PDFs in a request: the PDF itself for a model that reads PDFs, a text-first read for the rest.

An attached PDF is stored as it is (a `PdfPart`). Per request it becomes either
the PDF, for a model that takes PDFs and sees (within that API's limits), or
what Sightline read of it: a heading, the text of the first pages within a
budget, rendered pages when the text can't serve (a `PagesPart`), and a hint
naming the pages that remain. Reads are kept by hash, so the steps of a long
turn don't read the same PDF again. The PDF reader loads with the first PDF: a turn of
words needs none of it.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from cachetools import LRUCache

from routing.context_window import answer_room
from routing.token_estimate import CHARS_PER_TOKEN, Estimator
from routing.transcript import (
    Message,
    PagesPart,
    Part,
    PdfPart,
    PicturePart,
    TextPart,
    ToolResult,
    turn_start,
)

# Anthropic's PDF input: at most 100 pages and 32 MB in one request, all PDFs
# together; base64 makes a PDF 4/3 larger, and the rest of the request needs room.
NATIVE_MAX_PAGES = 100
NATIVE_MAX_BYTES = 20 * 1024 * 1024
_KEPT_READS = 16
MIN_TEXT_BUDGET = 200  # the least a PDF's budget is, however full the window

if TYPE_CHECKING:
    from vision.pdf import PdfFile

log = logging.getLogger(__name__)


@dataclass
class PdfsForModel:
    """The messages with each PDF as this model gets it, and which went how."""

    messages: tuple[Message, ...]
    native: list[PdfFile] = field(default_factory=list)  # sent as PDFs
    too_large: list[PdfFile] = field(default_factory=list)  # read instead: over the limits
    # Read in part, not fitting the window whole: each with the pages sent ("pages 1 and 7
    # of 24").
    partial: list[tuple[PdfFile, str]] = field(default_factory=list)


class _Reads:
    """The text-first reads of recent PDFs, by hash and name.

    Shared by the turn and the window's attach step (a worker thread), so a lock
    guards the dict; the read itself runs outside it.
    """

    def __init__(self, size: int = _KEPT_READS) -> None:
        self._size = size
        self._kept: LRUCache[tuple[str, str, int, str], tuple[tuple[Part, ...], str]] = LRUCache(
            maxsize=size
        )
        self._lock = threading.Lock()

    def parts(
        self, pdf: PdfFile, budget: int | None = None, question: str = ""
    ) -> tuple[Part, ...]:
        """The read in parts (within the reader's own budget when none is given)."""
        from vision.pdf import TEXT_TOKEN_BUDGET

        return self.read(pdf, TEXT_TOKEN_BUDGET if budget is None else budget, question)[0]

    def read(self, pdf: PdfFile, budget: int, question: str) -> tuple[tuple[Part, ...], str]:
        """The read in parts, and which pages went where it doesn't fit whole ("")."""
        key = (pdf.sha256, pdf.name, budget, question)
        with self._lock:
            if key in self._kept:
                return self._kept[key]
        found = _read(pdf, budget, question)
        with self._lock:
            self._kept[key] = found
        return found


_reads = _Reads()


def _read(pdf: PdfFile, budget: int, question: str) -> tuple[tuple[Part, ...], str]:
    """What a model that doesn't take PDFs gets for one: the read, in parts, and which pages
    went where not all did."""
    from vision.pdf import PdfError, read_pdf

    try:
        read = read_pdf(pdf, budget=budget, question=question)
    except PdfError as exc:  # it opened when attached; a damaged store is still no crash
        return (_unread(pdf, str(exc)),), ""
    except Exception as exc:  # a PDF kept in a chat must never end its every later turn
        log.exception("reading %s failed", pdf.name)
        return (_unread(pdf, f"Sightline could not prepare it ({type(exc).__name__})."),), ""
    heading = TextPart(f"\n\n[Attached {pdf.name}: {read.heading}]\n")
    if read.candidate is None:
        return (TextPart(heading.text + read.text()),), read.heading if read.skipped else ""
    parts: list[Part] = [
        heading,
        PagesPart.from_candidate(pdf.name, read.candidate, read.total_pages),
    ]
    if read.continuation:
        parts.append(TextPart("\n" + read.continuation))
    return tuple(parts), ""


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


def pdfs_for_model(
    messages: tuple[Message, ...], *, reads_pdfs: bool, window: int | None = None
) -> PdfsForModel:
    """Each attached PDF as the PDF (newest first, within the limits) or as its read: within
    what a model of `window` tokens has left, the pages that best answer the question."""
    out = PdfsForModel(messages)
    if not any(m.pdfs for m in messages):
        return out
    budget, question = _text_budget(messages, window), _question(messages)
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
            read, sent = _reads.read(pdf, budget, question)
            if sent:
                out.partial.append((pdf, sent))
            parts.extend(read)
        shaped.append(replace(message, parts=tuple(parts)))
    out.messages = tuple(reversed(shaped))
    return out


def _question(messages: tuple[Message, ...]) -> str:
    """The person's latest words: what the pages sent should answer."""
    return messages[turn_start(messages)].text if messages else ""


def _text_budget(messages: tuple[Message, ...], window: int | None) -> int:
    """Each PDF's share of what the window has left once the answer's room and the rest of
    the messages are counted, in the PDF reader's tokens; Sightline's fixed budget when the
    window is larger (or unknown here)."""
    from vision.pdf import TEXT_TOKEN_BUDGET

    if window is None:
        return TEXT_TOKEN_BUDGET
    reads = sum(len(m.pdfs) for m in messages)
    rest = Estimator("").messages(
        replace(m, parts=tuple(p for p in m.parts if not isinstance(p, PdfPart))) for m in messages
    )
    left = (window - answer_room(window, None) - rest) // max(reads, 1)
    # The reader counts four characters a token, the estimate fewer: in its units.
    return max(MIN_TEXT_BUDGET, min(TEXT_TOKEN_BUDGET, int(left * CHARS_PER_TOKEN / 4)))


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
