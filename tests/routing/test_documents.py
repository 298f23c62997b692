"""Attached PDFs per model: the PDF itself where the model reads PDFs, else what was read."""

from __future__ import annotations

from dataclasses import replace

from routing.documents import NATIVE_MAX_PAGES, flatten_pages, is_scan, pdfs_for_model
from routing.transcript import (
    Message,
    PagesPart,
    PdfPart,
    PicturePart,
    TextPart,
    has_pictures,
    user_message,
)
from tests.pdfs import scanned_pdf, text_pdf
from vision.pdf import PdfFile, open_pdf


def memo() -> PdfFile:
    return open_pdf(text_pdf(["Meeting moved to Friday", "Bring the figures"]), name="memo.pdf")


def scan() -> PdfFile:
    return open_pdf(scanned_pdf(6), name="scan.pdf")


def test_a_model_that_reads_pdfs_gets_the_pdf() -> None:
    message = user_message("When?", pdfs=(memo(),))
    out = pdfs_for_model((message,), reads_pdfs=True)
    assert out.messages == (message,) and out.native == [memo()] and out.too_large == []


def test_any_other_model_gets_the_text_with_page_numbers() -> None:
    out = pdfs_for_model((user_message("When?", pdfs=(memo(),)),), reads_pdfs=False)
    [message] = out.messages
    assert message.pdfs == () and out.native == []
    assert message.text == (
        "When?\n\n[Attached memo.pdf: pages 1-2 of 2]\n"
        "--- page 1 ---\nMeeting moved to Friday\n\n--- page 2 ---\nBring the figures"
    )


def test_a_scan_becomes_its_first_pages_as_pictures_and_a_hint_for_the_rest() -> None:
    out = pdfs_for_model((user_message("What is it?", pdfs=(scan(),)),), reads_pdfs=False)
    [message] = out.messages
    [pages] = [p for p in message.parts if isinstance(p, PagesPart)]
    assert (pages.document, pages.first, pages.last, pages.total_pages) == ("scan.pdf", 1, 4, 6)
    assert has_pictures(message)
    assert "[Attached scan.pdf: pages 1-4 of 6]" in message.text
    assert 'pages 5-6 were not read. Read them with read_file and pages "5-6"' in message.text


def test_flattened_pages_are_the_lead_in_then_one_picture_per_page() -> None:
    out = pdfs_for_model((user_message("What is it?", pdfs=(scan(),)),), reads_pdfs=False)
    [flat] = flatten_pages(out.messages)
    assert not any(isinstance(p, PagesPart) for p in flat.parts)
    assert [p.picture.label for p in flat.parts if isinstance(p, PicturePart)] == [
        f"scan.pdf, page {n}" for n in range(1, 5)
    ]
    assert "No text could be extracted from pages 1-4 of scan.pdf" in flat.text
    assert "Pages 1-4 follow as pictures, each labelled with its page number" in flat.text


def test_pdfs_over_the_limits_are_read_instead_newest_first() -> None:
    older = replace(memo(), pages=NATIVE_MAX_PAGES - 1)  # as if 99 pages
    newer = replace(scan(), name="new.pdf")  # 6 pages: sent; then 99 more would not fit
    messages = (user_message("first", pdfs=(older,)), user_message("second", pdfs=(newer,)))
    out = pdfs_for_model(messages, reads_pdfs=True)
    assert [p.name for p in out.native] == ["new.pdf"]
    assert [p.name for p in out.too_large] == ["memo.pdf"]
    assert out.messages[0].pdfs == () and "[Attached memo.pdf" in out.messages[0].text
    assert out.messages[1].pdfs == (newer,)


def test_a_pdf_of_unknown_page_count_is_read_not_sent() -> None:
    unknown = replace(memo(), pages=None)
    out = pdfs_for_model((user_message("?", pdfs=(unknown,)),), reads_pdfs=True)
    assert out.native == [] and out.too_large == [unknown]


def test_a_pdf_that_cannot_be_read_any_more_is_a_line_not_a_crash() -> None:
    damaged = PdfFile(b"%PDF-1.7 garbage", "old.pdf", "0" * 64, 3)
    out = pdfs_for_model((Message("user", (TextPart("hi"), PdfPart(damaged))),), reads_pdfs=False)
    assert "[Attached old.pdf, which could not be read:" in out.messages[0].text


def test_messages_without_pdfs_are_left_alone() -> None:
    messages = (user_message("hello"),)
    assert pdfs_for_model(messages, reads_pdfs=False).messages is messages


def test_is_scan_reads_once_for_the_card_and_the_request_that_follows() -> None:
    fresh = open_pdf(scanned_pdf(2), name="fresh-scan.pdf")
    assert is_scan(fresh) and not is_scan(memo())
    first = pdfs_for_model((user_message("?", pdfs=(fresh,)),), reads_pdfs=False).messages
    again = pdfs_for_model((user_message("?", pdfs=(fresh,)),), reads_pdfs=False).messages
    [pages] = [p for p in first[0].parts if isinstance(p, PagesPart)]
    [same] = [p for p in again[0].parts if isinstance(p, PagesPart)]
    assert pages is same  # the kept read, not a second rendering
