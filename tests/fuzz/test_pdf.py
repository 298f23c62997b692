"""PDF page ranges and damaged PDFs: a range or a read, or a PdfError saying why.

`parse_pages` takes whatever a person (or a model, through read_file) writes as
pages; `read_pdf` takes real small PDFs (text, and a scan) with bytes flipped, cut,
inserted or deleted.
"""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.fuzz.strategies import EXAMPLES, FEW, FUZZ, known_bugs
from tests.pdfs import text_pdf as sized_pdf
from tests.pictures import picture_bytes

pdf = pytest.importorskip("vision.pdf", reason="vision/pdf.py is not built yet")


def text_pdf(pages: list[str]) -> bytes:
    """A small, valid PDF with one line of Helvetica text per page."""
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "",  # the page tree, once the pages are numbered
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    kids = []
    for text in pages:
        stream = f"BT /F1 18 Tf 40 700 Td ({text}) Tj ET"
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
        objects.append(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Contents {len(objects)} 0 R /Resources << /Font << /F1 3 0 R >> >> >>"
        )
        kids.append(f"{len(objects)} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>"
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\n".encode()
    out += f"startxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


@cache
def real_pdfs() -> tuple[bytes, ...]:
    scan = picture_bytes("white", (60, 80), "PDF")  # no text: a scan
    return text_pdf(["Page one", "Page two", "Page three"]), scan


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A real PDF with a few bytes flipped, cut, inserted or deleted."""
    data = bytearray(draw(st.sampled_from(real_pdfs())))
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        if not data:  # cut to nothing already: nothing left to mutate
            break
        at = draw(st.integers(min_value=0, max_value=len(data) - 1))
        operation = draw(st.sampled_from(["flip", "cut", "insert", "delete"]))
        if operation == "flip":
            data[at] ^= 1 << draw(st.integers(min_value=0, max_value=7))
        elif operation == "cut":
            del data[max(at, 1) :]
        elif operation == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
        else:
            del data[at : at + draw(st.integers(min_value=1, max_value=64))]
    return bytes(data)


PAGES = st.none() | st.text(max_size=12) | st.sampled_from(["1", "2-", "1-3", "3-2", "0", "9"])


def test_the_real_pdfs_read() -> None:
    text, scan = real_pdfs()
    read = pdf.read_pdf(text, pages="2-")
    assert (read.total_pages, read.first, read.last) == (3, 2, 3)
    assert "Page two" in read.text() and "Page one" not in read.text()
    assert pdf.read_pdf(scan).candidate is not None  # no text: pages rendered instead


@known_bugs(
    "vision/pdf.py parse_pages: int() of a page number longer than 4300 digits raises "
    "ValueError, not PdfError"
)
@FUZZ
@given(PAGES | st.from_regex(r"\A\s*\d{1,6}\s*(-\s*\d{0,6}\s*)?\Z"))
@example("9" * 5000)
def test_any_page_range_is_a_range_or_a_pdf_error(spec: str | None) -> None:
    try:
        first, last = pdf.parse_pages(spec)
    except pdf.PdfError as error:
        assert str(error).strip()
        return
    assert first >= 1 and (last is None or last >= first)


@known_bugs(
    "vision/pdf.py read_pdf: a page pdfium can't load raises pypdfium2's PdfiumError ('Failed "
    "to load page.') from document[number - 1]; only opening the document is translated"
)
@FEW
@given(mutated(), PAGES)
@example(real_pdfs()[0].replace(b"/Kids [5 0 R", b"/Kids [99 0 R"), None)  # a missing page
def test_a_damaged_pdf_is_read_or_a_pdf_error(data: bytes, pages: str | None) -> None:
    try:
        read = pdf.read_pdf(data, pages=pages)
    except pdf.PdfError as error:
        assert str(error).strip()
        return
    assert read.first >= 1
    assert read.total_pages is None or read.first <= read.total_pages  # None: count unknown
    assert read.pages or read.candidate is not None or read.last < read.first


# -- pages of any size ---------------------------------------------------------------------

SIDES = st.floats(min_value=0.01, max_value=1e7, allow_nan=False) | st.sampled_from(
    [1.0, 72.0, 595.0, 842.0, 14_400.0, 200_000.0]
)
# pypdfium2 rounds each side of the bitmap up, so a page may have a pixel more a side.
SLACK = 2 * 4096 + 1


@FUZZ
@given(SIDES, SIDES)
@example(14_400.0, 14_400.0)
@example(200_000.0, 200_000.0)
@example(10.0, 200_000.0)
def test_any_page_size_renders_within_the_budget_or_is_refused(width: float, height: float) -> None:
    scale = pdf.render_scale(width, height)
    readable = pdf.MIN_RENDER_DPI / 72
    if scale is None:  # refused only when the budget can't be met at a readable scale
        fits = min(
            (pdf.MAX_RENDER_PIXELS / (width * height)) ** 0.5,
            pdf.MAX_RENDER_SIDE / max(width, height),
        )
        assert fits < readable
        return
    assert readable <= scale <= pdf.RENDER_DPI / 72
    assert width * height * scale * scale <= pdf.MAX_RENDER_PIXELS * (1 + 1e-9)
    assert max(width, height) * scale <= pdf.MAX_RENDER_SIDE * (1 + 1e-9)


@settings(max_examples=max(EXAMPLES // 15, 6), deadline=None)  # each renders a real page
@given(SIDES.filter(lambda side: side >= 1), SIDES.filter(lambda side: side >= 1))
@example(14_400.0, 14_400.0)
@example(1.0, 14_400.0)
def test_a_blank_page_of_any_size_is_rendered_within_the_budget_or_a_pdf_error(
    width: float, height: float
) -> None:
    try:
        data = sized_pdf([""], width=width, height=height)
        read = pdf.read_pdf(data, name="page.pdf")
    except pdf.PdfError as error:
        assert "Page 1 can't be shown as a picture either" in str(error)
        return
    assert read.candidate is not None
    [page] = read.candidate.pictures
    assert max(page.width, page.height) <= pdf.MAX_RENDER_SIDE + 1
    assert page.width * page.height <= pdf.MAX_RENDER_PIXELS + SLACK
