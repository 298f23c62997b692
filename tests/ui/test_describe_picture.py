""" "Describe this picture" in the real window, against the loopback Ollama: from a row's
menu and from the picture viewer; the words reach the row's screen-reader description, the
viewer and the chat's notices; nothing is asked while the chat's turn runs."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.ui.session import Session
from routing.transcript import NoticeKind, user_message
from tests.pictures import named_picture
from tests.servers.ollama import FakeOllama, Reply
from tests.ui.helpers import cards, pick, reading_done, rows, send, shaded_picture
from tests.ui.test_chat_actions import menu_action

BLIND = "ollama:llama3.2:3b"
RED = named_picture("red.png", "red", (64, 48))
DESCRIPTION = Qt.ItemDataRole.AccessibleDescriptionRole


def _open_chat_with_picture(qtbot: QtBot, session: Session) -> int:
    """A stored chat whose one message holds red.png, opened; its message's id."""
    store = session.controller.store
    chat = store.conversations.create()
    asked = store.add_message(chat, user_message("What colour is this?", (RED,)))
    session.controller.chats.refresh()
    session.controller.select_conversation(chat)
    qtbot.waitUntil(lambda: len(rows(session)) == 1)
    pick(session, BLIND)
    return asked.id


def _description(session: Session) -> str:
    return str(session.window.conversation.index(0, 0).data(DESCRIPTION))


def test_a_rows_menu_describes_its_picture_and_the_screen_reader_reads_the_words(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    asked = _open_chat_with_picture(qtbot, session)
    assert _description(session) == "red.png: no description yet (Shift+F10 offers to describe it)"
    fake_ollama.enqueue(Reply(text="A red rectangle."))
    menu_action(session, asked, "Describe this picture")
    qtbot.waitUntil(lambda: len(rows(session)) == 2)
    notice = rows(session)[1]
    assert notice["notice"] == NoticeKind.DISCLOSURE
    assert "looked at red.png, as you asked: A red rectangle." in notice["text"]
    [request] = fake_ollama.chat_requests()
    looker = f"ollama:{request['model']}"
    assert looker != BLIND and request["messages"][-1]["images"]
    qtbot.waitUntil(lambda: "A red rectangle." in _description(session))
    assert _description(session) == f"red.png, as {looker} described it: A red rectangle."
    # The picture viewer shows the words, and makes them its image's description.
    viewer = session.window.open_picture(RED)
    assert viewer.words.isVisibleTo(viewer) and not viewer.describe.isVisibleTo(viewer)
    assert viewer.label.accessibleDescription() == f"As {looker} described it: A red rectangle."
    viewer.close()


def test_the_viewers_button_describes_the_picture_it_shows(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    _open_chat_with_picture(qtbot, session)
    viewer = session.window.open_picture(RED)
    assert viewer.label.accessibleDescription().startswith("red.png, 64×48")
    fake_ollama.enqueue(Reply(text="A red rectangle.", delay=0.05))
    qtbot.mouseClick(viewer.describe, Qt.MouseButton.LeftButton)
    assert not viewer.describe.isEnabled()  # asked once: under way
    qtbot.waitUntil(lambda: "A red rectangle." in viewer.words.text())
    assert viewer.label.accessibleDescription().endswith("described it: A red rectangle.")
    assert len(fake_ollama.chat_requests()) == 1
    viewer.close()


def test_nothing_is_asked_while_the_chats_turn_runs(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    asked = _open_chat_with_picture(qtbot, session)
    fake_ollama.enqueue(Reply(text="slowly " * 40, delay=0.05))
    session.window.composer.edit.setPlainText("and now?")
    qtbot.keyClick(session.window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: session.controller.busy_here())
    menu_action(session, asked, "Describe this picture")
    assert "Wait for the answer to finish" in session.window.statusBar().currentMessage()
    session.controller.stop()
    qtbot.waitUntil(lambda: not session.controller.busy)
    looked = [m for r in fake_ollama.chat_requests() for m in r["messages"] if m.get("images")]
    assert looked == [] and session.controller.store.picture_words.of([RED.sha256]) == {}


def test_a_composer_picture_of_a_new_chat_starts_the_chat_that_tells_who_looked(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    pick(session, BLIND)
    picture = shaded_picture(tmp_path / "shot.png", (64, 48))
    session.controller.attaching.attach_files([picture])
    qtbot.waitUntil(lambda: len(cards(session)) == 1 and reading_done(session))
    [card] = cards(session)
    [describe] = [a for a in card.actions() if a.text() == "Describe this picture"]
    assert session.controller.current_id == ""
    fake_ollama.enqueue(Reply(text="A grey ramp."))
    describe.trigger()
    qtbot.waitUntil(lambda: "A grey ramp." in card.accessibleDescription())
    assert card.accessibleDescription().startswith("As ollama:")
    # Its crossing is the first thing of a chat opened for it; the draft stays the person's.
    chat = session.controller.current_id
    assert chat and [r["notice"] for r in rows(session)] == [NoticeKind.DISCLOSURE]
    assert len(cards(session)) == 1
    store = session.controller.store
    assert store.picture_words.of([card.picture.sha256]) == {}  # not stored: not kept yet
    fake_ollama.enqueue(Reply(text="Grey."))
    send(qtbot, session, "what is it?")
    qtbot.waitUntil(lambda: not session.controller.busy and len(rows(session)) >= 3)
    kept = store.picture_words.of([card.picture.sha256])
    assert [w.words for w in kept.values()] == ["A grey ramp."]
    assert store.items(chat)[1].item.text == "what is it?"  # the message follows the notice
