"""The describer's single flight: N callers asking about one picture share one request.

A `Describer` asks a seeing model on a loopback Ollama (through `WireLooker`, as
turns do) to describe one picture N times at once, then N different pictures at
once; the server takes a little while per answer, as a model would.
"""

from __future__ import annotations

import asyncio
import statistics
import time

from benchmarks.common import Row
from routing.catalogue import Catalogue
from routing.describing.describer import Describer
from routing.describing.looker import WireLooker
from routing.models import ProviderConfig
from tests.pictures import make_picture
from tests.servers.ollama import FakeOllama, Reply
from vision.pictures import Picture

CALLERS = 8
RUNS = 3
DESCRIPTION = "A small square, one colour."
SECONDS_PER_PIECE = 0.02  # the loopback model's pace: about 0.2 s an answer


def square(shade: int) -> Picture:
    """A 64×64 PNG of one colour, its own for every shade."""
    return make_picture((shade, 90, 200), (64, 64), label=f"square-{shade}.png")


async def _describe_all(server: FakeOllama, pictures: list[Picture]) -> tuple[float, int]:
    """Seconds for every caller to have its description, and requests the server got."""
    catalogue = Catalogue([ProviderConfig("ollama", "ollama", server.base_url)])
    try:
        await catalogue.refresh()
        model = catalogue.find("ollama:llava:7b")
        assert model is not None and model.sees
        looker = WireLooker(catalogue, model)
        describer = Describer()
        server.enqueue(*(Reply(text=DESCRIPTION, delay=SECONDS_PER_PIECE) for _ in pictures))
        before = len(server.chat_requests())
        started = time.perf_counter()
        said = await asyncio.gather(*(describer.describe(p, looker) for p in pictures))
        elapsed = time.perf_counter() - started
        assert all(d.text == DESCRIPTION for d in said)
        requests = len(server.chat_requests()) - before
        assert requests == describer.requests
        while server.next_reply() is not None:  # drop the replies a shared request left unused
            pass
        return elapsed, requests
    finally:
        await catalogue.aclose()


def run() -> list[Row]:
    """Measure and return the rows."""
    one = square(0)
    many = [square(shade) for shade in range(0, 8 * CALLERS, 8)]
    same: list[tuple[float, int]] = []
    different: list[tuple[float, int]] = []
    with FakeOllama() as server:
        for _ in range(RUNS):
            same.append(asyncio.run(_describe_all(server, [one] * CALLERS)))
            different.append(asyncio.run(_describe_all(server, many)))
    same_s = statistics.median(s for s, _ in same)
    different_s = statistics.median(s for s, _ in different)
    return [
        Row(
            f"describer: {CALLERS} concurrent describes of one picture",
            same_s * 1000,
            "ms",
            "1 request",
            f"{max(r for _, r in same)} request(s); {CALLERS} different pictures: "
            f"{max(r for _, r in different)} requests, {different_s * 1000:.0f} ms "
            "(loopback Ollama through WireLooker)",
        )
    ]
