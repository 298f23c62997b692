"""PDFs text first: page ranges, budgets, continuation, and when pages become pictures."""

from __future__ import annotations

import hashlib
import math
import threading
from pathlib import Path

import pytest

import vision.pdf as pdf_module
from tests.pdfs import dense_page_text, encrypted_pdf, scanned_pdf, text_pdf
from vision.pdf import (
    MAX_PDF_BYTES,
    MAX_READ_PAGES,
    MAX_RENDER_PAGES,
    MAX_RENDER_PIXELS,
    MAX_RENDER_SIDE,
    PAGE_TOKEN_LIMIT,
    PdfError,
    PdfNeedsPassword,
    open_pdf,
    parse_pages,
    read_pdf,
)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [(None, (1, None)), ("", (1, None)), ("4", (4, 4)), ("4-8", (4, 8)), ("4-", (4, None)),
     (" 2 - 3 ", (2, 3))],
)  # fmt: skip
def test_page_ranges(spec: str | None, expected: tuple[int, int | None]) -> None:
    assert parse_pages(spec) == expected


@pytest.mark.parametrize("spec", ["0", "5-2", "a-b", "1,3", "-4", "1-2-3"])
def test_bad_page_ranges_say_what_they_should_look_like(spec: str) -> None:
    with pytest.raises(PdfError):
        parse_pages(spec)


def test_text_pages_with_their_numbers_and_token_estimates() -> None:
    read = read_pdf(text_pdf(["alpha beta", "gamma"]))
    assert [(p.number, p.text) for p in read.pages] == [(1, "alpha beta"), (2, "gamma")]
    assert read.pages[0].tokens == 3 and read.candidate is None and read.continuation == ""


def test_a_large_document_stops_within_its_budget_and_says_how_to_go_on() -> None:
    page = dense_page_text(2_800)
    read = read_pdf(text_pdf([page] * 30, font_size=3))
    assert read.first == 1 and read.last == 4  # 4 × ~2.8K tokens fit 12K; 5 would not
    assert read.continuation == (
        "[the PDF has 30 pages; pages 5-30 were not read. Read them with read_file and "
        'pages "5-12".]'
    )


def test_a_scan_becomes_a_vision_candidate_from_the_requested_page() -> None:
    read = read_pdf(scanned_pdf(2))
    assert read.pages == [] and read.candidate is not None
    assert read.candidate.reason == "no text could be extracted (a scan?)"
    assert [p.label for p in read.candidate.pictures] == ["the PDF, page 1", "the PDF, page 2"]
    assert all(p.mime == "image/jpeg" for p in read.candidate.pictures)


def test_six_page_scan_read_as_4_to_8_renders_4_to_6() -> None:
    read = read_pdf(scanned_pdf(6), pages="4-8")
    assert read.candidate is not None
    assert (read.candidate.first, read.candidate.last) == (4, 6)
    assert read.continuation == ""  # nothing after page 6 exists: none is invented


def test_at_most_four_pages_are_rendered_per_read() -> None:
    read = read_pdf(scanned_pdf(9), pages="2-")
    assert read.candidate is not None
    assert (read.candidate.first, read.candidate.last) == (2, 1 + MAX_RENDER_PAGES)
    assert 'pages "6-9"' in read.continuation


def test_a_single_page_over_the_limit_becomes_a_candidate() -> None:
    read = read_pdf(text_pdf([dense_page_text(PAGE_TOKEN_LIMIT + 1000)], font_size=2))
    assert read.candidate is not None and "too large" in read.candidate.reason
    assert len(read.candidate.pictures) == 1
    assert "about" in read.candidate.extraction_error


def test_encrypted_needs_its_password() -> None:
    data = encrypted_pdf("s3cret", "the plan")
    with pytest.raises(PdfNeedsPassword, match="protected by a password"):
        read_pdf(data)
    with pytest.raises(PdfNeedsPassword, match="wrong"):
        read_pdf(data, password="guess")
    assert read_pdf(data, password="s3cret").pages[0].text == "the plan"


@pytest.mark.parametrize("data", [b"", b"%PDF-1.7 broken", b"\x89PNG\r\n\x1a\n not a pdf"])
def test_broken_pdfs_are_clear_errors(data: bytes) -> None:
    with pytest.raises(PdfError):
        read_pdf(data)


def test_a_page_past_the_end() -> None:
    with pytest.raises(PdfError, match="has 2 pages; there is no page 5"):
        read_pdf(text_pdf(["a", "b"]), pages="5")


def lying_pdf(real: int, claimed: int, *, scanned: bool = False) -> bytes:
    """A PDF whose page tree claims more pages than it has (as a damaged file can)."""
    data = scanned_pdf(real) if scanned else text_pdf([f"page {n}" for n in range(1, real + 1)])
    claim = b"/Count %d" % real
    assert claim in data
    return data.replace(claim, b"/Count %d" % claimed, 1)


def test_an_unknown_page_count_says_only_that_more_pages_may_exist() -> None:
    read = read_pdf(lying_pdf(3, 10), pages="2-8")
    assert (read.first, read.last, read.total_pages) == (2, 3, None)
    assert read.heading == "pages 2-3 (page count unknown)"
    assert "more pages may exist after page 3" in read.continuation
    assert "has 10 pages" not in read.text()


def test_a_scan_of_unknown_length_renders_only_pages_that_exist() -> None:
    read = read_pdf(lying_pdf(2, 9, scanned=True))
    assert read.candidate is not None and read.total_pages is None
    assert (read.candidate.first, read.candidate.last) == (1, 2)
    assert "may exist" in read.continuation


