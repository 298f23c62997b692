"""Rendered PDF pages for a model that can't see: transcribed per page, or the error restored.

A seeing model on the loopback Ollama transcribes each page; success gives
framed, page-numbered words and no image data, while failure, empty output or
a timeout drop the pages and give the model the original extraction error.
Cancelling the turn cancels the transcription.
"""

from __future__ import annotations

import asyncio
import base64
import json

import pytest

from routing.describing.describer import Describer
from routing.describing.framing import END_OF_TRANSCRIPTION, TurnBudget
from routing.describing.looker import WireLooker
from routing.describing.request import in_words, without_pictures
from routing.transcript import (
    Message,
    PagesPart,
    TextPart,
    ToolCall,
    ToolResult,
    has_pictures,
    user_message,
)
from tests.pdfs import scanned_pdf
from tests.servers.ollama import FakeOllama, Reply
from vision.pdf import read_pdf


def scan_pages(pages: str = "4-8", total: int = 6) -> PagesPart:
    """Pages 4-6 of a 6-page scan, rendered (what read_file gives for pages "4-8")."""
    read = read_pdf(scanned_pdf(total), pages=pages, name="minutes.pdf")
    assert read.candidate is not None
    return PagesPart.from_candidate("minutes.pdf", read.candidate, read.total_pages)


def read_step(pages: PagesPart) -> tuple[Message, ...]:
    """The person asks; the model reads the scan with read_file; its result holds the pages."""
    call = ToolCall("call_1", "read_file", {"path": "minutes.pdf", "pages": "4-8"})
    result = ToolResult(call.id, call.name, (pages, TextPart("[continuation]")))
    return (
        user_message("What was decided?"),
        Message("assistant", (call,)),
        Message("tool", (result,)),
    )


def no_image_data(messages: tuple[Message, ...], pages: PagesPart) -> None:
    assert not any(has_pictures(m) for m in messages)
    dumped = json.dumps(
        [m.text for m in messages] + [r.text for m in messages for r in m.tool_results]
    )
    for picture in pages.pictures:
        assert base64.b64encode(picture.data).decode()[:40] not in dumped


async def words_of(
    pages: PagesPart, looker: WireLooker | None, describer: Describer | None = None
) -> tuple[str, list[PagesPart]]:
    messages = read_step(pages)
    result = await in_words(
        messages,
        turn_from=0,
        describer=describer or Describer(),
        looker=looker,
        budget=TurnBudget(),
    )
    no_image_data(result.messages, pages)
    [tool_result] = result.messages[-1].tool_results
    return tool_result.text, result.pages


async def test_each_page_is_transcribed_and_labelled_with_its_number(
    looker: WireLooker, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(*(Reply(text=f"Page {n}: the board met.") for n in (4, 5, 6)))
    pages = scan_pages()
    text, asked = await words_of(pages, looker)
    for number in (4, 5, 6):
        assert f'[Transcription of "minutes.pdf, page {number}" by ollama:qwen2.5vl:3b' in text
    assert text.count(END_OF_TRANSCRIPTION) == 3
    assert "follow as pictures" not in text  # the lead-in is for a model that sees
    assert asked == [pages]
    # The looker was asked to transcribe, naming the original page.
    prompts = [json.dumps(r["messages"]) for r in fake_ollama.chat_requests()]
    assert all("Transcribe this document page" in p for p in prompts)
    assert {n for n in (4, 5, 6) if any(f"Page {n} of the PDF" in p for p in prompts)} == {4, 5, 6}


@pytest.mark.parametrize(
    "reply",
    [
        Reply(status=500, body={"error": "out of memory"}),  # failure
        Reply(text="   "),  # empty output
    ],
    ids=["failure", "empty"],
)
async def test_pages_nobody_could_read_give_back_the_extraction_error(
    looker: WireLooker, fake_ollama: FakeOllama, reply: Reply
) -> None:
    fake_ollama.enqueue(reply, reply, reply)
    pages = scan_pages()
    text, asked = await words_of(pages, looker)
    assert pages.extraction_error in text
    assert "Transcription" not in text and "out of memory" not in text
    assert asked == [pages]  # the attempt is still disclosed to the person


async def test_a_timeout_gives_back_the_extraction_error(
    looker: WireLooker, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(*[Reply(text="late", delay=2.0)] * 3)
    pages = scan_pages()
    text, _ = await words_of(pages, looker, Describer(timeout=0.3))
    assert text.startswith("[continuation]\n" + pages.extraction_error)


async def test_a_page_that_failed_among_read_ones_is_named(
    looker: WireLooker, fake_ollama: FakeOllama
) -> None:
    pages = scan_pages("1-2", total=2)
    # Page 1 read first (pages are looked at concurrently, so the replies can't be
    # ordered by page within one call); then page 2's look fails.
    describer = Describer()
    fake_ollama.enqueue(Reply(text="Page 1: agenda."))
    await describer.describe(pages.pictures[0], looker, "page 1")
    fake_ollama.enqueue(Reply(status=500, body={"error": "boom"}))
    text, _ = await words_of(pages, looker, describer)
    assert 'Transcription of "minutes.pdf, page 1"' in text
    assert pages.extraction_error + " (Page 2 could not be transcribed either.)" in text


async def test_without_a_looker_the_model_gets_the_extraction_error(
    fake_ollama: FakeOllama,
) -> None:
    pages = scan_pages()
    text, asked = await words_of(pages, None)
    assert pages.extraction_error in text and asked == []
    assert fake_ollama.chat_requests() == []


async def test_cancelling_the_turn_cancels_the_transcription(
    looker: WireLooker, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(*[Reply(text="slow", delay=5.0)] * 3)
    task = asyncio.ensure_future(words_of(scan_pages(), looker))
    for _ in range(200):  # until the looker has been asked
        if fake_ollama.chat_requests():
            break
        await asyncio.sleep(0.01)
    assert fake_ollama.chat_requests()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_the_last_guard_turns_pages_into_the_extraction_error() -> None:
    pages = scan_pages()
    messages = (user_message("see"), Message("user", (pages,)))
    guarded = without_pictures(read_step(pages) + messages)
    no_image_data(guarded, pages)
    assert guarded[-1].text == "\n" + pages.extraction_error
