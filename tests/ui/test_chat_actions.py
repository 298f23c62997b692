"""The everyday chat actions in the real window, against the loopback Ollama: regenerate
(with the same model and another), the version switch, edit and resend, Retry, delete
with Undo, and the chat settings panel. The requests the server received are the proof
that the branch sent is exactly the one shown."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu
from pytestqt.qtbot import QtBot

from app.store import Store
from app.ui.conversation.row_buttons import NEXT, PREVIOUS, RETRY_BUTTON
from app.ui.conversation.row_menu import row_menu
from app.ui.session import Session
from routing.chat_settings import ChatSettings
from routing.context_window import memory_bytes, ollama_window
from tests.conftest import SightlineHome
from tests.servers.ollama import FakeOllama, Reply
from tests.ui.helpers import (
    OpenWindow,
    answers,
    click_row_button,
    failed_turn,
    pick,
    rows,
    send,
    wait_for_models,
    wait_idle,
)

BLIND = "ollama:llama3.2:3b"


def texts(session: Session) -> list[str]:
    return [str(r["text"]) for r in rows(session)]


def sent(fake: FakeOllama, index: int = -1) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in fake.chat_requests()[index]["messages"]]


def menu_action(session: Session, item_id: int, words: str) -> None:
    """Trigger an entry of a row's context menu (or of one of its submenus) by its words."""
    view = session.window.view
    row = session.window.conversation.row_of(item_id)
    assert row is not None
    index = session.window.conversation.index(row, 0)
    menu = row_menu(view, index)
    found = [a for a in menu.actions() if a.text() == words]
    for action in menu.actions():
        sub = action.menu()
        if isinstance(sub, QMenu):
            found += [a for a in sub.actions() if f"{action.text()}/{a.text()}" == words]
    assert found, [a.text() for a in menu.actions()]
    found[0].trigger()


def two_turns(qtbot: QtBot, session: Session, fake: FakeOllama) -> None:
    fake.enqueue(Reply(text="Red."), Reply(text="Because."))
    send(qtbot, session, "name a colour")
    qtbot.waitUntil(lambda: len(answers(session)) == 1 and not session.controller.busy)
    send(qtbot, session, "why?")
    qtbot.waitUntil(lambda: len(answers(session)) == 2 and not session.controller.busy)