def test_a_first_page_that_cannot_be_loaded_is_a_clear_error() -> None:
    with pytest.raises(PdfError, match="Page 5 of the PDF can't be read: the file is damaged"):
        read_pdf(lying_pdf(3, 10), pages="5")


def test_open_pdf_keeps_the_file_and_its_facts() -> None:
    data = text_pdf(["a", "b", "c"])
    pdf = open_pdf(data, name="abc.pdf")
    assert (pdf.name, pdf.pages, pdf.data, pdf.size_bytes) == ("abc.pdf", 3, data, len(data))
    assert pdf.sha256 == hashlib.sha256(data).hexdigest()
    assert open_pdf(lying_pdf(3, 10)).pages is None


def test_an_encrypted_pdf_is_kept_decrypted_once_its_password_is_given() -> None:
    data = encrypted_pdf("s3cret", "the plan")
    with pytest.raises(PdfNeedsPassword):
        open_pdf(data)
    with pytest.raises(PdfNeedsPassword, match="wrong"):
        open_pdf(data, password="guess")
    kept = open_pdf(data, name="plan.pdf", password="s3cret")
    assert kept.data != data and kept.pages == 1
    assert read_pdf(kept).pages[0].text == "the plan"  # no password needed any more


def test_a_pdf_too_large_to_keep_is_refused_before_it_is_read(tmp_path: Path) -> None:
    huge = tmp_path / "huge.pdf"
    with huge.open("wb") as handle:  # sparse: no real 200 MB written
        handle.write(b"%PDF-1.7\n")
        handle.truncate(MAX_PDF_BYTES + 1)
    with pytest.raises(PdfError, match=r"huge\.pdf is too large \(over 200 MB\)"):
        open_pdf(huge)


# -- pages of any size, within a pixel budget --------------------------------------------


def test_a_page_of_14400_points_is_rendered_smaller_within_the_budget() -> None:
    # At 110 DPI this page would be 22,000×22,000 pixels: 484 MP, 2 GB as a bitmap.
    read = read_pdf(text_pdf([""], width=14_400, height=14_400), name="poster.pdf")
    assert read.candidate is not None
    [page] = read.candidate.pictures
    assert page.width * page.height <= MAX_RENDER_PIXELS
    assert max(page.width, page.height) <= MAX_RENDER_SIDE
    assert (page.width, page.height) == (4000, 4000)
    assert page.mime == "image/jpeg" and page.sha256 == hashlib.sha256(page.data).hexdigest()


def test_a_long_strip_is_bounded_by_its_longest_side() -> None:
    read = read_pdf(text_pdf([""], width=300, height=14_400), name="receipt.pdf")
    assert read.candidate is not None
    [page] = read.candidate.pictures
    assert page.height == MAX_RENDER_SIDE and page.width == math.ceil(
        300 * MAX_RENDER_SIDE / 14_400
    )


def test_an_ordinary_page_still_renders_at_full_resolution() -> None:
    read = read_pdf(text_pdf([""]), name="a4.pdf")
    assert read.candidate is not None
    [page] = read.candidate.pictures
    assert (page.width, page.height) == (910, 1287)  # A4 at 110 DPI


@pytest.mark.parametrize("size", [(200_000, 200_000), (10, 200_000)])
def test_a_page_that_cant_be_rendered_readably_is_a_pdf_error_saying_so(
    size: tuple[int, int],
) -> None:
    with pytest.raises(PdfError) as refused:
        read_pdf(text_pdf([""], width=size[0], height=size[1]), name="report.pdf")
    words = str(refused.value)
    assert words.startswith("No text could be extracted from page 1 of report.pdf")
    assert "Page 1 can't be shown as a picture either" in words


def test_rendering_stops_before_the_first_page_it_cant_render() -> None:
    sizes = [(595.0, 842.0), (595.0, 842.0), (200_000.0, 200_000.0), (595.0, 842.0)]
    read = read_pdf(text_pdf([""] * 4, sizes=sizes), name="mixed.pdf")
    assert read.candidate is not None
    assert (read.candidate.first, read.candidate.last, read.last) == (1, 2, 2)
    assert len(read.candidate.pictures) == 2
    assert "Page 3 can't be shown as a picture either" in read.candidate.extraction_error
    assert 'pages 3-4 were not read. Read them with read_file and pages "3-4"' in (
        read.continuation
    )


def test_a_page_too_dense_for_text_and_too_large_to_render_is_one_error() -> None:
    data = text_pdf([dense_page_text(PAGE_TOKEN_LIMIT + 2000)], width=200_000, height=200_000)
    with pytest.raises(PdfError, match=r"too large to send as text .* can't be shown as a picture"):
        read_pdf(data, name="dense.pdf")


def test_a_read_extracts_at_most_max_read_pages() -> None:
    read = read_pdf(text_pdf(["x"] * (MAX_READ_PAGES + 5)))
    assert read.last == MAX_READ_PAGES and read.total_pages == MAX_READ_PAGES + 5
    assert f"pages {MAX_READ_PAGES + 1}-{MAX_READ_PAGES + 5} were not read" in read.continuation


def test_pdfium_is_used_by_one_thread_at_a_time() -> None:
    # PDFium is not thread-safe: two reads at once crashed the process (a double free)
    # when a step's read_file calls or the window's attach threads met. Each use holds
    # the module's lock, so a read waits while another holds it.
    data = text_pdf(["one"])
    finished = threading.Event()

    def read() -> None:
        read_pdf(data)
        finished.set()

    with pdf_module._PDFIUM:
        thread = threading.Thread(target=read)
        thread.start()
        assert not finished.wait(0.3)
    assert finished.wait(10)
    thread.join()
