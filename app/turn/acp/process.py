"""The agent's program: started with the SDK, its output read within bounds.

The SDK would read the agent's stdout itself, without a cap on a line and with
anything unreadable only logged. Sightline gives it a message transport of its own
instead (the SDK's seam for transports that aren't byte streams): each line is read
within `MAX_LINE_BYTES` and parsed once, here; a line past the cap, or one that is
not a JSON-RPC object, ends the connection (the turn then ends cleanly, and the next
one starts the agent again), and the time of the last message is kept, so a turn can
tell a hung agent from a busy one. The agent's stderr is its log: kept, bounded, in
Sightline's (redacted there).

The SDK opens an OpenTelemetry span around every message it handles. Sightline sets up
no tracer, so those spans went to the API's no-op tracer and still cost ~5 µs each:
1.9 ms of a 400-chunk answer, a fifth of the turn in benchmarks/bench_agent.py. With
no tracer set up, the SDK is told it has none, as where OpenTelemetry isn't installed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Mapping
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from acp import Client, connect_to_agent, telemetry
from acp.client.connection import ClientSideConnection
from acp.transports import spawn_stdio_transport
from opentelemetry import trace

from app.turn import child_lines

log = logging.getLogger(__name__)


def skip_untraced_spans() -> bool:
    """Tell the SDK it has no tracer when nobody set one up; True when it was told.

    A tracer provider set up by whoever runs Sightline (an instrumented run) is left to
    receive the SDK's spans.
    """
    if getattr(telemetry, "logfire_span", None) is not None or telemetry.TRACER is None:
        return False
    if not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        return False
    telemetry.TRACER = None  # type: ignore[assignment]  # None is its own "no tracer"
    return True


class AgentProcess:
    """One run of an agent's program, connected as Sightline's ACP client."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.connection: ClientSideConnection | None = None
        self.process: asyncio.subprocess.Process | None = None
        self.malformed = ""  # why the connection was ended: what the agent sent
        self.last_heard = 0.0  # time.monotonic() at the agent's last message
        self._stack = AsyncExitStack()
        self._tasks: list[asyncio.Task[None]] = []

    async def start(
        self, client: Client, command: str, args: tuple[str, ...], env: Mapping[str, str], cwd: Path
    ) -> ClientSideConnection:
        """Start the program and connect; FileNotFoundError when the command isn't there."""
        skip_untraced_spans()
        reader, writer, process = await self._stack.enter_async_context(
            spawn_stdio_transport(
                command,
                *args,
                env=env,
                cwd=cwd,
                limit=child_lines.MAX_LINE_BYTES,
                shutdown_timeout=child_lines.SHUTDOWN_SECONDS,
            )
        )
        self.process = process
        self.heard()
        if process.stderr is not None:
            self._tasks.append(
                asyncio.create_task(child_lines.log_stderr(process.stderr, self.label))
            )
        self.connection = connect_to_agent(client, CheckedLines(self, reader, writer))
        return self.connection

    @property
    def running(self) -> bool:
        """Whether the program still runs and nothing unreadable came from it."""
        return self.process is not None and self.process.returncode is None and not self.malformed

    async def settle(self, timeout: float = 1.0) -> None:
        """Give a program whose output ended a moment to exit, so its status can be told."""
        if self.process is not None and self.process.returncode is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), timeout)

    def exit_status(self) -> int | None:
        """The program's exit status, once it has ended."""
        return self.process.returncode if self.process is not None else None

    def heard(self) -> None:
        """The agent was heard from (or its silence is excused) now."""
        # Not the loop's time: this runs for each message, and finding the loop costs more.
        self.last_heard = time.monotonic()

    def quiet_for(self) -> float:
        """Seconds since the agent last sent anything."""
        return time.monotonic() - self.last_heard

    def refuse(self, problem: str) -> None:
        """End the connection for what the agent sent."""
        log.warning("%s sent %s; the connection is ended", self.label, problem)
        self.malformed = problem

    async def close(self) -> None:
        """End the connection and the program (stdin closed, then terminate, then kill)."""
        if self.connection is not None:
            with contextlib.suppress(Exception):
                await self.connection.close()
        with contextlib.suppress(Exception):
            await self._stack.aclose()
        await child_lines.stop_reading(self._tasks, self.process)


class CheckedLines:
    """The agent's stdio as the SDK's message transport: a line at a time, within bounds,
    parsed once; the first unreadable one ends the stream (`receive` gives None)."""

    def __init__(
        self, process: AgentProcess, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self._process = process
        self._reader = reader
        self._writer = writer
        self._sending = asyncio.Lock()  # one message's line at a time, and its drain

    async def send(self, message: dict[str, Any]) -> None:
        """Write one message as a line."""
        line = (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8")
        async with self._sending:
            self._writer.write(line)
            await self._writer.drain()

    async def receive(self) -> dict[str, Any] | None:
        """The agent's next message; None when its output ended or was unreadable."""
        process = self._process
        if process.malformed:
            return None
        try:
            message, problem = await child_lines.read_message(self._reader)
        except (OSError, ValueError) as exc:  # the pipe broke under us
            log.info("%s: its output ended: %s", process.label, exc)
            return None
        process.heard()
        if problem:
            process.refuse(problem)
        return message

    async def close(self) -> None:
        """Nothing of its own: the program's streams end with the program."""
