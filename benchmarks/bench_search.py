"""Searching the sidebar in a large store: how long the window's thread is held, and how
soon the finds show, beside the same search on the window's thread (as it was searched).

A real session (the window, its controller) on the app's own qasync loop over a store of
CHATS chats of ITEMS items each (questions, answers, notices: benchmarks/bench_window.py's
`fill`). Each search is for a word nobody wrote, which is looked for in every item (the
costliest search there is), from `Chats.search` to the list showing what it found; a 1 ms
timer's ticks on the window's thread say the longest it went unticked meanwhile. The
floor is the store's own search of the same word on the window's thread, which is what
the window held for each search before searches went to a worker thread
(app/ui/chats.py, app/store/search.py). Searches alternate with it, ROUNDS of each.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_send import in_session
from benchmarks.bench_window import fill
from benchmarks.common import Paired, Row, window_ticks
from tests.servers.ollama import FakeOllama

CHATS, ITEMS = 20, 5_000
ROUNDS = 7
TIMEOUT_S = 30.0


async def _searches(session: Any) -> tuple[Paired, list[float]]:
    """Times: the finds shown, beside the search on the window's thread; the longest the
    window's thread went unticked during each search."""
    chats = session.controller.chats
    store = session.controller.store
    times, held = Paired([], []), []
    for round_ in range(ROUNDS + 1):
        word = f"zebrafish{round_}"
        shown: list[bool] = []
        chats.searched.connect(lambda shown=shown: shown.append(True))
        with window_ticks() as gaps:
            started = time.perf_counter()
            chats.search(word)
            async with asyncio.timeout(TIMEOUT_S):
                while not shown:
                    await asyncio.sleep(0.0005)
            took = time.perf_counter() - started
        chats.searched.disconnect()
        chats.search("")  # back to every chat, between searches
        await asyncio.sleep(0.05)
        started = time.perf_counter()
        store.conversations.search(word)
        here = time.perf_counter() - started
        if round_:
            times.ours.append(took)
            times.floor.append(here)
            held.append(max(gaps))
    return times, held


def run() -> list[Row]:
    """Measure and return the rows."""
    from app.store import Store

    with FakeOllama() as server, tempfile.TemporaryDirectory(prefix="sightline-bench-") as temp:
        folder = Path(temp)
        for seed in range(CHATS):
            fill(folder / "data", ITEMS, seed=seed)
        with Store.open(folder / "data") as store:
            size = store.path.stat().st_size / 2**20
        times, held = in_session(server, folder, 0.5, _searches)
    return [
        Row(
            f"search {CHATS * ITEMS:,} items for a word nobody wrote: the window's thread held",
            statistics.median(held) * 1000,
            "ms",
            "report",
            f"the longest of {ROUNDS}: {max(held) * 1000:.1f} ms (a 1 ms timer's ticks); the same "
            f"search on the window's thread, as it was: {statistics.median(times.floor) * 1000:.1f}"
            f" ms; the finds shown after {statistics.median(times.ours) * 1000:.1f} ms "
            f"(to the search alone: {times.ratios()}); a {size:.0f} MB store",
        )
    ]
