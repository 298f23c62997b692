"""A server's child process and its pipes: how it is run, where its stderr goes, when it ends.

The child gets the SDK's safe default environment plus its own settings; its stderr
lines go to Sightline's log (the last few kept for a start-up problem), never to the
terminal; and the end of its output is noticed at once, so a child that exited or hung
up is known to be gone before the next call is sent to it.

Each stderr line is redacted (routing/secrets.py) before it is kept or logged, not
only by the log's formatter: the kept lines reach the person in a start-up problem,
and a handler of someone else's (a test's, a debugger's) has no formatter of ours.
A line is read whole before it is redacted, so a token is never split between two
pieces, and only its first `LINE_LIMIT` characters are kept.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Self, TextIO

import anyio
from mcp import StdioServerParameters, stdio_client
from mcp.client._transport import ReadStream, TransportStreams
from mcp.shared.message import SessionMessage

from app.tools.mcp.config import McpServerConfig
from routing.secrets import redact

logger = logging.getLogger(__name__)

LINE_LIMIT = 16384  # characters of one stderr line kept and logged
_READ_LIMIT = 1 << 20  # bytes of one line read before the rest of it is skipped


class StderrToLog:
    """A pipe for a child's stderr whose lines go to Sightline's log, never to the terminal."""

    def __init__(self, server: str) -> None:
        read_fd, write_fd = os.pipe()
        self.writer: TextIO = os.fdopen(write_fd, "w", encoding="utf-8")
        self.tail: deque[str] = deque(maxlen=5)
        self._server = server
        # A thread, not the event loop: it works the same for every loop and platform,
        # and it ends by itself when the last holder of the pipe (the child) is gone.
        self._thread = threading.Thread(
            target=self._pump, args=(read_fd,), name=f"mcp-stderr-{server}", daemon=True
        )
        self._thread.start()

    def _pump(self, read_fd: int) -> None:
        with open(read_fd, "rb") as pipe:
            while chunk := pipe.readline(_READ_LIMIT):
                skipped = len(chunk) == _READ_LIMIT and not chunk.endswith(b"\n")
                while skipped and (more := pipe.readline(_READ_LIMIT)):
                    if more.endswith(b"\n"):  # the end of a huge line, whose rest is skipped
                        break
                # Redacted whole, then cut: a cut can't leave part of a token behind.
                line = redact(chunk.decode("utf-8", "replace").rstrip())
                if skipped or len(line) > LINE_LIMIT:
                    line = line[:LINE_LIMIT] + " [… the rest of the line left out]"
                if line:
                    self.tail.append(line)
                    logger.info("MCP server %s: %s", self._server, line)

    def close_writer(self) -> None:
        """Drop our copy of the pipe's write end, so its end is the child's end."""
        if not self.writer.closed:
            self.writer.close()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)


class _WatchedReadStream:
    """The server's messages, passed through, noting when they end (the server is gone)."""

    def __init__(
        self, inner: ReadStream[SessionMessage | Exception], on_end: Callable[[], None]
    ) -> None:
        self._inner = inner
        self._on_end = on_end

    async def receive(self) -> SessionMessage | Exception:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._on_end()
            raise

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


@asynccontextmanager
async def stdio_transport(
    config: McpServerConfig, stderr: StderrToLog, on_output_end: Callable[[], None]
) -> AsyncIterator[TransportStreams]:
    """The server's child, running while inside: its streams for the SDK's `Client`.

    Its stderr goes to `stderr`; `on_output_end` is called when its output ends.
    """
    params = StdioServerParameters(
        command=config.command,
        args=list(config.args),
        env=dict(config.env),  # merged over the SDK's safe default environment
        cwd=config.cwd,
        encoding_error_handler="replace",  # one bad byte must not end the session
    )
    try:
        async with stdio_client(params, errlog=stderr.writer) as (read, write):
            stderr.close_writer()  # the child has its own copy now
            yield _WatchedReadStream(read, on_output_end), write
    finally:
        stderr.close_writer()
