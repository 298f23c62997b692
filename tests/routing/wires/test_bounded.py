"""The bounded reader: caps on decoded bytes, lines and events cut right, the idle deadline.

Responses here are real httpx responses whose bodies arrive in pieces the test
chooses (a socket would coalesce them), so each cap is checked at its edge and
every line ending across a piece boundary.
"""

from __future__ import annotations

import asyncio
import gzip
import time
import zlib
from collections.abc import AsyncGenerator, AsyncIterator, Iterable

import httpx
import pytest

from routing.errors import TimedOut, TooLarge
from routing.wires.bounded import (
    ERROR_BODY_CAP,
    PIECE,
    IdleDeadline,
    SseEvent,
    decoded,
    ndjson_lines,
    read_body,
    read_error,
    sse_events,
)
from tests.servers.hostile import gzip_bomb

URL = "http://user:s3cr3t@127.0.0.1:8123/v1/models"


async def _stream(pieces: Iterable[bytes]) -> AsyncIterator[bytes]:
    for piece in pieces:
        yield piece


def response(
    pieces: Iterable[bytes], *, status: int = 200, encoding: str = "", charset: str = ""
) -> httpx.Response:
    """A response whose body arrives in exactly these pieces (not read yet)."""
    headers = {"content-type": f"text/plain{f'; charset={charset}' if charset else ''}"}
    if encoding:
        headers["content-encoding"] = encoding
    return httpx.Response(
        status, headers=headers, content=_stream(pieces), request=httpx.Request("GET", URL)
    )


async def body_of(resp: httpx.Response, cap: int = 1 << 20) -> str:
    return await read_body(resp, cap, "the body", provider_id="p")


async def lines_of(resp: httpx.Response, cap: int = 1 << 20) -> list[str]:
    return [line async for line in ndjson_lines(resp, provider_id="p", cap=cap)]


async def events_of(resp: httpx.Response, cap: int = 1 << 20) -> list[SseEvent]:
    return [event async for event in sse_events(resp, provider_id="p", cap=cap)]


# -- caps ------------------------------------------------------------------------


async def test_a_body_of_exactly_the_cap_is_read_and_one_byte_more_is_too_large() -> None:
    assert await body_of(response([b"ab", b"cd"]), cap=4) == "abcd"
    with pytest.raises(TooLarge) as raised:
        await body_of(response([b"ab", b"cde"]), cap=4)
    error = raised.value
    assert error.kind == "too_large"
    assert error.message.startswith(
        "The server at 127.0.0.1:8123 sent more than Sightline accepts (the body over 4 bytes)"
    )
    assert "s3cr3t" not in error.message + error.detail and "/v1/models" not in error.message


async def test_an_error_body_is_capped_at_a_megabyte_and_names_its_status() -> None:
    assert len(await read_error(response([b"x" * ERROR_BODY_CAP], status=500), provider_id="p"))
    with pytest.raises(TooLarge, match=r"\(an HTTP 500 error body over 1 MB\)"):
        await read_error(response([b"x" * ERROR_BODY_CAP, b"x"], status=500), provider_id="p")


async def test_the_cap_counts_decoded_bytes_and_stops_inflating_there() -> None:
    bomb = gzip_bomb(6 << 30)  # six gigabytes of zeros, compressed as they are read
    sent = 0

    def counted() -> Iterable[bytes]:
        nonlocal sent
        for piece in bomb:
            sent += len(piece)
            yield piece

    started = time.monotonic()
    with pytest.raises(TooLarge, match="over 1 MB"):
        await body_of(response(counted(), encoding="gzip"), cap=1 << 20)
    assert sent < 64 * 1024  # a few kilobytes of gzip were enough to pass the cap
    assert time.monotonic() - started < 5


@pytest.mark.parametrize(
    ("encoding", "packed"),
    [
        ("gzip", gzip.compress(b'{"ok": true}')),
        ("deflate", zlib.compress(b'{"ok": true}')),
        ("deflate", zlib.compress(b'{"ok": true}')[2:-4]),  # raw deflate, as some servers send
        ("gzip, gzip", gzip.compress(gzip.compress(b'{"ok": true}'))),
        ("identity", b'{"ok": true}'),
        ("br", b'{"ok": true}'),  # a coding httpx can't undo here passes through, as in httpx
    ],
    ids=["gzip", "deflate", "raw-deflate", "gzip-twice", "identity", "unknown"],
)
async def test_compressed_bodies_are_undone_as_httpx_would(encoding: str, packed: bytes) -> None:
    pieces = [packed[i : i + 3] for i in range(0, len(packed), 3)]  # a few bytes at a time
    assert await body_of(response(pieces, encoding=encoding)) == '{"ok": true}'


async def test_inflated_bytes_come_a_piece_at_a_time() -> None:
    packed = zlib.compress(bytes(10 * PIECE))
    sizes = [len(p) async for p in decoded(response([packed], encoding="deflate"))]
    assert sum(sizes) == 10 * PIECE and max(sizes) <= PIECE


