"""Driving the real window as a person does, for the UI tests: its rows as the conversation
model reports them, typing and sending, clicking a row's button, picking a model, attaching
files (dropped, as URLs), opening Settings; a conversation view over stored items; and
Sightline run as a program."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Protocol, TypedDict, TypeVar

from PySide6.QtCore import QMimeData, QPoint, QPointF, QSize, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage
from PySide6.QtWidgets import QApplication, QFileDialog, QWidget
from pytestqt.qtbot import QtBot

from app.store import StoredItem
from app.ui.composer.approval_card import ApprovalCard
from app.ui.composer.cards import PictureCard
from app.ui.conversation.conversation_model import ConversationModel, Role
from app.ui.conversation.conversation_view import ConversationView
from app.ui.models.model_picker import PickerRole
from app.ui.session import Session
from app.ui.settings.settings_dialog import SettingsDialog
from routing.transcript import Message, Notice, NoticeKind
from tests.pictures import gradient
from tests.servers.ollama import FakeOllama, Reply

OpenWindow = Callable[[], Session]
T = TypeVar("T")


class Run(Protocol):
    """The `run` fixture: a coroutine run to its end on the window's loop, and its result."""

    def __call__(self, awaitable: Awaitable[T], timeout_ms: int = ...) -> T: ...


ROOT = Path(__file__).resolve().parents[2]


class Row(TypedDict):
    """A conversation row as the model's data roles report it (see `Role`: never None)."""

    kind: str  # "message", "notice", or the agent's kind
    role: str  # user / assistant / tool / system; "" on a notice
    text: str
    status: str  # a MessageStatus; "" on a notice
    notice: str  # a NoticeKind; "" on a message
    id: int
    author: str


def close_session(session: Session, run: Callable[[Awaitable[None]], None]) -> None:
    """Shut a session down the way the app does on exit (again is harmless)."""
    if session.closed:
        return
    run(session.aclose())
    session.window.close()
    session.window.deleteLater()


def rows(session: Session) -> list[Row]:
    """The conversation view's rows, as the model's data roles report them."""
    model = session.window.conversation
    return [
        Row(
            kind=index.data(Role.KIND),
            role=index.data(Role.MESSAGE_ROLE),
            text=index.data(Role.TEXT),
            status=index.data(Role.STATUS),
            notice=index.data(Role.NOTICE_KIND),
            id=index.data(Role.ITEM_ID),
            author=index.data(Role.AUTHOR),
        )
        for index in (model.index(row, 0) for row in range(model.rowCount()))
    ]


def answers(session: Session) -> list[Row]:
    """The assistant rows."""
    return [r for r in rows(session) if r["role"] == "assistant"]


def wait_for_models(qtbot: QtBot, session: Session) -> None:
    """Until the picker lists the loopback Ollama's four models."""
    qtbot.waitUntil(lambda: len(session.window.picker.models()) == 4, timeout=10_000)


def send(qtbot: QtBot, session: Session, text: str) -> None:
    """Type into the composer and press Enter."""
    edit = session.window.composer.edit
    edit.setFocus()
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, Qt.Key.Key_Return)


def failed_turn(qtbot: QtBot, session: Session, fake: FakeOllama, text: str, error: str) -> Row:
    """Send `text` while the loopback Ollama fails it (a 500 saying `error`); once the turn
    has ended, its error notice."""
    fake.enqueue(Reply(status=500, body={"error": error}))
    send(qtbot, session, text)
    qtbot.waitUntil(lambda: any(r["notice"] == NoticeKind.ERROR for r in rows(session)))
    wait_idle(qtbot, session)
    [failed] = [r for r in rows(session) if r["notice"] == NoticeKind.ERROR]
    return failed


def wait_idle(qtbot: QtBot, session: Session) -> None:
    """Until no turn runs (an agent's turn starts its program first: hence the time)."""
    qtbot.waitUntil(lambda: not session.controller.busy, timeout=15_000)


def click_row_button(qtbot: QtBot, session: Session, item_id: int, block: int) -> None:
    """Click one of a row's buttons (a version arrow, Retry) where it is drawn."""
    view = session.window.view
    row = session.window.conversation.row_of(item_id)
    assert row is not None
    index = session.window.conversation.index(row, 0)
    view.scrollTo(index)
    qtbot.waitUntil(lambda: block in view.copy_buttons(index))
    point = view.copy_buttons(index)[block].center()
    qtbot.mouseMove(view.viewport(), point)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)


