"""Answers that misbehave on purpose: an endless line, a gzip bomb, a keep-alive flood.

Each is written to a loopback handler's connection a piece at a time until the
client hangs up (or, for the bomb, until it is spent), so no answer is ever whole
in memory: the gzip bomb is compressed as it is sent.
"""

from __future__ import annotations

import contextlib
import itertools
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler

ENDLESS_LINE = "endless line"  # one line that never ends
ENDLESS_EVENT = "endless event"  # SSE: short data lines, never the blank line ending the event
GZIP_BOMB = "gzip bomb"  # Content-Encoding: gzip, about 6 MB that inflate to BOMB_BYTES
KEEPALIVE_FLOOD = "keep-alive flood"  # keep-alive bytes every FLOOD_INTERVAL, forever
MODES = (ENDLESS_LINE, ENDLESS_EVENT, GZIP_BOMB, KEEPALIVE_FLOOD)

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


def pieces(mode: str, shape: Shape) -> Iterator[bytes]:
    """What the body of a hostile answer is, piece by piece (after the shape's opening)."""
    if mode == ENDLESS_LINE:
        return _endless(shape.line_start, b"x" * (64 * 1024))
    if mode == ENDLESS_EVENT:
        if not shape.data_line:
            raise ValueError("an endless event needs a shape with data lines (SSE)")
        return _endless(shape.data_line, shape.data_line)
    if mode == GZIP_BOMB:
        return gzip_bomb()
    if mode == KEEPALIVE_FLOOD:
        return _flood(shape.keepalive)
    raise ValueError(f"mode must be one of {MODES}")


def serve(handler: BaseHTTPRequestHandler, mode: str, shape: Shape, status: int = 200) -> None:
    """Answer the handler's request in `mode` until the client hangs up."""
    handler.close_connection = True
    handler.send_response(status)
    handler.send_header("Content-Type", shape.content_type)
    handler.send_header("Transfer-Encoding", "chunked")
    if mode == GZIP_BOMB:
        handler.send_header("Content-Encoding", "gzip")
    handler.end_headers()
    body = pieces(mode, shape)
    if mode != GZIP_BOMB and shape.opening:
        body = itertools.chain([shape.opening], body)
    with contextlib.suppress(OSError):  # the client hung up: what a hostile server waits for
        for piece in filter(None, body):  # an empty chunk would end the body
            handler.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            handler.wfile.flush()
        handler.wfile.write(b"0\r\n\r\n")
