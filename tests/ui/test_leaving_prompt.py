"""Before a chat's earlier pictures first leave this computer, the window asks once.

A chat shows a picture to a model on this computer; the person then picks a model
off it (a loopback server configured `local = false`, which records every request).
The window offers: send them, send without them, or cancel (the draft stays).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from app.ui.leaving_prompt import CANCEL, SEND, TITLE, WITHHOLD
from app.ui.session import Session
from routing.transcript import Notice
from tests.conftest import SightlineHome
from tests.pictures import picture_file
from tests.servers.openai_chat import ChatModel, FakeOpenAI
from tests.ui.helpers import OpenWindow, send


@pytest.fixture
def cloud() -> Iterator[FakeOpenAI]:
    """A seeing model off this computer (as far as Sightline is told)."""
    with FakeOpenAI([ChatModel("vision-1", sees=True)], flavour="openrouter") as server:
        yield server


@pytest.fixture
def both(home: SightlineHome, cloud: FakeOpenAI) -> SightlineHome:
    """The loopback Ollama on this computer, and the cloud recorder."""
    with open(home.config, "a", encoding="utf-8") as config:
        config.write(
            '\n[[providers]]\nid = "cloud"\nkind = "openrouter"\n'
            f'base_url = "{cloud.url}"\napi_key = "sk-or-test"\nlocal = false\n'
        )
    return home


def _first_turn_here(qtbot: QtBot, session: Session, tmp_path: Path) -> None:
    """A picture shown to the seeing model on this computer."""
    qtbot.waitUntil(lambda: len(session.window.picker.models()) == 5, timeout=10_000)
    session.window.picker.set_current_ref("ollama:llava:7b")
    session.controller.attaching.attach_files(
        [picture_file(tmp_path / "holiday.png", "red", (20, 20))]
    )
    qtbot.waitUntil(lambda: session.controller.attaching.attachments.anything, timeout=5_000)
    qtbot.waitUntil(lambda: not session.controller.attaching.attachments.reading, timeout=5_000)
    send(qtbot, session, "what is it?")
    qtbot.waitUntil(lambda: not session.controller.busy, timeout=10_000)


def _answer(qtbot: QtBot, session: Session, label: str) -> None:
    qtbot.waitUntil(lambda: session.window.questions.leaving.dialog is not None, timeout=5_000)
    dialog = session.window.questions.leaving.dialog
    assert isinstance(dialog, QMessageBox) and dialog.windowTitle() == TITLE
    assert "holiday.png" in dialog.text() and "cloud:vision-1" in dialog.text()
    [button] = [b for b in dialog.findChildren(QPushButton) if b.text() == label]
    button.click()


def _cloud_pictures(cloud: FakeOpenAI) -> int:
    return sum(
        1
        for body in cloud.chat_requests()
        for m in body["messages"]
        if isinstance(m.get("content"), list)
        for part in m["content"]
        if part.get("type") == "image_url"
    )


@pytest.fixture
def asked(
    both: SightlineHome, open_window: OpenWindow, qtbot: QtBot, tmp_path: Path
) -> Callable[[str], Session]:
    """A chat whose picture a model on this computer saw, sent on to the cloud model:
    the question is answered with the button of that label."""

    def _ask(label: str) -> Session:
        session = open_window()
        _first_turn_here(qtbot, session, tmp_path)
        session.window.picker.set_current_ref("cloud:vision-1")
        send(qtbot, session, "and in the cloud?")
        _answer(qtbot, session, label)
        return session

    return _ask


def answered_once(qtbot: QtBot, session: Session, cloud: FakeOpenAI) -> None:
    """The cloud model was asked once, and the turn has ended."""
    qtbot.waitUntil(lambda: len(cloud.chat_requests()) == 1, timeout=10_000)
    qtbot.waitUntil(lambda: not session.controller.busy, timeout=10_000)


def test_cancel_keeps_the_draft_and_sends_nothing(
    asked: Callable[[str], Session], cloud: FakeOpenAI
) -> None:
    session = asked(CANCEL)
    assert session.window.composer.edit.toPlainText() == "and in the cloud?"
    assert cloud.chat_requests() == []
    assert session.controller.store.crossings.earlier_pictures(session.controller.current_id) == ""


def test_send_them_discloses_and_is_not_asked_again(
    asked: Callable[[str], Session], cloud: FakeOpenAI, qtbot: QtBot
) -> None:
    session = asked(SEND)
    answered_once(qtbot, session, cloud)
    assert _cloud_pictures(cloud) == 1
    store, cid = session.controller.store, session.controller.current_id
    told = [i.item for i in store.items(cid) if isinstance(i.item, Notice) and i.item.crossed]
    assert [n.text.split(" from earlier")[0] for n in told] == ["1 picture (holiday.png)"]
    send(qtbot, session, "again")  # decided for this chat: no second question
    qtbot.waitUntil(lambda: len(cloud.chat_requests()) == 2, timeout=10_000)
    assert session.window.questions.leaving.dialog is None


def test_send_without_them_leaves_a_line_instead(
    asked: Callable[[str], Session], cloud: FakeOpenAI, qtbot: QtBot
) -> None:
    session = asked(WITHHOLD)
    answered_once(qtbot, session, cloud)
    assert _cloud_pictures(cloud) == 0
    assert "A picture (holiday.png) was here" in str(cloud.chat_requests()[0])
    assert session.window.composer.edit.toPlainText() == ""
