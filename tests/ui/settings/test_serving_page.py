"""Settings ▸ Serving in the real window: the switch starts the server on the window's own
loop and the official `openai` client reaches it with the token shown; the addresses and
the token copy; a port that is taken is said plainly; the choice is kept and served again
at the next start; off is off."""

from __future__ import annotations

import socket
import tomllib
from collections.abc import Iterator

import httpx
import openai
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLineEdit
from pytestqt.qtbot import QtBot

from app.serve.bearer import TOKEN_FILE
from app.ui.session import Session
from app.ui.settings.serving_page import OFF, ServingPage
from tests.conftest import SightlineHome
from tests.servers.loopback import closed_port
from tests.ui.helpers import OpenWindow, Run, open_settings


def serving_page(qtbot: QtBot, session: Session) -> ServingPage:
    """Settings opened on its Serving tab, as a person clicks to it."""
    dialog = open_settings(qtbot, session)
    dialog.tabs.setCurrentWidget(dialog.serving_page)
    return dialog.serving_page


def turn_on(qtbot: QtBot, page: ServingPage, port: int) -> None:
    """Choose the port, tick the switch, and wait until it serves."""
    page.port.setValue(port)
    qtbot.mouseClick(page.switch, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.server.status.on and not page.server.status.busy)


def kept(home: SightlineHome) -> dict[str, object]:
    return tomllib.loads(home.config.read_text(encoding="utf-8"))


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A loopback port another program listens on."""
    with socket.create_server(("127.0.0.1", 0)) as sock:
        yield int(sock.getsockname()[1])


def test_the_switch_serves_from_the_window_and_the_openai_client_gets_in_with_the_token(
    home: SightlineHome, session: Session, qtbot: QtBot, run: Run
) -> None:
    page = serving_page(qtbot, session)
    assert not page.switch.isChecked() and page.state.text() == OFF
    assert not page.token_field.isEnabled()
    assert not page.tools.isChecked()  # off until the person allows them
    qtbot.mouseClick(page.tools, Qt.MouseButton.LeftButton)
    port = closed_port()
    turn_on(qtbot, page, port)
    assert page.switch.isChecked()
    assert page.openai_field.text() == f"http://127.0.0.1:{port}/v1"
    assert page.ollama_field.text() == f"http://127.0.0.1:{port}"
    token = (home.data / TOKEN_FILE).read_text(encoding="utf-8").strip()
    assert page.token_field.text() == token
    assert page.token_field.echoMode() is QLineEdit.EchoMode.Password  # dots until asked
    qtbot.mouseClick(page.show_token, Qt.MouseButton.LeftButton)
    assert page.token_field.echoMode() is QLineEdit.EchoMode.Normal
    assert page.show_token.accessibleName() == "Hide token"
    # Chosen while it is off: what runs is what it was started with.
    assert not page.port.isEnabled() and not page.tools.isEnabled()
    # Each Copy puts its own words on the clipboard.
    clipboard = QGuiApplication.clipboard()
    for button, field in zip(
        page.copy_buttons, (page.openai_field, page.ollama_field, page.token_field), strict=True
    ):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        assert clipboard.text() == field.text()
        assert button.text() == "Copied"
    assert [b.accessibleName() for b in page.copy_buttons] == [
        "Copy OpenAI address",
        "Copy Ollama address",
        "Copy token",
    ]

    async def models() -> list[str]:
        client = openai.AsyncOpenAI(base_url=page.openai_field.text(), api_key=clipboard.text())
        async with client:
            return [m.id async for m in client.models.list()]

    assert run(models())[:1] == ["auto"]
    assert "ollama:llama3.2:3b" in run(models())
    assert kept(home)["serve_in_window"] is True
    assert kept(home)["serve_port"] == port
    assert kept(home)["serve_tools"] is True


def test_a_port_that_is_taken_is_said_plainly_and_the_switch_stays_off(
    home: SightlineHome, session: Session, qtbot: QtBot, taken_port: int
) -> None:
    page = serving_page(qtbot, session)
    page.port.setValue(taken_port)
    qtbot.mouseClick(page.switch, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not page.server.status.busy and bool(page.server.status.problem))
    assert page.state.text() == (
        f"Port {taken_port} is in use by another program (another Sightline or "
        "`sightline serve`, perhaps): choose another port."
    )
    assert "Traceback" not in page.state.text()
    assert not page.switch.isChecked() and page.port.isEnabled()
    assert page.openai_field.text() == "" and not page.copy_buttons[0].isEnabled()
    assert "serve_in_window" not in kept(home)  # nothing to serve at the next start


def test_the_choice_is_kept_and_the_next_window_serves_on_its_own(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot, run: Run
) -> None:
    port = closed_port()
    # First: a top-level key written after a [[providers]] table would be the table's.
    earlier = home.config.read_text(encoding="utf-8")
    home.config.write_text(
        f"serve_in_window = true\nserve_port = {port}\n{earlier}", encoding="utf-8"
    )
    session = open_window()
    server = session.controller.serving
    qtbot.waitUntil(lambda: server.status.on, timeout=10_000)
    token = server.status.token

    async def tags() -> int:
        async with httpx.AsyncClient() as client:
            answer = await client.get(
                f"http://127.0.0.1:{port}/api/tags", headers={"Authorization": f"Bearer {token}"}
            )
            return answer.status_code

    assert run(tags()) == 200
    page = serving_page(qtbot, session)
    assert page.switch.isChecked() and page.openai_field.text().endswith(f":{port}/v1")
    # Off: the port is let go at once, and the next start won't serve.
    qtbot.mouseClick(page.switch, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not server.status.on and not server.status.busy)
    assert page.state.text() == OFF
    with pytest.raises(httpx.ConnectError):
        run(tags())
    assert "serve_in_window" not in kept(home)
    assert kept(home)["serve_port"] == port
