"""The sidebar's list among thousands of chats: a rename, a delete and its Undo, beside the
same among a few.

A real session (the window, its controller) on the app's own qasync loop over a store of
KEPT_CHATS chats (benchmarks/bench_startup.py's `keep_chats`), then one of SMALL. Each
round renames a chat from the middle of the list (it moves to the top), then deletes
another and takes the delete back with Undo; each is timed from the call the sidebar
makes (`Chats.rename`, `Controller.delete_conversation`, `Chats.undo`) until the list
shows the change: a rename and an Undo tell it (`Chats.changed`) before they return, and
are timed to their return; a delete tells it from the chore the call starts on the loop,
and is timed to that signal.
Undo opens the chat it brings back, and the list scrolls to it: from the second round
the list is scrolled down, so a change is laid out again in one pass there and then,
keeping the place (app/ui/chat_list_view.py). The two sessions run one after the other,
so their ratio moves with the machine between them.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_send import in_session
from benchmarks.bench_startup import KEPT_CHATS, keep_chats
from benchmarks.common import Paired, Row
from tests.servers.ollama import FakeOllama

SMALL = 10
ROUNDS = 9  # measured rounds each, after one unmeasured


async def _changes(session: Any) -> tuple[list[float], list[float], list[float]]:
    """Per round: the rename's time, the delete's, its Undo's."""
    controller = session.controller
    chats = controller.chats
    renames: list[float] = []
    deletes: list[float] = []
    undos: list[float] = []
    shown: list[float] = []  # when the list was told of a change

    def note(*_change: object) -> None:
        shown.append(time.perf_counter())

    chats.changed.connect(note)
    for round_ in range(ROUNDS + 1):
        listed = controller.store.conversations.list()
        middle = listed[len(listed) // 2].id
        started = time.perf_counter()
        chats.rename(middle, f"Renamed {round_}")
        renamed = time.perf_counter() - started
        await asyncio.sleep(0.05)  # the list lays out its rows between events
        other = listed[len(listed) // 2 + 1].id
        shown.clear()
        started = time.perf_counter()
        controller.delete_conversation(other)  # as the sidebar asks: a chore on the loop
        while not shown:
            await asyncio.sleep(0)
        deleted = shown[0] - started
        await asyncio.sleep(0.05)
        started = time.perf_counter()
        chats.undo()
        undone = time.perf_counter() - started
        await asyncio.sleep(0.05)
        if round_:
            renames.append(renamed)
            deletes.append(deleted)
            undos.append(undone)
    chats.changed.disconnect(note)
    return renames, deletes, undos


def _session(server: FakeOllama, chats: int) -> tuple[list[float], list[float], list[float]]:
    with tempfile.TemporaryDirectory(prefix="sightline-bench-") as temp:
        keep_chats(Path(temp) / "data", chats)
        return in_session(server, Path(temp), 0.5, _changes)


def run() -> list[Row]:
    """Measure and return the rows."""
    with FakeOllama() as server:
        many = _session(server, KEPT_CHATS)
        few = _session(server, SMALL)
    rows = []
    whats = ("rename a chat (it moves to the top)", "delete a chat", "Undo a delete")
    for n, what in enumerate(whats):
        times = Paired(many[n], few[n])
        rows.append(
            Row(
                f"{what} with {KEPT_CHATS:,} chats kept: the call → the list shows it",
                statistics.median(times.ours) * 1000,
                "ms",
                "report",
                f"with {SMALL} chats kept: {statistics.median(times.floor) * 1000:.2f} ms; "
                f"{times.ratios()}; {ROUNDS} each, in two sessions one after the other",
            )
        )
    return rows
