"""PDFs (vision/pdf.py): rendering a scan's pages, and the text of a long document.

A four-page scan (pictures of pages, no text layer) is read as a person's
attachment is: extraction finds no text, so the first four pages are rendered.
A 300-page text PDF is checked when attached (`open_pdf`), read as a model that
doesn't take PDFs gets it (the first pages within the text budget), and has all
of its text extracted, page by page.
"""

from __future__ import annotations

import importlib
import io
import random
from types import ModuleType

from PIL import Image, ImageDraw

from benchmarks.common import Row, median_seconds

PAGES = 4
DPI = 150
LONG_PAGES = 300
RENDER_GOAL_MS = 150


def scan(pages: int) -> bytes:
    """A PDF of `pages` scanned letter pages: lines of dark blocks on white, no text layer."""
    rng = random.Random(3)
    images = []
    for _ in range(pages):
        page = Image.new("RGB", (int(8.5 * DPI), 11 * DPI), "white")
        draw = ImageDraw.Draw(page)
        for line in range(40):
            x, y = 120, 150 + line * 36
            while x < page.width - 200:
                width = rng.randrange(20, 90)
                draw.rectangle([x, y, x + width, y + 14], fill=(40, 40, 40))
                x += width + 12
        images.append(page)
    buffer = io.BytesIO()
    images[0].save(buffer, format="PDF", save_all=True, append_images=images[1:], resolution=DPI)
    return buffer.getvalue()


def run() -> list[Row]:
    """Measure and return the rows (or say the PDF reader is not built yet)."""
    try:
        pdf = importlib.import_module("vision.pdf")
    except ImportError:
        return [Row("render a 4-page scanned PDF", float("nan"), "", "", "not built yet")]
    return [_render_row(pdf), *_long_rows(pdf)]


def _render_row(pdf: ModuleType) -> Row:
    data = scan(PAGES)
    read = pdf.read_pdf(data)
    candidate = read.candidate
    if candidate is None or len(candidate.pictures) != PAGES:
        raise RuntimeError(f"expected {PAGES} rendered pages, got {candidate!r}")
    seconds = median_seconds(lambda: pdf.read_pdf(data), runs=5)
    sizes = [p.size_bytes for p in candidate.pictures]
    first = candidate.pictures[0]
    return Row(
        f"render a {PAGES}-page scanned PDF (no text layer)",
        seconds * 1000,
        "ms",
        f"≤ {RENDER_GOAL_MS} ms",
        f"{seconds * 1000 / RENDER_GOAL_MS:.2f}× the goal; {len(data) // 1000} KB in → {PAGES} "
        f"pages of {first.width}×{first.height} at {pdf.RENDER_DPI} dpi, "
        f"{sum(sizes) // PAGES // 1000} KB each",
    )


def _long_rows(pdf: ModuleType) -> list[Row]:
    import pypdfium2 as pdfium

    from tests.pdfs import text_pdf

    words = "The committee reviewed the budget and agreed the plan for next year. "
    data = text_pdf([f"Page {n}\n" + "\n".join([words] * 40) for n in range(LONG_PAGES)])

    def all_text() -> int:
        document = pdfium.PdfDocument(data)
        try:
            return sum(len(page.get_textpage().get_text_bounded()) for page in document)
        finally:
            document.close()

    read = pdf.read_pdf(data)
    opened = median_seconds(lambda: pdf.open_pdf(data), runs=5)
    first_pages = median_seconds(lambda: pdf.read_pdf(data), runs=5)
    whole = median_seconds(all_text, runs=3)
    chars = all_text()
    return [
        Row(
            f"attach a {LONG_PAGES}-page text PDF (open_pdf: open, count, check)",
            opened * 1000,
            "ms",
            "",
            f"{len(data) // 1000} KB",
        ),
        Row(
            f"read it as a model gets it (pages {read.first}-{read.last} within the budget)",
            first_pages * 1000,
            "ms",
            "",
            f"{sum(p.tokens for p in read.pages):,} estimated tokens",
        ),
        Row(
            f"extract the text of all {LONG_PAGES} pages",
            whole * 1000,
            "ms",
            "report",
            f"{chars / 1e6:.2f} M characters, {whole * 1e6 / LONG_PAGES:.0f} µs a page",
        ),
    ]
