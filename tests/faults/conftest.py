"""Fixtures for the fault tests: each provider shape on loopback, and a turn runner on a real file.

A `Backend` is one loopback server (Ollama's NDJSON, the OpenAI shape's SSE,
Anthropic's SSE) with the replies that make it fail in each way; a `Rig` runs turns
through `TurnRunner` into a SQLite file that tests reopen to prove nothing was lost.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from app.store import Store, StoredItem
from app.turn.events import TurnEvent
from app.turn.runner import TurnRunner
from app.turn.turn_input import TurnInput
from routing.catalogue import Catalogue
from routing.errors import ProviderError
from routing.models import ProviderConfig
from routing.transcript import Message, Notice
from routing.wires.anthropic import AnthropicWire
from routing.wires.base import Wire
from routing.wires.ollama import OllamaWire
from routing.wires.openai_chat import OpenAIChatWire
from tests.events import collect, ended
from tests.servers import anthropic as anthropic_server
from tests.servers import ollama as ollama_server
from tests.servers import openai_chat as openai_server
from vision.pictures import Picture

SHAPES = ("ollama", "openai", "anthropic")
# Short enough that a stalled stream fails fast; long enough for loopback to answer.
STALL_TIMEOUT = 0.5


@dataclass
class BrokenAnthropicReply(anthropic_server.Reply):
    """An Anthropic reply whose stream carries one event that is not JSON after `at` events."""

    at: int = 3
    junk: bytes = b"event: content_block_delta\ndata: {not json at all\n\n"


def _with_broken_events(original: Callable[[str, Any], list[bytes]]) -> Callable[..., list[bytes]]:
    def stream_events(model: str, reply: anthropic_server.Reply) -> list[bytes]:
        events = original(model, reply)
        if isinstance(reply, BrokenAnthropicReply):
            events.insert(reply.at, reply.junk)
        return events

    return stream_events


@dataclass
class Backend:
    """One provider shape served on loopback, and how to make it fail."""

    shape: str
    server: Any  # FakeOllama | FakeOpenAI | FakeAnthropic
    provider: ProviderConfig
    model: str  # PROVIDER:MODEL

    def enqueue(self, *replies: object) -> None:
        """The next chat requests answer with these replies, in order."""
        self.server.enqueue(*replies)

    def chat_count(self) -> int:
        """How many chat requests the server has had."""
        if self.shape == "anthropic":
            return len(self.server.message_requests())
        return len(self.server.chat_requests())

    def text(self, text: str, **options: Any) -> object:
        """A reply that streams `text` (in small pieces unless `chunk_chars` says)."""
        return self._reply(text=text, **options)

    def dropped(self, text: str) -> object:
        """A reply that cuts the connection after the first few pieces of `text`."""
        # Count the events before the text (Anthropic: message_start, block start, ping;
        # OpenAI: the role chunk) so that exactly two pieces of text arrive.
        before = {"ollama": 0, "openai": 1, "anthropic": 3}[self.shape]
        return self._reply(text=text, chunk_chars=5, drop_after=before + 2)

    def failing(self) -> object:
        """A 500 with the provider's own error body."""
        if self.shape == "ollama":
            return ollama_server.Reply(
                status=500, body={"error": "llama runner process has terminated: exit status 2"}
            )
        if self.shape == "openai":
            body = {"error": {"message": "The server had an error", "type": "server_error"}}
            return openai_server.Reply(status=500, body=body)
        return anthropic_server.error_reply(500, "api_error", "Internal server error")

    def rate_limited(self, retry_after: str) -> object:
        """A 429 that asks to wait `retry_after` seconds (Ollama sends no such header)."""
        if self.shape == "ollama":
            return ollama_server.Reply(status=429, body={"error": "too many requests"})
        if self.shape == "openai":
            body = {
                "error": {
                    "message": "Rate limit reached for requests",
                    "type": "requests",
                    "code": "rate_limit_exceeded",
                }
            }
            return openai_server.Reply(status=429, body=body, headers={"retry-after": retry_after})
        return anthropic_server.error_reply(
            429, "rate_limit_error", "Number of request tokens has exceeded your limit.",
            retry_after=retry_after,
        )  # fmt: skip

    def broken(self, text: str) -> object:
        """A reply that streams `text`, then a line or event that is not JSON."""
        if self.shape == "ollama":
            return ollama_server.Reply(text=text, raw_lines=["{not json at all"])
        if self.shape == "openai":
            return openai_server.Reply(text=text, raw_events=["{not json at all"])
        return BrokenAnthropicReply(text=text, chunk_chars=len(text), at=4)

    def stalled(self) -> object:
        """A reply that waits far longer than STALL_TIMEOUT before each piece."""
        return self._reply(text="late", delay=STALL_TIMEOUT * 6)

    def _reply(self, **fields: Any) -> object:
        module = {"ollama": ollama_server, "openai": openai_server, "anthropic": anthropic_server}
        return module[self.shape].Reply(**fields)


