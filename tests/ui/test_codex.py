"""Codex in the window: picked under "Agents", its folder asked, its answer and reasoning
streamed, its command asked on the approval card, its models listed under it after (the
fake app server as a process)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.ui.models.model_picker import ModelPicker, PickerRole
from app.ui.session import Session
from tests.conftest import SightlineHome
from tests.servers.acp_config import with_fake_codex
from tests.ui.helpers import OpenWindow, answers, asked_on_the_card, kinds, wait_idle


def window_with_codex(open_window: OpenWindow, qtbot: QtBot) -> tuple[Session, ModelPicker]:
    """The window, once its picker lists the configured Codex."""
    session = open_window()
    picker = session.window.picker
    qtbot.waitUntil(lambda: "codex" in picker.agents(), timeout=10_000)
    return session, picker


def test_codex_answers_in_the_window_and_its_command_is_asked_on_the_card(
    home: SightlineHome, tmp_path: Path, open_window: OpenWindow, qtbot: QtBot
) -> None:
    with_fake_codex(home, tmp_path / "state.json", "reason,command")
    session, picker = window_with_codex(open_window, qtbot)
    row = picker.findData("codex", PickerRole.REF)
    assert picker.itemText(row) == "codex · agent"
    picker.set_current_ref("codex")
    card = asked_on_the_card(qtbot, session, "make a file", tmp_path)
    assert card.request is not None and card.request.call.name == "codex.command"
    assert card.heading.text() == "Codex asks to run a command. Allow it?"
    assert card.hint.text().endswith(
        "Allow in this chat lets Codex run a command again in this conversation without asking."
    )
    qtbot.mouseClick(card.once_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, session)
    assert "Approval: accept." in str(answers(session)[-1]["text"])
    # Its reasoning is a Thinking row before the answer, and its command a tool row.
    shown = kinds(session)
    assert "thought" in shown and shown.index("thought") < shown.index("message:assistant")
    assert "message:tool" in shown
    # The models Codex listed (model/list) are offered under it now.
    qtbot.waitUntil(lambda: picker.findData("codex:gpt-5-mini", PickerRole.REF) > row)
    messages = session.controller.store.messages(session.controller.current_id)
    assert any(m.carried("acp_thought", "codex") for m in messages)  # its reasoning kept


def test_codexs_request_for_more_permissions_is_asked_on_the_card(
    home: SightlineHome, tmp_path: Path, open_window: OpenWindow, qtbot: QtBot
) -> None:
    with_fake_codex(home, tmp_path / "state.json", "permissions")
    session, picker = window_with_codex(open_window, qtbot)
    picker.set_current_ref("codex")
    card = asked_on_the_card(qtbot, session, "fetch it", tmp_path)
    assert card.request is not None and card.request.call.name == "codex.permissions"
    assert card.heading.text() == "Codex asks to have more permissions. Allow it?"
    assert card.hint.text() == (
        "Allow once allows just this. "
        "Allow in this chat grants them for the rest of this conversation."
    )
    qtbot.mouseClick(card.chat_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, session)
    # "Allow in this chat" grants what was asked for Codex's session.
    assert "Permissions: network, write; scope session." in str(answers(session)[-1]["text"])
