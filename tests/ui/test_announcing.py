"""What the window announces to a screen reader unasked (app/ui/announcer.py), through a
real turn against the loopback Ollama: each notice as it arrives, each answer once when it
ends (never per streamed word), and problems outside a conversation."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.ui.announcer import ANSWER_CHARS, answer_words
from app.ui.session import Session
from routing.transcript import MessageStatus, NoticeKind
from tests.servers.ollama import FakeOllama, Reply
from tests.ui.helpers import answers, rows, send, wait_idle

Heard = list[tuple[str, bool]]  # what was announced, and whether it interrupts


def _listening(session: Session) -> Heard:
    heard: Heard = []
    session.window.announcer.announced.connect(
        lambda text, assertive: heard.append((text, assertive))
    )
    return heard


def _read(session: Session, item_id: int) -> str:
    """A row's words as a screen reader reads it (the model's AccessibleTextRole)."""
    model = session.window.conversation
    row = model.row_of(item_id)
    assert row is not None
    return str(model.index(row, 0).data(Qt.ItemDataRole.AccessibleTextRole))


def test_a_notice_is_announced_as_it_comes_and_an_answer_once_when_it_ends(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    full = "Streaming words arrive a few letters at a time, in one row."
    fake_ollama.enqueue(Reply(text=full, chunk_chars=3, delay=0.01))
    heard = _listening(session)
    streamed: list[str] = []
    session.controller.feed.text_added.connect(lambda _id, text: streamed.append(text))

    send(qtbot, session, "Hello there")
    qtbot.waitUntil(lambda: bool(answers(session)) and answers(session)[0]["status"] == "complete")
    wait_idle(qtbot, session)

    [routing] = [r for r in rows(session) if r["notice"] == NoticeKind.ROUTING]  # Auto's choice
    assert heard == [
        (_read(session, routing["id"]), False),
        (f"ollama:llama3.2:3b answered: {full}", False),
    ]
    assert heard[0][0].startswith("Routing notice, ")
    assert len(streamed) > 10  # many words streamed; the answer was announced once


def test_an_error_notice_interrupts(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    session.window.picker.set_current_ref("ollama:llama3.2:3b")  # no routing notice
    fake_ollama.enqueue(Reply(status=500, body={"error": "boom"}))
    heard = _listening(session)
    send(qtbot, session, "This will fail")
    qtbot.waitUntil(lambda: any(r["notice"] == NoticeKind.ERROR for r in rows(session)))
    wait_idle(qtbot, session)

    [error] = [r for r in rows(session) if r["notice"] == NoticeKind.ERROR]
    said = _read(session, error["id"])
    assert said.startswith("Error notice, ") and "Ollama failed while answering" in said
    assert heard == [(said, True)]


def test_a_stopped_answer_is_announced_once_as_stopped(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    session.window.picker.set_current_ref("ollama:llama3.2:3b")
    fake_ollama.enqueue(Reply(text="word " * 400, chunk_chars=5, delay=0.02))
    heard = _listening(session)
    send(qtbot, session, "Tell me a long story")
    qtbot.waitUntil(lambda: len(answers(session)) == 1 and len(answers(session)[0]["text"]) >= 10)
    session.controller.stop()
    qtbot.waitUntil(lambda: answers(session)[0]["status"] == MessageStatus.STOPPED)
    wait_idle(qtbot, session)

    [(said, assertive)] = heard
    assert said.startswith("ollama:llama3.2:3b's answer was stopped: word word")
    assert not assertive


def test_a_problem_outside_the_conversation_interrupts(session: Session) -> None:
    heard = _listening(session)
    session.controller.problem.emit("The key store is locked.")
    assert heard == [("The key store is locked.", True)]


def test_an_answer_is_told_short_and_without_its_markup() -> None:
    long = "**Yes.** " + "A `very` long answer goes on. " * 40
    said = answer_words("ollama:x", f"# Title\n{long}", MessageStatus.COMPLETE)
    assert said.startswith("ollama:x answered: Title Yes. A very long answer goes on.")
    assert said.endswith("…") and len(said) <= len("ollama:x answered: ") + ANSWER_CHARS + 1
    assert answer_words("ollama:x", "", MessageStatus.COMPLETE) == ""  # only called a tool
    stopped = answer_words("ollama:x", "", MessageStatus.STOPPED)
    assert stopped == "ollama:x's answer was stopped before any words."
