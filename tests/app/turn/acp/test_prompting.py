"""The prompt an agent gets (app/turn/acp/prompting.py): PDFs as embedded resources."""

from __future__ import annotations

from pathlib import Path

from app.store import Store
from tests.app.turn.acp.helpers import EngineFor, fake
from tests.app.turn.engine_helpers import ended, first_turn
from tests.pdfs import text_pdf
from tests.servers.acp_agent import read_log
from vision.pdf import PdfFile, open_pdf


def pdf(tmp_path: Path) -> PdfFile:
    path = tmp_path / "notes.pdf"
    path.write_bytes(text_pdf(["The lighthouse keeper counts 42 gulls."]))
    return open_pdf(path)


async def test_a_pdf_is_an_embedded_text_resource_for_an_agent_that_takes_them(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    engine = engine_for(fake(tmp_path, "embeds"))
    _chat, events = await first_turn(engine, "sum up", "fake", pdfs=(pdf(tmp_path),))
    assert ended(events).error is None
    asked = next(e for e in read_log(tmp_path) if "resources" in e)
    [[uri, mime, text]] = asked["resources"]
    assert uri == "sightline:attachment/notes.pdf" and mime == "text/plain"
    assert "42 gulls" in text
    prompt = next(e["prompt"] for e in read_log(tmp_path) if "prompt" in e)
    assert prompt == "sum up"  # the words of the PDF are in the resource, not the text


async def test_a_pdf_is_read_into_the_words_for_an_agent_without_embedded_context(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    engine = engine_for(fake(tmp_path))
    _chat, events = await first_turn(engine, "sum up", "fake", pdfs=(pdf(tmp_path),))
    assert ended(events).error is None
    prompt = next(e["prompt"] for e in read_log(tmp_path) if "prompt" in e)
    assert prompt.startswith("sum up") and "42 gulls" in prompt
    assert not any("resources" in e for e in read_log(tmp_path))
