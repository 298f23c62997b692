"""A model learned blind is shown so, and "Check again" forgets it."""

from __future__ import annotations

from collections.abc import Callable

from pytestqt.qtbot import QtBot

from app.store import Store
from app.ui.session import Session
from tests.conftest import SightlineHome
from tests.ui.helpers import pick, wait_for_models

REF = "ollama:qwen2.5vl:3b"


def sees(session: Session, ref: str) -> bool | None:
    return next(m.sees for m in session.window.picker.models() if m.ref == ref)


def test_a_model_remembered_blind_can_be_checked_again(
    home: SightlineHome, open_window: Callable[[], Session], qtbot: QtBot
) -> None:
    with Store.open(home.data) as store:  # an earlier session learned it refuses pictures
        store.learned.remember_blind(REF)
    session = open_window()
    wait_for_models(qtbot, session)
    assert sees(session, REF) is False  # shown as a model that can't see
    button = session.window.top.check_again_button
    pick(session, "ollama:llava:7b")
    assert button.isHidden()
    pick(session, REF)
    assert not button.isHidden()
    button.click()
    qtbot.waitUntil(lambda: sees(session, REF) is True, timeout=10_000)
    assert session.controller.store.learned.blind() == set()
    qtbot.waitUntil(button.isHidden)


def test_check_sight_asks_a_model_nobody_says_sees(
    home: SightlineHome, open_window: Callable[[], Session], qtbot: QtBot
) -> None:
    from tests.servers.openai_chat import ChatModel, FakeOpenAI

    with FakeOpenAI([ChatModel("my-model")], pictures="read") as server:
        with open(home.config, "a", encoding="utf-8") as config:
            config.write(
                f'\n[[providers]]\nid = "mine"\nkind = "custom"\nbase_url = "{server.url}"\n'
            )
        session = open_window()
        qtbot.waitUntil(lambda: len(session.window.picker.models()) == 5, timeout=10_000)
        button = session.window.top.check_sight_button
        pick(session, "ollama:llava:7b")  # its listing says: nothing to check
        assert button.isHidden()
        pick(session, "mine:my-model")
        assert not button.isHidden() and sees(session, "mine:my-model") is None
        button.click()
        qtbot.waitUntil(lambda: sees(session, "mine:my-model") is True, timeout=10_000)
        message = session.window.statusBar().currentMessage()
        assert message == "Sight check: mine:my-model sees pictures."
        with Store.open(home.data) as store:
            assert list(store.learned.checks().values()) == ["sees"]