@pytest.fixture(params=SHAPES)
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Backend]:
    """Each provider shape in turn, on a fresh loopback server."""
    yield from served_backend(request.param, monkeypatch)


def served_backend(shape: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Backend]:
    """One of SHAPES on a fresh loopback server, for as long as the generator runs."""
    if shape == "ollama":
        with ollama_server.FakeOllama() as ollama:
            provider = ProviderConfig("ollama", "ollama", ollama.base_url)
            yield Backend(shape, ollama, provider, "ollama:llama3.2:3b")
    elif shape == "openai":
        with openai_server.FakeOpenAI() as openai:
            provider = ProviderConfig("mine", "custom", openai.url)
            yield Backend(shape, openai, provider, "mine:gpt-4o-mini")
    else:
        broken = _with_broken_events(anthropic_server.stream_events)
        monkeypatch.setattr(anthropic_server, "stream_events", broken)
        with anthropic_server.FakeAnthropic() as anthropic:
            provider = ProviderConfig(
                "claude", "anthropic", anthropic.base_url, api_key=anthropic_server.DEFAULT_KEY
            )
            yield Backend(shape, anthropic, provider, "claude:claude-haiku-4-5-20251001")


def short_timeout_wire(provider: ProviderConfig) -> Wire:
    """The provider's usual wire, but giving up after STALL_TIMEOUT without a byte."""
    if provider.kind == "ollama":
        return OllamaWire(provider, timeout=STALL_TIMEOUT)
    if provider.kind == "anthropic":
        return AnthropicWire(provider, timeout=STALL_TIMEOUT)
    return OpenAIChatWire(provider, timeout=STALL_TIMEOUT)


def describe(stored: StoredItem) -> tuple[str, ...]:
    """An item as (role, text, status) or ("notice", kind, text), for whole-transcript checks."""
    item = stored.item
    if isinstance(item, Notice):
        return ("notice", item.kind.value, item.text)
    assert isinstance(item, Message)
    return (item.role, item.text, item.status.value)


@dataclass
class Rig:
    """A turn runner over one backend, keeping its conversation in a real SQLite file."""

    backend: Backend
    folder: Path
    store: Store
    runner: TurnRunner
    conversation: str

    async def turn(
        self, text: str, model: str | None = None, pictures: tuple[Picture, ...] = ()
    ) -> list[TurnEvent]:
        """Run one turn to its end and return its events."""
        asked = TurnInput(
            self.conversation, text, pictures, requested_model=model or self.backend.model
        )
        return await collect(self.runner.run(asked))

    async def good_turn(self, text: str) -> tuple[str, ...]:
        """A turn that must succeed; its answer as `describe` shows it."""
        self.backend.enqueue(self.backend.text(f"Answer to {text}."))
        events = await self.turn(text)
        assert ended(events).error is None, ended(events).error
        return ("assistant", f"Answer to {text}.", "complete")

    def reopened(self) -> list[tuple[str, ...]]:
        """The conversation as a fresh open of the database file reads it."""
        with Store.open(self.folder) as store:
            return [describe(item) for item in store.items(self.conversation)]


E = TypeVar("E", bound=ProviderError)


def failed_with(events: list[TurnEvent], kind: type[E]) -> E:
    """The turn's error, checked to be of `kind`."""
    error = ended(events).error
    assert isinstance(error, kind), f"expected {kind.__name__}, got {error!r}"
    return error


async def make_rig(
    backend: Backend, folder: Path, wire_factory: Callable[[ProviderConfig], Wire] | None = None
) -> Rig:
    """A rig whose store lives in `folder`."""
    store = Store.open(folder)
    catalogue = (
        Catalogue([backend.provider], wire_factory=wire_factory)
        if wire_factory
        else Catalogue([backend.provider])
    )
    runner = TurnRunner(store, catalogue)
    return Rig(backend, folder, store, runner, store.conversations.create())


@pytest.fixture
async def rig(backend: Backend, tmp_path: Path) -> AsyncIterator[Rig]:
    """A rig on the backend with the usual wires."""
    made = await make_rig(backend, tmp_path / "data")
    yield made
    await made.runner.catalogue.aclose()
    made.store.close()
