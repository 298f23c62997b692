"""A model learned blind is shown so, and "Check again" forgets it."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.store import Store
from app.ui.models.model_picker import PickerRole
from app.ui.session import Session
from routing.endpoints import endpoint_key
from tests.conftest import SightlineHome
from tests.servers.ollama import FakeOllama, Reply
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


def choose(session: Session, ref: str) -> None:
    """Choose a model as a click in the open list does (the chat keeps it as the list changes)."""
    pick(session, ref)
    session.window.picker.activated.emit(session.window.picker.currentIndex())


def tooltip(session: Session, ref: str) -> str:
    picker = session.window.picker
    return str(picker.itemData(picker.findData(ref, PickerRole.REF), Qt.ItemDataRole.ToolTipRole))


def test_a_check_never_overrides_the_listing_and_the_person_may_mark_it_blind(
    home: SightlineHome, fake_ollama: FakeOllama, open_window: Callable[[], Session], qtbot: QtBot
) -> None:
    llava = "ollama:llava:7b"
    with Store.open(home.data) as store:  # an earlier check misread the probe
        store.learned.remember_check(endpoint_key(fake_ollama.base_url), "llava:7b", "blind", "")
    session = open_window()
    wait_for_models(qtbot, session)
    assert sees(session, llava) is True  # its listing says "vision": that stands
    stands = "the listing says it sees; the check said blind: the listing stands"
    assert f"sees pictures ({stands})" in tooltip(session, llava)
    button = session.window.top.mark_blind_button
    pick(session, "ollama:qwen2.5vl:3b")
    assert button.isHidden()
    choose(session, llava)
    assert not button.isHidden() and button.text() == "Mark blind"
    assert session.window.top.check_sight_button.isHidden()  # its listing says: no check
    # Checked again from the window, the verdict is told beside the listing's word.
    fake_ollama.enqueue(Reply(text="There is no picture."))
    session.controller.check_sight(llava)
    status = session.window.statusBar()
    qtbot.waitUntil(lambda: status.currentMessage() == f"Sight check: {llava}: {stands}.")
    assert sees(session, llava) is True

    button.click()  # the person marks it blind
    qtbot.waitUntil(lambda: sees(session, llava) is False)
    assert "doesn't see pictures (you marked it blind)" in tooltip(session, llava)
    assert button.text() == "Unmark blind" and not button.isHidden()
    with Store.open(home.data) as store:
        assert store.learned.marked() == {llava} and store.learned.blind() == set()
    button.click()
    qtbot.waitUntil(lambda: sees(session, llava) is True)
    assert button.text() == "Mark blind"

    # From the picker's right-click menu, any model that takes pictures.
    menu = session.window.sight_buttons.sight_menu("ollama:qwen2.5vl:3b")
    assert menu is not None
    [action] = menu.actions()
    assert action.text() == "Mark ollama:qwen2.5vl:3b blind"
    action.trigger()
    qtbot.waitUntil(lambda: sees(session, "ollama:qwen2.5vl:3b") is False)
    assert session.window.sight_buttons.sight_menu("auto") is None
    with Store.open(home.data) as store:  # kept for the next start
        assert store.learned.marked() == {"ollama:qwen2.5vl:3b"}
