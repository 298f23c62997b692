"""MCP servers over stdio: their tools offered to models, their results in Sightline's parts.

Each `McpServer` runs one child process, started on first use. A dedicated task
owns the SDK's `Client` (whose anyio task groups must be entered and left in the
same task) and runs every call as a child of its own task group; callers hand
calls over and wait for the outcome. Whatever goes wrong (a missing command, a
crash mid-call, a hang, a malformed answer) comes back as an error result the
model and the person can read, and the next call starts the server again.

Pictures a tool returns become `PicturePart`s, never silently dropped (seed 004):
an image that can't be read becomes a note saying so and why.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import os
import re
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Self, TextIO

import anyio
import anyio.to_thread
from mcp import Client, StdioServerParameters, stdio_client, types
from mcp.client._transport import ReadStream, TransportStreams
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from app import __version__
from app.tools.base import Tool, error_result
from app.tools.mcp_config import McpServerConfig
from app.tools.mcp_results import tool_result_from_mcp
from routing.transcript import ToolCall, ToolResult
from routing.wires.base import ToolSpec

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 120.0
# A first `npx -y` start may download the package, so starting gets longer than a call.
DEFAULT_START_TIMEOUT = 60.0
# The SDK's own shutdown is bounded (about 6 s: stdin grace, SIGTERM, SIGKILL).
_CLOSE_TIMEOUT = 15.0
MAX_NAME = 64  # the longest tool name OpenAI, Anthropic and Gemini all accept
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
# What to install when a usual launcher is missing (the settings' "command").
_INSTALL_HINTS = dict.fromkeys(("npx", "node", "npm"), "Node.js") | {
    "uvx": "uv",
    "uv": "uv",
    "docker": "Docker",
    "python": "Python",
    "python3": "Python",
    "bunx": "Bun",
    "deno": "Deno",
}


class McpStartError(Exception):
    """A server that could not start; the message says why and how to fix it."""


def offered_name(server: str, tool: str, taken: Collection[str] = ()) -> str:
    """The name a model sees for a server's tool: `<server>__<tool>`, valid for every provider.

    Only [A-Za-z0-9_-], at most 64 characters, starting with a letter or `_` (Gemini's
    rule); a name that had to be shortened or is already taken gets a short hash.
    """
    base = f"{_UNSAFE.sub('_', server) or 'mcp'}__{_UNSAFE.sub('_', tool) or 'tool'}"
    if not (base[0].isalpha() or base[0] == "_"):
        base = f"mcp_{base}"
    if len(base) <= MAX_NAME and base not in taken:
        return base
    salt = 0
    while True:
        digest = hashlib.sha256(f"{server}\0{tool}\0{salt}".encode()).hexdigest()[:8]
        name = f"{base[: MAX_NAME - 9]}_{digest}"
        if name not in taken:
            return name
        salt += 1


@dataclass(eq=False)
class _Failure:
    """Why a call produced no MCP result; the caller words it."""

    kind: str  # "stopped", "gone" (never sent), "closed", "timeout", "refused", "bad_answer"
    detail: str = ""


_Outcome = types.CallToolResult | _Failure


@dataclass(eq=False)
class _Job:
    """One call handed to a server's task."""

    tool: str
    arguments: dict[str, Any]
    future: asyncio.Future[_Outcome]
    scope: anyio.CancelScope | None = None
    abandoned: bool = False

    def settle(self, outcome: _Outcome) -> None:
        if not self.future.done():
            self.future.set_result(outcome)

    def abandon(self) -> None:
        """The caller is gone: stop the call (or never send it)."""
        self.abandoned = True
        if self.scope is not None:
            self.scope.cancel()


class _StderrToLog:
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
            while chunk := pipe.readline(16384):
                line = chunk.decode("utf-8", "replace").rstrip()
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


def _leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, or the exception itself."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


