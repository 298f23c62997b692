"""Answers that misbehave on purpose: an endless line, a gzip bomb, a keep-alive flood, an
answer that never ends.

`body` gives one a piece at a time; the loopback handler (tests/servers/loopback.py)
writes the pieces until the client hangs up (or, for the bomb, until it is spent), so
no answer is ever whole in memory: the gzip bomb is compressed as it is sent.
"""

from __future__ import annotations

import itertools
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

ENDLESS_LINE = "endless line"  # one line that never ends
ENDLESS_EVENT = "endless event"  # SSE: short data lines, never the blank line ending the event
GZIP_BOMB = "gzip bomb"  # Content-Encoding: gzip, about 6 MB that inflate to BOMB_BYTES
KEEPALIVE_FLOOD = "keep-alive flood"  # keep-alive bytes every FLOOD_INTERVAL, forever
ENDLESS_ANSWER = "endless answer"  # well-formed events of words, forever
WORDS_THEN_KEEPALIVE = "words, then keep-alives"  # one event of words, then a keep-alive flood
MODES = (
    ENDLESS_LINE,
    ENDLESS_EVENT,
    GZIP_BOMB,
    KEEPALIVE_FLOOD,
    ENDLESS_ANSWER,
    WORDS_THEN_KEEPALIVE,
)
WORDS = b"word " * 20  # what each event of an endless answer says

BOMB_BYTES = 6 << 30
FLOOD_INTERVAL = 0.05
_PIECE = 1 << 20


@dataclass(frozen=True)
class Shape:
    """How one API's stream looks, for the hostile answers in its shape."""

    content_type: str
    opening: bytes  # sent first, as the real stream would start
    line_start: bytes  # an endless line opens like a real one
    keepalive: tuple[bytes, ...]  # the flood sends these in turn
    data_line: bytes = b""  # SSE: one line of an event's data
    line_end: bytes = b""  # what ends a line begun with `line_start` after its words


def sse(
    opening: bytes, line_start: bytes, keepalive: tuple[bytes, ...], line_end: bytes = b""
) -> Shape:
    """An event stream's shape: its opening event, how a line starts (and ends, after its
    words), its keep-alives."""
    data_line = b"data: " + b"x" * 16384 + b"\n"
    content = "text/event-stream; charset=utf-8"
    return Shape(content, opening, line_start, keepalive, data_line, line_end)


# A model list, or an error body: JSON that never gets going.
JSON_BODY = Shape("application/json", b"", b'{"error": "', (b" ",))


def gzip_bomb(inflated: int = BOMB_BYTES) -> Iterator[bytes]:
    """Gzip of `inflated` zero bytes, compressed piece by piece as it is sent."""
    zeros = bytes(_PIECE)
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    for _ in range(inflated // _PIECE):
        if out := packer.compress(zeros):
            yield out
    yield packer.flush()


def _endless(start: bytes, piece: bytes) -> Iterator[bytes]:
    yield start
    yield from itertools.repeat(piece)


def _flood(keepalive: tuple[bytes, ...]) -> Iterator[bytes]:
    for piece in itertools.cycle(keepalive):
        time.sleep(FLOOD_INTERVAL)
        yield piece


def body(mode: str, shape: Shape) -> Iterator[bytes]:
    """The body of a hostile answer in `mode`, piece by piece, opening as the shape's stream."""
    if mode == ENDLESS_LINE:
        tail = _endless(shape.line_start, b"x" * (64 * 1024))
    elif mode == ENDLESS_EVENT:
        if not shape.data_line:
            raise ValueError("an endless event needs a shape with data lines (SSE)")
        tail = _endless(shape.data_line, shape.data_line)
    elif mode == GZIP_BOMB:
        return gzip_bomb()  # compressed from its first byte: no opening
    elif mode == KEEPALIVE_FLOOD:
        tail = _flood(shape.keepalive)
    elif mode in (ENDLESS_ANSWER, WORDS_THEN_KEEPALIVE):
        if not shape.line_end:
            raise ValueError(f"{mode} needs a shape whose lines end (line_end)")
        event = shape.line_start + WORDS + shape.line_end
        if mode == ENDLESS_ANSWER:
            tail = itertools.repeat(event * 64)
        else:
            tail = itertools.chain([event], _flood(shape.keepalive))
    else:
        raise ValueError(f"mode must be one of {MODES}")
    return itertools.chain([shape.opening], tail)
