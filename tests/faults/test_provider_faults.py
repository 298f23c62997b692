"""A provider that fails in every usual way: a clear error, the loop goes on, nothing is lost.

Each test runs a good turn, then the fault, then another good turn, through
`TurnRunner` into a real SQLite file, and reads the file again with a fresh
`Store` to check the whole transcript (SPEC §10; issue #11). Every fault is tried
against each provider shape: Ollama's NDJSON, the OpenAI shape's SSE, Anthropic's SSE,
the Responses API's named events and Gemini's SSE.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.store import Store
from routing.errors import (
    CannotConnect,
    MalformedResponse,
    ProviderError,
    RateLimited,
    ServerError,
    TimedOut,
    TooLarge,
)
from routing.models import ProviderConfig
from routing.wires import answer_cap
from routing.wires.anthropic import AnthropicWire
from routing.wires.base import Wire
from routing.wires.gemini import GeminiWire
from routing.wires.ollama import OllamaWire
from routing.wires.openai_chat import OpenAIChatWire
from routing.wires.responses import ResponsesWire
from routing.wires.retry import RETRIES
from tests.events import ended
from tests.faults import conftest as faults
from tests.faults.conftest import Backend, Rig, failed_with, make_rig
from tests.servers import gemini as gemini_server
from tests.servers import openai_responses as responses_server
from tests.servers.hostile import ENDLESS_LINE, GZIP_BOMB, KEEPALIVE_FLOOD
from tests.servers.loopback import closed_port
from tests.servers.ollama import FakeOllama

# The two shapes beside the suite's own three (tests/faults/conftest.py): the wires
# each has, and its server's module.
WIRES: dict[str, type[ResponsesWire] | type[GeminiWire]] = {
    "openai": ResponsesWire,
    "gemini": GeminiWire,
}
MORE_SHAPES = ("responses", "gemini")
RESPONSES_KEY = "sk-faults"


@dataclass
class MoreBackend(Backend):
    """The Responses or Gemini server, failing in each way in its own shape."""

    def dropped(self, text: str) -> object:
        # Before the words: created, in_progress, the message added, its part added.
        before = 4 if self.shape == "responses" else 0
        return self._reply(text=text, chunk_chars=5, drop_after=before + 2)

    def failing(self) -> object:
        if self.shape == "responses":
            error = {"message": "The server had an error.", "type": "server_error", "code": None}
            return responses_server.Reply(status=500, body={"error": error})
        return gemini_server.error_reply(500, "INTERNAL", "An internal error has occurred.")

    def rate_limited(self, retry_after: str) -> object:
        if self.shape == "responses":
            return responses_server.error_reply(
                429,
                "Rate limit reached for requests",
                "rate_limit_exceeded",
                retry_after=retry_after,
            )
        return gemini_server.error_reply(
            429,
            "RESOURCE_EXHAUSTED",
            "You exceeded your current quota, please check your plan and billing details.",
            gemini_server.retry_info(f"{retry_after}s"),
        )

    def broken(self, text: str) -> object:
        return self._reply(text=text, chunk_chars=len(text), raw_events=["{not json at all"])

    def _reply(self, **fields: Any) -> object:
        module = responses_server if self.shape == "responses" else gemini_server
        return module.Reply(**fields)


def _more_backend(shape: str) -> Iterator[Backend]:
    if shape == "responses":
        with responses_server.FakeResponses(api_key=RESPONSES_KEY) as responses:
            provider = ProviderConfig("oa", "openai", responses.url, api_key=RESPONSES_KEY)
            yield MoreBackend(shape, responses, provider, "oa:gpt-5-mini")
    else:
        with gemini_server.FakeGemini() as gemini:
            key = gemini_server.DEFAULT_KEY
            provider = ProviderConfig("gem", "gemini", gemini.base_url, api_key=key)
            yield MoreBackend(shape, gemini, provider, "gem:gemini-2.5-flash")


@pytest.fixture(params=(*faults.SHAPES, *MORE_SHAPES))
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Backend]:
    """Every shape in turn: the suite's three (its fixture's own), then Responses and Gemini."""
    if request.param in MORE_SHAPES:
        yield from _more_backend(request.param)
    else:
        yield from faults.served_backend(request.param, monkeypatch)


def short_timeout_wire(provider: ProviderConfig) -> Wire:
    """The provider's usual wire, giving up after the suite's stall timeout without a byte."""
    if provider.kind in WIRES:
        return WIRES[provider.kind](provider, timeout=faults.STALL_TIMEOUT)
    return faults.short_timeout_wire(provider)


def error_notice(message: str) -> tuple[str, ...]:
    return ("notice", "error", message)


def one_line(message: str) -> None:
    """A message a person can read: one line, no JSON or traceback pasted in."""
    assert message and "\n" not in message
    assert "{" not in message and "Traceback" not in message


async def goes_on_after(
    rig: Rig, first: tuple[str, ...], error: ProviderError, partial: tuple[str, ...] = ()
) -> None:
    """The failed turn ("two") says why in one line, the next turn works, and the whole
    conversation, the `partial` answer included, is there after a reopen."""
    one_line(error.message)
    third = await rig.good_turn("three")
    assert rig.reopened() == [
        ("user", "one", "complete"),
        first,
        ("user", "two", "complete"),
        *([partial] if partial else []),
        error_notice(error.message),
        ("user", "three", "complete"),
        third,
    ]


async def test_reset_mid_stream_keeps_the_words_that_came(rig: Rig) -> None:
    first = await rig.good_turn("one")
    rig.backend.enqueue(rig.backend.dropped("Partial words that never finish."))
    error = failed_with(await rig.turn("two"), ServerError)
    assert "cut off" in error.message and "Try again" in error.message
    # The two pieces that came stay, marked failed.
    await goes_on_after(rig, first, error, ("assistant", "Partial wo", "failed"))


async def test_a_500_is_a_server_error_and_the_next_turn_works(rig: Rig) -> None:
    first = await rig.good_turn("one")
    rig.backend.enqueue(rig.backend.failing())
    before = rig.backend.chat_count()
    error = failed_with(await rig.turn("two"), ServerError)
    assert rig.backend.chat_count() == before + 1  # a 500 is not retried
    assert "Try again" in error.message
    await goes_on_after(rig, first, error)


async def test_broken_json_in_the_stream_is_malformed_and_keeps_the_words(rig: Rig) -> None:
    first = await rig.good_turn("one")
    rig.backend.enqueue(rig.backend.broken("Before the junk."))
    error = failed_with(await rig.turn("two"), MalformedResponse)
    assert "format" in error.message
    assert "not json at all" in error.detail  # the provider's words, for the log only
    await goes_on_after(rig, first, error, ("assistant", "Before the junk.", "failed"))


async def test_a_stalled_stream_times_out(backend: Backend, tmp_path: Path) -> None:
    rig = await make_rig(backend, tmp_path / "data", wire_factory=short_timeout_wire)
    try:
        first = await rig.good_turn("one")
        backend.enqueue(backend.stalled())
        started = time.monotonic()
        error = failed_with(await rig.turn("two"), TimedOut)
        assert time.monotonic() - started < 10 * 0.5  # gave up near the wire's timeout
        assert "stopped answering in time" in error.message
        await goes_on_after(rig, first, error)
    finally:
        await rig.runner.catalogue.aclose()
        rig.store.close()


def short_idle_wire(provider: ProviderConfig) -> Wire:
    """The provider's usual wire, but cutting a stream off after 0.5 s without an event."""
    if provider.kind == "ollama":
        return OllamaWire(provider, idle_limit=0.5)
    if provider.kind == "anthropic":
        return AnthropicWire(provider, idle_limit=0.5)
    if provider.kind in WIRES:
        return WIRES[provider.kind](provider, idle_limit=0.5)
    return OpenAIChatWire(provider, idle_limit=0.5)


