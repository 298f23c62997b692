"""PDFs text first: page ranges, budgets, continuation, and when pages become pictures."""

from __future__ import annotations

import pytest

from tests.pdfs import dense_page_text, encrypted_pdf, scanned_pdf, text_pdf
from vision.pdf import (
    MAX_RENDER_PAGES,
    PAGE_TOKEN_LIMIT,
    PdfError,
    PdfNeedsPassword,
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
