"""Getting a model that sees from where the need shows: a local chat's picture nobody here
could look at, the picker's last row, File ▸ Local models…; and using it at once."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from app.ui.conversation.row_buttons import GET_SEEING
from app.ui.models.model_picker import MANAGE, PickerRole
from routing.transcript import NoticeKind
from tests.conftest import SightlineHome
from tests.servers.ollama import FakeOllama
from tests.ui.helpers import (
    OpenWindow,
    answers,
    click_row_button,
    rows,
    send,
    shaded_picture,
    wait_idle,
)

BLIND = "ollama:llama3.2:3b"


def test_a_picture_nobody_here_sees_offers_a_model_that_sees_and_uses_it_at_once(
    home: SightlineHome,
    fake_ollama: FakeOllama,
    open_window: OpenWindow,
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    fake_ollama.models[:] = [m for m in fake_ollama.models if "vision" not in m.capabilities]
    session = open_window()
    window = session.window
    qtbot.waitUntil(lambda: BLIND in [m.ref for m in window.picker.models()], timeout=10_000)
    window.picker.set_current_ref(BLIND)
    session.controller.attaching.attach_files([shaded_picture(tmp_path / "chart.png")])
    qtbot.waitUntil(lambda: session.controller.attaching.attachments.anything)
    send(qtbot, session, "what does it show?")
    qtbot.waitUntil(lambda: any(r["notice"] == NoticeKind.NOBODY_SEES for r in rows(session)))
    wait_idle(qtbot, session)
    [nobody] = [r for r in rows(session) if r["notice"] == NoticeKind.NOBODY_SEES]
    assert "No model on this computer can see chart.png" in str(nobody["text"])

    click_row_button(qtbot, session, nobody["id"], GET_SEEING)
    dialog = window.local_models.dialog
    assert dialog is not None and dialog.suggest_vision and dialog.isVisible()
    _words, _size, pull = dialog.vision_rows["moondream:1.8b"]
    pull.click()
    qtbot.waitUntil(lambda: window.local_models.question is not None, timeout=15_000)
    question = window.local_models.question
    assert isinstance(question, QMessageBox)
    assert "moondream:1.8b is on this computer now" in question.text()
    describe = next(b for b in question.buttons() if b.text() == "Describe the pictures")
    describe.click()
    qtbot.waitUntil(lambda: len(answers(session)) == 1 and not session.controller.busy)
    looked = [r for r in fake_ollama.chat_requests() if r["model"] == "moondream:1.8b"]
    assert looked and looked[0]["messages"][-1]["images"]  # the new model looked, here
    assert [r["text"] for r in rows(session) if r["role"] == "user"] == ["what does it show?"]


def test_the_pickers_last_row_and_the_file_menu_open_local_models(
    home: SightlineHome, fake_ollama: FakeOllama, open_window: OpenWindow, qtbot: QtBot
) -> None:
    session = open_window()
    window = session.window
    picker = window.picker
    qtbot.waitUntil(lambda: picker.findData(MANAGE, PickerRole.REF) >= 0, timeout=10_000)
    before = picker.current_ref()
    row = picker.findData(MANAGE, PickerRole.REF)
    picker.setCurrentIndex(row)
    picker.activated.emit(row)  # as choosing the row does
    assert window.local_models.dialog is not None
    assert picker.current_ref() == before  # the chat keeps its model
    window.local_models.dialog.close()
    qtbot.waitUntil(lambda: window.local_models.dialog is None)
    window.menus.local_models.trigger()
    assert window.local_models.dialog is not None and not window.local_models.dialog.suggest_vision
