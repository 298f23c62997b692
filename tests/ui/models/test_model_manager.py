"""The Local models dialog against the loopback Ollama: pull with progress, cancel, fail, delete."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QWidget,
)
from pytestqt.qtbot import QtBot

from app.presenters.pull_words import size_words
from app.ui.models.model_manager import ModelManager
from app.ui.models.pull_progress import STEPS
from app.ui.models.vision_offer import SEES_HEADING
from app.ui.session import Session
from app.ui.theme import shows_problem
from routing.ollama_models import VISION_MODELS
from tests.servers.ollama import DEFAULT_MODELS, FakeOllama, tags_entry
from tests.servers.ollama_library import LibraryModel, PullReply

# "1.2 GB of 3.2 GB · 41 % · 25 MB/s", as the dialog words a running download.
AMOUNT = re.compile(r"^[\d.]+ (GB|MB|KB|bytes) of [\d.]+ GB · \d{1,3} % · [\d.]+ (GB|MB|KB)/s$")


def open_manager(qtbot: QtBot, session: Session, *, suggest_vision: bool = False) -> ModelManager:
    """The dialog for the loopback Ollama, shown over the window."""
    dialog = ModelManager(session.controller, "ollama", session.window, suggest_vision)
    dialog.show()
    qtbot.waitUntil(dialog.isVisible)
    return dialog


def pull_by_name(qtbot: QtBot, dialog: ModelManager, name: str) -> None:
    """Type a name and press Pull, as a person would."""
    dialog.name_edit.clear()
    qtbot.keyClicks(dialog.name_edit, name)
    qtbot.mouseClick(dialog.pull_button, Qt.MouseButton.LeftButton)


def picker_refs(session: Session) -> list[str]:
    """What the window's model picker offers."""
    return [m.ref for m in session.window.picker.models()]


def unnamed_controls(widget: QWidget) -> list[str]:
    """Every control under `widget` without an accessible name."""
    controls = (QAbstractButton, QAbstractItemView, QComboBox, QLineEdit, QLabel, QProgressBar)
    return [
        f"{type(w).__name__} {getattr(w, 'text', lambda: '')()!r}"
        for w in widget.findChildren(QWidget)
        if isinstance(w, (*controls, QGroupBox)) and not w.accessibleName()
    ]


# -- pulling ---------------------------------------------------------------------------


def test_a_pull_moves_the_bar_in_words_and_the_picker_lists_the_model(
    session: Session, fake_ollama: FakeOllama, qtbot: QtBot
) -> None:
    dialog = open_manager(qtbot, session)
    assert not dialog.vision_box.isVisibleTo(dialog)  # only offered when asked for
    assert not dialog.progress.isVisibleTo(dialog)
    values: list[int] = []
    dialog.progress.bar.valueChanged.connect(values.append)
    amounts: list[str] = []
    fake_ollama.enqueue_pull(PullReply(delay=0.03, steps=10))
    with qtbot.waitSignal(dialog.pulled, timeout=10_000) as pulled:
        pull_by_name(qtbot, dialog, "moondream:1.8b")
        assert dialog.pulling == "moondream:1.8b" and dialog.progress.isVisible()
        qtbot.waitUntil(lambda: AMOUNT.match(dialog.progress.amount.text()) is not None)
        amounts.append(dialog.progress.amount.text())
        assert dialog.progress.status.text() == "Downloading moondream:1.8b…"
        assert dialog.progress.bar.accessibleDescription() == amounts[0]
        assert "of 1.7 GB" in amounts[0]
    assert pulled.args == ["ollama:moondream:1.8b"]
    # The bar moved through the download, never back, and ended full.
    assert len({v for v in values if 0 < v < STEPS}) >= 5
    assert values == sorted(values) and values[-1] == STEPS
    assert "ollama:moondream:1.8b" in picker_refs(session)  # listed before `pulled` came
    assert "moondream:1.8b" in dialog.installed.rows
    # Once listed, it says so: not "Sightline is listing it now" for ever.
    assert dialog.message.text() == (
        "moondream:1.8b is ready and listed: choose it in the model picker."
    )
    assert not dialog.progress.isVisibleTo(dialog) and dialog.pulling == ""
    request = fake_ollama.received(lambda r: r.path == "/api/pull")
    assert [r.body for r in request] == [{"model": "moondream:1.8b", "stream": True}]
    dialog.close()


