"""One stdio MCP server of the settings: started on first use, started again after it stops.

Each run of its child process is a `Connection` (`app/tools/mcp/connection.py`). Whatever
goes wrong (a missing command, a crash mid-call, a hang, a malformed answer) comes back
as an error result the model and the person can read, and the next call starts the
server again. Pictures a tool returns become `PicturePart`s (`app/tools/mcp/results.py`).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Collection, Mapping
from typing import Any

from mcp import types

from app.tools.base import error_result
from app.tools.mcp.config import McpServerConfig
from app.tools.mcp.connection import Connection
from app.tools.mcp.errors import CallFailure, McpStartError, failure_text, not_started
from app.tools.mcp.results import tool_result_from_mcp
from app.tools.mcp.tool import McpTool, offered_name, tool_spec
from routing.transcript import ToolCall, ToolResult

DEFAULT_TIMEOUT = 120.0
# A first `npx -y` start may download the package, so starting gets longer than a call.
DEFAULT_START_TIMEOUT = 60.0


class McpServer:
    """One stdio MCP server: started on first use, started again after it stops."""

    def __init__(
        self,
        config: McpServerConfig,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        start_timeout: float = DEFAULT_START_TIMEOUT,
    ) -> None:
        self.config = config
        self.timeout = timeout
        self.start_timeout = start_timeout
        self._connection: Connection | None = None
        self._listed: list[types.Tool] = []
        self._lock = asyncio.Lock()
        self._retiring: set[asyncio.Task[None]] = set()

    @property
    def name(self) -> str:
        """The server's name from the settings."""
        return self.config.name

    @property
    def started(self) -> bool:
        """Whether the child is running and has answered the handshake."""
        return self._connection is not None and self._connection.usable

    async def ensure_started(self) -> None:
        """Start the child if it isn't running; raises McpStartError saying why it can't."""
        await self._connect()

    async def _connect(self) -> Connection:
        async with self._lock:
            old = self._connection
            if old is not None and old.usable:
                return old
            self._connection = None
            if old is not None:
                self._retire(old)  # reap a child that stopped
            if self.config.unsupported:
                raise McpStartError(not_started(self.config))
            connection = Connection(
                self.config, timeout=self.timeout, start_timeout=self.start_timeout
            )
            try:
                self._listed = await asyncio.shield(connection.ready)
            except BaseException:
                self._retire(connection)  # a failed or cancelled start leaves nothing behind
                raise
            self._connection = connection
            return connection

    def _retire(self, connection: Connection) -> None:
        """Close a connection in the background, so a cancelled caller isn't held up."""
        task = asyncio.create_task(connection.close())
        self._retiring.add(task)
        task.add_done_callback(self._retiring.discard)

    async def tools(self, taken: Collection[str] = ()) -> list[McpTool]:
        """The server's tools, named so they clash with neither `taken` nor each other."""
        await self._connect()
        names = set(taken)
        offered: list[McpTool] = []
        for tool in self._listed:
            name = offered_name(self.name, tool.name, names)
            names.add(name)
            offered.append(McpTool(self, tool.name, tool_spec(name, tool)))
        return offered

    async def call(
        self,
        tool_name: str,
        arguments: Mapping[str, Any],
        *,
        call_id: str = "",
        offered_as: str = "",
    ) -> ToolResult:
        """Run one tool; every failure is an error result, only cancellation is raised."""
        call = ToolCall(call_id, offered_as or offered_name(self.name, tool_name), dict(arguments))
        for _ in range(2):  # once more if the server stopped between being found and the call
            try:
                connection = await self._connect()
            except McpStartError as exc:
                return error_result(call, str(exc))
            job = connection.submit(tool_name, dict(arguments))
            if job is None:
                continue
            try:
                outcome = await job.future
            except asyncio.CancelledError:
                job.abandon()
                raise
            if isinstance(outcome, CallFailure) and outcome.kind == "gone":
                continue
            if isinstance(outcome, types.CallToolResult):
                read = functools.partial(
                    tool_result_from_mcp, call, outcome, server=self.name, tool=tool_name
                )
                # Its pictures opened off the window's thread: each is decoded whole to be
                # opened safely (a 4K screenshot: ~60 ms); words alone need no thread.
                return await asyncio.to_thread(read) if _carries_blobs(outcome) else read()
            return error_result(call, self._failure_text(outcome, tool_name))
        return error_result(call, self._failure_text(CallFailure("gone"), tool_name))

    def _failure_text(self, failure: CallFailure, tool: str) -> str:
        return failure_text(failure, server=self.name, tool=tool, timeout=self.timeout)

    async def close(self) -> None:
        """Stop the child: close its stdin, then terminate it, then kill it if it won't stop."""
        async with self._lock:
            if self._connection is not None:
                self._retire(self._connection)
                self._connection = None
            if self._retiring:
                await asyncio.shield(asyncio.wait(set(self._retiring)))


def _carries_blobs(result: types.CallToolResult) -> bool:
    """Whether a result has a picture or an embedded file (bytes to decode) in it."""
    return any(
        isinstance(block, types.ImageContent)
        or (
            isinstance(block, types.EmbeddedResource)
            and isinstance(block.resource, types.BlobResourceContents)
        )
        for block in result.content
    )
