"""What a screen reader hears unasked, over the real AT-SPI bus (tests/ui/screen_reader/):
a turn started the way a person with a screen reader starts one (words typed into Message,
Send pressed), its routing notice and its answer heard as `object:announcement` events
(the answer once however many words streamed), and an error notice heard as one that
interrupts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.store import Store
from routing.transcript import Notice, NoticeKind
from tests.conftest import SightlineHome
from tests.servers.ollama import FakeOllama, Reply
from tests.ui.screen_reader.bus import missing, window_on_bus
from tests.ui.test_screen_reader import _named

LACKING = missing()
pytestmark = pytest.mark.skipif(bool(LACKING), reason=f"AT-SPI can't run here: {LACKING}")

ANSWER = "It is red, and wider than tall."
POLITE, ASSERTIVE = 1, 2  # an announcement's detail1 (AT-SPI's AtspiLive)


def _ready_to_send(tree: dict[str, Any]) -> bool:
    """The models are listed (the picker is enabled then: Auto can choose)."""
    picker = _named(tree, "combo box", "Auto — Sightline chooses")
    return picker is not None and picker["enabled"]


def test_a_notice_and_an_ended_answer_are_announced_over_the_bus(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    fake_ollama.enqueue(Reply(text=ANSWER, chunk_chars=3, delay=0.02))  # a dozen pieces
    with (
        window_on_bus(home.data, tmp_path / "config") as reader,
        reader.hearing("object:announcement", count=2) as heard,
    ):
        reader.until(_ready_to_send, seconds=40)
        reader.walk("type", "text", "Message", "What colour is it?")
        reader.walk("press", "push button", "Send")
        announced = heard()

    with Store.open(home.data) as store:
        [chat] = store.conversations.list()
        notices = [s.item for s in store.items(chat.id) if isinstance(s.item, Notice)]
    assert [n.kind for n in notices] == [NoticeKind.ROUTING]
    routed, answered = announced
    assert routed["type"] == answered["type"] == "object:announcement"
    assert routed["text"].startswith("Routing notice, ")
    assert routed["text"].endswith(notices[0].text)
    # The answer is said once, as it ends: had its words been announced as they streamed,
    # they would have come before it.
    assert answered["text"] == f"ollama:llama3.2:3b answered: {ANSWER}"
    assert routed["detail1"] == answered["detail1"] == POLITE
    # From the conversation, where the items are read.
    assert (answered["source_role"], answered["source_name"]) == ("list", "Conversation")


def test_an_error_notice_is_announced_to_interrupt(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    fake_ollama.enqueue(Reply(status=500, body={"error": "boom"}))
    with (
        window_on_bus(home.data, tmp_path / "config") as reader,
        reader.hearing("object:announcement", count=2) as heard,
    ):
        reader.until(_ready_to_send, seconds=40)
        reader.walk("type", "text", "Message", "What colour is it?")
        reader.walk("press", "push button", "Send")
        routed, failed = heard()
    assert routed["text"].startswith("Routing notice, ") and routed["detail1"] == POLITE
    assert failed["text"].startswith("Error notice, ") and failed["detail1"] == ASSERTIVE
    assert "Ollama failed while answering" in failed["text"]
