"""Reading what a server sends within bounds: so many decoded bytes, and no endless wait.

Every body a wire reads comes through here, never through httpx's `aread()`,
`.json()`, `.text` or `aiter_lines()`, and never through httpx-sse: each of those
holds a whole body, line or event in memory however large it grows. The caps
count decoded bytes (after gzip or deflate), inflated here a piece at a time from
the raw bytes, so a 6 MB body that inflates to 6 GB stops at its cap having
inflated little more than the cap. Past a cap the request fails as `TooLarge`.

A stream is cut off as `TimedOut` once it goes `IDLE_LIMIT` seconds (or its
provider's `idle_seconds`) without an event: text, a tool call fragment, usage, a
thinking model's thoughts, or the end. httpx's read timeout only catches silence;
keep-alive lines, SSE comments, empty chunks and heartbeat events would keep it
waiting forever. How much of an answer is read in all: routing/wires/answer_cap.py.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncGenerator, Callable, Iterable, Iterator
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import httpx

from routing.endpoints import endpoint_name
from routing.errors import TimedOut, TooLarge
from routing.wires.payload import load_json

MB = 1 << 20
# One NDJSON line or one SSE event. A streamed event is a few hundred bytes, but a
# server that ignores "stream" sends a whole answer as one, and a tool call's
# arguments may carry a picture or a file in base64: 16 MB holds those with room.
EVENT_CAP = 16 * MB
# An error body: only its words are read, and a provider's run to a few KB.
ERROR_BODY_CAP = 1 * MB
# A model list (and /api/show, /props): OpenRouter's full listing is a few MB.
LISTING_CAP = 32 * MB
# Seconds a stream may go without an event, whatever bytes arrive meanwhile: as long
# as the wires' read timeout, since a cold local model may load for minutes before
# its first word. Read when a wire is made, so tests can lower it.
IDLE_LIMIT = 300.0
# Decoded bytes handed on at a time: a compressed body never inflates more at once.
PIECE = 64 * 1024

T = TypeVar("T")


def _size(count: int) -> str:
    if count >= MB:
        return f"{count / MB:g} MB"
    return f"{count / 1024:.0f} KB" if count >= 1024 else f"{count} bytes"


def too_large(response: httpx.Response, what: str, cap: int, provider_id: str) -> TooLarge:
    """The error for a body, line or event from `response` that passed `cap` decoded bytes."""
    server = endpoint_name(str(response.request.url))
    return TooLarge(
        f"The server at {server} sent more than Sightline accepts ({what} over {_size(cap)}). "
        "Check that the provider's base URL points at a model server.",
        provider_id=provider_id,
        detail=f"{what}: more than {cap} decoded bytes (HTTP {response.status_code})",
    )


# -- decoded bytes ---------------------------------------------------------------


class _Inflater:
    """One gzip or deflate layer, inflating at most PIECE bytes a step."""

    def __init__(self, encoding: str) -> None:
        self._deflate = encoding == "deflate"
        self._first = True
        self._z = zlib.decompressobj(zlib.MAX_WBITS | (0 if self._deflate else 16))

    def feed(self, data: bytes) -> Iterator[bytes]:
        while data and not self._z.eof:
            try:
                out = self._z.decompress(data, PIECE)
            except zlib.error:
                if not (self._deflate and self._first):
                    raise
                # Some servers send deflate without its zlib header, as httpx allows.
                self._z = zlib.decompressobj(-zlib.MAX_WBITS)
                self._first = False
                continue
            self._first = False
            if not out and len(self._z.unconsumed_tail) >= len(data):
                return  # no progress (never seen): better than looping forever
            data = self._z.unconsumed_tail
            if out:
                yield out


def _through(layers: list[_Inflater], data: bytes) -> Iterator[bytes]:
    if not layers:
        if data:
            yield data
        return
    for piece in layers[0].feed(data):
        yield from _through(layers[1:], piece)


def _layers(response: httpx.Response) -> list[_Inflater]:
    # Undone last to first; unknown codings pass through as bytes, as httpx does.
    codings = response.headers.get_list("content-encoding", split_commas=True)
    named = [c.strip().lower() for c in codings]
    return [_Inflater(c) for c in reversed(named) if c in ("gzip", "deflate")]


async def decoded(response: httpx.Response) -> AsyncGenerator[bytes, None]:
    """The body as it was before gzip or deflate, at most PIECE bytes at a time."""
    if response.is_stream_consumed:  # read whole already (a prepared test response)
        content = response.content
        for start in range(0, len(content), PIECE):
            yield content[start : start + PIECE]
        return
    layers = _layers(response)
    try:
        async for raw in response.aiter_raw():
            for piece in _through(layers, raw):
                yield piece
        # No flush at the end: all input was inflated, the tail drained, so none is pending.
    except zlib.error as exc:  # what httpx's own decoders raise for a broken body
        raise httpx.DecodingError(f"undecodable body: {exc}", request=response.request) from exc


async def read_body(response: httpx.Response, cap: int, what: str, *, provider_id: str) -> str:
    """The whole body as text; `TooLarge` once it passes `cap` decoded bytes."""
    body = bytearray()
    async with aclosing(decoded(response)) as pieces:
        async for piece in pieces:
            body += piece
            if len(body) > cap:
                raise too_large(response, what, cap, provider_id)
    return body.decode(response.encoding or "utf-8", "replace")


async def read_error(response: httpx.Response, *, provider_id: str) -> str:
    """An error answer's body, for its words (within ERROR_BODY_CAP)."""
    what = f"an HTTP {response.status_code} error body"
    return await read_body(response, ERROR_BODY_CAP, what, provider_id=provider_id)


