"""The funnel every HTTP wire's requests pass: one retry, one Overloaded, for every shape.

Against each shape's loopback server: a busy server is the same `Overloaded` from
every wire; a rate limit or an overload is asked again before any part of the
answer came (Ollama's too, and one inside a 200 stream), never after.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from routing.errors import Overloaded, ProviderError, RateLimited, ServerError
from routing.models import ProviderConfig
from routing.transcript import user_message
from routing.wires.anthropic import AnthropicWire
from routing.wires.base import ChatRequest, TextDelta
from routing.wires.http import HttpWire
from routing.wires.ollama import OllamaWire
from routing.wires.openai_chat import OpenAIChatWire
from routing.wires.retry import RETRIES
from tests.servers import anthropic, ollama, openai_chat

# Each shape's status, words and error type for "overloaded" and for "too many requests".
BUSY = {
    "ollama": (503, "server busy, please try again.", ""),
    "openai": (503, "The server is overloaded", "server_error"),
    "anthropic": (529, "Overloaded", "overloaded_error"),
}
LIMITED = {
    "ollama": (429, "too many requests", ""),
    "openai": (429, "Rate limit reached for requests", "requests"),
    "anthropic": (429, "Number of request tokens", "rate_limit_error"),
}


@dataclass
class Shape:
    """One shape's server, a wire to it that retries without waiting, and its replies."""

    name: str
    server: Any
    wire: HttpWire
    model: str

    def busy(self) -> object:
        """The shape's way of saying it is overloaded."""
        return self._error(*BUSY[self.name])

    def limited(self) -> object:
        """A 429."""
        return self._error(*LIMITED[self.name])

    def _error(self, status: int, words: str, kind: str) -> object:
        """An error of `status` in the shape's own body (`kind` is its error type)."""
        if self.name == "ollama":
            return ollama.Reply(status=status, body={"error": words})
        if self.name == "openai":
            return openai_chat.Reply(
                status=status, body={"error": {"message": words, "type": kind}}
            )
        return anthropic.error_reply(status, kind, words)

    def text(self, text: str, **fields: Any) -> object:
        module = {"ollama": ollama, "openai": openai_chat, "anthropic": anthropic}[self.name]
        return module.Reply(text=text, **fields)

    def asked(self) -> int:
        if self.name == "anthropic":
            return len(self.server.message_requests())
        return len(self.server.chat_requests())


@pytest.fixture(params=["ollama", "openai", "anthropic"])
def shape(request: pytest.FixtureRequest) -> Iterator[Shape]:
    name: str = request.param
    if name == "ollama":
        with ollama.FakeOllama() as server:
            provider = ProviderConfig("o", "ollama", server.base_url)
            yield Shape(name, server, OllamaWire(provider, retry_base_delay=0), "llama3.2:3b")
    elif name == "openai":
        with openai_chat.FakeOpenAI() as server:
            provider = ProviderConfig("m", "custom", server.url)
            yield Shape(name, server, OpenAIChatWire(provider, retry_base_delay=0), "gpt-4o-mini")
    else:
        with anthropic.FakeAnthropic() as server:
            provider = ProviderConfig("c", "anthropic", server.base_url, anthropic.DEFAULT_KEY)
            wire = AnthropicWire(provider, retry_base_delay=0)
            yield Shape(name, server, wire, "claude-haiku-4-5-20251001")


async def answer(shape: Shape) -> tuple[str, ProviderError | None]:
    """The words the wire yielded for one question, and the error it ended with."""
    words: list[str] = []
    request = ChatRequest(shape.model, (user_message("hi"),))
    try:
        async for event in shape.wire.stream(request):
            if isinstance(event, TextDelta):
                words.append(event.text)
    except ProviderError as error:
        return "".join(words), error
    finally:
        await shape.wire.aclose()
    return "".join(words), None


async def test_a_busy_server_is_asked_again_then_answers(shape: Shape) -> None:
    shape.server.enqueue(shape.busy(), shape.limited(), shape.text("made it"))
    assert await answer(shape) == ("made it", None)
    assert shape.asked() == 3


async def test_a_busy_server_is_the_one_overloaded_type_of_every_wire(shape: Shape) -> None:
    shape.server.enqueue(*(shape.busy() for _ in range(RETRIES + 1)), shape.text("too late"))
    _, error = await answer(shape)
    assert type(error) is Overloaded
    assert isinstance(error, RateLimited) and isinstance(error, ServerError)
    assert shape.asked() == RETRIES + 1  # bounded


def limited_midstream(shape: Shape, anthropic_type: str, anthropic_message: str) -> Any:
    """A rate limit (or, for Anthropic, the error of `anthropic_type`) as an event inside
    the stream, in the shape's own words."""
    if shape.name == "ollama":
        pytest.skip("an error line inside Ollama's stream carries no status: never a rate limit")
    if shape.name == "openai":
        return {"code": 429, "message": "Rate limit reached"}
    return {"type": anthropic_type, "message": anthropic_message}


async def test_never_asked_again_once_words_were_shown(shape: Shape) -> None:
    error_event = limited_midstream(shape, "overloaded_error", "Overloaded")
    shape.server.enqueue(shape.text("partial", midstream_error=error_event), shape.text("never"))
    words, error = await answer(shape)
    assert words == "partial" and isinstance(error, RateLimited)
    assert shape.asked() == 1


async def test_a_rate_limit_inside_the_stream_before_any_word_is_asked_again(shape: Shape) -> None:
    error_event = limited_midstream(shape, "rate_limit_error", "Rate limited")
    shape.server.enqueue(shape.text("", midstream_error=error_event), shape.text("second try"))
    assert await answer(shape) == ("second try", None)
    assert shape.asked() == 2
