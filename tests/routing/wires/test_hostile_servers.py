"""Every wire against loopback servers that misbehave on purpose (tests/servers/hostile.py).

An endless line or event, a gzip bomb (as an error body, a stream, a model list), a
keep-alive flood and an answer that never ends, for each stream shape: Ollama's NDJSON,
the OpenAI shape's SSE (and LM Studio's), Anthropic's SSE, the Responses API's named
events, Gemini's SSE. Each ends in one clear error naming the server by host and port,
soon, having held no more than its cap in memory.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from routing.errors import AnswerCut, ProviderError, TimedOut, TooLarge
from routing.models import ProviderConfig
from routing.transcript import user_message
from routing.wires.anthropic import AnthropicWire
from routing.wires.base import ChatRequest, Done, StreamEvent, TextDelta, ToolCallEvent, Wire
from routing.wires.bounded import ERROR_BODY_CAP, EVENT_CAP, LISTING_CAP, MB
from routing.wires.gemini import GeminiWire
from routing.wires.http import HttpWire
from routing.wires.lmstudio import LMStudioWire
from routing.wires.ollama import SHOW_CONCURRENCY, OllamaWire
from routing.wires.openai_chat import OpenAIChatWire
from routing.wires.responses import ResponsesWire
from tests.events import collect
from tests.servers import anthropic, gemini, lmstudio, ollama, openai_chat, openai_responses
from tests.servers.hostile import (
    ENDLESS_ANSWER,
    ENDLESS_EVENT,
    ENDLESS_LINE,
    GZIP_BOMB,
    KEEPALIVE_FLOOD,
)

IDLE = 0.5
SHAPES = ("ollama", "openai", "anthropic", "responses", "gemini")
SSE_SHAPES = ("openai", "anthropic", "responses", "gemini")
# Where each shape's model names come from (a ModelNotFound lists them).
NAMES_PATH = {"ollama": "/api/tags", "gemini": "/v1beta/models"}


@dataclass
class Served:
    """One shape's loopback server, a wire to it, and its module's Reply."""

    shape: str
    server: Any
    wire: HttpWire
    model: str
    reply: Any  # the server module's Reply class
    port: int

    async def error(self, **reply: Any) -> ProviderError:
        """The error the wire raises for one chat answered with `reply`."""
        self.server.enqueue(self.reply(**reply))
        with pytest.raises(ProviderError) as raised:
            await events(self.wire, self.model)
        assert f"127.0.0.1:{self.port}" in raised.value.message
        assert "\n" not in raised.value.message and "s3cr3t" not in raised.value.message
        return raised.value


async def events(wire: Wire, model: str) -> list[StreamEvent]:
    """Every event of the answer to "hi"."""
    return await collect(wire.stream(ChatRequest(model, (user_message("hi"),))))


@contextmanager
def peak_memory(limit: int) -> Iterator[None]:
    """Python's allocations inside the block peak below `limit` bytes."""
    tracemalloc.start()
    try:
        yield
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < limit, f"peak {peak / MB:.1f} MB"


def _secret(url: str) -> str:
    return url.replace("http://", "http://user:s3cr3t@")  # never named in a message


@pytest.fixture(params=SHAPES)
async def served(request: pytest.FixtureRequest) -> AsyncIterator[Served]:
    """Each shape in turn: its server and a wire with a short idle limit."""
    shape: str = request.param
    wire: HttpWire
    if shape == "ollama":
        with ollama.FakeOllama() as server:
            wire = OllamaWire(
                ProviderConfig("o", "ollama", _secret(server.base_url)), idle_limit=IDLE
            )
            yield Served(shape, server, wire, "llama3.2:3b", ollama.Reply, server.port)
    elif shape == "openai":
        with openai_chat.FakeOpenAI() as server:
            provider = ProviderConfig("m", "custom", _secret(server.url))
            wire = OpenAIChatWire(provider, idle_limit=IDLE, retry_base_delay=0.01)
            yield Served(shape, server, wire, "gpt-4o-mini", openai_chat.Reply, server.port)
    elif shape == "responses":
        with openai_responses.FakeResponses() as server:
            provider = ProviderConfig("r", "custom", _secret(server.url), api="responses")
            wire = ResponsesWire(provider, idle_limit=IDLE, retry_base_delay=0.01)
            yield Served(shape, server, wire, "gpt-5-mini", openai_responses.Reply, server.port)
    elif shape == "gemini":
        with gemini.FakeGemini() as server:
            provider = ProviderConfig(
                "g", "gemini", _secret(server.base_url), api_key=gemini.DEFAULT_KEY
            )
            wire = GeminiWire(provider, idle_limit=IDLE, retry_base_delay=0.01)
            yield Served(shape, server, wire, "gemini-2.5-flash", gemini.Reply, server.port)
    else:
        with anthropic.FakeAnthropic() as server:
            provider = ProviderConfig(
                "c", "anthropic", _secret(server.base_url), api_key=anthropic.DEFAULT_KEY
            )
            wire = AnthropicWire(provider, idle_limit=IDLE)
            model = "claude-haiku-4-5-20251001"
            yield Served(shape, server, wire, model, anthropic.Reply, server.port)
    await wire.aclose()


