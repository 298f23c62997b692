"""PDFs: rendering the pages of a scan for a model that sees (vision/pdf.py).

A four-page scan (pictures of pages, no text layer) is read as a person's
attachment is: extraction finds no text, so the first four pages are rendered.
"""

from __future__ import annotations

import importlib
import io
import random

from PIL import Image, ImageDraw

from benchmarks.common import Row, median_seconds

PAGES = 4
DPI = 150


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
    data = scan(PAGES)
    read = pdf.read_pdf(data)
    candidate = read.candidate
    if candidate is None or len(candidate.pictures) != PAGES:
        raise RuntimeError(f"expected {PAGES} rendered pages, got {candidate!r}")
    seconds = median_seconds(lambda: pdf.read_pdf(data), runs=5)
    sizes = [p.size_bytes for p in candidate.pictures]
    first = candidate.pictures[0]
    return [
        Row(
            f"render a {PAGES}-page scanned PDF (no text layer)",
            seconds * 1000,
            "ms",
            "",
            f"{len(data) // 1000} KB in → {PAGES} pages of {first.width}×{first.height} at "
            f"{pdf.RENDER_DPI} dpi, {sum(sizes) // PAGES // 1000} KB each",
        )
    ]