def test_regenerate_sends_no_later_messages_and_the_switch_moves_between_versions(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    pick(session, BLIND)
    two_turns(qtbot, session, fake_ollama)
    first_answer = answers(session)[0]["id"]
    fake_ollama.enqueue(Reply(text="Blue."))
    menu_action(session, first_answer, "Regenerate")
    qtbot.waitUntil(lambda: texts(session) == ["name a colour", "Blue."])
    wait_idle(qtbot, session)
    assert sent(fake_ollama) == [("user", "name a colour")]
    blue = session.window.conversation.row(1)
    assert (blue.switch_at, len(blue.switch)) == (1, 2)
    assert "version 2 of 2" in blue.accessible_text
    # From the message box, where the keyboard is after sending: Alt+Left, Alt+Right.
    edit = session.window.composer.edit
    edit.setFocus()
    qtbot.keyClick(edit, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: texts(session)[:2] == ["name a colour", "Red."])
    qtbot.keyClick(edit, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: texts(session) == ["name a colour", "Blue."])
    assert edit.toPlainText() == ""  # the keys moved the chat, not the cursor's words

    # The arrow: back to the first version, with the turn that followed it.
    click_row_button(qtbot, session, blue.item_id, PREVIOUS)
    qtbot.waitUntil(lambda: texts(session) == ["name a colour", "Red.", "why?", "Because."])
    red = session.window.conversation.row(1)
    assert (red.switch_at, red.version_beside(+1)) == (0, blue.item_id)
    click_row_button(qtbot, session, red.item_id, NEXT)
    qtbot.waitUntil(lambda: texts(session) == ["name a colour", "Blue."])

    # Later turns build on the version shown.
    fake_ollama.enqueue(Reply(text="The sky."))
    send(qtbot, session, "like what?")
    qtbot.waitUntil(lambda: len(answers(session)) == 2 and not session.controller.busy)
    assert sent(fake_ollama) == [
        ("user", "name a colour"),
        ("assistant", "Blue."),
        ("user", "like what?"),
    ]


def test_regenerate_with_another_model_from_the_submenu(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    pick(session, BLIND)
    fake_ollama.enqueue(Reply(text="Red."), Reply(text="I see it differently."))
    send(qtbot, session, "name a colour")
    qtbot.waitUntil(lambda: len(answers(session)) == 1 and not session.controller.busy)
    menu_action(session, answers(session)[0]["id"], "Regenerate with/ollama:llava:7b")
    qtbot.waitUntil(lambda: [a["text"] for a in answers(session)] == ["I see it differently."])
    wait_idle(qtbot, session)
    assert fake_ollama.chat_requests()[-1]["model"] == "llava:7b"
    assert answers(session)[-1]["author"] == "ollama:llava:7b"
    # Another model for that answer only: the chat's model, and the picker, stay.
    chat = session.controller.current_id
    summary = session.controller.store.conversations.get(chat)
    assert summary is not None and summary.model == BLIND
    assert session.window.picker.current_ref() == BLIND
    fake_ollama.enqueue(Reply(text="Blue, then."))
    send(qtbot, session, "another?")
    qtbot.waitUntil(lambda: "Blue, then." in [a["text"] for a in answers(session)])
    wait_idle(qtbot, session)
    assert fake_ollama.chat_requests()[-1]["model"] == "llama3.2:3b"


def test_edit_and_resend_forks_and_the_earlier_branch_stays(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    pick(session, BLIND)
    two_turns(qtbot, session, fake_ollama)
    why = next(r for r in rows(session) if r["text"] == "why?")
    menu_action(session, why["id"], "Edit and resend…")
    composer = session.window.composer
    assert composer.text() == "why?" and session.window.editing_bar.isVisible()
    composer.edit.selectAll()
    qtbot.keyClicks(composer.edit, "why red?")
    fake_ollama.enqueue(Reply(text="It is warm."))
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: texts(session) == ["name a colour", "Red.", "why red?", "It is warm."])
    wait_idle(qtbot, session)
    assert not session.window.editing_bar.isVisible()
    assert sent(fake_ollama) == [
        ("user", "name a colour"),
        ("assistant", "Red."),
        ("user", "why red?"),
    ]
    edited = session.window.conversation.row(2)
    assert (edited.switch_at, len(edited.switch)) == (1, 2)
    click_row_button(qtbot, session, edited.item_id, PREVIOUS)
    qtbot.waitUntil(lambda: texts(session) == ["name a colour", "Red.", "why?", "Because."])


def test_cancel_editing_leaves_the_message_as_it_was(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    pick(session, BLIND)
    two_turns(qtbot, session, fake_ollama)
    menu_action(session, rows(session)[0]["id"], "Edit and resend…")
    assert session.window.composer.text() == "name a colour"
    qtbot.mouseClick(session.window.editing_bar.button, Qt.MouseButton.LeftButton)
    assert session.window.composer.text() == ""
    assert not session.window.editing_bar.isVisible()
    assert len(fake_ollama.chat_requests()) == 2


def test_retry_on_a_failed_turn_replaces_the_failure_and_adds_no_second_message(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    pick(session, BLIND)
    failed = failed_turn(qtbot, session, fake_ollama, "hello?", "model runner crashed")
    fake_ollama.enqueue(Reply(text="Hello!"))
    click_row_button(qtbot, session, failed["id"], RETRY_BUTTON)
    qtbot.waitUntil(lambda: texts(session) == ["hello?", "Hello!"])
    wait_idle(qtbot, session)
    assert sent(fake_ollama) == [("user", "hello?")]
    # The failure gave way to the answer: no "‹ 1 / 2 ›" with an error as version 1.
    answer = session.window.conversation.row(1)
    assert answer.switch == () and session.controller.store.get_item(failed["id"]) is None


def test_delete_a_message_with_its_answer_and_undo(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    pick(session, BLIND)
    two_turns(qtbot, session, fake_ollama)
    first = rows(session)[0]["id"]
    menu_action(session, first, "Delete message and answer")
    qtbot.waitUntil(lambda: texts(session) == ["why?", "Because."])
    undo = session.window.message_undo
    assert undo.isVisible() and undo.label.text() == "Message deleted"
    qtbot.mouseClick(undo.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: texts(session) == ["name a colour", "Red.", "why?", "Because."])
    assert not undo.isVisible()

    # An answer alone; what is sent next leaves it out, once its Undo is over.
    menu_action(session, answers(session)[1]["id"], "Delete answer")
    qtbot.waitUntil(lambda: texts(session) == ["name a colour", "Red.", "why?"])
    session.controller.versions.finish_deleting()
    fake_ollama.enqueue(Reply(text="Fine."))
    send(qtbot, session, "ok")
    qtbot.waitUntil(lambda: texts(session)[-1] == "Fine." and not session.controller.busy)
    assert sent(fake_ollama) == [
        ("user", "name a colour"),
        ("assistant", "Red."),
        ("user", "why?"),
        ("user", "ok"),
    ]


def test_the_chat_settings_panel_keeps_a_system_prompt_and_parameters(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    pick(session, BLIND)
    fake_ollama.enqueue(Reply(text="Hi."))
    send(qtbot, session, "hello")
    qtbot.waitUntil(lambda: len(answers(session)) == 1 and not session.controller.busy)
    session.window.top.chat_settings_action.trigger()  # Chat ▸ Chat settings…
    panel = session.window.chat_actions.panel
    assert panel is not None and panel.isVisible()
    panel.temperature.setText("hot")
    panel.try_save()
    assert panel.isVisible() and "temperature must be a number" in panel.problem.text()
    panel.own_prompt.setChecked(True)
    panel.prompt.setPlainText("Answer like a pirate.")
    panel.temperature.setText("0.4")
    panel.context_length.setText("8192")
    panel.try_save()
    assert not panel.isVisible()
    chat = session.controller.current_id
    assert session.store.conversations.settings(chat) == ChatSettings(
        "Answer like a pirate.", 0.4, None, 8192
    )
    fake_ollama.enqueue(Reply(text="Arr."))
    send(qtbot, session, "again")
    qtbot.waitUntil(lambda: len(answers(session)) == 2 and not session.controller.busy)
    request = fake_ollama.chat_requests()[-1]
    assert request["messages"][0] == {"role": "system", "content": "Answer like a pirate."}
    assert request["options"] == {"temperature": 0.4, "num_ctx": 8192}


def test_a_new_chat_keeps_settings_chosen_before_its_first_message(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    pick(session, BLIND)
    panel = session.window.chat_actions.open_settings()
    panel.max_tokens.setText("64")
    panel.try_save()
    send(qtbot, session, "short please")
    qtbot.waitUntil(lambda: len(answers(session)) == 1 and not session.controller.busy)
    # Ollama is always told the window to load: the trained length, within this memory.
    window = ollama_window(131072, memory_bytes())
    assert fake_ollama.chat_requests()[-1]["options"] == {"num_predict": 64, "num_ctx": window}
    assert session.store.conversations.settings(session.controller.current_id).max_tokens == 64


def test_the_chat_settings_panel_says_which_settings_the_chats_model_takes(
    home: SightlineHome, fake_ollama: FakeOllama, open_window: OpenWindow, qtbot: QtBot
) -> None:
    with Store.open(home.data) as store:  # as a turn does when the model refuses one
        store.learned.remember_refused(BLIND, "temperature")
    session = open_window()
    wait_for_models(qtbot, session)
    pick(session, BLIND)
    panel = session.window.chat_actions.open_settings()
    assert set(panel.notes) == {"temperature"}  # Ollama takes the other two
    assert panel.notes["temperature"].text() == (
        f"{BLIND} doesn't take a temperature (it refused it): it isn't sent to it."
    )
    panel.reject()
    pick(session, "ollama:llava:7b")  # another model: nothing learned of it
    assert session.window.chat_actions.open_settings().notes == {}


def test_regenerate_with_shows_the_pickers_eye_on_models_that_see(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    pick(session, BLIND)
    fake_ollama.enqueue(Reply(text="Red."))
    send(qtbot, session, "name a colour")
    qtbot.waitUntil(lambda: len(answers(session)) == 1 and not session.controller.busy)
    view = session.window.view
    row = session.window.conversation.row_of(answers(session)[0]["id"])
    assert row is not None
    menu = row_menu(view, session.window.conversation.index(row, 0))
    [submenu] = [a.menu() for a in menu.actions() if a.text() == "Regenerate with"]
    assert isinstance(submenu, QMenu)
    eyes = {a.text(): not a.icon().isNull() for a in submenu.actions()}
    # llava and qwen2.5vl list "vision"; llama3.2 and gemma3 don't.
    assert eyes == {
        "ollama:llama3.2:3b": False,
        "ollama:llava:7b": True,
        "ollama:qwen2.5vl:3b": True,
        "ollama:gemma3:270m": False,
    }
    tips = {a.text(): a.toolTip() for a in submenu.actions()}
    assert tips["ollama:llava:7b"] == "ollama:llava:7b — sees pictures"
    assert tips["ollama:gemma3:270m"] == "ollama:gemma3:270m — doesn't see pictures"
    assert submenu.toolTipsVisible()
