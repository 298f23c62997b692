"""`codex app-server` as a child process: JSON lines both ways, read within bounds.

Codex speaks JSON-RPC without `"jsonrpc"` on stdio (docs/codex.md), which the ACP SDK
does not, so this is its own small client. Requests get numbered ids and their answers
are matched back by id; notifications and the server's own requests go, in order, to
`inbox`, which gets `None` once the output ends. A line past `MAX_LINE_BYTES`, or one
that is not a JSON-RPC object, ends the connection (`malformed` says what came): the turn
then ends cleanly and the next one starts Codex again. stderr is Codex's log (never
protocol): kept, bounded, in Sightline's. `last_heard` lets a turn tell a hung server
from a busy one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app.turn import child_lines

log = logging.getLogger(__name__)


class CodexRefused(Exception):
    """Codex answered a request with an error (`{code, message}`)."""

    def __init__(self, method: str, code: int, message: str) -> None:
        super().__init__(message)
        self.method, self.code, self.message = method, code, message


class CodexProcess:
    """One run of `codex app-server`, connected."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.process: asyncio.subprocess.Process | None = None
        self.inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.malformed = ""  # why the connection was ended: what Codex sent
        self.last_heard = 0.0  # time.monotonic() at Codex's last line
        self._next_id = 0
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._ended = False

    async def start(
        self, command: str, args: tuple[str, ...], env: Mapping[str, str], cwd: Path
    ) -> None:
        """Start the program; FileNotFoundError/PermissionError when it can't be run."""
        self.process = await asyncio.create_subprocess_exec(
            command,
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=dict(env),
            cwd=cwd,
            limit=child_lines.MAX_LINE_BYTES,
        )
        self.heard()
        assert self.process.stdout is not None and self.process.stderr is not None
        self._tasks.append(asyncio.create_task(self._read(self.process.stdout)))
        self._tasks.append(
            asyncio.create_task(child_lines.log_stderr(self.process.stderr, self.label))
        )

    @property
    def running(self) -> bool:
        """Whether the program still runs and nothing unreadable came from it."""
        return (
            self.process is not None
            and self.process.returncode is None
            and not self._ended
            and not self.malformed
        )

    def exit_status(self) -> int | None:
        """The program's exit status, once it has ended."""
        return self.process.returncode if self.process is not None else None

    def heard(self) -> None:
        """The server was heard from (or its silence is excused) now."""
        # Not the loop's time: this runs for each message, and finding the loop costs more.
        self.last_heard = time.monotonic()

    def quiet_for(self) -> float:
        """Seconds since Codex last sent anything."""
        return time.monotonic() - self.last_heard

    async def settle(self, timeout: float = 1.0) -> None:
        """Give a program whose output ended a moment to exit, so its status can be told."""
        if self.process is not None and self.process.returncode is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), timeout)

    async def request(self, method: str, params: Mapping[str, Any], timeout: float = 60.0) -> Any:
        """Send a request and wait for its result; CodexRefused for an error answer,
        ConnectionError when the process ended first, TimeoutError when none came."""
        number, self._next_id = self._next_id, self._next_id + 1
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[number] = answer
        try:
            await self._write({"method": method, "id": number, "params": dict(params)})
            reply = await asyncio.wait_for(asyncio.shield(answer), timeout)
        finally:
            self._waiting.pop(number, None)
        if isinstance(reply, dict) and "error" in reply:
            error = reply["error"] if isinstance(reply["error"], dict) else {}
            code = error["code"] if isinstance(error.get("code"), int) else 0
            raise CodexRefused(method, code, str(error.get("message") or "refused")[:2000])
        return reply.get("result") if isinstance(reply, dict) else None

    async def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        """Send a notification (no answer comes)."""
        message: dict[str, Any] = {"method": method}
        if params is not None:
            message["params"] = dict(params)
        await self._write(message)

    async def respond(self, number: Any, result: Mapping[str, Any]) -> None:
        """Answer one of Codex's requests."""
        await self._write({"id": number, "result": dict(result)})

    async def _write(self, message: Mapping[str, Any]) -> None:
        if not self.running or self.process is None or self.process.stdin is None:
            raise ConnectionError(f"{self.label} is not running")
        line = json.dumps(message, separators=(",", ":")) + "\n"
        try:
            self.process.stdin.write(line.encode("utf-8"))
            await self.process.stdin.drain()
        except (OSError, RuntimeError) as exc:
            raise ConnectionError(f"{self.label} stopped reading: {exc}") from exc

    async def _read(self, stdout: asyncio.StreamReader) -> None:
        """Each line to its waiting request or to the inbox; the first unreadable one ends it."""
        try:
            while True:
                message, problem = await child_lines.read_message(stdout)
                self.heard()
                if problem:
                    self._refuse(problem)
                if message is None:
                    break
                self._deliver(message)
        except (OSError, ValueError) as exc:
            log.info("%s: its output ended: %s", self.label, exc)
        finally:
            self._ended = True
            for waiting in self._waiting.values():
                if not waiting.done():
                    waiting.set_exception(ConnectionError(f"{self.label} ended"))
            self.inbox.put_nowait(None)

    def _deliver(self, message: dict[str, Any]) -> None:
        if "method" in message:
            self.inbox.put_nowait(message)
            return
        waiting = self._waiting.get(message.get("id"))  # type: ignore[arg-type]
        if waiting is not None and not waiting.done():
            waiting.set_result(message)
        else:
            log.info("%s answered no request: id %r", self.label, message.get("id"))

    def _refuse(self, problem: str) -> None:
        log.warning("%s sent %s; the connection is ended", self.label, problem)
        self.malformed = problem

    async def close(self) -> None:
        """End the program: stdin closed, then terminate, then kill."""
        process = self.process
        if process is not None and process.returncode is None:
            if process.stdin is not None:
                with contextlib.suppress(Exception):
                    process.stdin.close()
            for step in (None, process.terminate, process.kill):
                if step is not None:
                    with contextlib.suppress(ProcessLookupError):
                        step()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(process.wait(), child_lines.SHUTDOWN_SECONDS)
                    break
        await child_lines.stop_reading(self._tasks, process)
