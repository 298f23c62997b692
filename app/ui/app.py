"""`run_window`: start Qt, open the window, paint it, then run asyncio (qasync) until it closes.

Only the standard library is imported at the top, so `sightline --version` never
loads Qt, and the Qt import itself can be timed for `--smoke`. asyncio and qasync
(~30 ms) load only after the window's first paint: until then Qt runs its own
loop, and the person's input waits for the asyncio loop.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

    from PySide6.QtWidgets import QApplication

    from app.ui.session import Session

_SMOKE_TIMEOUT_S = 60.0


def process_age_s() -> float | None:
    """Seconds since this process started (Linux /proc), or None where unknown."""
    try:
        with open("/proc/self/stat", encoding="ascii") as handle:
            stat = handle.read()
        # Field 22 is the start time in clock ticks since boot; split after the
        # command name, which may itself contain spaces and parentheses.
        start_ticks = int(stat[stat.rindex(")") + 2 :].split()[19])
        return time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def peak_memory_mib() -> float | None:
    """This process's own peak resident memory so far (Linux /proc), or None where unknown.

    Read inside the process: a parent's `wait4` figure starts from the parent's own
    size at the fork, so it can't tell a small child from a large one.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024  # kB
    except (OSError, ValueError, IndexError):
        return None
    return None


NO_SCREEN = (
    "no screen was found (neither DISPLAY nor WAYLAND_DISPLAY is set), so the window can't "
    'open. Without a window, run `sightline ask "your question"`; with a virtual screen, '
    "`xvfb-run sightline`."
)


def no_screen(environ: dict[str, str] | os._Environ[str] = os.environ) -> bool:
    """Whether Qt would abort for want of a screen: Linux, no display, no platform chosen."""
    if not sys.platform.startswith("linux") or environ.get("QT_QPA_PLATFORM"):
        return False
    return not (environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))


def plain_imports_again() -> bool:
    """Give `import` back to Python once PySide6 is loaded; True when it was PySide's.

    Importing PySide6 replaces `builtins.__import__` with its own, for
    `from __feature__ import snake_case`, which Sightline never uses. Its hook
    reads the source of every module imported afterwards, looking for the word
    "PySide6": 190 modules, 23-28 ms before the first paint here, and a Python
    call on every later import. PySide keeps Python's own in
    `builtins.__orig_import__`; another hook than PySide's is left alone.
    """
    import builtins

    original = getattr(builtins, "__orig_import__", None)
    if original is None or builtins.__import__ is not getattr(builtins, "__feature_import__", None):
        return False
    builtins.__import__ = original
    return True


