"""The Settings dialog against real loopback servers, a real config file and a real store."""

from __future__ import annotations

import asyncio
import threading
import tomllib
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QMessageBox,
    QWidget,
)
from pytestqt.qtbot import QtBot

from app.keys import SERVICE
from app.ui.session import Session
from app.ui.settings.settings_dialog import SettingsDialog
from routing.transcript import MessageStatus
from tests.app.test_keys import MemoryKeyring
from tests.conftest import SightlineHome, write_config
from tests.servers.ollama import FakeOllama
from tests.servers.openai_chat import FakeOpenAI
from tests.ui.helpers import (
    OpenWindow,
    Run,
    answers,
    open_settings,
    send,
    wait_for_models,
    wait_idle,
)

KEY = "sk-right-0123456789abcdef"


@pytest.fixture(autouse=True)
def no_key_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys in the tester's environment must not leak into what is tested."""
    for variable in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GROQ_API_KEY"):
        monkeypatch.delenv(variable, raising=False)


@pytest.fixture
def openai() -> Iterator[FakeOpenAI]:
    """A loopback OpenAI that wants `KEY`."""
    server = FakeOpenAI(api_key=KEY)
    server.start()
    yield server
    server.stop()


def add(dialog: SettingsDialog, label: str) -> None:
    """Choose a kind from the Add provider menu."""
    action = next(a for a in dialog.providers_page.add_menu.actions() if a.text() == label)
    action.trigger()


def add_openai(qtbot: QtBot, dialog: SettingsDialog, url: str, key: str = KEY) -> None:
    """Add an OpenAI provider at `url`, typing its address and key like a person."""
    add(dialog, "OpenAI")
    form = dialog.providers_page.form
    qtbot.keyClicks(form.url_edit, url)
    qtbot.keyClicks(form.key_edit, key)


def check_connection(qtbot: QtBot, dialog: SettingsDialog) -> str:
    """Click Test connection and wait for its result."""
    form = dialog.providers_page.form
    qtbot.mouseClick(form.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not form.testing, timeout=10_000)
    return form.test_result.text()


def save(qtbot: QtBot, dialog: SettingsDialog) -> None:
    """Press Save and wait for the dialog to close (it is deleted then)."""
    with qtbot.waitSignal(dialog.finished, timeout=10_000):
        qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)


def saved_providers(home: SightlineHome) -> list[dict[str, object]]:
    """The [[providers]] tables of the config file."""
    return list(tomllib.loads(home.config.read_text(encoding="utf-8"))["providers"])