def test_cancel_stops_the_pull_at_ollama(
    session: Session, fake_ollama: FakeOllama, qtbot: QtBot
) -> None:
    dialog = open_manager(qtbot, session)
    got: list[str] = []
    dialog.pulled.connect(got.append)
    fake_ollama.enqueue_pull(PullReply(delay=0.05, steps=400))
    pull_by_name(qtbot, dialog, "gemma3:4b")
    qtbot.waitUntil(lambda: dialog.progress.bar.value() > 0, timeout=10_000)
    qtbot.mouseClick(dialog.progress.cancel, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.pulling == "")
    assert dialog.message.text().startswith("Stopped pulling gemma3:4b.")
    assert not dialog.progress.isVisibleTo(dialog)
    run = fake_ollama.pulls[0]
    qtbot.waitUntil(run.ended.is_set, timeout=5_000)
    assert run.outcome == "client gone"
    assert got == [] and "ollama:gemma3:4b" not in picker_refs(session)
    dialog.close()


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (PullReply(error_after=4), "Ollama could not reach its library to download gemma3:4b"),
        (PullReply(drop_after=5), "Pulling gemma3:4b stopped: the connection to Ollama"),
    ],
    ids=["error line", "dropped connection"],
)
def test_a_failure_midway_is_shown_in_words(
    session: Session, fake_ollama: FakeOllama, qtbot: QtBot, reply: PullReply, words: str
) -> None:
    dialog = open_manager(qtbot, session)
    got: list[str] = []
    dialog.pulled.connect(got.append)
    fake_ollama.enqueue_pull(reply)
    pull_by_name(qtbot, dialog, "gemma3:4b")
    qtbot.waitUntil(lambda: dialog.pulling == "", timeout=10_000)
    assert dialog.message.text().startswith(words)
    assert "Traceback" not in dialog.message.text()
    assert shows_problem(dialog.message)
    assert not dialog.progress.isVisibleTo(dialog) and got == []
    dialog.close()


def test_an_unknown_name_says_to_check_it_and_nothing_listening_says_to_start_ollama(
    session: Session, fake_ollama: FakeOllama, qtbot: QtBot
) -> None:
    dialog = open_manager(qtbot, session)
    pull_by_name(qtbot, dialog, "qwen2.5vl:300b")
    qtbot.waitUntil(lambda: dialog.pulling == "" and bool(dialog.message.text()))
    assert "no model called qwen2.5vl:300b" in dialog.message.text()
    assert "Check the name" in dialog.message.text()
    fake_ollama.stop()
    pull_by_name(qtbot, dialog, "llava:7b")
    qtbot.waitUntil(lambda: "Is Ollama running?" in dialog.message.text(), timeout=10_000)
    dialog.close()