async def test_a_keepalive_flood_times_out_and_the_next_turn_works(
    backend: Backend, tmp_path: Path
) -> None:
    rig = await make_rig(backend, tmp_path / "data", wire_factory=short_idle_wire)
    try:
        first = await rig.good_turn("one")
        backend.enqueue(backend.text("", hostile=KEEPALIVE_FLOOD))
        error = failed_with(await rig.turn("two"), TimedOut)
        assert f"came from 127.0.0.1:{backend.server.port} for 0.5 seconds" in error.message
        await goes_on_after(rig, first, error)
    finally:
        await rig.runner.catalogue.aclose()
        rig.store.close()


async def test_an_endless_line_is_too_large_and_the_next_turn_works(rig: Rig) -> None:
    first = await rig.good_turn("one")
    rig.backend.enqueue(rig.backend.text("", hostile=ENDLESS_LINE))
    error = failed_with(await rig.turn("two"), TooLarge)
    assert "of the stream over 16 MB" in error.message
    await goes_on_after(rig, first, error)


async def test_a_gzip_bomb_error_body_is_too_large_and_the_next_turn_works(rig: Rig) -> None:
    first = await rig.good_turn("one")
    rig.backend.enqueue(rig.backend.text("", hostile=GZIP_BOMB, status=502))
    before = rig.backend.chat_count()
    error = failed_with(await rig.turn("two"), TooLarge)
    assert rig.backend.chat_count() == before + 1  # too large is never tried again
    assert "(an HTTP 502 error body over 1 MB)" in error.message
    await goes_on_after(rig, first, error)


