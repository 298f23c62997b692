"""The funnel every HTTP wire's requests pass, whatever the API shape behind it.

`HttpWire` owns what no shape does differently: the client (routing/wires/client.py)
and its timeouts, the key check, sending the chat request, the retry before any
output (routing/wires/retry.py), reading within bounds and the idle deadline
(routing/wires/bounded.py), the most of one answer it gives out
(routing/wires/answer_cap.py), and turning transport failures and cut-off answers
into errors (routing/wires/http_errors.py). A shape's module (ollama, openai_chat,
anthropic, lmstudio) supplies only what is its own: the address, headers, the
request body, how its stream becomes events, its model list, and how its error
bodies become errors. Its provider's quirks come from the preset, never from
asking which provider it is.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Mapping
from contextlib import aclosing, asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

import httpx

from routing.endpoints import endpoint_name
from routing.errors import KeyProblem, ModelNotFound, ProviderError, StreamCut
from routing.models import ModelInfo, ProviderConfig
from routing.presets import Preset
from routing.wires import answer_cap, bounded
from routing.wires.answer_cap import AnswerCap
from routing.wires.base import ChatRequest, StreamEvent
from routing.wires.bounded import (
    EVENT_CAP,
    LISTING_CAP,
    Fetched,
    IdleDeadline,
    SseEvent,
    Taking,
    fetch,
    parsed_sse,
    read_body,
    read_error,
)
from routing.wires.client import http_client
from routing.wires.http_errors import cut_off, looks_like_html, missing_key, translate_transport
from routing.wires.payload import load_json
from routing.wires.retry import RETRY_BASE, retrying

# The read timeout is the longest gap between bytes: a local model may load for
# minutes before its first token (the idle deadline catches keep-alive bytes).
DEFAULT_TIMEOUT = 300.0
CONNECT_TIMEOUT = 10.0
# Extras (another listing, the names for a ModelNotFound) never hold anything up.
NAMES_TIMEOUT = 3.0

if TYPE_CHECKING:
    from routing.wires.stream_state import StreamState

T = TypeVar("T")


@dataclass(frozen=True)
class ErrorAnswer:
    """A provider's answer that is an error: its status, words and headers, and what was asked."""

    status: int
    text: str
    headers: Mapping[str, str] = field(default_factory=dict)
    model: str = ""
    had_pictures: bool = False


@dataclass(frozen=True)
class Streamed:
    """A 200 answer to one chat request, as its shape reads it: what was asked, and the
    deadline its events keep."""

    response: httpx.Response
    body: Mapping[str, Any]
    request: ChatRequest
    deadline: IdleDeadline
    provider_id: str
    pictures: bool = False  # whether the body carries pictures (HttpWire.carries_pictures)

    @property
    def is_sse(self) -> bool:
        """Whether it is an event stream (a server that ignored "stream", or a proxy's
        page, answers with something else)."""
        return "text/event-stream" in self.response.headers.get("content-type", "")

    async def whole(self, cap: int = EVENT_CAP, what: str = "an answer") -> str:
        """The answer read whole, within `cap`."""
        return await read_body(self.response, cap, what, provider_id=self.provider_id)

    def events(
        self, state: Taking, parse: Callable[[SseEvent], tuple[Iterable[T], bool]]
    ) -> AsyncGenerator[T, None]:
        """Its SSE events, each parsed by `parse` (bounded.parsed_sse), against its deadline."""
        return parsed_sse(
            self.response,
            provider_id=self.provider_id,
            deadline=self.deadline,
            state=state,
            parse=parse,
        )