def test_a_second_pull_while_one_runs_is_refused_in_words(
    session: Session, fake_ollama: FakeOllama, qtbot: QtBot
) -> None:
    dialog = open_manager(qtbot, session, suggest_vision=True)
    fake_ollama.enqueue_pull(PullReply(delay=0.05, steps=400))
    pull_by_name(qtbot, dialog, "gemma3:4b")
    qtbot.waitUntil(lambda: len(fake_ollama.pulls) == 1, timeout=10_000)
    qtbot.mouseClick(dialog.vision_rows["moondream:1.8b"][2], Qt.MouseButton.LeftButton)
    assert dialog.message.text().startswith("Already pulling gemma3:4b: one at a time.")
    assert dialog.pulling == "gemma3:4b" and dialog.pull_model("llava:7b") is False
    assert [r.name for r in fake_ollama.pulls] == ["gemma3:4b"]
    # Closing the dialog stops the pull that runs.
    dialog.close()
    qtbot.waitUntil(fake_ollama.pulls[0].ended.is_set, timeout=5_000)
    assert fake_ollama.pulls[0].outcome == "client gone"
    # Opened again, it pulls and follows the listing as before.
    dialog.show()
    assert dialog.message.text().startswith("Stopped pulling gemma3:4b.")
    assert not dialog.progress.isVisibleTo(dialog)
    with qtbot.waitSignal(dialog.pulled, timeout=10_000) as pulled:
        qtbot.mouseClick(dialog.vision_rows["moondream:1.8b"][2], Qt.MouseButton.LeftButton)
    assert pulled.args == ["ollama:moondream:1.8b"]
    qtbot.waitUntil(lambda: "moondream:1.8b" in dialog.installed.rows)
    assert dialog.vision_rows["moondream:1.8b"][2].text() == "Installed"
    dialog.close()


def test_an_empty_name_is_asked_for(session: Session, qtbot: QtBot) -> None:
    dialog = open_manager(qtbot, session)
    qtbot.mouseClick(dialog.pull_button, Qt.MouseButton.LeftButton)
    assert dialog.message.text() == "Type the name of a model to pull, such as qwen2.5vl:3b."
    assert dialog.pulling == ""
    dialog.close()


# -- deleting --------------------------------------------------------------------------


def test_delete_asks_first_and_the_model_leaves_the_picker(
    session: Session, fake_ollama: FakeOllama, qtbot: QtBot
) -> None:
    dialog = open_manager(qtbot, session)
    assert list(dialog.installed.rows) == ["llama3.2:3b", "llava:7b", "qwen2.5vl:3b", "gemma3:270m"]

    def deletes() -> list[object]:
        return [r.body for r in fake_ollama.received(lambda r: r.method == "DELETE")]

    def ask() -> QMessageBox:
        qtbot.mouseClick(dialog.installed.rows["gemma3:270m"].delete, Qt.MouseButton.LeftButton)
        box = dialog.installed.confirm
        assert isinstance(box, QMessageBox)
        qtbot.waitUntil(box.isVisible)
        assert "Delete gemma3:270m from Ollama on this computer?" in box.text()
        assert unnamed_controls(box) == []
        return box

    def press(box: QMessageBox, name: str) -> None:
        button = next(b for b in box.buttons() if b.accessibleName() == name)
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)

    press(ask(), "Keep gemma3:270m")
    qtbot.waitUntil(lambda: dialog.installed.confirm is None)
    assert deletes() == [] and "gemma3:270m" in dialog.installed.rows

    press(ask(), "Delete gemma3:270m now")
    qtbot.waitUntil(lambda: "gemma3:270m" not in dialog.installed.rows, timeout=10_000)
    assert deletes() == [{"model": "gemma3:270m"}]
    assert dialog.message.text() == "Deleted gemma3:270m."
    qtbot.waitUntil(lambda: not session.controller.listing.listing, timeout=10_000)
    assert "ollama:gemma3:270m" not in picker_refs(session)
    dialog.close()


def test_deleting_a_model_already_gone_says_so(
    session: Session, fake_ollama: FakeOllama, qtbot: QtBot
) -> None:
    dialog = open_manager(qtbot, session)
    assert fake_ollama.uninstall("llava:7b")  # gone behind the window's back
    dialog.delete_model("llava:7b")
    qtbot.waitUntil(lambda: "not installed" in dialog.message.text(), timeout=10_000)
    assert dialog.message.text().startswith("llava:7b is not installed in Ollama")
    qtbot.waitUntil(lambda: "llava:7b" not in dialog.installed.rows, timeout=10_000)
    dialog.close()


