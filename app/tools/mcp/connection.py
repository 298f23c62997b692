"""One run of a server's child process: the task that owns its session, and its calls.

A dedicated task owns the SDK's `Client` (whose anyio task groups must be entered and
left in the same task) and runs every call as a child of its own task group; callers
hand calls over as `Job`s and wait for the outcome: an MCP result, or a `CallFailure`
saying why there is none. The task ends when the child's output ends or the
connection is closed; it never raises to its callers.
"""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread
from mcp import Client, types
from mcp.shared.exceptions import MCPError

from app.tools.mcp.config import McpServerConfig
from app.tools.mcp.errors import CallFailure, McpStartError, start_problem
from app.tools.mcp.stdio import StderrToLog, stdio_transport
from app.version import installed_version

logger = logging.getLogger(__name__)

# The SDK's own shutdown is bounded (about 6 s: stdin grace, SIGTERM, SIGKILL).
_CLOSE_TIMEOUT = 15.0

Outcome = types.CallToolResult | CallFailure


@dataclass(eq=False)
class Job:
    """One call handed to a server's task."""

    tool: str
    arguments: dict[str, Any]
    future: asyncio.Future[Outcome]
    scope: anyio.CancelScope | None = None
    abandoned: bool = False

    def settle(self, outcome: Outcome) -> None:
        if not self.future.done():
            self.future.set_result(outcome)

    def abandon(self) -> None:
        """The caller is gone: stop the call (or never send it)."""
        self.abandoned = True
        if self.scope is not None:
            self.scope.cancel()


class Connection:
    """One run of a server's child process: the task that owns its session, and its calls."""

    def __init__(self, config: McpServerConfig, *, timeout: float, start_timeout: float) -> None:
        self.config = config
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.ready: asyncio.Future[list[types.Tool]] = asyncio.get_running_loop().create_future()
        # Mark a failure as seen even when nobody waits any more (a cancelled start).
        self.ready.add_done_callback(lambda f: f.cancelled() or f.exception())
        self.jobs_in, self._jobs_out = anyio.create_memory_object_stream[Job](math.inf)
        self.lost = False  # the server's output ended: it exited or hung up
        self.closing = False
        self._pending: set[Job] = set()
        self._scope: anyio.CancelScope | None = None
        self._stderr = StderrToLog(config.name)
        self.task = asyncio.create_task(self._run(), name=f"mcp-server-{config.name}")
        self.task.add_done_callback(self._task_ended)

    def _task_ended(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and (exc := task.exception()) is not None:
            logger.error("MCP server %s: its task failed", self.config.name, exc_info=exc)

    @property
    def usable(self) -> bool:
        """Started, answering, and not going away."""
        return (
            self.ready.done()
            and not self.ready.cancelled()
            and self.ready.exception() is None
            and not (self.lost or self.closing or self.task.done())
        )

    def submit(self, tool: str, arguments: dict[str, Any]) -> Job | None:
        """Hand a call to the server's task; None when the connection has just ended."""
        job = Job(tool, arguments, asyncio.get_running_loop().create_future())
        try:
            self.jobs_in.send_nowait(job)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return None
        self._pending.add(job)
        return job

    async def close(self) -> None:
        """Stop the child and wait for its task (the SDK closes stdin, terminates, then kills)."""
        self.closing = True
        self.jobs_in.close()
        if self._scope is not None and not self.ready.done():
            self._scope.cancel()  # still starting: abandon the handshake
        done, _ = await asyncio.wait({self.task}, timeout=_CLOSE_TIMEOUT)
        if not done:
            logger.warning("MCP server %s did not stop in time; abandoning it", self.config.name)
            self.task.cancel()

    def _on_output_end(self) -> None:
        self.lost = True
        self.jobs_in.close()  # ends the serving loop, so the dead child is reaped now

    async def _run(self) -> None:
        scope = anyio.CancelScope(deadline=anyio.current_time() + self.start_timeout)
        self._scope = scope
        try:
            if self.closing:
                raise McpStartError(self._start_problem(None))
            with scope:
                client = Client(
                    stdio_transport(self.config, self._stderr, self._on_output_end),
                    # "legacy" = the initialize handshake every server speaks; "auto" first
                    # probes server/discover, which kills some servers (rmcp-based ones).
                    mode="legacy",
                    cache=None,
                    client_info=types.Implementation(name="Sightline", version=installed_version()),
                )
                async with client:
                    tools = await _list_tools(client)
                    scope.deadline = math.inf
                    self.ready.set_result(tools)
                    await self._serve(client)
            if not self.ready.done():
                raise McpStartError(self._start_problem(None))
        except Exception as exc:
            if not self.ready.done():
                if not isinstance(exc, McpStartError):
                    await anyio.to_thread.run_sync(self._stderr.join, 0.5)  # its last words
                    exc = McpStartError(self._start_problem(exc))
                self.ready.set_exception(exc)
            else:
                logger.warning("MCP server %s ended: %r", self.config.name, exc)
        finally:
            self.lost = True
            self.jobs_in.close()
            self._jobs_out.close()
            self._stderr.close_writer()
            if not self.ready.done():
                self.ready.set_exception(McpStartError(self._start_problem(None)))
            for job in self._pending:
                # A call that never went out is "gone": the caller sends it to a new child.
                kind = "closed" if self.closing else "stopped" if job.scope else "gone"
                job.settle(CallFailure(kind))

    async def _serve(self, client: Client) -> None:
        async with anyio.create_task_group() as group:
            async for job in self._jobs_out:
                group.start_soon(self._call, client, job)
            if self.closing:
                group.cancel_scope.cancel()
            # Otherwise the child is gone and its calls are ending with CONNECTION_CLOSED.

    async def _call(self, client: Client, job: Job) -> None:
        outcome: Outcome
        if self.lost and not self.closing:
            job.settle(CallFailure("gone"))  # queued just as the child ended; never sent
            self._pending.discard(job)
            return
        with anyio.CancelScope() as scope:
            job.scope = scope
            if job.abandoned:
                scope.cancel()
            try:
                with anyio.fail_after(self.timeout):
                    outcome = await client.call_tool(job.tool, job.arguments)
            except TimeoutError:
                outcome = CallFailure("timeout")
            except MCPError as exc:
                if exc.code == types.CONNECTION_CLOSED:
                    outcome = CallFailure("stopped")
                elif exc.code == types.REQUEST_TIMEOUT:
                    outcome = CallFailure("timeout")
                else:
                    outcome = CallFailure("refused", exc.message)
            except Exception as exc:  # a result that breaks the protocol or its own schema
                logger.warning(
                    "MCP server %s: bad answer to %s: %r", self.config.name, job.tool, exc
                )
                outcome = CallFailure("bad_answer", str(exc))
            job.settle(outcome)
        self._pending.discard(job)

    def _start_problem(self, exc: BaseException | None) -> str:
        return start_problem(
            self.config,
            exc,
            start_timeout=self.start_timeout,
            closing=self.closing,
            last_output=self._stderr.tail,
        )


async def _list_tools(client: Client) -> list[types.Tool]:
    """Every tool the server lists, following pages (bounded, so a looping cursor can't hang)."""
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(100):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools
