"""The stream readers: events a second, Gemini's against the Responses API's.

Each loopback server streams one answer of EVENTS events (WORDS characters each, 2 MB
of words, under the answer's cap). Read by the wire over loopback, the figure holds
the server too (a thread of this process: the two fake servers interleave with the
reader differently); read again from the very bytes the server sent (through httpx's
MockTransport), it is the reader's alone, and the ratio says whether Gemini's keeps
pace. Gemini's reader once joined the answer so far at every event (its parts are kept
to send back), so it slowed as the answer grew. Medians of RUNS reads, each timed from
its first event to its end.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx

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
GEMINI_MODEL, RESPONSES_MODEL = "gemini-2.5-flash", "gpt-4.1-mini"

Made = Callable[[httpx.AsyncClient | None], Wire]


async def _read(wire: Wire, model: str) -> float:
    """Events a second for one whole answer, from its first event."""
    request = ChatRequest(model, (user_message("Go on."),))
    started, count = 0.0, 0
    async for event in wire.stream(request):
        if not count:
            started = time.perf_counter()
        count += isinstance(event, TextDelta)
    elapsed = time.perf_counter() - started
    await wire.aclose()
    if count != EVENTS:
        raise RuntimeError(f"read {count} events, not {EVENTS}")
    return count / elapsed


def _captured(server: Any, reply: Any, wire: Made, model: str) -> httpx.MockTransport:
    """The bytes of one answer as the server sent them, to be sent again as they were."""
    sent: list[httpx.Response] = []

    async def capture() -> None:
        async with httpx.AsyncClient(trust_env=False) as client:
            made = wire(client)
            original = client.send

            async def keep(request: httpx.Request, **options: Any) -> httpx.Response:
                response = await original(request, **options)
                await response.aread()
                sent.append(response)
                return response

            client.send = keep  # type: ignore[method-assign]
            server.enqueue(reply)
            await _read(made, model)

    asyncio.run(capture())
    [answer] = [r for r in sent if "event-stream" in r.headers.get("content-type", "")]
    body, headers = answer.content, {"content-type": answer.headers["content-type"]}
    return httpx.MockTransport(lambda _: httpx.Response(200, headers=headers, content=body))


def _rates(server: Any, reply: Any, wire: Made, model: str) -> tuple[float, float]:
    """Events a second over loopback, and from the captured bytes."""
    loopback = []
    for _ in range(RUNS):  # a wire a run: each run's loop closes its client
        server.enqueue(reply)
        loopback.append(asyncio.run(_read(wire(None), model)))
    transport = _captured(server, reply, wire, model)
    alone = [
        asyncio.run(_read(wire(httpx.AsyncClient(transport=transport)), model)) for _ in range(RUNS)
    ]
    return median(loopback), median(alone)


def run() -> list[Row]:
    """Measure and return the rows."""
    text = "x" * (EVENTS * WORDS)
    with gemini.FakeGemini() as server:
        provider = ProviderConfig("g", "gemini", server.url, api_key=gemini.DEFAULT_KEY)
        reply = gemini.Reply(text=text, chunk_chars=WORDS)
        g_loop, g_alone = _rates(
            server, reply, lambda c: GeminiWire(provider, client=c), GEMINI_MODEL
        )
    with openai_responses.FakeResponses() as server:
        provider = ProviderConfig("r", "openai", server.url, api_key="sk-bench")
        responses_reply = openai_responses.Reply(text=text, chunk_chars=WORDS)
        r_loop, r_alone = _rates(
            server, responses_reply, lambda c: ResponsesWire(provider, client=c), RESPONSES_MODEL
        )
    note = f"{EVENTS:,} events of {WORDS} characters"
    return [
        Row("Gemini reader, loopback", g_loop, "events/s", note=note),
        Row("Responses reader, loopback", r_loop, "events/s", note=note),
        Row("Gemini reader, its stream's bytes", g_alone, "events/s", note=note),
        Row("Responses reader, its stream's bytes", r_alone, "events/s", note=note),
        Row("Gemini / Responses reader", g_alone / r_alone, "", "about 1", "the bytes alone"),
    ]