# -- the models that see ---------------------------------------------------------------


def test_suggest_vision_offers_small_models_that_see_first_and_pulls_one(
    session: Session, fake_ollama: FakeOllama, qtbot: QtBot
) -> None:
    dialog = open_manager(qtbot, session, suggest_vision=True)
    assert dialog.vision_box.isVisible() and dialog.vision_box.title() == SEES_HEADING
    layout = dialog.layout()
    assert layout is not None
    assert layout.indexOf(dialog.vision_box) < layout.indexOf(dialog.installed)
    assert list(dialog.vision_rows) == [name for name, _ in VISION_MODELS]
    shown = {
        name: (size.text(), button.text()) for name, (_, size, button) in dialog.vision_rows.items()
    }
    assert shown == {
        "qwen2.5vl:3b": ("about 3.2 GB", "Installed"),  # the loopback Ollama has these two
        "gemma3:4b": ("about 3.3 GB", "Pull"),
        "granite3.2-vision:2b": ("about 2.4 GB", "Pull"),
        "moondream:1.8b": ("about 1.7 GB", "Pull"),
        "llava:7b": ("about 4.7 GB", "Installed"),
    }
    assert not dialog.vision_rows["llava:7b"][2].isEnabled()
    # The library's real size differs from the offer's: Ollama's is shown once it says it.
    real = LibraryModel("granite3.2-vision:2b", ("completion", "vision"), 2_450_000_000)
    fake_ollama.library[real.name] = real
    with qtbot.waitSignal(dialog.pulled, timeout=10_000) as pulled:
        qtbot.mouseClick(dialog.vision_rows["granite3.2-vision:2b"][2], Qt.MouseButton.LeftButton)
    assert pulled.args == ["ollama:granite3.2-vision:2b"]
    _, size, button = dialog.vision_rows["granite3.2-vision:2b"]
    assert size.text() == "2.5 GB" and button.text() == "Installed"
    assert "ollama:granite3.2-vision:2b" in picker_refs(session)
    dialog.close()


def test_every_control_is_named(session: Session, qtbot: QtBot) -> None:
    dialog = open_manager(qtbot, session, suggest_vision=True)
    dialog.progress.show()
    assert unnamed_controls(dialog) == []
    assert dialog.accessibleName() == "Local models" and dialog.windowTitle() == "Local models"
    assert not dialog.isModal()
    dialog.close()


def test_each_installed_model_shows_its_size_and_the_pickers_eye_where_it_sees(
    session: Session, qtbot: QtBot
) -> None:
    dialog = open_manager(qtbot, session)
    qtbot.waitUntil(lambda: len(dialog.installed.rows) == 4)
    for model in DEFAULT_MODELS:
        row = dialog.installed.rows[model.name]
        listed = tags_entry(model)["size"]
        assert row.amount.text() == size_words(listed)  # Ollama's /api/tags size, in GB or MB
        assert row.amount.text().endswith(("GB", "MB")) and row.amount.isVisibleTo(dialog)
        sees = "vision" in model.capabilities
        pixmap = row.badge.pixmap()
        assert (not pixmap.isNull()) is sees, model.name  # the eye only on models that see
        assert row.badge.accessibleName() == ("sees pictures" if sees else "doesn't see pictures")
    # The same eye the picker draws: its colour is the text's, as the picker's.
    eye = dialog.installed.rows["llava:7b"].badge.pixmap().toImage()
    assert any(eye.pixelColor(x, y).alpha() > 200 for x in range(16) for y in range(16))
    # A model marked blind loses its eye in place, without the rows being rebuilt.
    row = dialog.installed.rows["llava:7b"]
    session.controller.sight.mark("ollama:llava:7b", True)
    qtbot.waitUntil(lambda: row.badge.pixmap().isNull())
    assert dialog.installed.rows["llava:7b"] is row
    assert row.badge.accessibleName().startswith("doesn't see pictures")
    dialog.close()
