"""The context meter under the composer: the picked model's window and how full the next
turn leaves it, from the last answer's count and the draft; none for Auto."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.presenters.context_meter import reading
from app.ui.session import Session
from routing.context_window import memory_bytes, ollama_window
from routing.transcript import Notice, NoticeKind
from tests.ui.helpers import pick, send, wait_idle

BLIND = "ollama:llama3.2:3b"


def test_the_meter_follows_the_picked_model_the_draft_and_the_last_answer(
    session: Session, qtbot: QtBot
) -> None:
    meter = session.window.composer.meter
    assert not meter.isVisibleTo(session.window)  # Auto: no one window to show
    pick(session, BLIND)
    window = ollama_window(131072, memory_bytes())
    assert meter.isVisibleTo(session.window)
    assert meter.text() == f"Context: about 0 of {window:,} tokens (0%)"
    session.window.composer.edit.setPlainText("x" * 700)  # 200 tokens, estimated
    assert meter.text() == f"Context: about 200 of {window:,} tokens (1%)"
    send(qtbot, session, "hello")
    wait_idle(qtbot, session)
    # The loopback Ollama counted 12 in and 7 out: the next turn starts from 19.
    qtbot.waitUntil(lambda: meter.text() == f"Context: about 19 of {window:,} tokens (0%)")
    assert meter.accessibleName() == "Context"


def test_near_the_window_the_meter_warns() -> None:
    calm = reading(2048, 1000, 100)
    near = reading(2048, 1700, 100)
    assert calm is not None and not calm.warn
    assert near is not None and near.warn
    assert near.text == (
        "Context: about 1,800 of 2,048 tokens (88%) — near the model's window: the oldest "
        "turns will be left out"
    )
    assert reading(None, 10, 10) is None


def test_the_last_count_is_found_above_a_long_tail_without_one(
    session: Session, qtbot: QtBot
) -> None:
    pick(session, BLIND)
    window = ollama_window(131072, memory_bytes())
    send(qtbot, session, "hello")
    wait_idle(qtbot, session)
    meter = session.window.composer.meter
    qtbot.waitUntil(lambda: meter.text() == f"Context: about 19 of {window:,} tokens (0%)")
    chat = session.controller.current_id
    for n in range(80):  # more than the tail read after a turn, none with a count
        session.store.add_notice(chat, Notice(NoticeKind.ROUTING, f"notice {n}"))
    session.window.context_meter.chat_changed()
    assert meter.text() == f"Context: about 19 of {window:,} tokens (0%)"