class HttpWire(ABC):
    """One API shape over HTTP, bound to one provider: the shared half of every wire."""

    def __init__(
        self,
        provider: ProviderConfig,
        *,
        preset: Preset | None = None,
        client: httpx.AsyncClient | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry_base_delay: float = RETRY_BASE,
        idle_limit: float | None = None,
        answer_chars: int | None = None,
    ) -> None:
        self.provider = provider
        self.preset = preset or self.preset_of(provider)
        self.base_url = self.locate(provider.base_url)
        # The provider as it is reached: errors name it by this address, never by user-info.
        self.located = replace(provider, base_url=self.base_url)
        self.server = endpoint_name(self.base_url)
        self._local = self.located.is_local
        # The provider's own idle limit (its config's idle_seconds) holds silence as long.
        if provider.idle_seconds is not None:
            timeout = max(timeout, provider.idle_seconds)
        self._timeout = httpx.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT))
        self._retry_base = retry_base_delay
        # Read when a wire is made, so tests (and a child process) can lower it.
        self._idle_limit = (
            idle_limit
            if idle_limit is not None
            else provider.idle_seconds
            if provider.idle_seconds is not None
            else bounded.IDLE_LIMIT
        )
        self._answer_chars = answer_chars  # None: answer_cap.ANSWER_CHARS when a stream starts
        self._owns_client = client is None
        self._client = client or http_client(
            self.base_url, local=self._local, provider_id=provider.id
        )

    async def aclose(self) -> None:
        """Close the wire's HTTP client (unless it was handed one)."""
        if self._owns_client:
            await self._client.aclose()

    # -- what a shape supplies ------------------------------------------------------

    @classmethod
    @abstractmethod
    def preset_of(cls, provider: ProviderConfig) -> Preset:
        """The preset a wire of this shape uses for `provider` when it is given none."""

    def locate(self, configured: str) -> str:
        """The base URL requests go to: the configured one, else the preset's, without a /."""
        return (configured or self.preset.base_url).strip().rstrip("/")

    def headers(self) -> dict[str, str]:
        """The headers of every request (the key among them)."""
        return dict(self.preset.headers)

    def stream_headers(self) -> dict[str, str]:
        """The headers of a chat request."""
        return self.headers()

    @property
    @abstractmethod
    def chat_url(self) -> str:
        """Where chat requests go."""

    @abstractmethod
    def chat_body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body of one chat request."""

    def carries_pictures(self, body: Mapping[str, Any]) -> bool:
        """Whether a chat body carries pictures (some refusals mean one only then)."""
        del body
        return False

    @abstractmethod
    def read_events(self, answer: Streamed) -> AsyncGenerator[StreamEvent, None]:
        """The events of a 200 answer, read within bounds; `answer.deadline.progress()` for
        any part that shows no event yet. Raise `self.cut_off(...)` when it ends unfinished."""

    @abstractmethod
    def classify(self, answer: ErrorAnswer) -> ProviderError:
        """An error answer (its status, body and headers) as an error of our tree."""

    def classified_by(
        self, classifier: Callable[..., ProviderError], answer: ErrorAnswer
    ) -> ProviderError:
        """An error answer given to a shape's classifier of the common signature
        (provider, preset, status, body, headers; had_pictures, model)."""
        return classifier(
            self.located,
            self.preset,
            answer.status,
            answer.text,
            answer.headers,
            had_pictures=answer.had_pictures,
            model=answer.model,
        )

    def whole_json(self, text: str, state: StreamState) -> Any:
        """A whole answer where a stream was asked for, read as JSON: a web page is the
        error the shape's ladder makes of it, anything else not JSON is out of format."""
        try:
            return load_json(text)
        except ValueError:
            if looks_like_html(text):
                raise self.classify(ErrorAnswer(200, text)) from None
            raise state.malformed("an answer that is neither SSE nor JSON", text) from None

    @abstractmethod
    def not_json(self, text: str) -> ProviderError:
        """The error for a 200 answer to a listing request that is not JSON."""

    @abstractmethod
    async def read_models(self) -> list[ModelInfo]:
        """Every model the provider lists, with what its listing says of each."""

    async def model_names(self) -> tuple[str, ...]:
        """The provider's model names, for a ModelNotFound (() when they can't be had quickly)."""
        return ()

    def names_help(self, error: ModelNotFound) -> bool:
        """Whether listing the provider's models would help with this ModelNotFound."""
        del error
        return True

    def missing_key(self) -> KeyProblem:
        """The error for a provider that needs a key and has none."""
        return missing_key(self.located, self.preset)

    # -- the funnel -----------------------------------------------------------------

    def require_key(self) -> None:
        """Fail before any request when the provider needs a key and has none."""
        if self.preset.needs_key and not self.provider.api_key:
            raise self.missing_key()

    async def list_models(self) -> list[ModelInfo]:
        """Every model the provider offers, with sight and tools where it says."""
        self.require_key()
        return await self.read_models()

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Send the request and yield its events as they arrive; a `ProviderError` on failure,
        `AnswerCut` once the answer's words reach their cap (the last piece cut to fit)."""
        self.require_key()
        body = self.chat_body(request)
        pid = self.provider.id
        deadline = IdleDeadline(self._idle_limit, server=self.server, provider_id=pid)
        limit = answer_cap.ANSWER_CHARS if self._answer_chars is None else self._answer_chars
        cap = AnswerCap(limit, server=self.server, provider_id=pid)
        attempts = retrying(
            lambda: self._attempt(body, request, deadline), base_delay=self._retry_base
        )
        async with aclosing(deadline.watch(attempts)) as events:
            async for event in events:
                given = cap.fit(event)
                if given is not None:
                    yield given
                if cap.over:  # closing the events here closes the response: nothing more is read
                    raise cap.cut()

    async def _attempt(
        self, body: dict[str, Any], request: ChatRequest, deadline: IdleDeadline
    ) -> AsyncGenerator[StreamEvent, None]:
        """One try: the events of the answer, or its failure as our error."""
        pictures = self.carries_pictures(body)
        async with self.opened(
            self.chat_url, body, self.stream_headers(), model=request.model, pictures=pictures
        ) as response:
            streamed = Streamed(response, body, request, deadline, self.provider.id, pictures)
            events = self.read_events(streamed)
            async with aclosing(events):  # returning at the end closes the reader now
                async for event in events:
                    yield event

    @asynccontextmanager
    async def opened(
        self,
        url: str,
        body: Mapping[str, Any],
        headers: Mapping[str, str] | None = None,
        *,
        model: str = "",
        pictures: bool = False,
    ) -> AsyncIterator[httpx.Response]:
        """One streamed POST (a chat, a pull): its 200 answer, to be read within bounds, or its
        failure as our error: an error answer read within its cap and classified once it is
        closed, a failure to talk at all (then or while reading) translated."""
        failed: ErrorAnswer | None = None
        try:
            async with self._client.stream(
                "POST",
                url,
                json=body,
                headers=self.headers() if headers is None else headers,
                timeout=self._timeout,
            ) as response:
                if response.status_code == 200:
                    yield response
                else:
                    text = await read_error(response, provider_id=self.provider.id)
                    failed = ErrorAnswer(
                        response.status_code, text, response.headers, model, pictures
                    )
        except httpx.HTTPError as exc:
            raise self.transport_error(exc) from exc
        if failed is not None:
            error = self.classify(failed)
            if isinstance(error, ModelNotFound) and self.names_help(error):
                error.available = await self.model_names()
            raise error

    async def read(
        self,
        url: str,
        *,
        method: str = "GET",
        what: str = "the model list",
        cap: int = LISTING_CAP,
        **options: Any,
    ) -> Fetched:
        """One request read whole within `cap` (a failure to connect translated): a listing,
        by default."""
        options.setdefault("timeout", self._timeout)
        try:
            return await fetch(
                self._client,
                method,
                url,
                cap=cap,
                what=what,
                provider_id=self.provider.id,
                headers=self.headers(),
                **options,
            )
        except httpx.HTTPError as exc:
            raise self.transport_error(exc) from exc

    def json_of(self, answer: Fetched, *, model: str = "") -> Any:
        """The JSON of a listing answer, or its failure as our error."""
        if answer.status_code != 200:
            # Never the provider's names here: listing them inside a listing only repeats it.
            raise self.classify(ErrorAnswer(answer.status_code, answer.text, answer.headers, model))
        try:
            return answer.json()
        except ValueError:
            raise self.not_json(answer.text) from None

    async def read_json(self, url: str, *, model: str = "", **options: Any) -> Any:
        """The JSON of one listing request, or its failure as our error."""
        return self.json_of(await self.read(url, **options), model=model)

    async def quietly(self, url: str, *, what: str = "the model list", **options: Any) -> Any:
        """A JSON answer, or None when there is none to have quickly (extras never fail a list)."""
        try:
            async with asyncio.timeout(NAMES_TIMEOUT):  # a trickle of bytes is no quick answer
                answer = await self.read(url, what=what, timeout=NAMES_TIMEOUT, **options)
            return answer.json() if answer.status_code == 200 else None
        except (ProviderError, TimeoutError, ValueError):
            return None

    def cut_off(self, detail: str) -> StreamCut:
        """An answer that stopped before the provider said it was done."""
        return cut_off(self.located, self.preset, detail)

    def transport_error(self, exc: httpx.HTTPError) -> ProviderError:
        """A failure to talk to the provider at all, as our error."""
        return translate_transport(self.located, exc, preset=self.preset)