# -- chat ------------------------------------------------------------------------


def patient(served: Served) -> Served:
    """The wire with a long idle limit: an endless body is cut by its size, not by silence,
    and a loaded machine may pause longer than IDLE between the server's pieces."""
    served.wire._idle_limit = 30.0
    return served


async def test_an_endless_line_is_too_large_within_its_cap(served: Served) -> None:
    patient(served)
    with peak_memory(3 * EVENT_CAP):
        error = await served.error(hostile=ENDLESS_LINE)
    assert isinstance(error, TooLarge)
    assert "sent more than Sightline accepts" in error.message and "over 16 MB" in error.message


# NDJSON has no events made of lines (an endless line is its case): SSE shapes only.
@pytest.mark.parametrize("served", SSE_SHAPES, indirect=True)
async def test_an_event_that_never_ends_is_too_large(served: Served) -> None:
    patient(served)
    with peak_memory(3 * EVENT_CAP):
        error = await served.error(hostile=ENDLESS_EVENT)
    assert isinstance(error, TooLarge) and "an event of the stream over 16 MB" in error.message


@pytest.mark.parametrize("status", [400, 500])
async def test_a_gzip_bomb_error_body_stops_at_a_megabyte(served: Served, status: int) -> None:
    started = time.monotonic()
    with peak_memory(4 * ERROR_BODY_CAP):
        error = await served.error(hostile=GZIP_BOMB, status=status)
    assert isinstance(error, TooLarge)
    assert f"(an HTTP {status} error body over 1 MB)" in error.message
    assert time.monotonic() - started < 5


async def test_a_gzip_bomb_stream_stops_at_the_event_cap(served: Served) -> None:
    patient(served)  # inflating 16 MB under tracemalloc on a loaded machine is not silence
    with peak_memory(3 * EVENT_CAP):
        error = await served.error(hostile=GZIP_BOMB)
    assert isinstance(error, TooLarge) and "of the stream over 16 MB" in error.message


async def test_a_keepalive_flood_is_cut_off_at_the_idle_limit(served: Served) -> None:
    started = time.monotonic()
    error = await served.error(hostile=KEEPALIVE_FLOOD)
    assert IDLE <= time.monotonic() - started < IDLE + 3
    assert isinstance(error, TimedOut)
    assert f"came from 127.0.0.1:{served.port} for 0.5 seconds" in error.message


async def test_an_endless_answer_is_cut_at_its_cap_keeping_what_fits(served: Served) -> None:
    patient(served)
    served.wire._answer_chars = 10_001  # the cap, lowered: words of 5 characters, cut mid-word
    served.server.enqueue(served.reply(hostile=ENDLESS_ANSWER))
    words: list[str] = []
    with peak_memory(3 * EVENT_CAP), pytest.raises(AnswerCut) as raised:
        request = ChatRequest(served.model, (user_message("hi"),))
        async for event in served.wire.stream(request):
            if isinstance(event, TextDelta):
                words.append(event.text)
    assert "".join(words) == ("word " * 2001)[:10_001]
    assert raised.value.message == (
        f"The answer from 127.0.0.1:{served.port} was cut at 10,001 characters, the most "
        "Sightline keeps of one answer; what came before is kept."
    )


async def test_an_error_body_that_trickles_forever_is_cut_off_too(served: Served) -> None:
    error = await served.error(hostile=KEEPALIVE_FLOOD, status=500)
    assert isinstance(error, TimedOut)


async def test_a_tool_call_streamed_slower_than_the_limit_still_arrives(served: Served) -> None:
    # Fragments every 0.1 s for well over IDLE: each restarts the clock.
    arguments = {"path": "x" * 60}
    if served.shape == "anthropic":
        reply = served.reply(tool_calls=[{"name": "f", "input": arguments}], json_chunk_chars=4)
    elif served.shape in ("openai", "responses"):
        reply = served.reply(tool_calls=[{"name": "f", "arguments": arguments}], args_chunk=4)
    elif served.shape == "gemini":  # calls come whole; words before them, a piece at a time
        reply = served.reply(
            text="x" * 15, chunk_chars=1, tool_calls=[{"name": "f", "args": arguments}]
        )
    else:  # Ollama sends calls whole; a thinking model's thoughts come first
        thought = '{"message":{"role":"assistant","content":"","thinking":"hm"},"done":false}'
        reply = served.reply(raw_lines=[thought] * 15)
    reply.delay = 0.1
    served.server.enqueue(reply)
    started = time.monotonic()
    got = await events(served.wire, served.model)
    assert time.monotonic() - started > 2 * IDLE
    assert isinstance(got[-1], Done)
    if served.shape != "ollama":
        [call] = [e.call for e in got if isinstance(e, ToolCallEvent)]
        assert call.arguments == arguments