@pytest.mark.slow
async def test_a_huge_answer_streams_into_the_store(rig: Rig) -> None:
    # Huge, yet within the most one answer keeps (routing/wires/answer_cap.py): all of it.
    huge = "".join(f"line {n:07d} of a very long answer.\n" for n in range(110_000))
    assert 3_500_000 < len(huge) <= answer_cap.ANSWER_CHARS
    rig.backend.enqueue(rig.backend.text(huge, chunk_chars=64 * 1024))
    events = await rig.turn("Say a lot.")
    assert ended(events).error is None
    answer = await rig.good_turn("And now a little.")
    reopened = rig.reopened()
    assert reopened[1] == ("assistant", huge, "complete")
    assert reopened[-1] == answer


# -- rate limits ---------------------------------------------------------------------

# Ollama's 429 carries no retry-after: what it asks for is tested on the other shapes.
RETRY_AFTER_SHAPES = pytest.mark.parametrize(
    "backend", ["openai", "anthropic", *MORE_SHAPES], indirect=True
)


@RETRY_AFTER_SHAPES
async def test_one_rate_limit_is_waited_out(rig: Rig) -> None:
    rig.backend.enqueue(rig.backend.rate_limited("0.2"), rig.backend.text("Made it."))
    started = time.monotonic()
    events = await rig.turn("one")
    assert ended(events).error is None
    assert time.monotonic() - started >= 0.2  # waited as asked
    assert rig.backend.chat_count() == 2
    assert rig.reopened() == [("user", "one", "complete"), ("assistant", "Made it.", "complete")]


async def test_rate_limits_past_the_retries_end_the_turn(rig: Rig) -> None:
    first = await rig.good_turn("one")
    before = rig.backend.chat_count()
    rig.backend.enqueue(*(rig.backend.rate_limited("0.05") for _ in range(RETRIES + 1)))
    error = failed_with(await rig.turn("two"), RateLimited)
    assert rig.backend.chat_count() - before == RETRIES + 1  # bounded: no endless retry
    assert "try again" in error.message.lower()
    if rig.backend.shape != "ollama":
        assert error.retry_after == pytest.approx(0.05)
    await goes_on_after(rig, first, error)


@RETRY_AFTER_SHAPES
async def test_a_long_retry_after_is_left_to_the_person(rig: Rig) -> None:
    rig.backend.enqueue(rig.backend.rate_limited("3600"))
    started = time.monotonic()
    error = failed_with(await rig.turn("one"), RateLimited)
    assert time.monotonic() - started < 5  # no silent hour-long pause
    assert rig.backend.chat_count() == 1
    assert error.retry_after == 3600
    assert "60 minutes" in error.message
    assert rig.reopened() == [("user", "one", "complete"), error_notice(error.message)]


# -- nothing listening ---------------------------------------------------------------


async def test_connection_refused_then_the_server_comes_back(tmp_path: Path) -> None:
    port = closed_port()
    provider = ProviderConfig("ollama", "ollama", f"http://127.0.0.1:{port}")
    backend = Backend("ollama", None, provider, "ollama:llama3.2:3b")
    rig = await make_rig(backend, tmp_path / "data")
    try:
        error = failed_with(await rig.turn("anyone there?"), CannotConnect)
        assert f"127.0.0.1:{port}" in error.message and "ollama serve" in error.message
        one_line(error.message)
        with FakeOllama(port=port) as server:
            backend.server = server
            answer = await rig.good_turn("now?")
        assert rig.reopened() == [
            ("user", "anyone there?", "complete"),
            error_notice(error.message),
            ("user", "now?", "complete"),
            answer,
        ]
    finally:
        await rig.runner.catalogue.aclose()
        rig.store.close()


async def test_a_server_that_dies_mid_answer_loses_nothing(tmp_path: Path) -> None:
    with FakeOllama() as server:
        provider = ProviderConfig("ollama", "ollama", server.base_url)
        backend = Backend("ollama", server, provider, "ollama:llama3.2:3b")
        rig = await make_rig(backend, tmp_path / "data")
        try:
            first = await rig.good_turn("one")
            server.stop()
            error = failed_with(await rig.turn("two"), CannotConnect)
            one_line(error.message)
        finally:
            await rig.runner.catalogue.aclose()
            rig.store.close()
    with Store.open(tmp_path / "data") as store:
        items = store.items(rig.conversation)
    assert [i.item.text for i in items[:3]] == ["one", first[1], "two"]
