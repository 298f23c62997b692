"""Agents in the window, through the real path: the picker, the working folder, the turn
with the in-repo fake ACP agent (tests/servers/acp_agent.py), the approval card, Stop."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from pytestqt.qtbot import QtBot

from app.turn.agent_folder import FOLDER
from app.ui.conversation.conversation_model import Role
from app.ui.conversation.row_buttons import RETRY_BUTTON
from app.ui.models.model_picker import AGENTS_HEADER, PickerRole
from app.ui.session import Session
from routing.transcript import CarriedPart, Message, MessageStatus, NoticeKind
from tests.conftest import SightlineHome, write_config
from tests.pictures import picture_file
from tests.servers.acp_agent import read_log
from tests.servers.acp_config import with_agent
from tests.ui.helpers import (
    OpenWindow,
    answers,
    asked_on_the_card,
    choose_folder,
    click_row_button,
    kinds,
    rows,
    send,
    sent_to_agent,
    wait_idle,
)

AgentWindow = Callable[[str], tuple[Session, Path]]


@pytest.fixture
def agent_window(
    home: SightlineHome, tmp_path: Path, open_window: OpenWindow, qtbot: QtBot
) -> AgentWindow:
    """Opens the window with the fake agent configured with `behaviours` and picked; gives
    the window and the agent's log folder."""

    def opened(behaviours: str) -> tuple[Session, Path]:
        log = tmp_path / "agent-log"
        log.mkdir()
        with_agent(home, log, behaviours)
        session = open_window()
        picker = session.window.picker
        qtbot.waitUntil(lambda: picker.isEnabled() and picker.agents() == ("fake",), timeout=10_000)
        picker.set_current_ref("fake")
        assert picker.current_ref() == "fake"
        return session, log

    return opened


def test_the_picker_lists_agents_under_their_own_heading(agent_window: AgentWindow) -> None:
    session, _log = agent_window("")
    picker = session.window.picker
    texts = [picker.itemText(i) for i in range(picker.count())]
    heading = texts.index(AGENTS_HEADER)
    agent_row = picker.findData("fake", PickerRole.REF)
    assert agent_row == heading + 1
    assert texts[agent_row] == "fake · agent"
    assert picker.itemData(agent_row, PickerRole.AGENT) is True
    assert picker.itemData(picker.findData("auto", PickerRole.REF), PickerRole.AGENT) is False
    # A chat's own choice of the agent's models shows under it, not as "not listed".
    picker.set_current_ref("fake:large")
    assert picker.findData("fake:large", PickerRole.REF) > heading
    assert picker.itemData(picker.currentIndex(), PickerRole.AGENT) is True


