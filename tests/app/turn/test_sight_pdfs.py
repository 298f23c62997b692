"""Attached PDFs end to end over loopback: Claude gets the PDF, every other model its reading,
a scan's pages transcribed for a model that can't see, and each step told in the chat.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.store import Store
from app.turn.events import TurnEvent
from app.turn.runner import TurnRunner
from routing.catalogue import Catalogue
from routing.documents import NATIVE_MAX_PAGES
from routing.models import ProviderConfig
from routing.transcript import NoticeKind
from tests.app.turn.engine_helpers import run_turn
from tests.app.turn.test_sight import last_user, runner
from tests.events import ended, stored_notices
from tests.pdfs import scanned_pdf, text_pdf
from tests.servers.anthropic import DEFAULT_KEY, FakeAnthropic
from tests.servers.ollama import FakeOllama, Reply
from vision.pdf import PdfFile, open_pdf, read_pdf

CLAUDE = "claude:claude-sonnet-4-5-20250929"


def scan(pages: int = 6) -> PdfFile:
    return open_pdf(scanned_pdf(pages), name="scan.pdf")


async def run(turns: TurnRunner, cid: str, text: str, model: str, pdf: PdfFile) -> list[TurnEvent]:
    return await run_turn(turns, cid, text, model, pdfs=(pdf,))


@pytest.fixture
async def claude() -> AsyncIterator[tuple[FakeAnthropic, Catalogue]]:
    """The loopback Anthropic API as a cloud provider."""
    with FakeAnthropic() as server:
        made = Catalogue(
            [ProviderConfig("claude", "anthropic", server.base_url, DEFAULT_KEY, local=False)]
        )
        yield server, made
        await made.aclose()


def images_in(body: dict[str, Any]) -> int:
    return sum(len(m.get("images", [])) for m in body["messages"])


async def test_claude_gets_the_pdf_itself_and_the_chat_says_so(
    store: Store, claude: tuple[FakeAnthropic, Catalogue]
) -> None:
    server, catalogue = claude
    memo = open_pdf(text_pdf(["Meeting moved to Friday"]), name="memo.pdf")
    cid = store.conversations.create()
    events = await run(runner(store, catalogue), cid, "When is it?", CLAUDE, memo)
    assert ended(events).error is None
    [request] = server.message_requests()
    content = request.body["messages"][-1]["content"]
    assert content[0] == {
        "type": "document",
        "source": {
            "type": "base64",
            "media_type": "application/pdf",
            "data": base64.b64encode(memo.data).decode("ascii"),
        },
        "title": "memo.pdf",
    }
    assert content[1] == {"type": "text", "text": "When is it?"}  # no reading of it besides
    [told] = stored_notices(store, cid, NoticeKind.INFO)
    assert told.text == (
        f"memo.pdf (1 page) goes to {CLAUDE} at 127.0.0.1:{server.port} as a PDF: the model "
        "reads its text and looks at its pages itself."
    )
    assert "(I read memo.pdf)" in store.messages(cid)[-1].text


async def test_a_pdf_over_claudes_limit_goes_as_its_reading(
    store: Store, claude: tuple[FakeAnthropic, Catalogue]
) -> None:
    server, catalogue = claude
    long = open_pdf(
        text_pdf([f"section {n}" for n in range(NATIVE_MAX_PAGES + 1)]), name="long.pdf"
    )
    cid = store.conversations.create()
    await run(runner(store, catalogue), cid, "Summarise", CLAUDE, long)
    [request] = server.message_requests()
    sent = json.dumps(request.body)
    assert '"document"' not in sent
    assert "[Attached long.pdf: pages 1-101 of 101]" in sent and "section 100" in sent
    [told] = stored_notices(store, cid, NoticeKind.INFO)
    assert "long.pdf (101 pages) goes to" in told.text and "not as a PDF" in told.text


async def test_a_scan_is_transcribed_for_a_model_that_cant_see(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(
        *(Reply(text=f"Page {n}: item {n} approved.") for n in range(1, 5)),
        Reply(text="Items 1-4 were approved."),
    )
    cid = store.conversations.create()
    events = await run(runner(store, catalogue), cid, "What passed?", "ollama:gemma3:270m", scan())
    assert ended(events).error is None
    *looks, answered = fake_ollama.chat_requests()
    assert [b["model"] for b in looks] == ["qwen2.5vl:3b"] * 4
    assert all(images_in(b) == 1 for b in looks)
    assert answered["model"] == "gemma3:270m" and images_in(answered) == 0
    words = last_user(answered)["content"]
    for n in range(1, 5):
        assert f'[Transcription of "scan.pdf, page {n}" by ollama:qwen2.5vl:3b' in words
    assert 'pages 5-6 were not read. Read them with read_file and pages "5-6"' in words
    [disclosure] = stored_notices(store, cid, NoticeKind.DISCLOSURE)
    assert disclosure.text.startswith(
        f"ollama:qwen2.5vl:3b at 127.0.0.1:{fake_ollama.port} looked at 4 pictures "
        "(scan.pdf pages 1-4) and described them for ollama:gemma3:270m, which can't see."
    )
    assert disclosure.text.endswith("Pages 5-6 of scan.pdf were not read.")


async def test_when_nobody_can_read_the_scan_the_model_gets_the_extraction_error(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(
        *[Reply(status=500, body={"error": "model runner crashed"})] * 4,
        Reply(text="I could not read it."),
    )
    cid = store.conversations.create()
    await run(runner(store, catalogue), cid, "What passed?", "ollama:gemma3:270m", scan())
    answered = fake_ollama.chat_requests()[-1]
    words = last_user(answered)["content"]
    assert images_in(answered) == 0
    expected = read_pdf(scan()).candidate
    assert expected is not None and expected.extraction_error in words
    assert "Transcription" not in words and "crashed" not in words
    [disclosure] = stored_notices(store, cid, NoticeKind.DISCLOSURE)
    assert "none of them could be described" in disclosure.text
    assert "the model was told no text could be extracted" in disclosure.text


async def test_auto_picks_a_model_that_sees_for_a_scan(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    cid = store.conversations.create()
    events = await run(runner(store, catalogue), cid, "What is it?", "auto", scan(2))
    assert ended(events).error is None
    [answered] = fake_ollama.chat_requests()
    assert answered["model"] in ("llava:7b", "qwen2.5vl:3b") and images_in(answered) == 2
    words = last_user(answered)["content"]
    assert "Pages 1-2 follow as pictures, each labelled with its page number" in words
    [routing] = stored_notices(store, cid, NoticeKind.ROUTING)
    assert "sees" in routing.text


async def test_a_text_pdf_needs_no_model_that_sees(
    store: Store, catalogue: Catalogue, fake_ollama: FakeOllama
) -> None:
    memo = open_pdf(text_pdf(["Meeting moved to Friday"]), name="memo.pdf")
    cid = store.conversations.create()
    await run(runner(store, catalogue), cid, "When?", "ollama:gemma3:270m", memo)
    [answered] = fake_ollama.chat_requests()
    assert "--- page 1 ---\nMeeting moved to Friday" in last_user(answered)["content"]
    assert stored_notices(store, cid, NoticeKind.DISCLOSURE) == []