async def test_openai_reasoning_counts_as_the_answer_coming() -> None:
    chunk = '{"choices":[{"index":0,"delta":{"content":"","reasoning_content":"hmm"}}]}'
    with openai_chat.FakeOpenAI() as server:
        server.enqueue(openai_chat.Reply(text="ok", raw_events=[chunk] * 15, delay=0.1))
        wire = OpenAIChatWire(ProviderConfig("m", "custom", server.url), idle_limit=IDLE)
        try:
            got = await events(wire, "gpt-4o-mini")
        finally:
            await wire.aclose()
    assert [e.text for e in got if isinstance(e, TextDelta)] == ["ok"]


# -- model lists -----------------------------------------------------------------


async def lists_with(wire: Wire, server: Any, path: str, lists: int = 1) -> Any:
    """What listing gives when `path` answers with a gzip bomb: models, or the error.
    `lists`: how many such answers are read at once."""
    server.hostile[path] = GZIP_BOMB
    started = time.monotonic()
    try:
        with peak_memory((lists + 2) * LISTING_CAP):
            return await wire.list_models()
    except ProviderError as error:
        return error
    finally:
        assert time.monotonic() - started < 10
        await wire.aclose()


def too_large_list(outcome: Any, port: int) -> None:
    assert isinstance(outcome, TooLarge), outcome
    assert outcome.message.startswith(f"The server at 127.0.0.1:{port} sent more than Sightline")
    assert "(the model list over 32 MB)" in outcome.message


async def test_a_gzip_bomb_as_ollama_s_model_list() -> None:
    with ollama.FakeOllama() as server:
        wire = OllamaWire(ProviderConfig("o", "ollama", server.base_url))
        too_large_list(await lists_with(wire, server, "/api/tags"), server.port)


async def test_a_gzip_bomb_as_a_model_s_details_leaves_its_sight_unknown() -> None:
    with ollama.FakeOllama() as server:
        wire = OllamaWire(ProviderConfig("o", "ollama", server.base_url))
        models = await lists_with(wire, server, "/api/show", lists=SHOW_CONCURRENCY)
    assert [m.name for m in models] == [m.name for m in ollama.DEFAULT_MODELS]
    assert {m.sees for m in models} == {None}


async def test_a_gzip_bomb_as_the_openai_shape_s_model_list() -> None:
    with openai_chat.FakeOpenAI() as server:
        wire = OpenAIChatWire(ProviderConfig("m", "custom", server.url))
        too_large_list(await lists_with(wire, server, "/v1/models"), server.port)


async def test_a_gzip_bomb_as_llama_cpp_s_props_only_loses_the_sight_hint() -> None:
    with openai_chat.FakeOpenAI(flavour="llamacpp") as server:
        wire = OpenAIChatWire(ProviderConfig("l", "custom", server.url))
        models = await lists_with(wire, server, "/props")
    assert "gpt-4o-mini" in [m.name for m in models]


@pytest.mark.parametrize(("path", "v1"), [("/api/v1/models", True), ("/api/v0/models", False)])
async def test_a_gzip_bomb_as_lm_studio_s_model_list(path: str, v1: bool) -> None:
    with lmstudio.FakeLMStudio(v1=v1, missing_status=404) as server:
        wire = LMStudioWire(ProviderConfig("lms", "lmstudio", server.base_url))
        too_large_list(await lists_with(wire, server, path), server.port)


async def test_a_gzip_bomb_as_gemini_s_model_list() -> None:
    with gemini.FakeGemini() as server:
        provider = ProviderConfig("g", "gemini", server.base_url, api_key=gemini.DEFAULT_KEY)
        too_large_list(
            await lists_with(GeminiWire(provider), server, "/v1beta/models"), server.port
        )


async def test_a_gzip_bomb_as_anthropic_s_model_list() -> None:
    with anthropic.FakeAnthropic() as server:
        provider = ProviderConfig("c", "anthropic", server.base_url, api_key=anthropic.DEFAULT_KEY)
        too_large_list(await lists_with(AnthropicWire(provider), server, "/v1/models"), server.port)


async def test_a_bomb_where_the_model_names_come_from_leaves_them_out(served: Served) -> None:
    # A model the server doesn't have: its error lists the names, unless they can't be had.
    served.server.hostile[NAMES_PATH.get(served.shape, "/v1/models")] = GZIP_BOMB
    with peak_memory(3 * LISTING_CAP), pytest.raises(ProviderError) as raised:
        await events(served.wire, "no-such-model")
    assert getattr(raised.value, "available", ()) == ()