def choose_folder(qtbot: QtBot, session: Session, folder: Path) -> None:
    """Answer the working-folder question the window asks, as the person would."""
    qtbot.waitUntil(lambda: session.window.questions.folder_dialog is not None)
    dialog = session.window.questions.folder_dialog
    assert isinstance(dialog, QFileDialog) and dialog.isVisible()
    assert dialog.windowModality() != Qt.WindowModality.ApplicationModal  # the chats stay usable
    assert dialog.directory().absolutePath() == str(Path.home())  # the person's home first
    dialog.setDirectory(str(folder))
    dialog.accept()
    # The send awaits the answer: once the question is gone, it has gone on.
    qtbot.waitUntil(lambda: session.window.questions.folder_dialog is None)


def sent_to_agent(qtbot: QtBot, session: Session, text: str, folder: Path) -> None:
    """Send `text` to the chosen agent, answering its folder question with `folder`."""
    send(qtbot, session, text)
    choose_folder(qtbot, session, folder)


def asked_on_the_card(qtbot: QtBot, session: Session, text: str, folder: Path) -> ApprovalCard:
    """Send `text` to the chosen agent in `folder`, and wait until the approval card asks."""
    sent_to_agent(qtbot, session, text, folder)
    card = session.window.approving.card
    qtbot.waitUntil(lambda: card.isVisible() and card.request is not None, timeout=15_000)
    return card


def kinds(session: Session) -> list[str]:
    """Each row's kind, with a message's role: "thought", "plan", "message:assistant"…"""
    return [
        str(r["kind"]) + (f":{r['role']}" if r["kind"] == "message" else "") for r in rows(session)
    ]


def pick(session: Session, ref: str) -> None:
    """Choose a model the way the person does: a row of the picker becomes current."""
    picker = session.window.picker
    picker.setCurrentIndex(picker.findData(ref, PickerRole.REF))
    assert picker.current_ref() == ref


def open_settings(qtbot: QtBot, session: Session) -> SettingsDialog:
    """Open Settings from its button and wait until it knows where keys are kept."""
    qtbot.mouseClick(session.window.settings_button, Qt.MouseButton.LeftButton)
    dialog = session.window.settings_dialog
    assert isinstance(dialog, SettingsDialog)
    qtbot.waitUntil(lambda: dialog.isVisible() and dialog.keys_known, timeout=10_000)
    return dialog


# -- attaching ----------------------------------------------------------------------------


def shaded_picture(path: Path, size: tuple[int, int] = (1280, 800), shade: int = 0) -> Path:
    """A real picture with detail, saved at `path` in its suffix's format: a grey ramp with
    a coloured corner, so every shade makes a different file."""
    image = gradient(size)
    image.paste((40 + shade, 120, 200), (0, 0, size[0] // 3, size[1] // 3))
    image.save(path)
    return path


def cards(session: Session) -> list[PictureCard]:
    """The composer's picture cards."""
    return session.window.composer.strip.picture_cards()


def reading_done(session: Session) -> bool:
    return session.controller.attaching.attachments.reading == 0


def drop(widget: QWidget, mime: QMimeData) -> tuple[bool, bool]:
    """Drag `mime` onto `widget` and drop it; whether the enter and the drop were accepted."""
    action, button = Qt.DropAction.CopyAction, Qt.MouseButton.LeftButton
    enter = QDragEnterEvent(QPoint(20, 10), action, mime, button, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, enter)
    dropped = QDropEvent(QPointF(20, 10), action, mime, button, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, dropped)
    return enter.isAccepted(), dropped.isAccepted()


def file_urls(*paths: Path) -> QMimeData:
    """What a file manager drags or copies: the files' URLs."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


# -- a view alone, Sightline as a program ----------------------------------------------------


def stored_view(
    qtbot: QtBot, items: Sequence[Message | Notice]
) -> tuple[ConversationView, ConversationModel]:
    """A conversation view of its own, shown, over `items` as if stored in that order."""
    model = ConversationModel()
    view = ConversationView(model)
    qtbot.addWidget(view)
    view.resize(QSize(760, 560))
    view.show()
    model.set_items([StoredItem(n + 1, "c", n + 1, 0.0, item) for n, item in enumerate(items)])
    return view, model


def run_python(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`python ARGS` from the repository's root in `env`, its output kept as text."""
    return subprocess.run(
        [sys.executable, *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def inked(image: QImage) -> set[tuple[int, int]]:
    """The pixels of a drawing at least half covered."""
    return {
        (x, y)
        for y in range(image.height())
        for x in range(image.width())
        if image.pixelColor(x, y).alpha() >= 128
    }
