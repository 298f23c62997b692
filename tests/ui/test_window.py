"""The window against a real loopback Ollama and a real store, driven like a person would."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.presenters.model_status import LOOKING, NOTHING_READY
from app.store import Store
from app.store.pages import PAGE
from app.ui.conversation.conversation_model import Role
from app.ui.models.model_picker import (
    AUTO,
    AUTO_LABEL,
    CLOUD_HEADER,
    LOCAL_HEADER,
    MANAGE,
    PickerRole,
)
from app.ui.session import Session
from routing.transcript import Message, MessageStatus, NoticeKind, TextPart
from routing.transcript import Role as MessageRole
from tests.conftest import SightlineHome, write_config
from tests.servers.loopback import closed_port
from tests.servers.ollama import FakeOllama, Reply
from tests.ui.helpers import (
    OpenWindow,
    Run,
    answers,
    close_session,
    rows,
    run_python,
    send,
    wait_for_models,
    wait_idle,
)

# -- 1 ---------------------------------------------------------------------------


def test_picker_lists_models_grouped_with_badges(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    session = open_window()
    picker = session.window.picker
    wait_for_models(qtbot, session)
    model = picker.model()
    entries = [
        {
            "text": model.index(r, 0).data(),
            "ref": model.index(r, 0).data(PickerRole.REF),
            "header": model.index(r, 0).data(PickerRole.HEADER),
            "sees": model.index(r, 0).data(PickerRole.SEES),
            "tools": model.index(r, 0).data(PickerRole.TOOLS),
            "local": model.index(r, 0).data(PickerRole.LOCAL),
            "tooltip": model.index(r, 0).data(Qt.ItemDataRole.ToolTipRole),
            "flags": model.flags(model.index(r, 0)),
        }
        for r in range(model.rowCount())
    ]
    assert entries[0]["text"] == AUTO_LABEL and entries[0]["ref"] == AUTO
    assert entries[1]["text"] == LOCAL_HEADER and entries[1]["header"]
    assert not entries[1]["flags"] & Qt.ItemFlag.ItemIsSelectable
    assert not entries[1]["flags"] & Qt.ItemFlag.ItemIsEnabled
    assert CLOUD_HEADER not in [e["text"] for e in entries]  # nothing in the cloud here
    assert entries[-1]["ref"] == MANAGE  # the last row opens Local models
    by_ref = {e["ref"]: e for e in entries[2:-1]}
    assert list(by_ref) == [
        "ollama:llama3.2:3b",
        "ollama:llava:7b",
        "ollama:qwen2.5vl:3b",
        "ollama:gemma3:270m",
    ]
    assert all(e["local"] for e in by_ref.values())
    abilities = {ref: (e["sees"], e["tools"]) for ref, e in by_ref.items()}
    assert abilities == {
        "ollama:llama3.2:3b": (False, True),
        "ollama:llava:7b": (True, False),
        "ollama:qwen2.5vl:3b": (True, True),
        "ollama:gemma3:270m": (False, False),
    }
    assert "sees pictures" in str(by_ref["ollama:llava:7b"]["tooltip"])
    assert "can use tools" in str(by_ref["ollama:qwen2.5vl:3b"]["tooltip"])
    assert "can use tools" not in str(by_ref["ollama:llava:7b"]["tooltip"])
    assert not model.item(2).icon().isNull()  # type: ignore[attr-defined]
    assert picker.current_ref() == AUTO
    assert not session.window.panel.isVisible()

    # The person's choice survives another listing.
    picker.set_current_ref("ollama:llava:7b")
    session.controller.refresh_models()
    qtbot.waitUntil(lambda: not session.controller.listing.listing, timeout=10_000)
    assert picker.current_ref() == "ollama:llava:7b"


# -- 2 ---------------------------------------------------------------------------


def test_enter_sends_and_the_answer_streams_into_one_row(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    full = "Streaming words arrive a few letters at a time, in one row."
    fake_ollama.enqueue(Reply(text=full, chunk_chars=5, delay=0.03))
    seen: list[str] = []
    session.controller.feed.text_added.connect(
        lambda _id, _text: seen.append(answers(session)[0]["text"])
    )

    send(qtbot, session, "Hello there")
    assert session.window.composer.text() == ""  # cleared on send
    assert session.window.composer.button.text() == "Stop"
    qtbot.waitUntil(
        lambda: len(answers(session)) == 1 and 0 < len(answers(session)[0]["text"]) < len(full)
    )
    qtbot.waitUntil(lambda: answers(session)[0]["status"] == MessageStatus.COMPLETE, timeout=10_000)
    wait_idle(qtbot, session)

    shown = rows(session)
    assert [(r["kind"], r["role"] or r["notice"]) for r in shown] == [
        ("message", "user"),
        ("notice", NoticeKind.ROUTING),  # Auto chose, and says so
        ("message", "assistant"),
    ]
    assert shown[0]["text"] == "Hello there" and shown[0]["author"] == "You"
    assert shown[2]["text"] == full and shown[2]["author"] == "ollama:llama3.2:3b"
    assert any(0 < len(text) < len(full) for text in seen)  # words were seen mid-stream
    assert session.window.composer.button.text() == "Send"
    assert fake_ollama.chat_requests()[-1]["messages"][-1]["content"] == "Hello there"
    # The sidebar shows the new conversation, titled by the first words.
    sidebar = session.window.sidebar
    assert sidebar.model.rowCount() == 1
    assert sidebar.model.index(0, 0).data() == "Hello there"
    assert sidebar.list.currentIndex().row() == 0

    # Shift+Enter is a line break, not a send.
    edit = session.window.composer.edit
    qtbot.keyClicks(edit, "line one")
    qtbot.keyClick(edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(edit, "line two")
    assert session.window.composer.text() == "line one\nline two"
    assert not session.controller.busy
    assert len(rows(session)) == 3
    assert len(fake_ollama.chat_requests()) == 1


# -- 3 ---------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["button", "escape"])
def test_stop_keeps_the_partial_answer(
    how: str, fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    session.window.picker.set_current_ref("ollama:llama3.2:3b")
    fake_ollama.enqueue(Reply(text="word " * 400, chunk_chars=5, delay=0.02))
    send(qtbot, session, "Tell me a long story")
    qtbot.waitUntil(lambda: len(answers(session)) == 1 and len(answers(session)[0]["text"]) >= 10)

    if how == "button":
        qtbot.mouseClick(session.window.composer.button, Qt.MouseButton.LeftButton)
    else:
        session.window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is session.window)
        qtbot.keyClick(session.window.composer.edit, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: answers(session)[0]["status"] == MessageStatus.STOPPED, timeout=10_000)
    wait_idle(qtbot, session)

    row = answers(session)[0]
    stored = session.store.get_item(row["id"])
    assert stored is not None and isinstance(stored.item, Message)
    assert stored.item.status == MessageStatus.STOPPED
    assert 10 <= len(stored.item.text) < len("word " * 400)
    assert ("word " * 400).startswith(stored.item.text)
    # The view may lag the store by one coalescing tick, never more.
    assert str(row["text"]).startswith(stored.item.text[:10])

    # The composer is usable again: a new turn goes through.
    assert session.window.composer.button.text() == "Send"
    send(qtbot, session, "Shorter, please")
    qtbot.waitUntil(lambda: len(answers(session)) == 2, timeout=10_000)
    qtbot.waitUntil(lambda: answers(session)[1]["status"] == MessageStatus.COMPLETE, timeout=10_000)
    assert answers(session)[1]["text"] == "You said: Shorter, please"


# -- 4 ---------------------------------------------------------------------------


def test_a_provider_error_becomes_a_notice_and_the_message_stays_for_retry(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    session.window.picker.set_current_ref("ollama:llama3.2:3b")
    fake_ollama.enqueue(Reply(status=500, body={"error": "boom"}))
    send(qtbot, session, "This will fail")
    qtbot.waitUntil(
        lambda: any(r["notice"] == NoticeKind.ERROR for r in rows(session)), timeout=10_000
    )
    wait_idle(qtbot, session)
    # The message is in the chat, for Retry: not in the composer, to be sent twice.
    assert session.window.composer.text() == ""
    assert [r["text"] for r in rows(session) if r["role"] == "user"] == ["This will fail"]
    error = next(r for r in rows(session) if r["notice"] == NoticeKind.ERROR)
    assert error["text"]
    assert session.window.composer.button.text() == "Send"

    # An unknown model (a 404 from the provider's list) is the same: notice, message kept.
    session.window.picker.set_current_ref("ollama:no-such-model:1b")
    send(qtbot, session, "Anyone there?")
    qtbot.waitUntil(
        lambda: sum(r["notice"] == NoticeKind.ERROR for r in rows(session)) == 2, timeout=10_000
    )
    wait_idle(qtbot, session)
    assert session.window.composer.text() == ""
    assert "no-such-model" in str(rows(session)[-1]["text"])

    # The window keeps working.
    session.window.composer.clear()
    session.window.picker.set_current_ref("ollama:llama3.2:3b")
    send(qtbot, session, "Again")
    qtbot.waitUntil(
        lambda: bool(answers(session)) and answers(session)[-1]["status"] == MessageStatus.COMPLETE,
        timeout=10_000,
    )
    assert answers(session)[-1]["text"] == "You said: Again"


# -- 5 ---------------------------------------------------------------------------


def test_a_conversation_from_the_command_line_shows_after_a_restart(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot, run: Run
) -> None:
    ask = run_python(
        home.env(), "-m", "app", "ask", "--model", "ollama:llama3.2:3b", "Hi from the CLI"
    )
    assert ask.returncode == 0, ask.stderr
    for _ in range(2):  # open, close, open again on the same data folder
        session = open_window()
        sidebar = session.window.sidebar
        assert sidebar.model.rowCount() == 1
        assert sidebar.model.index(0, 0).data() == "Hi from the CLI"
        qtbot.mouseClick(
            sidebar.list.viewport(),
            Qt.MouseButton.LeftButton,
            pos=sidebar.list.visualRect(sidebar.model.index(0, 0)).center(),
        )

        def both_rows_shown(opened: Session = session) -> bool:
            return len(rows(opened)) == 2

        qtbot.waitUntil(both_rows_shown)
        shown = rows(session)
        assert shown[0]["text"] == "Hi from the CLI"
        assert shown[1]["text"] == "You said: Hi from the CLI"
        assert shown[1]["status"] == MessageStatus.COMPLETE
        assert session.window.picker.current_ref() == "ollama:llama3.2:3b"
        close_session(session, run)


# -- 6 ---------------------------------------------------------------------------


def test_no_provider_says_what_was_tried_and_try_again_recovers(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    port = closed_port()
    address = f"http://127.0.0.1:{port}"
    write_config(home.config, address)
    session = open_window()
    panel = session.window.panel
    qtbot.waitUntil(lambda: panel.title.text() == NOTHING_READY, timeout=15_000)
    assert panel.isVisible()
    said = panel.text()
    assert f"127.0.0.1:{port}" in said
    assert "ollama serve" in said and "OLLAMA_HOST" in said
    assert str(home.config) in said
    assert panel.retry.isVisible()
    assert not session.window.picker.isEnabled()

    with FakeOllama(port=port):
        qtbot.mouseClick(panel.retry, Qt.MouseButton.LeftButton)
        assert panel.title.text() == LOOKING
        qtbot.waitUntil(lambda: len(session.window.picker.models()) == 4, timeout=10_000)
        assert not panel.isVisible()
        assert session.window.picker.isEnabled()


# -- 7 ---------------------------------------------------------------------------


def test_new_chat_and_delete(session: Session, qtbot: QtBot) -> None:
    window, sidebar = session.window, session.window.sidebar
    send(qtbot, session, "First chat")
    qtbot.waitUntil(lambda: len(answers(session)) == 1, timeout=10_000)
    wait_idle(qtbot, session)
    first = session.controller.current_id
    assert first and sidebar.model.rowCount() == 1

    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert session.controller.current_id == ""
    assert rows(session) == [] and window.title.text() == "New chat"
    assert not sidebar.list.currentIndex().isValid()

    send(qtbot, session, "Second chat")
    qtbot.waitUntil(lambda: sidebar.model.rowCount() == 2, timeout=10_000)
    wait_idle(qtbot, session)
    second = session.controller.current_id
    assert second != first
    assert sidebar.model.index(0, 0).data() == "Second chat"  # newest first

    # Delete the first chat from the keyboard; Undo brings it back (tests/ui/test_chats.py).
    sidebar.list.setFocus()
    sidebar.list.setCurrentIndex(sidebar.model.index(1, 0))
    qtbot.waitUntil(lambda: session.controller.current_id == first)
    qtbot.keyClick(sidebar.list, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: sidebar.model.rowCount() == 1, timeout=5000)
    assert sidebar.undo_bar.isVisible()
    assert [c.id for c in session.store.conversations.list()] == [second]
    assert session.controller.current_id == "" and rows(session) == []


# -- 8 ---------------------------------------------------------------------------


def test_smoke_prints_one_json_line(home: SightlineHome) -> None:
    done = run_python(home.env(), "-m", "app", "--smoke")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    timings = json.loads(lines[0])
    assert timings["smoke"] == "ok"
    assert timings["first_paint_s"] > 0
    assert "qt_import_s" in timings
    if sys.platform.startswith("linux"):  # read from /proc at the paint, as the bare window's
        assert 20 < timings["peak_rss_mib"] < 1000
    assert "Traceback" not in done.stderr


def test_smoke_with_a_broken_config_says_why_in_one_line(home: SightlineHome) -> None:
    home.config.write_text("providers = [[[\n", encoding="utf-8")
    done = run_python(home.env(), "-m", "app", "--smoke")
    assert done.returncode == 1
    assert done.stdout == ""
    assert str(home.config) in done.stderr and "Traceback" not in done.stderr


# -- 9 ---------------------------------------------------------------------------


def test_a_long_chat_opens_at_its_end(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    with Store.open(home.data) as store:
        conversation = store.conversations.create(title="A long chat", model="ollama:llama3.2:3b")
        for n in range(2000):
            role: MessageRole = "user" if n % 2 == 0 else "assistant"
            words = f"Message **{n}**" + (" with a few more words to wrap" * (n % 5))
            store.add_message(
                conversation,
                Message(role=role, parts=(TextPart(words),), model="ollama:llama3.2:3b"),
            )
    session = open_window()
    session.controller.select_conversation(conversation)
    view, model = session.window.view, session.window.conversation
    assert model.rowCount() == PAGE  # its end: the rest comes as the person scrolls up
    last = model.index(PAGE - 1, 0)
    qtbot.waitUntil(lambda: view.at_bottom() and view.verticalScrollBar().maximum() > 0)
    qtbot.waitUntil(lambda: view.viewport().rect().intersects(view.visualRect(last)))
    assert last.data(Role.TEXT).startswith("Message **1999**")
    # At the top of what is shown, the page above comes, and the rows in view stay put.
    pages = 1
    while model.has_earlier():
        view.verticalScrollBar().setValue(0)
        first = model.first_item()
        qtbot.waitUntil(lambda first=first: model.first_item() != first)  # type: ignore[misc]
        held = model.row_of(first) if first is not None else None
        assert held is not None and view.visualRect(model.index(held, 0)).top() == 0
        pages += 1
    assert model.rowCount() == 2000 and pages == -(-2000 // PAGE)
    assert model.index(0, 0).data(Role.TEXT) == "Message **0**"


# -- more of the window ------------------------------------------------------------


def test_the_view_follows_the_answer_unless_the_person_scrolled_up(
    home: SightlineHome, fake_ollama: FakeOllama, open_window: OpenWindow, qtbot: QtBot
) -> None:
    with Store.open(home.data) as store:
        conversation = store.conversations.create(model="ollama:llama3.2:3b")
        for n in range(60):
            store.add_message(conversation, Message(role="user", parts=(TextPart(f"Old {n}"),)))
    session = open_window()
    wait_for_models(qtbot, session)
    session.controller.select_conversation(conversation)
    view = session.window.view
    bar = view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and view.at_bottom())

    fake_ollama.enqueue(Reply(text="line\n\n" * 150, chunk_chars=6, delay=0.02))
    send(qtbot, session, "Stream many lines")
    qtbot.waitUntil(lambda: len(answers(session)) == 1 and len(answers(session)[0]["text"]) > 60)
    # While at the bottom, growth keeps the end in view.
    qtbot.waitUntil(lambda: view.at_bottom() and bar.maximum() > 0)
    grown_from = bar.maximum()
    qtbot.waitUntil(lambda: bar.maximum() > grown_from + 40)
    qtbot.waitUntil(view.at_bottom)

    # Scrolled up, the person stays where they are while words keep coming.
    bar.setValue(0)
    assert not view.follows_bottom()
    before = bar.maximum()
    qtbot.waitUntil(lambda: bar.maximum() > before + 40)
    assert bar.value() == 0

    # Back at the bottom, the view follows again.
    bar.setValue(bar.maximum())
    assert view.follows_bottom()
    session.controller.stop()
    wait_idle(qtbot, session)
    qtbot.waitUntil(view.at_bottom)


def test_every_control_has_an_accessible_name(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    from PySide6.QtWidgets import (
        QAbstractButton,
        QAbstractItemView,
        QComboBox,
        QLabel,
        QPlainTextEdit,
        QWidget,
    )

    session = open_window()
    wait_for_models(qtbot, session)
    controls = (QAbstractButton, QAbstractItemView, QComboBox, QPlainTextEdit, QLabel)
    unnamed = [
        f"{type(w).__name__} {w.objectName()!r}"
        for w in session.window.findChildren(QWidget)
        if isinstance(w, controls) and not w.accessibleName()
    ]
    assert unnamed == []
    assert session.window.windowTitle() == "Sightline"


def test_a_data_folder_that_cannot_be_made_stops_the_start_with_one_line(
    home: SightlineHome, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    env = home.env() | {"SIGHTLINE_DATA_DIR": str(blocker / "data")}
    done = run_python(env, "-m", "app", "--smoke")
    assert done.returncode == 1 and done.stdout == ""
    assert "data folder" in done.stderr and "Traceback" not in done.stderr


def test_a_full_disk_mid_answer_keeps_the_draft_and_says_why(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    session.window.picker.set_current_ref("ollama:llama3.2:3b")
    store = session.controller.store
    # SQLite's own "database or disk is full", a few pages into the answer.
    (pages,) = store._connection.db.execute("PRAGMA page_count").fetchone()
    store._connection.db.execute(f"PRAGMA max_page_count = {pages + 8}")
    fake_ollama.enqueue(Reply(text="word " * 50_000, chunk_chars=200))
    send(qtbot, session, "tell me a lot")
    wait_idle(qtbot, session)
    assert session.window.composer.edit.toPlainText() == "tell me a lot"
    message = session.window.statusBar().currentMessage()
    assert "could not save this turn" in message and "free some disk space" in message
    store._connection.db.execute("PRAGMA max_page_count = 1073741823")
    [chat] = store.conversations.list()
    assert store.messages(chat.id)[0].text == "tell me a lot"
