"""The door's stdin as the MCP stdio server reads it: one bounded line at a time.

The MCP SDK's stdio server reads whatever line the agent writes, however long: a
300 MB line is held whole, decoded, then parsed. The door's requests are small (a
tool's name and a path), so a line past `MAX_REQUEST` is read through and dropped
without being kept, and the log says so.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator
from typing import BinaryIO

import anyio.to_thread

log = logging.getLogger(__name__)

MAX_REQUEST = 4 * 1024 * 1024  # one JSON-RPC message from the agent
_CHUNK = 1024 * 1024  # what is read at a time while a dropped line is skipped


class BoundedStdin:
    """An async iterable of the lines on a binary stream, each at most `cap` bytes."""

    def __init__(self, raw: BinaryIO | None = None, cap: int = MAX_REQUEST) -> None:
        self.raw = raw if raw is not None else sys.stdin.buffer
        self.cap = cap

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        while True:
            line = await anyio.to_thread.run_sync(self._next_line)
            if line is None:
                return
            yield line

    def _next_line(self) -> str | None:
        """The next line within the cap (over-long ones skipped); None at the end."""
        while True:
            line = self.raw.readline(self.cap + 1)
            if not line:
                return None
            if len(line) <= self.cap:
                return line.decode("utf-8", errors="replace")
            skipped = len(line)
            while line and not line.endswith(b"\n"):
                line = self.raw.readline(_CHUNK)
                skipped += len(line)
            log.warning(
                "the door dropped a request of %d bytes from the agent (at most %d are read)",
                skipped,
                self.cap,
            )
