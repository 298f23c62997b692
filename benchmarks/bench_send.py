"""Sending in a long chat: from Enter to the request on the wire, beside a short chat's;
a send in a new chat with KEPT_CHATS chats kept, beside one with SMALL kept; how long a
send with a 4K screenshot holds the window's thread; and a start's first send beside its
second (benchmarks/first_send.py, a process for each start).

A real session (the window, its controller, the model runner) on the app's own qasync
loop, and one local Ollama-protocol server on loopback (tests/servers/ollama.py) giving a
short answer. A send is timed from the composer's Enter to the server receiving its
POST /api/chat: all Sightline does before a model can start (the message stored and
shown, the chat read, its pictures, shaping, the fit to the model's window). A
MESSAGES-message chat and a SMALL-message one, alternately, each answered before the next.
Then SHOTS sends to a model that sees, each with a 4K screenshot of its own attached: the
longest gap between ticks of a 1 ms timer on the window's thread, from Enter to the
answer's end (the clamp that fits the picture to the provider runs on a worker thread).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from benchmarks.bench_startup import KEPT_CHATS, keep_chats
from benchmarks.bench_window import environment, fill
from benchmarks.common import Paired, Row, python_env, run_process, window_ticks
from tests.servers.ollama import FakeOllama, Reply

MESSAGES = 5_000
SMALL = 10
ROUNDS = 7  # measured sends in each chat, after one unmeasured
ANSWER = "Here is a short answer. " * 10
TIMEOUT_S = 30.0
SHOTS = 5  # sends with a 4K screenshot, after one unmeasured
STARTS = 7  # starts of a process whose first and second sends are timed

T = TypeVar("T")


async def _until(done: Callable[[], bool]) -> None:
    """Let the loop run (Qt's events too) until `done()`, or fail after TIMEOUT_S."""
    async with asyncio.timeout(TIMEOUT_S):
        while not done():
            await asyncio.sleep(0.0005)


async def send_once(session: Any, server: FakeOllama, question: str) -> float:
    """Seconds from Enter to the request's arrival at `server`; returns once answered."""
    controller = session.controller
    asked = len(server.received(server.is_chat))
    server.enqueue(Reply(text=ANSWER))
    started = time.perf_counter()
    session.window.composer.send_requested.emit(question)  # what Enter does
    await _until(lambda: len(server.received(server.is_chat)) > asked)
    arrived = server.received(server.is_chat)[asked].received_at
    await _until(lambda: not controller.busy)
    return float(arrived - started)


async def _sends(session: Any, server: FakeOllama, long: str, short: str) -> Paired:
    """Seconds from Enter to the request's arrival, in the long and the short chat in turn."""
    times = Paired([], [])
    for round_ in range(ROUNDS + 1):
        for chat, kept in ((long, times.ours), (short, times.floor)):
            session.controller.select_conversation(chat)
            await asyncio.sleep(0.2)  # shown and settled, as a person would read it first
            took = await send_once(session, server, f"Question {round_}?")
            if round_:
                kept.append(took)
    return times


def _first_sends() -> Paired:
    """A start's first send and its second, each start a process of its own (the first
    unmeasured: it writes the bytecode)."""
    sends = Paired([], [])
    for start in range(STARTS + 1):
        done = run_process([sys.executable, "-m", "benchmarks.first_send"], python_env())
        if done.returncode != 0:
            raise RuntimeError(f"the first send failed: {done.stderr.strip()[-500:]}")
        if start:
            found = json.loads(done.stdout.strip().splitlines()[-1])
            sends.ours.append(found["first_s"])
            sends.floor.append(found["second_s"])
    return sends


async def _held(session: Any, server: FakeOllama, folder: Path) -> list[float]:
    """For each send with a 4K screenshot, the longest the window's thread went unticked."""
    from benchmarks.bench_pictures import screenshot
    from tests.ui.helpers import pick

    controller, composer = session.controller, session.window.composer
    held: list[float] = []
    for round_ in range(SHOTS + 1):
        shot = folder / f"screen-{round_}.png"
        shot.write_bytes(screenshot(3840, 2160, seed=round_).data)
        controller.new_conversation()
        pick(session, "ollama:llava:7b")
        controller.attaching.attach_files([shot])
        await _until(lambda: bool(controller.attaching.attachments.pictures))
        await asyncio.sleep(0.3)  # its card drawn, as a person would look before sending
        with window_ticks() as gaps:
            server.enqueue(Reply(text=ANSWER))
            composer.send_requested.emit("What is on this screen?")
            await asyncio.sleep(0.01)
            await _until(lambda: not controller.busy)
        if round_:
            held.append(max(gaps))
    return held


def _new_chat_sends(server: FakeOllama, chats: int) -> list[float]:
    """ROUNDS sends, each in a new chat (after one unmeasured), with `chats` chats kept."""

    async def work(session: Any) -> list[float]:
        times: list[float] = []
        for round_ in range(ROUNDS + 1):
            session.controller.new_conversation()
            await asyncio.sleep(0.2)  # shown, as a person would look before typing
            took = await send_once(session, server, f"New question {round_}?")
            if round_:
                times.append(took)
        return times

    with tempfile.TemporaryDirectory(prefix="sightline-bench-") as temp:
        keep_chats(Path(temp) / "data", chats)
        return in_session(server, Path(temp), 1.0, work)


def in_session(
    server: FakeOllama, folder: Path, settle_s: float, work: Callable[[Any], Awaitable[T]]
) -> T:
    """`work(session)` on a real session over `folder`'s data, its one provider `server`, on
    the app's own qasync loop and collector, `settle_s` after the models' listing began;
    the session closed after as the app closes it."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from app.ui.app import plain_imports_again
    from app.ui.main_thread_gc import MainThreadCollector
    from app.ui.qt_asyncio import async_generators_finalized_by, new_loop
    from app.ui.session import load_settings, open_session

    plain_imports_again()  # as the app does once PySide6 is loaded (app/ui/app.py)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    provider = f'\n[[providers]]\nid = "ollama"\nkind = "ollama"\nbase_url = "{server.base_url}"\n'
    with environment(folder, provider):
        loop = new_loop(app)
        asyncio.set_event_loop(loop)
        session = open_session(load_settings())

        async def measure() -> T:
            session.show()
            session.start()  # as after the first paint: the models are listed
            # The window's own collection, which freezes what the start made at its
            # first look, as it does in the app (app/ui/main_thread_gc.py).
            collector = MainThreadCollector()
            try:
                await asyncio.sleep(settle_s)
                return await work(session)
            finally:  # as the app ends (app/ui/app.py), the window closed after
                collector.stop()
                await session.aclose()
                await loop.shutdown_asyncgens()

        try:
            with async_generators_finalized_by(loop):
                return loop.run_until_complete(measure())
        finally:
            session.window.close()
            asyncio.set_event_loop(None)
            loop.close()
            # The session's garbage (its widgets, their timers) collected here, on the
            # window's thread, as the app's collector would: left to the next
            # benchmark, a worker thread's allocation collected it, and Qt objects
            # freed off their thread leave timers armed (app/ui/main_thread_gc.py).
            gc.collect()


def run() -> list[Row]:
    """Measure and return the rows."""
    from app.ui.main_thread_gc import INTERVAL_MS

    held: list[float] = []
    with FakeOllama() as server, tempfile.TemporaryDirectory(prefix="sightline-bench-") as temp:
        folder = Path(temp)
        long, short = fill(folder / "data", MESSAGES), fill(folder / "data", SMALL, seed=9)

        async def work(session: Any) -> Paired:
            times = await _sends(session, server, long, short)
            held.extend(await _held(session, server, folder))
            return times

        times = in_session(server, folder, 2 * INTERVAL_MS / 1000, work)
        kept = Paired(_new_chat_sends(server, KEPT_CHATS), _new_chat_sends(server, SMALL))
    firsts = _first_sends()
    return [
        Row(
            "a start's first send: Enter → the request on the wire",
            statistics.median(firsts.ours) * 1000,
            "ms",
            "report",
            f"the second, in another new chat: {statistics.median(firsts.floor) * 1000:.1f} ms; "
            f"{firsts.ratios()}; {STARTS} starts, each a process of its own sending in a new "
            "chat 1.5 s after the window shows (what the send needs loads meanwhile: "
            "app/ui/warm_up.py)",
        ),
        Row(
            f"send in a {MESSAGES:,}-message chat: Enter → the request on the wire",
            statistics.median(times.ours) * 1000,
            "ms",
            "report",
            f"{SMALL}-message chat: {statistics.median(times.floor) * 1000:.1f} ms; "
            f"{times.ratios()}; {ROUNDS} sends in each, alternately, to a local "
            "Ollama-protocol server on loopback",
        ),
        Row(
            f"send in a new chat with {KEPT_CHATS:,} chats kept: Enter → the request",
            statistics.median(kept.ours) * 1000,
            "ms",
            "report",
            f"with {SMALL} chats kept: {statistics.median(kept.floor) * 1000:.1f} ms; "
            f"{kept.ratios()}; {ROUNDS} sends each, in two sessions one after the other "
            "(the chat is made, titled and listed at the top of the list)",
        ),
        Row(
            "send with a 4K screenshot: the longest the window's thread is held",
            statistics.median(held) * 1000,
            "ms",
            "report",
            f"the longest of {SHOTS} sends: {max(held) * 1000:.0f} ms; a 1 ms timer's ticks "
            "from Enter to the answer's end, to a model that sees (its clamp, ~90 ms, is "
            "worked out on a worker thread)",
        ),
    ]
