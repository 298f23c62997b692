"""The context window against the real llama.cpp server (llama-cpp-python, `--n_ctx 2048`,
the gemma3-270m model from PyPI): a long chat keeps going, and a 24-page PDF whose first
page holds the answer is sent within the window. That server has no /props and answers a
stream past its window with an empty 200, so the window is learned from its refusal of
the same request without streaming."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.store import Store
from app.turn.turn_input import TurnInput
from routing.chat_settings import ChatSettings
from routing.models import ProviderConfig
from tests.app.turn.test_context_fit import WORDS, _assembly, _report, _runner
from tests.events import collect, ended, stored_notices
from vision.pdf import open_pdf

MODEL = "mine:gemma3-270m"
SHORT = ChatSettings(max_tokens=16)  # a rambling small model must not fill the window itself

pytestmark = pytest.mark.real_engine


async def test_a_long_chat_keeps_going_on_the_real_server(
    tmp_path: Path, store: Store, llama_server: str
) -> None:
    provider = ProviderConfig("mine", "custom", llama_server, turn_seconds=600)
    runner = _runner(_assembly(tmp_path, provider, store))
    cid = store.conversations.create()
    store.conversations.set_settings(cid, SHORT)
    try:
        for number in range(10):
            asked = TurnInput(cid, f"Turn {number}: {WORDS * 2}", requested_model=MODEL)
            events = await collect(runner.run(asked))
            assert ended(events).error is None, (number, ended(events).error)
    finally:
        await runner.catalogue.aclose()
    assert store.learned.windows() == {MODEL: 2048}
    texts = [n.text for n in stored_notices(store, cid)]
    assert any("earlier messages were left out of what mine:gemma3-270m saw" in t for t in texts)
    assert not any("cut off" in t for t in texts)


async def test_a_24_page_pdf_goes_within_the_real_server_s_window(
    tmp_path: Path, store: Store, llama_server: str
) -> None:
    provider = ProviderConfig("mine", "custom", llama_server, turn_seconds=600)
    assembly = _assembly(tmp_path, provider, store)
    store.learned.remember_window(MODEL, 2048)  # as the long chat's turn learned it
    runner = _runner(assembly)
    cid = store.conversations.create()
    store.conversations.set_settings(cid, SHORT)
    report = open_pdf(_report(1), name="report.pdf")
    asked = TurnInput(cid, "What is the secret word?", requested_model=MODEL, pdfs=(report,))
    try:
        events = await collect(runner.run(asked))
    finally:
        await runner.catalogue.aclose()
    assert ended(events).error is None
    texts = [n.text for n in stored_notices(store, cid)]
    assert any(t.startswith("report.pdf doesn't fit whole") for t in texts), texts
    assert store.messages(cid)[-1].role == "assistant"
