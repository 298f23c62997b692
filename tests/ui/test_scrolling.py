"""Scrolling in a long chat: what is sent comes into view, a streaming answer doesn't pull
a person who scrolled up, and "Jump to latest" (or Ctrl+End) takes them back."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from pytestqt.qtbot import QtBot

from app.store import Store
from app.ui.session import Session
from routing.transcript import Message, TextPart, user_message
from tests.conftest import SightlineHome
from tests.servers.ollama import FakeOllama, Reply
from tests.ui.helpers import OpenWindow, answers, send, wait_for_models, wait_idle
from tests.ui.test_chats import select

LONG = "\n\n".join(f"Paragraph {n}: " + "words " * 40 for n in range(12))


def long_chat(home: SightlineHome) -> str:
    with Store.open(home.data) as store:
        chat = store.conversations.create("Long", "ollama:llama3.2:3b")
        for n in range(15):
            store.add_message(chat, user_message(f"question {n}"))
            store.add_message(chat, Message("assistant", (TextPart(LONG),), model="ollama:x"))
        return chat


def opened(qtbot: QtBot, open_window: OpenWindow, home: SightlineHome) -> Session:
    chat = long_chat(home)
    session = open_window()
    wait_for_models(qtbot, session)
    select(qtbot, session, chat)
    session.window.picker.set_current_ref("ollama:llama3.2:3b")
    view = session.window.view
    qtbot.waitUntil(lambda: view.verticalScrollBar().maximum() > 0)
    return session


def test_sending_brings_the_new_message_into_view(
    home: SightlineHome, fake_ollama: FakeOllama, open_window: OpenWindow, qtbot: QtBot
) -> None:
    session = opened(qtbot, open_window, home)
    view, bar = session.window.view, session.window.view.verticalScrollBar()
    bar.setValue(0)
    qtbot.waitUntil(lambda: view.jump_button.isVisible())
    send(qtbot, session, "one more")
    qtbot.waitUntil(lambda: not session.controller.busy and len(answers(session)) == 16)
    qtbot.waitUntil(lambda: bar.value() == bar.maximum())
    assert view.follows_bottom() and not view.jump_button.isVisible()


def test_a_streaming_answer_leaves_a_person_who_scrolled_up_where_they_are(
    home: SightlineHome, fake_ollama: FakeOllama, open_window: OpenWindow, qtbot: QtBot
) -> None:
    session = opened(qtbot, open_window, home)
    view, bar = session.window.view, session.window.view.verticalScrollBar()
    fake_ollama.enqueue(Reply(text=LONG, chunk_chars=30, delay=0.03))
    send(qtbot, session, "tell me more")
    qtbot.waitUntil(lambda: len(answers(session)) == 16)
    bar.setValue(bar.maximum() // 3)  # the person scrolls up while it streams
    qtbot.waitUntil(lambda: view.jump_button.isVisible())

    def shown() -> tuple[int, int]:
        """The row at the top of the view and where it is drawn."""
        index = view.indexAt(QPoint(40, 40))
        return index.row(), view.visualRect(index).top()

    held = shown()
    qtbot.wait(300)  # more words arrive meanwhile
    assert session.controller.busy and shown() == held
    qtbot.mouseClick(view.jump_button, Qt.MouseButton.LeftButton)
    assert bar.value() == bar.maximum() and not view.jump_button.isVisible()
    wait_idle(qtbot, session)
    assert bar.value() == bar.maximum()  # and it followed the rest of the answer


def test_ctrl_end_jumps_to_the_latest(
    home: SightlineHome, fake_ollama: FakeOllama, open_window: OpenWindow, qtbot: QtBot
) -> None:
    session = opened(qtbot, open_window, home)
    view, bar = session.window.view, session.window.view.verticalScrollBar()
    bar.setValue(0)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: bar.value() == bar.maximum())
    assert not view.jump_button.isVisible()
