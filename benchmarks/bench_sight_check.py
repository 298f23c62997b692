"""The sight check's added latency: a first turn with a picture to a model of unknown sight
(checked first) against the same turn once the verdict is known.

The model is a server of the person's own on loopback that really looks at pictures
(it reads the probe's pixels), so the check ends in "sees" and both turns send the
picture; the difference is the probe: drawing it, one request, reading the answer.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from contextlib import aclosing
from pathlib import Path

from app.store import Store
from app.turn.runner import TurnRunner
from app.turn.turn_input import TurnInput
from benchmarks.common import Row
from routing.catalogue import Catalogue
from routing.models import ProviderConfig
from tests.pictures import make_picture
from tests.servers.openai_chat import ChatModel, FakeOpenAI

RUNS = 7
PHOTO = make_picture((40, 120, 200), (320, 240), label="photo.png")


async def _turn_pair(server: FakeOpenAI, folder: Path) -> tuple[float, float]:
    """Seconds for the first turn (with its check) and for the next one (without)."""
    with Store.open(folder) as store:
        catalogue = Catalogue([ProviderConfig("mine", "custom", server.url)])
        await catalogue.refresh()
        runner = TurnRunner(store, catalogue)
        cid = store.conversations.create()
        times = []
        for _ in range(2):
            started = time.perf_counter()
            run = runner.run(TurnInput(cid, "what is it?", (PHOTO,), "mine:my-model"))
            async with aclosing(run) as events:
                async for _event in events:
                    pass
            times.append(time.perf_counter() - started)
        await catalogue.aclose()
        return times[0], times[1]


def run() -> list[Row]:
    """The first turn's median, the next turn's, and the difference."""
    firsts, nexts = [], []
    with FakeOpenAI([ChatModel("my-model")], pictures="read") as server:
        for n in range(RUNS):
            with tempfile.TemporaryDirectory() as folder:
                first, then = asyncio.run(_turn_pair(server, Path(folder) / str(n)))
            firsts.append(first)
            nexts.append(then)
    first_s, next_s = statistics.median(firsts), statistics.median(nexts)
    return [
        Row(
            "sight check: a picture's first turn to a model of unknown sight",
            first_s * 1000,
            "ms",
            "report",
            f"the next turn (verdict known): {next_s * 1000:.1f} ms; the check adds "
            f"{(first_s - next_s) * 1000:.1f} ms on loopback; {RUNS} runs",
        )
    ]