class _Connection:
    """One run of a server's child process: the task that owns its session, and its calls."""

    def __init__(self, config: McpServerConfig, *, timeout: float, start_timeout: float) -> None:
        self.config = config
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.ready: asyncio.Future[list[types.Tool]] = asyncio.get_running_loop().create_future()
        # Mark a failure as seen even when nobody waits any more (a cancelled start).
        self.ready.add_done_callback(lambda f: f.cancelled() or f.exception())
        self.jobs_in, self._jobs_out = anyio.create_memory_object_stream[_Job](math.inf)
        self.lost = False  # the server's output ended: it exited or hung up
        self.closing = False
        self._pending: set[_Job] = set()
        self._scope: anyio.CancelScope | None = None
        self._stderr = _StderrToLog(config.name)
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

    def submit(self, tool: str, arguments: dict[str, Any]) -> _Job | None:
        """Hand a call to the server's task; None when the connection has just ended."""
        job = _Job(tool, arguments, asyncio.get_running_loop().create_future())
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

    @asynccontextmanager
    async def _transport(self) -> AsyncIterator[TransportStreams]:
        params = StdioServerParameters(
            command=self.config.command,
            args=list(self.config.args),
            env=dict(self.config.env),  # merged over the SDK's safe default environment
            cwd=self.config.cwd,
            encoding_error_handler="replace",  # one bad byte must not end the session
        )
        try:
            async with stdio_client(params, errlog=self._stderr.writer) as (read, write):
                self._stderr.close_writer()  # the child has its own copy now
                yield _WatchedReadStream(read, self._on_output_end), write
        finally:
            self._stderr.close_writer()

    async def _run(self) -> None:
        scope = anyio.CancelScope(deadline=anyio.current_time() + self.start_timeout)
        self._scope = scope
        try:
            if self.closing:
                raise McpStartError(f"The MCP server {self.config.name} was closed while starting.")
            with scope:
                client = Client(
                    self._transport(),
                    # "legacy" = the initialize handshake every server speaks; "auto" first
                    # probes server/discover, which kills some servers (rmcp-based ones).
                    mode="legacy",
                    cache=None,
                    client_info=types.Implementation(name="Sightline", version=__version__),
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
                job.settle(_Failure(kind))

    async def _serve(self, client: Client) -> None:
        async with anyio.create_task_group() as group:
            async for job in self._jobs_out:
                group.start_soon(self._call, client, job)
            if self.closing:
                group.cancel_scope.cancel()
            # Otherwise the child is gone and its calls are ending with CONNECTION_CLOSED.

    async def _call(self, client: Client, job: _Job) -> None:
        outcome: _Outcome
        if self.lost and not self.closing:
            job.settle(_Failure("gone"))  # queued just as the child ended; never sent
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
                outcome = _Failure("timeout")
            except MCPError as exc:
                if exc.code == types.CONNECTION_CLOSED:
                    outcome = _Failure("stopped")
                elif exc.code == types.REQUEST_TIMEOUT:
                    outcome = _Failure("timeout")
                else:
                    outcome = _Failure("refused", exc.message)
            except Exception as exc:  # a result that breaks the protocol or its own schema
                logger.warning(
                    "MCP server %s: bad answer to %s: %r", self.config.name, job.tool, exc
                )
                outcome = _Failure("bad_answer", str(exc))
            job.settle(outcome)
        self._pending.discard(job)

    def _start_problem(self, exc: BaseException | None) -> str:
        """Why the server could not start, and what to do, in words."""
        name, command = self.config.name, self.config.command
        opening = f"The MCP server {name} could not start"
        if exc is None:
            if self.closing:
                return f"The MCP server {name} was closed while starting."
            return (
                f"{opening}: it did not answer within {self.start_timeout:g} s. Check that "
                f'"{command}" starts an MCP server that speaks over stdio.'
            )
        leaf = next(
            (e for e in _leaves(exc) if not isinstance(e, anyio.get_cancelled_exc_class())), exc
        )
        last_words = (
            f" Its last output: {' / '.join(self._stderr.tail)}" if self._stderr.tail else ""
        )
        if isinstance(leaf, FileNotFoundError):
            if self.config.cwd and leaf.filename == self.config.cwd:
                return f'{opening}: its folder "{self.config.cwd}" does not exist; fix its "cwd".'
            program = _INSTALL_HINTS.get(os.path.basename(command).lower().removesuffix(".exe"))
            install = f"Install {program}" if program else "Install the program that provides it"
            return (
                f'{opening}: the command "{command}" was not found. {install}, or put the '
                f'full path of "{command}" in the server\'s "command".'
            )
        if isinstance(leaf, PermissionError):
            return f'{opening}: the command "{command}" is not allowed to run (permission denied).'
        if isinstance(leaf, OSError):
            return f'{opening}: running "{command}" failed ({leaf.strerror or leaf}).'
        if isinstance(leaf, MCPError) and leaf.code == types.CONNECTION_CLOSED:
            return f'{opening}: "{command}" exited before it was ready.{last_words}'
        if isinstance(leaf, MCPError):
            return f"{opening}: it refused the handshake ({leaf.message}).{last_words}"
        return f"{opening}: {leaf}.{last_words}"


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
        self._connection: _Connection | None = None
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

    async def _connect(self) -> _Connection:
        async with self._lock:
            old = self._connection
            if old is not None and old.usable:
                return old
            self._connection = None
            if old is not None:
                self._retire(old)  # reap a child that stopped
            if self.config.unsupported:
                raise McpStartError(
                    f"The MCP server {self.name} was not started: {self.config.unsupported}."
                )
            connection = _Connection(
                self.config, timeout=self.timeout, start_timeout=self.start_timeout
            )
            try:
                self._listed = await asyncio.shield(connection.ready)
            except BaseException:
                self._retire(connection)  # a failed or cancelled start leaves nothing behind
                raise
            self._connection = connection
            return connection

    def _retire(self, connection: _Connection) -> None:
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
            offered.append(McpTool(self, tool.name, _spec(name, tool)))
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
            if isinstance(outcome, _Failure) and outcome.kind == "gone":
                continue
            if isinstance(outcome, types.CallToolResult):
                return tool_result_from_mcp(call, outcome, server=self.name, tool=tool_name)
            return error_result(call, self._failure_text(outcome, tool_name))
        return error_result(call, self._failure_text(_Failure("gone"), tool_name))

    def _failure_text(self, failure: _Failure, tool: str) -> str:
        server = f"The MCP server {self.name}"
        if failure.kind == "timeout":
            return (
                f"{server} did not finish {tool} within {self.timeout:g} s; the call was stopped."
            )
        if failure.kind == "refused":
            return f"{server} refused the call to {tool}: {failure.detail}"
        if failure.kind == "bad_answer":
            return f"{server} answered {tool} with something that can't be used: {failure.detail}"
        if failure.kind == "gone":
            return f"{server} stopped twice before it could run {tool}."
        if failure.kind == "closed":
            return f"{server} was closed while running {tool}."
        return f"{server} stopped while running {tool}. It will be started again on the next call."

    async def close(self) -> None:
        """Stop the child: close its stdin, then terminate it, then kill it if it won't stop."""
        async with self._lock:
            if self._connection is not None:
                self._retire(self._connection)
                self._connection = None
            if self._retiring:
                await asyncio.shield(asyncio.wait(set(self._retiring)))


def _spec(name: str, tool: types.Tool) -> ToolSpec:
    """What a model is told about an MCP tool."""
    description = tool.description or tool.title or f"The {tool.name} tool."
    schema = dict(tool.input_schema) if isinstance(tool.input_schema, dict) else {}
    schema.setdefault("type", "object")
    if schema["type"] == "object":
        schema.setdefault("properties", {})
    return ToolSpec(name=name, description=description, parameters=schema)


class McpTool:
    """One tool of an MCP server, run by the turn loop like any other tool."""

    def __init__(self, server: McpServer, tool_name: str, spec: ToolSpec) -> None:
        self.server = server
        self.tool_name = tool_name
        self._spec = spec

    @property
    def spec(self) -> ToolSpec:
        """The name (`<server>__<tool>`), description and input schema offered to models."""
        return self._spec

    async def run(self, call: ToolCall) -> ToolResult:
        """Run the call on the server; failures come back as an error result."""
        return await self.server.call(
            self.tool_name, call.arguments, call_id=call.id, offered_as=call.name
        )


class McpHub:
    """The MCP servers of the settings, their tools together, their problems kept for a notice."""

    def __init__(
        self,
        configs: Iterable[McpServerConfig],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        start_timeout: float = DEFAULT_START_TIMEOUT,
    ) -> None:
        self.servers: dict[str, McpServer] = {}
        self.problems: dict[str, str] = {}
        for config in configs:
            if config.unsupported:
                self.problems[config.name] = (
                    f"The MCP server {config.name} was not started: {config.unsupported}."
                )
            else:
                self.servers[config.name] = McpServer(
                    config, timeout=timeout, start_timeout=start_timeout
                )

    async def tools(self) -> list[Tool]:
        """Every tool of every server that starts; one that fails is left out, its problem kept."""
        servers = list(self.servers.values())
        outcomes = await asyncio.gather(
            *(s.ensure_started() for s in servers), return_exceptions=True
        )
        offered: list[Tool] = []
        taken: set[str] = set()
        for server, outcome in zip(servers, outcomes, strict=True):
            if isinstance(outcome, asyncio.CancelledError):
                raise outcome
            if isinstance(outcome, BaseException):
                if not isinstance(outcome, McpStartError):
                    logger.error("MCP server %s failed to start", server.name, exc_info=outcome)
                self.problems[server.name] = str(outcome) or repr(outcome)
                continue
            try:
                tools = await server.tools(taken)
            except McpStartError as exc:  # it stopped again straight away
                self.problems[server.name] = str(exc)
                continue
            self.problems.pop(server.name, None)
            taken.update(tool.spec.name for tool in tools)
            offered.extend(tools)
        return offered

    async def aclose(self) -> None:
        """Stop every server."""
        await asyncio.gather(*(s.close() for s in self.servers.values()))
