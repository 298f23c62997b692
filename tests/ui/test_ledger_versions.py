"""The ledger is the whole conversation's record, in the real window: a crossing on a
version no longer shown is still listed, marked with its version, and a branch that uses
an earlier description says so."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.ui.session import Session
from routing.transcript import NoticeKind
from tests.servers.ollama import FakeOllama, Reply
from tests.ui.helpers import (
    answers,
    cards,
    pick,
    reading_done,
    rows,
    send,
    shaded_picture,
    wait_idle,
)
from tests.ui.test_chat_actions import menu_action

BLIND = "ollama:llama3.2:3b"


def test_an_edit_that_reuses_a_description_says_so_and_the_ledger_keeps_the_first_look(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    window = session.window
    pick(session, BLIND)
    session.controller.attaching.attach_files([shaded_picture(tmp_path / "ramp.png", (64, 48))])
    qtbot.waitUntil(lambda: len(cards(session)) == 1 and reading_done(session))
    fake_ollama.enqueue(Reply(text="A grey ramp."), Reply(text="Grey."))
    send(qtbot, session, "what is this?")
    qtbot.waitUntil(lambda: [a["text"] for a in answers(session)] == ["Grey."])
    wait_idle(qtbot, session)
    asked = next(r for r in rows(session) if r["role"] == "user")
    # Edit and resend the same words: a new branch, whose answer gets the same description.
    menu_action(session, asked["id"], "Edit and resend…")
    qtbot.waitUntil(lambda: len(cards(session)) == 1 and reading_done(session))
    fake_ollama.enqueue(Reply(text="Still grey."))
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: [a["text"] for a in answers(session)] == ["Still grey."])
    wait_idle(qtbot, session)
    assert len(fake_ollama.chat_requests()) == 3  # the looker was not asked again
    [reused] = [r for r in rows(session) if r["notice"] == NoticeKind.INFO]
    assert reused["text"] == (
        f"{BLIND} can't see: it gets ramp.png in the words "
        f"ollama:{fake_ollama.chat_requests()[0]['model']} gave earlier. Nothing was sent again."
    )
    assert not any(r["notice"] == NoticeKind.DISCLOSURE for r in rows(session))
    # The ledger still lists the look, on the version no longer shown.
    window.show_ledger(True)
    [row] = window.ledger.rows()
    assert "Sent: 1 picture (ramp.png)" in row
    assert row.endswith("On: your message “what is this?”, version 1 of 2 (not shown)")
    assert "1 crossing" in window.ledger.summary.text()
