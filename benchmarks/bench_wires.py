"""The stream readers: events a second, Gemini's against the Responses API's.

Each wire reads one answer of EVENTS events (WORDS characters each, 2 MB in all,
under the answer's cap) from its loopback server, in this process; the figure is
the median of RUNS reads. Gemini's reader once joined the answer so far at every
event (its parts are kept to send back), so it slowed as the answer grew: the
ratio to the Responses API's reader, whose server sends the same words, says
whether it keeps pace.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from benchmarks.common import Row, median
from routing.models import ProviderConfig
from routing.transcript import user_message
from routing.wires.base import ChatRequest, TextDelta, Wire
from routing.wires.gemini import GeminiWire
from routing.wires.responses import ResponsesWire
from tests.servers import gemini, openai_responses

EVENTS = 20_000
WORDS = 100
RUNS = 3


async def _read(wire: Wire, model: str) -> float:
    """Events a second for one whole answer."""
    request = ChatRequest(model, (user_message("Go on."),))
    started, count = time.perf_counter(), 0
    async for event in wire.stream(request):
        count += isinstance(event, TextDelta)
    elapsed = time.perf_counter() - started
    await wire.aclose()
    if count != EVENTS:
        raise RuntimeError(f"read {count} events, not {EVENTS}")
    return count / elapsed


def _rate(server: Any, reply: Any, wire: Callable[[], Wire], model: str) -> float:
    rates = []
    for _ in range(RUNS):  # a wire a run: each run's loop closes its client
        server.enqueue(reply)
        rates.append(asyncio.run(_read(wire(), model)))
    return median(rates)


def run() -> list[Row]:
    """Measure and return the rows."""
    text = "x" * (EVENTS * WORDS)
    with gemini.FakeGemini() as server:
        provider = ProviderConfig("g", "gemini", server.url, api_key=gemini.DEFAULT_KEY)
        reply = gemini.Reply(text=text, chunk_chars=WORDS)
        gemini_rate = _rate(server, reply, lambda: GeminiWire(provider), "gemini-2.5-flash")
    with openai_responses.FakeResponses() as server:
        provider = ProviderConfig("r", "openai", server.url, api_key="sk-bench")
        reply = openai_responses.Reply(text=text, chunk_chars=WORDS)
        responses_rate = _rate(server, reply, lambda: ResponsesWire(provider), "gpt-4.1-mini")
    note = f"{EVENTS:,} events of {WORDS} characters from loopback"
    return [
        Row("Gemini stream reader", gemini_rate, "events/s", note=note),
        Row("Responses stream reader", responses_rate, "events/s", note=note),
        Row("Gemini / Responses reader", gemini_rate / responses_rate, "", "about 1"),
    ]