def test_an_agent_chat_asks_its_folder_and_streams_the_answer(
    agent_window: AgentWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    session, log = agent_window("")
    work = tmp_path / "project"
    work.mkdir()
    send(qtbot, session, "hello")
    assert not session.controller.busy  # nothing is sent before the folder is chosen
    assert session.window.composer.text() == "hello"
    choose_folder(qtbot, session, work)

    qtbot.waitUntil(lambda: len(answers(session)) == 1, timeout=15_000)
    qtbot.waitUntil(lambda: answers(session)[0]["status"] == MessageStatus.COMPLETE, timeout=15_000)
    wait_idle(qtbot, session)
    assert answers(session)[0]["text"] == "Part one. You said: hello (0 pictures)"
    assert answers(session)[0]["author"] == "fake"
    assert session.window.composer.text() == ""
    assert read_log(log)[1]["new_session"] == str(work)  # the agent works there
    label = session.window.top.folder_label
    assert label.isVisible() and label.text() == "in project"
    assert str(work) in label.toolTip()

    # The folder is kept with the chat: a second turn asks nothing, and reopening shows it.
    chat = session.controller.current_id
    send(qtbot, session, "again")
    qtbot.waitUntil(lambda: len(answers(session)) == 2, timeout=15_000)
    wait_idle(qtbot, session)
    stored = [
        p
        for m in session.store.messages(chat)
        if isinstance(m, Message)
        for p in m.parts
        if isinstance(p, CarriedPart) and p.shape == FOLDER
    ]
    assert [p.data["cwd"] for p in stored] == [str(work)]
    session.controller.new_conversation()
    assert not session.window.top.folder_label.isVisible()
    session.controller.select_conversation(chat)
    assert session.window.top.folder_label.text() == "in project"


def test_cancelling_the_folder_question_sends_nothing(
    agent_window: AgentWindow, qtbot: QtBot
) -> None:
    session, log = agent_window("")
    send(qtbot, session, "hello")
    qtbot.waitUntil(lambda: session.window.questions.folder_dialog is not None)
    dialog = session.window.questions.folder_dialog
    assert dialog is not None
    dialog.reject()
    assert not session.controller.busy and session.controller.current_id == ""
    assert session.window.composer.text() == "hello"  # the draft waits
    assert read_log(log) == []


def test_a_permission_request_is_answered_on_the_approval_card(
    agent_window: AgentWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    session, log = agent_window("permission")
    card = asked_on_the_card(qtbot, session, "go", tmp_path)
    assert card.request is not None
    assert "Read notes.txt" in json.dumps(card.request.call.arguments)
    assert card.heading.text() == "The agent fake asks to Read notes.txt (read). Allow it?"
    assert card.hint.text() == (
        "Allow once allows just this. Allow in this chat lets the agent fake take read steps "
        "again in this conversation without asking."
    )
    qtbot.mouseClick(card.once_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not card.isVisible(), timeout=5_000)
    wait_idle(qtbot, session)
    assert answers(session)[-1]["text"] == "Part one. [permission: yes] You said: go (0 pictures)"
    assert {"permission": "yes"} in read_log(log)


def test_stop_cancels_the_agent_and_keeps_the_words(
    agent_window: AgentWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    session, log = agent_window("hang")
    sent_to_agent(qtbot, session, "go", tmp_path)
    qtbot.waitUntil(
        lambda: bool(answers(session)) and answers(session)[0]["text"] == "Part one. ",
        timeout=15_000,
    )
    assert session.controller.busy
    qtbot.mouseClick(session.window.composer.button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, session)
    qtbot.waitUntil(lambda: answers(session)[0]["status"] == MessageStatus.STOPPED)
    qtbot.waitUntil(lambda: {"cancel": "s-1"} in read_log(log), timeout=5_000)
    assert session.window.composer.button.text() == "Send"


def test_thinking_opens_on_a_click_the_plan_is_a_checklist_and_tool_pictures_show(
    agent_window: AgentWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    session, _log = agent_window("think,plan,tool")
    sent_to_agent(qtbot, session, "look", tmp_path)
    wait_idle(qtbot, session)
    expected = [
        "message:user",
        "thought",
        "plan",
        "message:assistant",
        "message:tool",
        "message:assistant",
    ]
    assert kinds(session) == expected
    model, view = session.window.conversation, session.window.view
    thought = model.index(1, 0)
    assert thought.data(Role.TEXT) == "Let me think."
    assert thought.data(Role.AUTHOR) == "Thinking"
    assert not thought.data(Role.EXPANDED)
    assert "collapsed" in str(thought.data(Qt.ItemDataRole.AccessibleTextRole))
    assert view.shown_texts(thought) == ["3 words — Let me think."]  # one line, closed
    plan = model.index(2, 0)
    assert plan.data(Role.TEXT) == "\u2611 Look\n\u2610 Answer"

    # A click on the thinking row opens it; another closes it.
    qtbot.waitUntil(lambda: view.visualRect(thought).isValid())
    point = view.visualRect(thought).center()
    assert view.header_at(point) == 1
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    qtbot.waitUntil(lambda: bool(thought.data(Role.EXPANDED)))
    assert "Let me think." in str(thought.data(Qt.ItemDataRole.AccessibleTextRole))
    assert view.shown_texts(thought) == ["3 words", "Let me think."]  # in full, below
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    qtbot.waitUntil(lambda: not thought.data(Role.EXPANDED))

    # The agent's tool result carries its picture: opened, the row shows its thumbnail.
    tool = model.index(4, 0)
    assert view.thumbnails(tool) == []
    qtbot.waitUntil(lambda: view.visualRect(tool).isValid())
    qtbot.mouseClick(
        view.viewport(),
        Qt.MouseButton.LeftButton,
        pos=view.visualRect(tool).topLeft() + QPoint(80, 18),
    )
    qtbot.waitUntil(lambda: bool(view.thumbnails(tool)))
    [(rect, picture)] = view.thumbnails(tool)
    assert (picture.width, picture.height) == (4, 3) and rect.width() > 0

    # Reopened, the chat shows the same rows from the store (the plan once per turn).
    chat = session.controller.current_id
    session.controller.new_conversation()
    session.controller.select_conversation(chat)
    assert kinds(session) == expected
    assert model.index(1, 0).data(Role.TEXT) == "Let me think."
    assert model.index(2, 0).data(Role.TEXT) == "\u2611 Look\n\u2610 Answer"


def test_the_window_reads_the_shapes_the_agent_engine_stores() -> None:
    from app.presenters import rows
    from app.turn import agent_record
    from app.turn.acp import recording

    assert rows.THOUGHT_SHAPE == agent_record.THOUGHT
    assert rows.PLAN_SHAPE == recording.PLAN


def test_a_crashed_agent_is_an_error_notice_and_retry_starts_it_again(
    agent_window: AgentWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    session, log = agent_window("crash")
    sent_to_agent(qtbot, session, "go", tmp_path)
    wait_idle(qtbot, session)
    [error] = [r for r in rows(session) if r["notice"] == NoticeKind.ERROR]
    assert "stopped mid-turn (exit status 3)" in str(error["text"])
    assert answers(session)[0]["status"] == MessageStatus.FAILED  # its words are kept
    assert answers(session)[0]["text"] == "Part one. "
    assert session.window.composer.button.text() == "Send"

    # Retry sends the person's message to the agent again, started afresh.
    click_row_button(qtbot, session, error["id"], RETRY_BUTTON)
    qtbot.waitUntil(lambda: len([e for e in read_log(log) if "prompt" in e]) == 2, timeout=15_000)
    wait_idle(qtbot, session)
    assert len([e for e in read_log(log) if "initialize" in e]) == 2
    [asked] = [r for r in rows(session) if r["role"] == "user"]
    assert asked["text"] == "go"
    chat = session.controller.current_id
    [stored] = [s for s in session.store.items(chat) if s.id == asked["id"]]
    assert len(stored.versions) == 2  # the first asking stays, as another version


def test_with_only_an_agent_the_window_offers_it_instead_of_saying_nothing_is_ready(
    agent_window: AgentWindow, home: SightlineHome, tmp_path: Path, qtbot: QtBot
) -> None:
    write_config(home.config, None)  # no model provider at all
    session, _log = agent_window("")
    qtbot.waitUntil(lambda: not session.controller.listing.listing, timeout=10_000)
    assert session.window.picker.models() == ()
    assert session.window.picker.isEnabled()
    assert not session.window.panel.isVisible()
    sent_to_agent(qtbot, session, "hi", tmp_path)
    qtbot.waitUntil(lambda: len(answers(session)) == 1, timeout=15_000)
    wait_idle(qtbot, session)
    assert answers(session)[0]["text"] == "Part one. You said: hi (0 pictures)"


def test_a_picture_attached_in_the_window_reaches_an_agent_that_sees_and_is_disclosed(
    agent_window: AgentWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    session, log = agent_window("sees")
    shot = picture_file(tmp_path / "shot.png", "red", (6, 4))
    attaching = session.controller.attaching
    attaching.attach_files([shot])
    qtbot.waitUntil(lambda: len(attaching.attachments.pictures) == 1, timeout=10_000)
    sent_to_agent(qtbot, session, "what is it", tmp_path)
    qtbot.waitUntil(lambda: len(answers(session)) == 1, timeout=15_000)
    wait_idle(qtbot, session)
    assert answers(session)[0]["text"] == "Part one. You said: what is it (1 pictures)"
    assert [e["pictures"] for e in read_log(log) if "prompt" in e] == [["image/png"]]
    said = [str(r["text"]) for r in rows(session) if r["kind"] == "notice"]
    assert any("went to the agent fake, whose model runs off this computer" in s for s in said)


def test_stop_while_the_agent_asks_answers_its_request_cancelled(
    agent_window: AgentWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    session, log = agent_window("permission")
    card = asked_on_the_card(qtbot, session, "go", tmp_path)
    qtbot.mouseClick(session.window.composer.button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, session)
    assert not card.isVisible()
    qtbot.waitUntil(lambda: {"permission": "cancelled"} in read_log(log), timeout=5_000)
    assert answers(session)[0]["status"] == MessageStatus.STOPPED
    assert answers(session)[0]["text"] == "Part one. "


def test_answering_a_model_chat_again_with_an_agent_asks_its_folder_first(
    agent_window: AgentWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    from app.ui.conversation.message_actions import Requested

    session, log = agent_window("")
    picker = session.window.picker
    qtbot.waitUntil(lambda: len(picker.models()) == 4, timeout=10_000)
    picker.set_current_ref("ollama:llama3.2:3b")
    send(qtbot, session, "hi")
    qtbot.waitUntil(lambda: len(answers(session)) == 1, timeout=10_000)
    wait_idle(qtbot, session)
    assert session.window.questions.folder_dialog is None  # a model's chat has no folder to ask
    assert not session.window.top.folder_label.isVisible()

    answer = answers(session)[0]["id"]
    session.window.chat_actions.act(Requested("regenerate", answer, "fake"))
    choose_folder(qtbot, session, tmp_path)
    qtbot.waitUntil(lambda: any(r["author"] == "fake" for r in answers(session)), timeout=15_000)
    wait_idle(qtbot, session)
    assert answers(session)[-1]["text"] == "Part one. You said: hi (0 pictures)"
    assert read_log(log)[1]["new_session"] == str(tmp_path)
    assert session.window.top.folder_label.text() == f"in {tmp_path.name}"


def test_the_doors_call_is_answered_on_the_approval_card_and_its_crossing_shows(
    agent_window: AgentWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    picture = picture_file(tmp_path / "red.png", "red", (8, 8))
    session, log = agent_window("sees,door")
    sent_to_agent(qtbot, session, str(picture), tmp_path)
    card = session.window.approving.card
    qtbot.waitUntil(lambda: card.isVisible() and card.request is not None, timeout=20_000)
    assert card.request is not None and card.request.call.name == "read_file"
    assert card.request.call.arguments == {"path": str(picture)}
    assert card.heading.text() == (
        "The agent wants to use Sightline's read_file through its door. Allow it?"
    )
    qtbot.mouseClick(card.once_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, session)
    assert next(e["door"] for e in read_log(log) if "door" in e) == ["text", "image"]
    crossings = [r for r in rows(session) if r["notice"] == NoticeKind.DISCLOSURE]
    assert len(crossings) == 1 and "red.png" in str(crossings[0]["text"])


def test_the_agents_models_and_modes_appear_under_it_after_its_first_turn(
    agent_window: AgentWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    session, log = agent_window("models,modes")
    picker = session.window.picker
    assert picker.findData("fake:large", PickerRole.REF) == -1  # not known before it ran
    sent_to_agent(qtbot, session, "hi", tmp_path)
    wait_idle(qtbot, session)
    qtbot.waitUntil(lambda: picker.findData("fake:large", PickerRole.REF) > 0, timeout=5_000)
    texts = [picker.itemText(i) for i in range(picker.count())]
    assert "fake · large · agent" in texts and "fake · code mode · agent" in texts
    picker.setCurrentIndex(picker.findData("fake:large", PickerRole.REF))
    picker.activated.emit(picker.currentIndex())
    # The mode row now keeps the model just chosen.
    code = picker.findData("fake:large#code", PickerRole.REF)
    assert code > 0
    picker.setCurrentIndex(code)
    picker.activated.emit(code)
    send(qtbot, session, "again")
    wait_idle(qtbot, session)
    assert {"set_mode": "code"} in read_log(log) and read_log(log)[-1]["model"] == "large"
    chat = session.controller.current_id
    assert session.controller.store.messages(chat)[-1].model == "fake:large#code"
