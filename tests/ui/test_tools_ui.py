"""Tools in the window: the approval card, tool rows, and Settings → Tools, end to end.

Against the loopback FakeOllama and a real store and config file; the model
asks for `read_file`, and the person answers on the card like they would.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from app.config import load_config
from app.presenters.tools_settings import AUTOMATIC
from app.tools.mcp.config import load_mcp_servers
from app.turn.tool_step import DENIED, STOPPED
from app.ui.composer.approval_card import ApprovalCard
from app.ui.conversation.conversation_model import Role
from app.ui.conversation.painting import MARGIN_X, MARGIN_Y
from app.ui.session import Session
from tests.conftest import SightlineHome
from tests.pictures import picture_file
from tests.servers.ollama import FakeOllama, Reply
from tests.ui.helpers import OpenWindow, answers, open_settings, pick, send, wait_idle

MODEL = "ollama:qwen2.5vl:3b"  # sees and uses tools

VALID_MCP = """{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"]
    },
    "clock": {"command": "uvx", "args": ["mcp-server-time"]}
  }
}
"""
BROKEN_MCP = """{
  "mcpServers": {
    "filesystem": {"command": "npx",},
  }
}
"""


def read_call(path: Path) -> Reply:
    """The model asks to read one file."""
    return Reply(tool_calls=[{"name": "read_file", "arguments": {"path": str(path)}}])


def asked_to_read(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot, path: Path, text: str, *then: Reply
) -> ApprovalCard:
    """A file holding `text`; the person asks for it by name, the model asks to read it
    (and then says `then`), and the approval card shows the call."""
    path.write_text(text, encoding="utf-8")
    fake_ollama.enqueue(read_call(path), *then)
    pick(session, MODEL)
    send(qtbot, session, f"Read {path.stem}")
    return wait_card(qtbot, session)


def card(session: Session) -> ApprovalCard:
    return session.window.approving.card


def wait_card(qtbot: QtBot, session: Session) -> ApprovalCard:
    """Wait until the approval card asks."""
    qtbot.waitUntil(lambda: card(session).isVisible() and card(session).request is not None)
    return card(session)


def tool_rows(session: Session) -> list[int]:
    """Positions of the rows showing tool results."""
    model = session.window.conversation
    return [
        n for n in range(model.rowCount()) if model.index(n, 0).data(Role.MESSAGE_ROLE) == "tool"
    ]


def spoken(session: Session, row: int) -> str:
    """What a screen reader says for a row."""
    return str(session.window.conversation.index(row, 0).data(Qt.ItemDataRole.AccessibleTextRole))


def expand_by_keyboard(qtbot: QtBot, session: Session, row: int) -> None:
    view = session.window.view
    view.setFocus()
    view.setCurrentIndex(session.window.conversation.index(row, 0))
    qtbot.keyClick(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(session.window.conversation.index(row, 0).data(Role.EXPANDED)))


# -- approval -----------------------------------------------------------------------------


def test_allow_once_runs_the_call_and_the_result_row_opens_to_show_it(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    text = "Buy milk\nCall the plumber about the sink\n"
    shown = asked_to_read(fake_ollama, session, qtbot, notes, text, Reply(text="You need milk."))
    assert "read_file" in shown.heading.text()
    assert json.loads(shown.arguments.text()) == {"path": str(notes)}
    buttons = shown.findChildren(QPushButton)
    assert [b.accessibleName() for b in buttons if b.isVisibleTo(shown)] == [
        "Allow once",
        "Allow in this chat",
        "Don't allow",
    ]  # one call: no "Allow all"
    assert not any(b.isDefault() or b.autoDefault() for b in buttons)
    # The card has the keyboard, and Enter on it allows nothing.
    qtbot.waitUntil(shown.hasFocus)
    qtbot.keyClick(shown, Qt.Key.Key_Return)
    assert shown.isVisible() and session.controller.busy
    assert len(fake_ollama.chat_requests()) == 1

    qtbot.mouseClick(shown.once_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, session)
    assert not shown.isVisible()
    assert answers(session)[-1]["text"] == "You need milk."
    [row] = tool_rows(session)
    assert "read_file · ok · Buy milk" in spoken(session, row)
    index = session.window.conversation.index(row, 0)
    assert not index.data(Role.EXPANDED)
    assert session.window.view.shown_texts(index) == []  # closed: one line

    expand_by_keyboard(qtbot, session, row)
    texts = session.window.view.shown_texts(index)
    assert json.loads(texts[0]) == {"path": str(notes)}
    assert "Call the plumber about the sink" in texts[1]
    assert "Call the plumber about the sink" in spoken(session, row)  # heard, too
    qtbot.keyClick(session.window.view, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: not index.data(Role.EXPANDED))
    # The model's second request carried the file's words.
    second = fake_ollama.chat_requests()[1]["messages"]
    assert any(m["role"] == "tool" and "Buy milk" in m["content"] for m in second)


def test_allow_all_answers_every_call_of_the_step_at_once(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    files = [tmp_path / f"{n}.txt" for n in ("one", "two", "three")]
    for path in files:
        path.write_text(path.stem, encoding="utf-8")
    calls = [{"name": "read_file", "arguments": {"path": str(f)}} for f in files]
    fake_ollama.enqueue(Reply(tool_calls=calls), Reply(text="Read all three."))
    pick(session, MODEL)
    asked: list[object] = []
    session.controller.approval_requested.connect(asked.append)
    send(qtbot, session, "Read my three notes")

    shown = wait_card(qtbot, session)
    assert "(and 2 more calls with it)" in shown.heading.text()
    assert shown.step_button.isVisibleTo(shown) and shown.step_button.text() == "Allow &all 3"
    assert "the 2 other calls" in shown.hint.text()
    qtbot.mouseClick(shown.step_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, session)
    assert len(asked) == 1  # one question for the whole step
    assert answers(session)[-1]["text"] == "Read all three."
    tool_messages = [m for m in fake_ollama.chat_requests()[1]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == ["one", "two", "three"]
    assert session.controller.allowed_tools(session.controller.current_id) == frozenset()


def test_allow_in_this_chat_is_not_asked_again_there_but_is_in_a_new_chat(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("hello", encoding="utf-8")
    pick(session, MODEL)
    asked: list[object] = []
    session.controller.approval_requested.connect(asked.append)

    fake_ollama.enqueue(read_call(notes), Reply(text="First."))
    send(qtbot, session, "Read it")
    qtbot.mouseClick(wait_card(qtbot, session).chat_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, session)
    first_chat = session.controller.current_id
    assert session.controller.allowed_tools(first_chat) == {"read_file"}
    # Kept with the chat, so the next start of Sightline doesn't ask again either.
    assert session.controller.store.grants.granted(first_chat) == {"read_file"}

    fake_ollama.enqueue(read_call(notes), Reply(text="Second."))
    send(qtbot, session, "Read it again")
    wait_idle(qtbot, session)
    assert answers(session)[-1]["text"] == "Second."
    assert len(asked) == 1 and len(tool_rows(session)) == 2

    session.controller.new_conversation()
    fake_ollama.enqueue(read_call(notes), Reply(text="Third."))
    send(qtbot, session, "Read it in a new chat")
    shown = wait_card(qtbot, session)
    assert len(asked) == 2 and session.controller.current_id != first_chat
    qtbot.mouseClick(shown.once_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, session)
    assert answers(session)[-1]["text"] == "Third."


def test_dont_allow_tells_the_model_and_the_row_says_so(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    text = "the password is swordfish"
    shown = asked_to_read(
        fake_ollama, session, qtbot, secret, text, Reply(text="All right, I won't.")
    )
    shown.deny_button.setFocus()
    qtbot.keyClick(shown.deny_button, Qt.Key.Key_Space)  # reachable by keyboard
    wait_idle(qtbot, session)

    [row] = tool_rows(session)
    assert "read_file · not allowed" in spoken(session, row)
    assert session.window.conversation.index(row, 0).data(Role.TEXT) == DENIED
    assert answers(session)[-1]["text"] == "All right, I won't."
    second = fake_ollama.chat_requests()[1]["messages"]
    tool_messages = [m for m in second if m["role"] == "tool"]
    assert len(tool_messages) == 1 and DENIED in tool_messages[0]["content"]
    assert not any("swordfish" in json.dumps(r) for r in fake_ollama.chat_requests())


def test_stop_while_the_card_waits_ends_the_turn_cleanly(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    asked_to_read(fake_ollama, session, qtbot, tmp_path / "notes.txt", "hello")  # then an echo
    composer = session.window.composer
    assert composer.button.text() == "Stop"
    qtbot.mouseClick(composer.button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, session)

    assert not card(session).isVisible() and card(session).request is None
    assert session.controller.waiting_approval(session.controller.current_id) is None
    [row] = tool_rows(session)
    assert "read_file · stopped" in spoken(session, row)
    assert session.window.conversation.index(row, 0).data(Role.TEXT) == STOPPED
    assert len(fake_ollama.chat_requests()) == 1  # the model was not asked again
    # The chat goes on: every call has its answer, so the next turn is accepted.
    send(qtbot, session, "Never mind")
    wait_idle(qtbot, session)
    assert answers(session)[-1]["text"] == "You said: Never mind"


def test_a_picture_read_by_the_tool_shows_as_a_thumbnail_once_opened(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    chart = picture_file(tmp_path / "chart.png", (30, 140, 90), (400, 300))
    fake_ollama.enqueue(read_call(chart), Reply(text="A green square."))
    pick(session, MODEL)
    send(qtbot, session, "What is in chart.png?")
    qtbot.mouseClick(wait_card(qtbot, session).once_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, session)

    view = session.window.view
    [row] = tool_rows(session)
    index = session.window.conversation.index(row, 0)
    assert "1 picture" in spoken(session, row)
    assert view.thumbnails(index) == []
    # A click on the result's line opens it.
    qtbot.waitUntil(lambda: view.visualRect(index).isValid())
    line = view.visualRect(index).topLeft() + QPoint(MARGIN_X + 60, MARGIN_Y + 12)
    assert view.header_at(line) == row
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=line)
    qtbot.waitUntil(lambda: bool(view.thumbnails(index)))
    [(rect, picture)] = view.thumbnails(index)
    assert (rect.width(), rect.height()) == (240, 180)
    assert picture.label == "chart.png"
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: session.window.viewer is not None)
    viewer = session.window.viewer
    assert viewer is not None and viewer.windowTitle().startswith("chart.png — 400×300")


# -- Settings → Tools -------------------------------------------------------------------


def test_the_tools_page_checks_and_saves_mcp_servers(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    session = open_window()
    dialog = open_settings(qtbot, session)
    page = dialog.tools_page
    dialog.tabs.setCurrentWidget(page)

    page.mcp_edit.setPlainText(BROKEN_MCP)
    qtbot.mouseClick(page.check_button, Qt.MouseButton.LeftButton)
    assert "line 3, column 37" in page.mcp_result.text()
    assert "comma" in page.mcp_result.text()
    # Save refuses it, says why, and writes nothing.
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert "MCP servers" in dialog.message.text() and dialog.isVisible()
    assert not (home.config.parent / "mcp.json").exists()

    page.mcp_edit.setPlainText(VALID_MCP)
    assert page.mcp_result.text() == ""  # an old result goes with the edit
    qtbot.mouseClick(page.check_button, Qt.MouseButton.LeftButton)
    result = page.mcp_result.text()
    assert result.startswith("Found 2 servers")
    assert "filesystem: npx -y @modelcontextprotocol/server-filesystem /home/me/notes" in result
    if shutil.which("uvx"):
        assert "clock: uvx mcp-server-time" in result
    else:  # said as it is: this computer can't start it
        assert "clock: the command 'uvx' was not found on this computer" in result

    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: session.window.settings_dialog is None)
    saved = home.config.parent / "mcp.json"
    assert saved.read_text(encoding="utf-8") == VALID_MCP  # as pasted
    assert tomllib.loads(home.config.read_text(encoding="utf-8"))["mcp_config"] == "mcp.json"
    config = load_config()
    assert config.mcp_config == saved
    assert [s.name for s in load_mcp_servers(saved)] == ["filesystem", "clock"]
    assert config.providers[0].id == "ollama"  # the rest of the file stays
    assert session.controller.config.mcp_config == saved  # applied

    again = open_settings(qtbot, session)
    assert again.tools_page.mcp_edit.toPlainText() == VALID_MCP


def test_the_routing_choices_persist(home: SightlineHome, session: Session, qtbot: QtBot) -> None:
    dialog = open_settings(qtbot, session)
    page = dialog.tools_page
    combo = page.vision_combo
    choices = [combo.itemData(n) for n in range(combo.count())]
    assert combo.itemText(0) == AUTOMATIC and combo.currentData() == ""
    assert choices == ["", "ollama:llava:7b", "ollama:qwen2.5vl:3b"]  # only models that see
    assert not page.cloud_box.isChecked()
    assert page.sight_box.isChecked()  # sight checks are on unless turned off
    page.cloud_box.setChecked(True)
    page.sight_box.setChecked(False)
    combo.setCurrentIndex(combo.findData("ollama:llava:7b"))
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: session.window.settings_dialog is None)

    config = load_config()
    assert config.auto_may_use_cloud is True
    assert config.check_sight is False
    assert config.vision_model == "ollama:llava:7b"
    assert config.mcp_config is None  # nothing pasted: no MCP file
    assert not (home.config.parent / "mcp.json").exists()
    assert session.controller.config.vision_model == "ollama:llava:7b"

    dialog = open_settings(qtbot, session)
    again = dialog.tools_page
    assert again.cloud_box.isChecked() and not again.sight_box.isChecked()
    assert again.vision_combo.currentData() == "ollama:llava:7b"
    again.vision_combo.setCurrentIndex(0)  # back to automatic: the key goes
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: session.window.settings_dialog is None)
    assert "vision_model" not in tomllib.loads(home.config.read_text(encoding="utf-8"))
    assert load_config().vision_model == ""


def test_check_says_when_a_servers_command_is_not_installed(session: Session, qtbot: QtBot) -> None:
    page = open_settings(qtbot, session).tools_page
    page.mcp_edit.setPlainText(
        '{"mcpServers": {"gone": {"command": "no-such-mcp-server-here", "args": []}}}'
    )
    said = page.check().words()
    assert "can't start here" in said
    assert "'no-such-mcp-server-here' was not found on this computer" in said


def test_the_approval_words_say_allow_in_this_chat_is_kept() -> None:
    from app.ui.settings.tools_page import APPROVAL_WORDS

    assert "until Sightline closes" not in APPROVAL_WORDS
    assert "after a restart too" in APPROVAL_WORDS


def test_the_default_system_prompt_is_saved_and_sent_with_every_chat(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot
) -> None:
    dialog = open_settings(qtbot, session)
    dialog.tools_page.prompt_edit.setPlainText("Answer in French.\nBriefly.")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: session.window.settings_dialog is None)
    assert load_config().system_prompt == "Answer in French.\nBriefly."
    session.window.picker.set_current_ref("ollama:llama3.2:3b")
    send(qtbot, session, "hello")
    qtbot.waitUntil(lambda: bool(answers(session)) and not session.controller.busy)
    assert fake_ollama.chat_requests()[-1]["messages"][0] == {
        "role": "system",
        "content": "Answer in French.\nBriefly.",
    }
    assert open_settings(qtbot, session).tools_page.prompt_edit.toPlainText() == (
        "Answer in French.\nBriefly."
    )


def test_the_data_folder_is_shown_and_opens(
    home: SightlineHome, no_viewer: list[QUrl], open_window: OpenWindow, qtbot: QtBot
) -> None:
    session = open_window()
    page = open_settings(qtbot, session).tools_page
    assert page.data_edit.text() == str(home.data) and page.data_edit.isReadOnly()
    qtbot.mouseClick(page.open_button, Qt.MouseButton.LeftButton)
    assert [url.toLocalFile() for url in no_viewer] == [str(home.data)]


def test_the_card_waits_with_its_chat_while_the_person_reads_another(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("hello", encoding="utf-8")
    pick(session, MODEL)
    send(qtbot, session, "An earlier chat")
    wait_idle(qtbot, session)
    earlier = session.controller.current_id
    session.controller.new_conversation()
    fake_ollama.enqueue(read_call(notes), Reply(text="Read it."))
    send(qtbot, session, "Read my notes")
    shown = wait_card(qtbot, session)
    asking = session.controller.current_id

    session.controller.select_conversation(earlier)  # not a modal: other chats stay readable
    qtbot.waitUntil(lambda: not shown.isVisible())
    session.controller.select_conversation(asking)
    qtbot.waitUntil(shown.isVisible)
    # Tab walks from the card to its buttons, in order.
    qtbot.waitUntil(shown.hasFocus)
    qtbot.keyClick(shown, Qt.Key.Key_Tab)
    assert shown.once_button.hasFocus()
    qtbot.keyClick(shown.once_button, Qt.Key.Key_Tab)
    assert shown.chat_button.hasFocus()
    qtbot.keyClick(shown.chat_button, Qt.Key.Key_Space)
    wait_idle(qtbot, session)
    assert answers(session)[-1]["text"] == "Read it."
    assert session.controller.allowed_tools(asking) == {"read_file"}
    assert session.controller.allowed_tools(earlier) == frozenset()


def test_the_window_offers_the_mcp_servers_tools(
    home: SightlineHome,
    open_window: OpenWindow,
    run: Callable[[Awaitable[Any]], Any],
    tmp_path: Path,
) -> None:
    import sys

    servers = tmp_path / "mcp.json"
    servers.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "pics": {"command": sys.executable, "args": ["-m", "tests.servers.mcp_server"]}
                }
            }
        )
    )
    # A top-level key goes before the [[providers]] tables, or it would belong to one.
    home.config.write_text(f'mcp_config = "{servers}"\n' + home.config.read_text())
    session = open_window()
    names = [t.spec.name for t in run(session.controller._tools())]
    assert names[:2] == ["read_file", "screenshot"]
    assert "pics__tiny_image" in names


def test_mcp_servers_can_start_with_the_window(
    home: SightlineHome,
    fake_ollama: FakeOllama,
    open_window: OpenWindow,
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    import os

    from tests.servers.mcp_server import STARTED_ENV, entry

    servers, markers = tmp_path / "mcp.json", [tmp_path / "pics.pid", tmp_path / "more.pid"]
    entries = {marker.stem: entry(**{STARTED_ENV: str(marker)}) for marker in markers}
    servers.write_text(json.dumps({"mcpServers": entries}))
    setting = f'mcp_config = "{servers}"\nmcp_start_at_launch = true\n'
    home.config.write_text(setting + home.config.read_text())
    session = open_window()
    # Both children run and have shaken hands, though no turn has asked for a tool.
    qtbot.waitUntil(lambda: all(marker.exists() for marker in markers), timeout=20_000)
    toolbox = session.controller.turn_tools.toolbox
    assert toolbox is not None and toolbox.hub is not None
    hub = toolbox.hub
    qtbot.waitUntil(lambda: all(s.started for s in hub.servers.values()), timeout=20_000)
    assert sorted(hub.servers) == ["more", "pics"]
    for marker in markers:
        os.kill(int(marker.read_text(encoding="utf-8")), 0)  # alive (ProcessLookupError if not)
    assert fake_ollama.chat_requests() == []


def test_a_tool_allowed_in_settings_runs_without_asking(
    fake_ollama: FakeOllama, session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    pick(session, MODEL)
    dialog = open_settings(qtbot, session)
    page = dialog.tools_page
    assert not page.always_boxes["read_file"].isChecked()
    page.always_boxes["read_file"].setChecked(True)
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: session.window.settings_dialog is None)
    assert load_config().always_allow_tools == ("read_file",)

    notes = tmp_path / "notes.txt"
    notes.write_text("Buy milk\n", encoding="utf-8")
    fake_ollama.enqueue(read_call(notes), Reply(text="Milk."))
    send(qtbot, session, "What is on my list?")
    wait_idle(qtbot, session)
    assert card(session).request is None  # never asked
    follow_up = fake_ollama.chat_requests()[-1]["messages"]
    assert follow_up[-1] == {"role": "tool", "content": "Buy milk\n", "tool_name": "read_file"}


def test_what_every_chat_does_past_the_window_is_saved_and_used(
    session: Session, qtbot: QtBot
) -> None:
    dialog = open_settings(qtbot, session)
    combo = dialog.tools_page.overflow_combo
    assert combo.currentData() == "leave_out"  # the default
    combo.setCurrentIndex(combo.findData("stop"))
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: session.window.settings_dialog is None)
    assert load_config().context_overflow == "stop"

    def stopping() -> bool:
        runner = session.controller.sending.runner
        return runner is not None and runner.defaults.overflow == "stop"

    qtbot.waitUntil(stopping)  # the runner takes it for the next turn
    assert open_settings(qtbot, session).tools_page.overflow_combo.currentData() == "stop"
