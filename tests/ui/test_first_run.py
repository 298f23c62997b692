"""The first start (no config file, no chat yet): what was found here, and what to do next."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app import config, paths
from app.presenters.first_run import WELCOME
from routing.models import ProviderConfig
from tests.conftest import SightlineHome
from tests.servers.loopback import closed_port
from tests.servers.ollama import FakeOllama
from tests.ui.helpers import OpenWindow, answers, send, wait_idle


@pytest.fixture
def servers(home: SightlineHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """No config file; the local servers looked for are the test's (addresses by name)."""
    monkeypatch.delenv("SIGHTLINE_CONFIG")
    missing = tmp_path / "nowhere" / "config.toml"
    monkeypatch.setattr(paths, "config_file", lambda environ=None: missing)
    addresses = {
        "ollama": f"http://127.0.0.1:{closed_port()}",
        "lmstudio": f"http://127.0.0.1:{closed_port()}",
        "llamacpp": f"http://127.0.0.1:{closed_port()}/v1",
    }

    def candidates(environ: Mapping[str, str] | None = None) -> list[ProviderConfig]:
        kinds = {"ollama": "ollama", "lmstudio": "lmstudio", "llamacpp": "custom"}
        return [
            ProviderConfig(pid, kinds[pid], url, discovered=True) for pid, url in addresses.items()
        ]

    monkeypatch.setattr(config, "discovery_candidates", candidates)
    return addresses


def test_found_servers_are_named_and_the_first_message_ends_the_welcome(
    servers: dict[str, str], fake_ollama: FakeOllama, open_window: OpenWindow, qtbot: QtBot
) -> None:
    servers["ollama"] = fake_ollama.base_url
    session = open_window()
    window = session.window
    assert session.controller.config.source is None
    qtbot.waitUntil(lambda: window.welcome.isVisible(), timeout=10_000)
    said = window.welcome.text()
    port = fake_ollama.base_url.rsplit(":", 1)[1]
    assert WELCOME in said
    assert f"Ollama at 127.0.0.1:{port}: 4 models" in said
    lmstudio = servers["lmstudio"].removeprefix("http://")
    assert f"LM Studio at {lmstudio}: not running" in said
    assert "llama.cpp at 127.0.0.1:" in said
    assert "Write your first message below" in said
    assert not window.welcome.retry.isVisible()  # something answered: nothing to retry
    assert window.welcome.cloud.isVisible()
    assert not window.panel.isVisible() and not window.view.isVisible()

    # "Add a cloud provider…" opens Settings → Providers with the list of kinds open.
    qtbot.mouseClick(window.welcome.cloud, Qt.MouseButton.LeftButton)
    dialog = window.settings_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.tabs.currentIndex() == 0
    qtbot.waitUntil(dialog.providers_page.add_menu.isVisible)
    dialog.providers_page.add_menu.hide()
    dialog.reject()
    qtbot.waitUntil(lambda: window.settings_dialog is None)

    send(qtbot, session, "Hello")
    qtbot.waitUntil(lambda: len(answers(session)) == 1, timeout=10_000)
    wait_idle(qtbot, session)
    assert not window.welcome.isVisible() and window.view.isVisible()
    window.controller.new_conversation()  # a chat exists now: no welcome in a new one
    assert not window.welcome.isVisible()


def test_no_server_found_says_what_to_do_and_try_again_finds_one(
    servers: dict[str, str], open_window: OpenWindow, qtbot: QtBot
) -> None:
    session = open_window()
    window = session.window
    qtbot.waitUntil(lambda: window.welcome.isVisible(), timeout=15_000)
    said = window.welcome.text()
    assert "Ollama at 127.0.0.1:" in said and ": not running" in said
    assert "No model server is running on this computer" in said
    assert "ollama pull llama3.2" in said and "cloud provider" in said
    assert window.welcome.retry.isVisible() and window.welcome.cloud.isVisible()
    assert not window.panel.isVisible()  # the welcome says it, more kindly

    port = int(servers["ollama"].rsplit(":", 1)[1])
    with FakeOllama(port=port):
        qtbot.mouseClick(window.welcome.retry, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: len(window.picker.models()) == 4, timeout=10_000)
        qtbot.waitUntil(lambda: "4 models" in window.welcome.text())
        assert window.welcome.isVisible() and not window.welcome.retry.isVisible()


def test_a_server_without_models_is_told_to_pull_one(
    servers: dict[str, str], open_window: OpenWindow, qtbot: QtBot
) -> None:
    port = int(servers["ollama"].rsplit(":", 1)[1])
    with FakeOllama(port=port, models=[]):
        session = open_window()
        window = session.window
        qtbot.waitUntil(lambda: window.welcome.isVisible(), timeout=15_000)
        said = window.welcome.text()
        assert "running, but it has no models yet" in said
        assert "ollama pull llama3.2" in said and "Try again" in said


def test_with_a_config_file_there_is_no_welcome(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    session = open_window()
    qtbot.waitUntil(lambda: not session.controller.listing.listing, timeout=10_000)
    assert not session.window.welcome.isVisible()


def test_a_config_file_named_but_not_made_yet_opens_on_defaults_and_saving_writes_it(
    home: SightlineHome,
    open_window: OpenWindow,
    qtbot: QtBot,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fake_ollama: FakeOllama,
) -> None:
    named = tmp_path / "not yet" / "sightline.toml"
    monkeypatch.setenv("SIGHTLINE_CONFIG", str(named))
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.base_url)
    session = open_window()
    status = session.window.statusBar().currentMessage()
    assert status == (
        f"SIGHTLINE_CONFIG names {named}, which doesn't exist yet: Sightline uses its "
        "defaults, and saving Settings writes it."
    )
    dialog = session.window.open_settings()
    with qtbot.waitSignal(dialog.finished, timeout=10_000):
        qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(named.exists)
    assert named.stat().st_mode & 0o777 == 0o600
    assert named.parent.stat().st_mode & 0o777 == 0o700