def run_window(smoke: bool = False, *, collection_was_enabled: bool | None = None) -> int:
    """Open Sightline's window and run until it closes; with `smoke`, exit after the first paint.

    `collection_was_enabled`: the cycle collector's state before the command's start held
    it off (app/cli/start_collection.py); the window's own collector keeps it from here.
    """
    if no_screen():
        # Qt's own message is a page about platform plugins, then an abort.
        print(f"sightline: {NO_SCREEN}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    from PySide6.QtWidgets import QApplication

    plain_imports_again()
    qt_import_s = time.perf_counter() - started
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setOrganizationName("Sightline")
    app.setApplicationName("Sightline")
    app.setApplicationDisplayName("Sightline")
    app.setDesktopFileName("sightline")
    # The window's own `closed` signal ends the run, after a clean shutdown.
    app.setQuitOnLastWindowClosed(False)
    from app.ui.main_thread_gc import MainThreadCollector

    # Collection moves to the window's thread now, not once asyncio runs: held off since
    # `main` began (when it did), it stays off through the start-up, whose imports make
    # many objects and few of them garbage (4-8 ms of collections before the first paint).
    collector = MainThreadCollector(was_enabled=collection_was_enabled)
    try:
        return _open_and_run(app, smoke, started, qt_import_s)
    finally:
        collector.stop()


def _open_and_run(app: QApplication, smoke: bool, started: float, qt_import_s: float) -> int:
    from app.logs import setup_logging
    from app.ui.session import StartupError, load_settings, open_session

    try:
        config = load_settings()
        setup_logging(config.data_dir)
        # Started by `_run`, once asyncio runs: the first paint comes before asyncio.
        session = open_session(config, start_on_paint=False)
    except StartupError as exc:
        return _cannot_start(str(exc), smoke)

    _paint_first(session, _SMOKE_TIMEOUT_S if smoke else None)
    # Read now, as a bare window reads its own at its paint: what asyncio and the model
    # listing load next is after the first paint, not in it.
    peak_at_paint = peak_memory_mib()
    # The icon is the window manager's (title bar, task switcher), not a pixel of the
    # window: given once it is painted, its PNG (and Qt's image readers) wait for that.
    from app.ui.icons import app_icon

    app.setWindowIcon(app_icon())

    import asyncio

    from app.ui.qt_asyncio import async_generators_finalized_by, new_loop

    loop = new_loop(app)
    asyncio.set_event_loop(loop)
    try:
        with async_generators_finalized_by(loop):
            return loop.run_until_complete(
                _run(session, smoke, started, qt_import_s, peak_at_paint)
            )
    finally:
        loop.close()
        asyncio.set_event_loop(None)


def _paint_first(session: Session, timeout_s: float | None) -> None:
    """Show the window and run Qt's own loop until it has painted, closed, or timed out.

    The person sees the window before asyncio loads. Their input (none can reach a
    window not yet drawn) is held for the asyncio loop, so every handler runs on it.
    """
    from PySide6.QtCore import QEventLoop, QTimer

    waiting = QEventLoop()
    session.window.first_painted.connect(waiting.quit)  # after `Session` notes the time
    session.window.closed.connect(waiting.quit)
    if timeout_s is not None:
        timer = QTimer(waiting)  # goes with the loop: it can't fire later
        timer.setSingleShot(True)
        timer.timeout.connect(waiting.quit)
        timer.start(round(timeout_s * 1000))
    session.show()
    waiting.exec(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
    session.window.first_painted.disconnect(waiting.quit)
    session.window.closed.disconnect(waiting.quit)


async def _run(
    session: Session, smoke: bool, started: float, qt_import_s: float, peak: float | None
) -> int:
    import asyncio

    loop = asyncio.get_running_loop()
    closed: asyncio.Future[None] = loop.create_future()
    # Closed before this loop ran (while it painted): nothing to wait for.
    if not session.window.isVisible():
        _resolve(closed)
    session.window.closed.connect(lambda: _resolve(closed))
    # Model listing starts now that the window shows and asyncio runs (or at its first
    # paint, should that come only now); starting again changes nothing.
    session.window.first_painted.connect(session.start)
    if session.painted_at is not None:
        session.start()
    try:
        if not smoke:
            await closed
            return 0
        if session.painted_at is None:
            print(f"sightline: no paint within {_SMOKE_TIMEOUT_S:g} s", file=sys.stderr)
            return 1
        print(json.dumps(_timings(session.painted_at, started, qt_import_s, peak)), flush=True)
        session.window.close()
        return 0
    finally:
        await session.aclose()
        await loop.shutdown_asyncgens()


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _timings(
    painted_at: float, started: float, qt_import_s: float, peak: float | None
) -> dict[str, Any]:
    timings: dict[str, Any] = {"smoke": "ok", "first_paint_s": round(painted_at - started, 3)}
    age = process_age_s()
    if age is not None:  # the process's age at the paint, not now
        timings["since_process_start_s"] = round(age - (time.perf_counter() - painted_at), 3)
    # The paint on the monotonic clock, which every process on this computer shares: the
    # process that started this one reads start → paint from it to the microsecond, where
    # the age above counts in the kernel's clock ticks (10 ms each).
    timings["painted_monotonic_s"] = round(time.monotonic() - (time.perf_counter() - painted_at), 6)
    timings["qt_import_s"] = round(qt_import_s, 3)
    if peak is not None:  # at the first paint
        timings["peak_rss_mib"] = round(peak, 1)
    # Where cycles are collected while the window runs (app/ui/main_thread_gc.py).
    timings["collection"] = "any thread" if gc.isenabled() else "window thread"
    return timings


def _cannot_start(message: str, smoke: bool) -> int:
    """Say why the window can't open: on stderr in smoke mode, else in a dialog."""
    if smoke:
        print(f"sightline: {message}", file=sys.stderr)
        return 1
    from PySide6.QtWidgets import QMessageBox

    box = QMessageBox(QMessageBox.Icon.Critical, "Sightline can't start", message)
    box.setAccessibleName("Sightline can't start")
    box.exec()
    print(f"sightline: {message}", file=sys.stderr)
    return 1