@dataclass(frozen=True)
class Fetched:
    """A whole answer read within its cap: its status, headers and text."""

    status_code: int
    headers: httpx.Headers
    text: str

    def json(self) -> Any:
        """The text as JSON; ValueError when it isn't."""
        return load_json(self.text)


async def fetch(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    cap: int,
    what: str,
    provider_id: str,
    **options: Any,
) -> Fetched:
    """One request read whole: a success's body within `cap`, an error's within its own cap."""
    async with client.stream(method, url, **options) as response:
        if 200 <= response.status_code < 300:
            text = await read_body(response, cap, what, provider_id=provider_id)
        else:
            text = await read_error(response, provider_id=provider_id)
    return Fetched(response.status_code, response.headers, text)


# -- lines and events ------------------------------------------------------------


class _Lines:
    """Decoded bytes cut into lines, holding at most `cap` bytes of the unfinished one."""

    def __init__(self, cap: int, too_long: Callable[[], TooLarge], *, cr: bool) -> None:
        self._cap, self._too_long, self._cr = cap, too_long, cr
        self._partial = bytearray()
        self._after_cr = False

    def feed(self, data: bytes) -> list[bytes]:
        """The lines `data` completes (without their ends)."""
        if self._cr:  # SSE: \r\n, \r and \n all end a line, even split across pieces
            if self._after_cr and data.startswith(b"\n"):
                data = data[1:]
            self._after_cr = data.endswith(b"\r")
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        *lines, rest = data.split(b"\n")
        if lines:
            lines[0] = bytes(self._partial) + lines[0]
            self._partial = bytearray()
        self._partial += rest
        if len(self._partial) > self._cap or any(len(line) > self._cap for line in lines):
            raise self._too_long()
        return lines

    def end(self) -> list[bytes]:
        """The last line, when the body ended without ending it."""
        return [bytes(self._partial)] if self._partial else []


async def ndjson_lines(
    response: httpx.Response, *, provider_id: str, cap: int = EVENT_CAP
) -> AsyncGenerator[str, None]:
    """The body's lines (split at \\n only, as NDJSON is), each within `cap` decoded bytes."""
    lines = _Lines(
        cap, lambda: too_large(response, "a line of the stream", cap, provider_id), cr=False
    )
    charset = response.encoding or "utf-8"
    async with aclosing(decoded(response)) as pieces:
        async for piece in pieces:
            for line in lines.feed(piece):
                yield line.decode(charset, "replace")
    for line in lines.end():
        yield line.decode(charset, "replace")