async def test_a_broken_gzip_body_is_httpx_s_decoding_error() -> None:
    with pytest.raises(httpx.DecodingError):
        await body_of(response([b"\x1f\x8b\x08\x00not gzip at all"], encoding="gzip"))


async def test_a_body_read_already_is_still_capped() -> None:
    whole = httpx.Response(200, content=b"x" * 10, request=httpx.Request("GET", URL))
    assert whole.is_stream_consumed
    with pytest.raises(TooLarge):
        await body_of(whole, cap=9)


async def test_text_follows_the_charset() -> None:
    assert await body_of(response(["é".encode("latin-1")], charset="latin-1")) == "é"
    assert await body_of(response([b"\xff ok"])) == "\ufffd ok"  # bad UTF-8 never raises


# -- NDJSON lines ----------------------------------------------------------------


async def test_lines_split_at_newlines_only_across_pieces() -> None:
    pieces = [b'{"a"', b":1}\n{", b'"b":2}\r\n\n', b"{\xe2\x80", b"\xa8}\x0c{}"]
    assert await lines_of(response(pieces)) == ['{"a":1}', '{"b":2}\r', "", "{\u2028}\x0c{}"]


async def test_a_line_over_the_cap_fails_before_it_ends() -> None:
    endless = (b"x" * 1000 for _ in range(10**9))  # never a newline
    with pytest.raises(TooLarge, match=r"\(a line of the stream over 10 KB\)"):
        await lines_of(response(endless), cap=10_000)
    assert await lines_of(response([b"x" * 100, b"\nyz"]), cap=100) == ["x" * 100, "yz"]
    with pytest.raises(TooLarge):
        await lines_of(response([b"x" * 101 + b"\n"]), cap=100)


# -- SSE events ------------------------------------------------------------------


async def test_sse_lines_end_at_cr_lf_or_both_even_split_across_pieces() -> None:
    pieces = [b"event: a\r", b"\ndata: 1\r\r", b"data:2\n", b"\n: ping\n\nid: 7\nretry: 5\n\n"]
    assert await events_of(response(pieces)) == [SseEvent("a", "1"), SseEvent("", "2")]


async def test_sse_data_lines_join_and_an_unfinished_event_is_dropped() -> None:
    pieces = [b"data: one\ndata:  two\ndata\n\nevent: message_stop\n\ndata: cut"]
    assert await events_of(response(pieces)) == [
        SseEvent("", "one\n two\n"),
        SseEvent("message_stop", ""),
    ]


async def test_an_event_of_short_lines_that_never_ends_is_too_large() -> None:
    lines = (b"data: " + b"x" * 100 + b"\n" for _ in range(10**9))
    with pytest.raises(TooLarge, match=r"\(an event of the stream over"):
        await events_of(response(lines), cap=10_000)


async def test_comments_never_fill_an_event() -> None:
    comments = [b": ping\n" * 1000] * 10  # no blank line, but no data either
    assert await events_of(response([*comments, b"data: x\n\n"]), cap=1000) == [SseEvent("", "x")]


# -- the idle deadline -----------------------------------------------------------


async def ticks(
    gaps: Iterable[float], progress: IdleDeadline | None = None
) -> AsyncGenerator[int, None]:
    """One event after each gap; with `progress`, a gap < 0 is a fragment after -gap."""
    for n, gap in enumerate(gaps):
        await asyncio.sleep(abs(gap))
        if gap < 0 and progress is not None:
            progress.progress()
            continue
        yield n


def deadline(limit: float) -> IdleDeadline:
    return IdleDeadline(limit, server="127.0.0.1:8123", provider_id="p")


async def test_a_stream_without_an_event_for_the_limit_is_timed_out() -> None:
    watched = deadline(0.3)
    started = time.monotonic()
    with pytest.raises(TimedOut) as raised:
        [n async for n in watched.watch(ticks([0.0, 0.1, 5.0]))]
    assert 0.25 < time.monotonic() - started < 2
    assert raised.value.message == (
        "Nothing of the answer came from 127.0.0.1:8123 for 0.3 seconds, so Sightline stopped "
        "waiting. Try again, or pick a lighter model."
    )


async def test_fragments_restart_the_clock() -> None:
    watched = deadline(0.3)
    gaps = [-0.2] * 6 + [0.0]  # 1.2 s of fragments, then the event they make
    assert [n async for n in watched.watch(ticks(gaps, watched))] == [6]


async def test_time_the_caller_holds_an_event_does_not_count() -> None:
    watched = deadline(0.2)
    seen = []
    async for n in watched.watch(ticks([0.0, 0.05, 0.05])):
        await asyncio.sleep(0.4)  # storing it, showing it: the stream is not to blame
        seen.append(n)
    assert seen == [0, 1, 2]


async def test_the_stream_s_own_timeout_is_not_mistaken_for_the_deadline() -> None:
    async def failing() -> AsyncGenerator[int, None]:
        yield 1
        raise TimeoutError("the stream's own")

    with pytest.raises(TimeoutError, match="the stream's own"):
        [n async for n in deadline(5).watch(failing())]
