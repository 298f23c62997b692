"""Running the window's asyncio code under pytest-qt.

The app runs asyncio on Qt's event loop through qasync. In a test nobody calls
`app.exec()`: pytest-qt's `waitUntil`/`waitSignal` spin Qt's loop instead. So
the `qloop` fixture makes the app's loop (`app.ui.qt_asyncio.new_loop`, a
`qasync.QEventLoop`) and registers it as the thread's *running* asyncio loop for
the test; every time pytest-qt processes Qt events, qasync's timers and socket
notifiers fire and asyncio tasks take their steps. Like `run_window`, it has
asyncio's async-generator hooks installed while the test runs.

It deliberately does not use qasync's `already_running=True` mode: that mode's
clean-up calls `QApplication.exit()`, which emits `aboutToQuit` and leaves Qt's
"quit now" flag set, so every later `waitSignal` in the session would return at
once. Setting the running loop ourselves is the same thing qasync does inside
`run_forever`, minus the `exec()`.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Awaitable, Callable, Iterator
from typing import TypeVar

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.ui.qt_asyncio import async_generators_finalized_by, new_loop
from app.ui.session import Session, load_settings, open_session
from tests.app.test_keys import MemoryKeyring, NoKeyring
from tests.conftest import SightlineHome
from tests.ui.helpers import close_session, wait_for_models

T = TypeVar("T")


@pytest.fixture
def qloop(qapp: QApplication, qtbot: QtBot) -> Iterator[asyncio.AbstractEventLoop]:
    """A qasync loop, running (from asyncio's point of view) for the whole test."""
    loop = new_loop(qapp)
    asyncio.set_event_loop(loop)
    asyncio.events._set_running_loop(loop)
    try:
        with async_generators_finalized_by(loop):
            yield loop
            # Whatever a test left running is cancelled and allowed to unwind (a
            # turn writes its "stopped" mark while unwinding) before the loop closes.
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in pending:
                task.cancel()
            pending.append(asyncio.ensure_future(loop.shutdown_asyncgens()))
            qtbot.waitUntil(lambda: all(t.done() for t in pending), timeout=10_000)
    finally:
        asyncio.events._set_running_loop(None)
        asyncio.set_event_loop(None)
        loop.close()


@pytest.fixture
def run(qloop: asyncio.AbstractEventLoop, qtbot: QtBot) -> Callable[[Awaitable[T]], T]:
    """Run a coroutine to completion on the qasync loop while Qt keeps processing events."""

    def _run(awaitable: Awaitable[T], timeout_ms: int = 10_000) -> T:
        task = asyncio.ensure_future(awaitable)
        qtbot.waitUntil(task.done, timeout=timeout_ms)
        return task.result()

    return _run


@pytest.fixture
def open_window(
    qtbot: QtBot, run: Callable[[Awaitable[None]], None]
) -> Iterator[Callable[[], Session]]:
    """Open the real window, as `run_window` does, for the current `home`; closed afterwards."""
    sessions: list[Session] = []

    def _open() -> Session:
        session = open_session(load_settings())
        sessions.append(session)
        session.show()
        # The first paint starts the controller (and the model listing), as in the app.
        qtbot.waitUntil(lambda: session.painted_at is not None, timeout=10_000)
        return session

    yield _open
    for session in sessions:
        close_session(session, run)


@pytest.fixture
def session(home: SightlineHome, open_window: Callable[[], Session], qtbot: QtBot) -> Session:
    """The window opened for `home`, the loopback Ollama's four models listed."""
    opened = open_window()
    wait_for_models(qtbot, opened)
    return opened


@pytest.fixture
def no_viewer(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[QUrl]]:
    """The system's viewer (of a PDF, a folder), replaced: the addresses it was asked to open."""
    opened: list[QUrl] = []

    def open_url(url: QUrl) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(open_url))
    yield opened


@pytest.fixture(autouse=True)
def windows_freed_here() -> Iterator[None]:
    """A closed window's objects are freed after its test, on this thread. A controller
    Python owns sits in reference cycles, so only the cycle collector frees it, and that
    may run on any thread (a loopback server's, a keyring worker's); a QObject freed off
    its own thread leaves its timers armed, and the next test crashes when one fires."""
    yield
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()


@pytest.fixture(autouse=True)
def empty_clipboard() -> Iterator[None]:
    """Each test leaves the clipboard empty: Qt owns what a test put there, and freeing it
    while the interpreter shuts down (after Python let go of its wrapper) crashes."""
    yield
    app = QApplication.instance()
    if isinstance(app, QApplication):
        app.clipboard().clear()


@pytest.fixture(autouse=True)
def no_keyring() -> Iterator[None]:
    """No OS keyring, as on this machine: no UI test may touch the person's real keyring."""
    import keyring

    previous = keyring.get_keyring()
    keyring.set_keyring(NoKeyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def memory_keyring(no_keyring: None) -> Iterator[MemoryKeyring]:
    """An OS keyring that keeps its secrets in memory (never in a file)."""
    import keyring

    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