@dataclass(frozen=True)
class SseEvent:
    """One server-sent event: its name ("" when unnamed) and its data lines joined."""

    event: str
    data: str


async def sse_events(
    response: httpx.Response, *, provider_id: str, cap: int = EVENT_CAP
) -> AsyncGenerator[SseEvent, None]:
    """The body's events, each within `cap` decoded bytes; comments, ids and retries skipped."""

    def overflow() -> TooLarge:
        return too_large(response, "an event of the stream", cap, provider_id)

    lines = _Lines(cap, overflow, cr=True)
    name, size = "", 0
    data: list[str] = []
    async with aclosing(decoded(response)) as pieces:
        async for piece in pieces:
            for raw in lines.feed(piece):
                if not raw:  # a blank line ends the event
                    if name or data:
                        yield SseEvent(name, "\n".join(data))
                    name, data, size = "", [], 0
                    continue
                line = raw.decode("utf-8", "replace")  # SSE is UTF-8 whatever the header says
                field, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if field == "event":
                    name = value
                elif field == "data":
                    data.append(value)
                else:
                    continue  # a comment (": ping"), id, retry or unknown field
                size += len(raw)
                if size > cap:  # short lines that never end their event
                    raise overflow()
    # An event the body ended without its blank line is dropped, as the SSE standard says.


# -- the idle deadline -----------------------------------------------------------


class IdleDeadline:
    """How long one stream may go without an event before it is cut off as `TimedOut`."""

    def __init__(self, limit: float, *, server: str, provider_id: str) -> None:
        self.limit = limit
        self._server, self._provider_id = server, provider_id
        self._timer: asyncio.Timeout | None = None

    def progress(self) -> None:
        """Part of the answer came that shows no event yet: a tool call fragment, usage,
        a thinking model's thoughts."""
        if self._timer is not None:
            self._timer.reschedule(asyncio.get_running_loop().time() + self.limit)

    async def watch(self, events: AsyncGenerator[T, None]) -> AsyncGenerator[T, None]:
        """`events` as they come; `TimedOut` once `limit` seconds pass without one."""
        # The clock runs only while the next event is awaited, never while the caller
        # holds one: a timeout spanning a yield would cancel the caller's own work.
        async with aclosing(events):
            while True:
                self._timer = timer = asyncio.timeout(self.limit)
                try:
                    async with timer:
                        event = await anext(events)
                except StopAsyncIteration:
                    return
                except TimeoutError:
                    if not timer.expired():
                        raise
                    raise self.stalled() from None
                finally:
                    self._timer = None
                yield event

    def stalled(self) -> TimedOut:
        """The error for a stream that went `limit` seconds without an event (a stream that
        is not an answer, such as a pull, says it in its own words)."""
        seconds = f"{self.limit:g} second{'' if self.limit == 1 else 's'}"
        return TimedOut(
            f"Nothing of the answer came from {self._server} for {seconds}, so Sightline "
            "stopped waiting. Try again, or pick a lighter model.",
            provider_id=self._provider_id,
            detail=f"no event for {self.limit:g} s (keep-alive bytes, if any, don't count)",
        )


class Taking(Protocol):
    """A stream's state that counts what it took in without showing an event yet."""

    taken: int


async def parsed_sse(
    response: httpx.Response,
    *,
    provider_id: str,
    deadline: IdleDeadline,
    state: Taking,
    parse: Callable[[SseEvent], tuple[Iterable[T], bool]],
) -> AsyncGenerator[T, None]:
    """Every event of an SSE body parsed by `parse` (its events, and whether the answer
    ended), until the body or the answer ends. Something taken in that shows no event
    yet (a tool call's fragment, usage) still counts as progress against the deadline."""
    # aclosing: an answer that ends before the body must close the reader now, not at GC.
    async with aclosing(sse_events(response, provider_id=provider_id)) as messages:
        async for sse in messages:
            taken = state.taken
            events, ended = parse(sse)
            if state.taken != taken:
                deadline.progress()
            for event in events:
                yield event
            if ended:
                return