def files_containing(folder: Path, secret: str) -> list[Path]:
    """Every file under `folder` whose bytes contain `secret`."""
    return [p for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


# -- adding, testing, saving ---------------------------------------------------------


def test_add_an_openai_provider_test_it_and_save_it(
    home: SightlineHome, openai: FakeOpenAI, session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    dialog = open_settings(qtbot, session)
    assert [d.id for d in dialog.providers.drafts] == ["ollama"]
    add(dialog, "OpenAI")
    form = dialog.providers_page.form
    assert form.id_edit.text() == "openai" and form.kind_label.text() == "OpenAI"
    assert form.url_edit.text() == "" and form.url_edit.placeholderText() == (
        "https://api.openai.com/v1"
    )
    assert form.key_edit.echoMode() == QLineEdit.EchoMode.Password
    assert "kept until Sightline closes" in form.key_note.text()  # no keyring here
    qtbot.keyClicks(form.url_edit, openai.url)
    qtbot.keyClicks(form.key_edit, KEY)

    # The key is hidden until the person asks to see what they typed.
    qtbot.mouseClick(form.key_toggle, Qt.MouseButton.LeftButton)
    assert form.key_edit.echoMode() == QLineEdit.EchoMode.Normal
    qtbot.mouseClick(form.key_toggle, Qt.MouseButton.LeftButton)
    assert form.key_edit.echoMode() == QLineEdit.EchoMode.Password

    result = check_connection(qtbot, dialog)
    assert result.startswith("Found 2 models: ")
    assert "gpt-4o-mini" in result and "text-only-7b" in result
    assert result.count("<img") == 2  # OpenAI's models all see: an eye on each
    assert openai.headers[-1]["Authorization"] == f"Bearer {KEY}"

    # A second click while a test runs replaces it: one result, no error.
    qtbot.mouseClick(form.test_button, Qt.MouseButton.LeftButton)
    first = form._test
    qtbot.mouseClick(form.test_button, Qt.MouseButton.LeftButton)
    assert first is not None and form._test is not first
    qtbot.waitUntil(lambda: not form.testing and first.done(), timeout=10_000)
    assert first.cancelled()
    assert form.test_result.text().startswith("Found 2 models")

    counts: list[int] = []
    session.controller.models_changed.connect(lambda listing: counts.append(len(listing.models)))
    save(qtbot, dialog)
    assert saved_providers(home) == [
        {
            "id": "ollama",
            "kind": "ollama",
            "base_url": session.config.providers[0].base_url,
            "enabled": True,
        },
        {"id": "openai", "kind": "openai", "base_url": openai.url, "enabled": True},
    ]
    # The key is nowhere on disk: not in the config folder, not in the data folder.
    assert files_containing(tmp_path, KEY) == []

    qtbot.waitUntil(lambda: not session.controller.listing.listing, timeout=10_000)
    refs = [m.ref for m in session.window.picker.models()]
    assert refs[:4] == [m.ref for m in session.controller.listing.models[:4]]
    assert "ollama:llama3.2:3b" in refs
    assert "openai:gpt-4o-mini" in refs and "openai:text-only-7b" in refs
    assert counts and 0 not in counts  # the picker never emptied while relisting


def test_a_wrong_key_is_named_in_plain_words(
    home: SightlineHome, openai: FakeOpenAI, open_window: OpenWindow, qtbot: QtBot
) -> None:
    session = open_window()
    dialog = open_settings(qtbot, session)
    add_openai(qtbot, dialog, openai.url, key="sk-wrong")
    result = check_connection(qtbot, dialog)
    assert "refused the API key" in result and "OPENAI_API_KEY" in result
    assert "sk-wrong" not in result and "Incorrect API key" not in result


def test_a_key_from_the_environment_is_shown_by_name_and_used(
    home: SightlineHome,
    openai: FakeOpenAI,
    open_window: OpenWindow,
    qtbot: QtBot,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    session = open_window()
    dialog = open_settings(qtbot, session)
    add(dialog, "OpenAI")
    form = dialog.providers_page.form
    assert form.key_edit.placeholderText() == "from OPENAI_API_KEY"
    assert form.key_edit.text() == ""
    qtbot.keyClicks(form.url_edit, openai.url)
    assert check_connection(qtbot, dialog).startswith("Found 2 models")


def test_without_a_keyring_the_key_lives_for_the_session_and_the_turn_works(
    openai: FakeOpenAI, session: Session, qtbot: QtBot, tmp_path: Path
) -> None:
    dialog = open_settings(qtbot, session)
    add_openai(qtbot, dialog, openai.url)
    assert (
        "No system keyring: kept until Sightline closes."
        in dialog.providers_page.form.key_note.text()
    )
    save(qtbot, dialog)
    picker = session.window.picker
    qtbot.waitUntil(
        lambda: "openai:gpt-4o-mini" in [m.ref for m in picker.models()], timeout=10_000
    )
    picker.set_current_ref("openai:gpt-4o-mini")
    send(qtbot, session, "Hello over the loopback")
    qtbot.waitUntil(
        lambda: bool(answers(session)) and answers(session)[-1]["status"] == MessageStatus.COMPLETE,
        timeout=10_000,
    )
    wait_idle(qtbot, session)
    assert answers(session)[-1]["text"] == "You said: Hello over the loopback"
    assert openai.headers[-1]["Authorization"] == f"Bearer {KEY}"
    assert files_containing(tmp_path, KEY) == []

    # Reopened, the dialog says where the key is without showing it.
    dialog = open_settings(qtbot, session)
    dialog.providers_page.list.setCurrentRow(1)
    assert dialog.providers_page.form.key_edit.text() == ""
    assert dialog.providers_page.form.key_edit.placeholderText() == "••• saved"
    assert "kept until Sightline closes" in dialog.providers_page.form.key_note.text()
    dialog.reject()


def test_with_a_keyring_the_key_is_stored_there_replaced_and_forgotten(
    openai: FakeOpenAI,
    memory_keyring: MemoryKeyring,
    session: Session,
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    dialog = open_settings(qtbot, session)
    add_openai(qtbot, dialog, openai.url)
    assert "Stored in your system keyring." in dialog.providers_page.form.key_note.text()
    save(qtbot, dialog)
    assert memory_keyring.secrets == {(SERVICE, "openai"): KEY}
    assert files_containing(tmp_path, KEY) == []

    dialog = open_settings(qtbot, session)
    dialog.providers_page.list.setCurrentRow(1)
    form = dialog.providers_page.form
    assert form.key_edit.text() == "" and form.key_edit.placeholderText() == "••• saved"
    assert form.key_note.text().startswith("Stored in your system keyring.")
    assert form.clear_key.isVisible()
    # Testing with the saved key works without the dialog ever holding it in a field.
    assert check_connection(qtbot, dialog).startswith("Found 2 models")
    qtbot.mouseClick(form.clear_key, Qt.MouseButton.LeftButton)
    assert "forgotten when you press Save" in form.key_note.text()
    save(qtbot, dialog)
    assert memory_keyring.secrets == {}
    qtbot.waitUntil(lambda: not session.controller.listing.listing, timeout=10_000)
    status = next(s for s in session.controller.listing.statuses if s.provider.id == "openai")
    assert status.error is not None and "needs an API key" in status.error.message


# -- order, removal, checks ---------------------------------------------------------------


def test_up_and_down_change_the_saved_order(
    home: SightlineHome, session: Session, qtbot: QtBot
) -> None:
    dialog = open_settings(qtbot, session)
    add(dialog, "Anthropic")
    add(dialog, "Groq")
    assert [d.id for d in dialog.providers.drafts] == ["ollama", "anthropic", "groq"]
    assert (
        dialog.providers_page.list.currentRow() == 2
        and not dialog.providers_page.down_button.isEnabled()
    )
    qtbot.mouseClick(dialog.providers_page.up_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dialog.providers_page.up_button, Qt.MouseButton.LeftButton)
    assert (
        dialog.providers_page.list.currentRow() == 0
        and not dialog.providers_page.up_button.isEnabled()
    )
    dialog.providers_page.list.setCurrentRow(1)  # ollama
    qtbot.mouseClick(dialog.providers_page.down_button, Qt.MouseButton.LeftButton)
    assert [d.id for d in dialog.providers.drafts] == ["groq", "anthropic", "ollama"]
    assert dialog.providers_page.list.item(0).text().startswith("groq\n")
    save(qtbot, dialog)
    assert [p["id"] for p in saved_providers(home)] == ["groq", "anthropic", "ollama"]
    # The controller uses the new order too.
    qtbot.waitUntil(
        lambda: (
            [p.id for p in session.controller.listing.providers] == ["groq", "anthropic", "ollama"]
        ),
        timeout=10_000,
    )


def test_dragging_a_provider_reorders_the_list(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    session = open_window()
    dialog = open_settings(qtbot, session)
    add(dialog, "Anthropic")
    add(dialog, "Groq")
    # What a drop does to the list's model: the last row moves to the top.
    dialog.providers_page.list.setCurrentRow(2)
    assert dialog.providers_page.list.model().moveRows(QModelIndex(), 2, 1, QModelIndex(), 0)
    qtbot.waitUntil(lambda: dialog.providers.drafts[0].id == "groq")
    assert [d.id for d in dialog.providers.drafts] == ["groq", "ollama", "anthropic"]
    assert (
        dialog.providers_page.list.currentRow() == 0
        and dialog.providers_page.form.id_edit.text() == "groq"
    )


def test_remove_asks_first_and_cancel_changes_nothing(
    home: SightlineHome, session: Session, qtbot: QtBot
) -> None:
    before = home.config.read_text(encoding="utf-8")
    dialog = open_settings(qtbot, session)
    qtbot.mouseClick(dialog.providers_page.remove_button, Qt.MouseButton.LeftButton)
    assert (
        dialog.providers_page.remove_box is not None
        and "ollama" in dialog.providers_page.remove_box.text()
    )
    dialog.providers_page.remove_box.button(QMessageBox.StandardButton.Cancel).click()
    assert [d.id for d in dialog.providers.drafts] == ["ollama"]
    qtbot.mouseClick(dialog.providers_page.remove_button, Qt.MouseButton.LeftButton)
    assert dialog.providers_page.remove_box is not None
    dialog.providers_page.remove_box.button(QMessageBox.StandardButton.Yes).click()
    assert dialog.providers.drafts == [] and dialog.providers_page.stack.currentIndex() == 2

    # Cancel: the file, the controller and the picker are as they were.
    with qtbot.waitSignal(dialog.finished):
        qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    assert session.window.settings_dialog is None
    assert home.config.read_text(encoding="utf-8") == before
    assert len(session.window.picker.models()) == 4

    dialog = open_settings(qtbot, session)
    dialog.providers_page.list.setCurrentRow(0)
    qtbot.mouseClick(dialog.providers_page.remove_button, Qt.MouseButton.LeftButton)
    assert dialog.providers_page.remove_box is not None
    dialog.providers_page.remove_box.button(QMessageBox.StandardButton.Yes).click()
    save(qtbot, dialog)
    assert "providers" not in tomllib.loads(home.config.read_text(encoding="utf-8")) or (
        saved_providers(home) == []
    )
    qtbot.waitUntil(lambda: session.window.picker.models() == (), timeout=10_000)


def test_an_invalid_name_or_address_blocks_save_with_a_message_beside_it(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    session = open_window()
    before = home.config.read_text(encoding="utf-8")
    dialog = open_settings(qtbot, session)
    add(dialog, "Your own server (OpenAI-compatible)")
    form = dialog.providers_page.form
    assert form.id_edit.text() == "custom"
    form.id_edit.selectAll()
    qtbot.keyClicks(form.id_edit, "my server")
    assert form.id_error.isVisible() and "letters, digits" in form.id_error.text()
    form.id_edit.selectAll()
    qtbot.keyClicks(form.id_edit, "ollama")
    assert "Another provider" in form.id_error.text()
    dialog.providers_page.list.setCurrentRow(
        0
    )  # the problem follows the list: Save selects it again
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and dialog.providers_page.list.currentRow() == 1
    assert "Another provider" in dialog.message.text()

    form.id_edit.selectAll()
    qtbot.keyClicks(form.id_edit, "llama.cpp")
    assert not form.id_error.isVisible()
    qtbot.keyClicks(form.url_edit, "ftp://127.0.0.1:8080")
    assert form.url_error.isVisible() and "http://" in form.url_error.text()
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and "http://" in dialog.message.text()
    assert home.config.read_text(encoding="utf-8") == before

    form.url_edit.selectAll()
    qtbot.keyClicks(form.url_edit, "http://127.0.0.1:8080/v1")
    assert not form.url_error.isVisible()
    assert dialog.providers_page.list.item(1).text().startswith("llama.cpp · Your own server")
    save(qtbot, dialog)
    assert saved_providers(home)[1] == {"id": "llama.cpp", "kind": "custom", "enabled": True}


def test_a_broken_config_file_is_reported_and_left_alone(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    session = open_window()
    dialog = open_settings(qtbot, session)
    add(dialog, "Mistral")
    home.config.write_text("providers = [[[\n", encoding="utf-8")  # broken behind our back
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.saving and bool(dialog.message.text()), timeout=10_000)
    assert str(home.config) in dialog.message.text()
    assert dialog.isVisible() and dialog.save_button.isEnabled()
    assert home.config.read_text(encoding="utf-8") == "providers = [[[\n"


def test_a_server_found_on_this_computer_can_be_added(
    tmp_path: Path,
    fake_ollama: FakeOllama,
    monkeypatch: pytest.MonkeyPatch,
    open_window: OpenWindow,
    qtbot: QtBot,
) -> None:
    config = tmp_path / "config.toml"
    write_config(config, None, discover=True)
    monkeypatch.setenv("SIGHTLINE_CONFIG", str(config))
    monkeypatch.setenv("SIGHTLINE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.base_url)
    session = open_window()
    qtbot.waitUntil(lambda: len(session.window.picker.models()) == 4, timeout=10_000)
    dialog = open_settings(qtbot, session)
    assert dialog.providers.drafts == []
    assert dialog.providers_page.list.count() == 1
    assert dialog.providers_page.list.item(0).text().endswith("found on this computer")
    dialog.providers_page.list.setCurrentRow(0)
    where = f"127.0.0.1:{fake_ollama.port}"
    assert (
        dialog.providers_page.stack.currentIndex() == 1
        and where in dialog.providers_page.found_text.text()
    )
    qtbot.mouseClick(dialog.providers_page.add_found_button, Qt.MouseButton.LeftButton)
    assert [d.id for d in dialog.providers.drafts] == ["ollama"]
    assert (
        dialog.providers_page.stack.currentIndex() == 0 and dialog.providers_page.list.count() == 1
    )
    save(qtbot, dialog)
    # Its address is OLLAMA_HOST's, so the file needn't repeat it.
    assert tomllib.loads(config.read_text(encoding="utf-8"))["providers"] == [
        {"id": "ollama", "kind": "ollama", "enabled": True}
    ]
    qtbot.waitUntil(lambda: len(session.window.picker.models()) == 4, timeout=10_000)
    assert [p.discovered for p in session.controller.listing.providers[:1]] == [False]


# -- opening, names, keys at start -------------------------------------------------------


def test_ctrl_comma_opens_settings_and_every_control_is_named(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    session = open_window()
    window = session.window
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    dialog = window.settings_dialog
    assert isinstance(dialog, SettingsDialog)
    qtbot.waitUntil(lambda: dialog.isVisible() and dialog.keys_known)
    assert window.open_settings() is dialog  # a second request brings the same one forward
    add(dialog, "OpenAI")
    controls = (QAbstractButton, QAbstractItemView, QComboBox, QLineEdit, QLabel)
    unnamed = [
        f"{type(w).__name__} {w.objectName()!r} {getattr(w, 'text', lambda: '')()!r}"
        for w in dialog.findChildren(QWidget)
        if isinstance(w, controls) and not w.accessibleName()
    ]
    assert unnamed == []
    assert [a.text() for a in dialog.providers_page.add_menu.actions() if not a.isSeparator()] == [
        "OpenAI",
        "Anthropic",
        "OpenRouter",
        "Gemini",
        "Mistral",
        "Groq",
        "xAI",
        "DeepSeek",
        "Cerebras",
        "Z.ai",
        "Kimi (Moonshot)",
        "Qwen (DashScope)",
        "MiniMax",
        "LM Studio",
        "Ollama",
        "Your own server (OpenAI-compatible)",
    ]
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.settings_dialog is None)


def test_the_missing_keyring_is_told_once(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot, run: Run
) -> None:
    home.config.write_text(
        'discover_local = false\n[[providers]]\nid = "openai"\nkind = "openai"\n', encoding="utf-8"
    )
    told: list[str] = []
    session = open_window()
    qtbot.waitUntil(lambda: not session.controller.listing.listing, timeout=10_000)
    qtbot.waitUntil(lambda: "No system keyring" in session.window.statusBar().currentMessage())
    # Listen only once the start has said it: the start's own word may come late.
    session.controller.problem.connect(told.append)
    run(session.controller.apply_settings())
    qtbot.waitUntil(lambda: not session.controller.listing.listing, timeout=10_000)
    assert told == []  # already said at start; not again


class _SlowKeyring(MemoryKeyring):
    """A keyring that, like a locked one on D-Bus, answers only when released."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.asked = threading.Event()

    def get_password(self, service: str, username: str) -> str | None:
        self.asked.set()
        self.release.wait(timeout=10)
        return super().get_password(service, username)


def test_a_slow_keyring_never_holds_up_the_window(
    home: SightlineHome, open_window: OpenWindow, qtbot: QtBot
) -> None:
    slow = _SlowKeyring()
    keyring.set_keyring(slow)
    try:
        session = open_window()
        qtbot.waitUntil(slow.asked.is_set, timeout=10_000)
        # The keyring is waiting, yet the window still runs its event loop and timers.
        ticks: list[int] = []
        loop = asyncio.get_event_loop()
        loop.call_later(0.05, ticks.append, 1)
        qtbot.waitUntil(lambda: ticks == [1], timeout=5000)
        assert session.controller.listing.listing and session.window.picker.models() == ()
    finally:
        slow.release.set()
    wait_for_models(qtbot, session)


def test_test_connection_without_a_key_says_to_enter_it_above(
    session: Session, qtbot: QtBot, no_keyring: None
) -> None:
    dialog = open_settings(qtbot, session)
    add(dialog, "Anthropic")
    said = check_connection(qtbot, dialog)
    assert "Enter the API key above" in said and "ANTHROPIC_API_KEY" in said
    assert "Settings" not in said  # the person is there already
