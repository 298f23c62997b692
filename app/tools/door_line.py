"""The line between the door and the Sightline that started its agent.

The door (`sightline mcp-serve`) runs in a process the agent started, so whoever
starts a door also holds its arguments, its environment and any line it names. An
approval that came back over such a line would prove nothing: a program could start
the door on a line it opened itself and answer "allowed". So the door with a line
runs nothing itself: it hands each call to the running turn (`call_line`), which
asks the person, runs the tool in Sightline's own process, puts its pictures into
words for an agent that doesn't take them and tells the chat what crossed, then
sends back the result. A door started on a forged line gets only what that line
sends, never a file of the person's.

The line (`DoorLine`) is a Unix socket in a folder only the person can open, with a
random token besides; one JSON line each way per connection, every read capped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import shutil
import socket
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

TOKEN_ENV = "SIGHTLINE_DOOR_TOKEN"  # the token travels in the door's environment, not its args
MAX_LINE = 256 * 1024  # a call's arguments are bounded before they are sent
MAX_ANSWER = 64 * 1024 * 1024  # a result with its pictures (read_file clamps each one)
ANSWER_SECONDS = 3600.0  # the person may take their time over an approval card
CONNECT_SECONDS = 5.0

# The running turn's answer to one call: the MCP result as JSON (`CallToolResult`).
Serve = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


def line_supported() -> bool:
    """Whether this system has Unix sockets (every desktop Sightline runs on does)."""
    return hasattr(socket, "AF_UNIX")


class DoorLine:
    """The running turn's end of the line: runs the door's calls for one agent session."""

    def __init__(self, serve: Serve) -> None:
        self.serve = serve
        self.token = secrets.token_urlsafe(24)
        self._folder = Path(tempfile.mkdtemp(prefix="sightline-door-"))  # made 0700
        self.address = str(self._folder / "line")
        self._server: asyncio.Server | None = None

    async def open(self) -> None:
        """Start listening."""
        self._server = await asyncio.start_unix_server(
            self._serve, path=self.address, limit=MAX_LINE
        )

    async def close(self) -> None:
        """Stop listening and remove the socket's folder."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 1.0)
        shutil.rmtree(self._folder, ignore_errors=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = _read(await reader.readline())
            if request is None or not secrets.compare_digest(
                str(request.get("token", "")), self.token
            ):
                log.warning("the door's line refused a request without its token")
                return
            name, arguments = request.get("name"), request.get("arguments")
            if request.get("kind") != "call" or not isinstance(name, str):
                log.info("the door's line dropped a request that is not a call")
                return
            result = await self.serve(name[:200], arguments if isinstance(arguments, dict) else {})
            writer.write(json.dumps({"result": result}).encode() + b"\n")
            await writer.drain()
        except (OSError, ValueError, asyncio.LimitOverrunError) as exc:
            log.info("the door's line dropped a request: %r", exc)
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


async def call_line(
    address: str, token: str, name: str, arguments: dict[str, Any]
) -> dict[str, Any] | None:
    """The running turn's result for one call (MCP JSON); None when it couldn't be had."""
    request = {"kind": "call", "token": token, "name": name, "arguments": arguments}
    answer = await _exchange(address, request, ANSWER_SECONDS)
    result = answer.get("result") if answer else None
    return result if isinstance(result, dict) else None


async def _exchange(address: str, request: dict[str, Any], timeout: float) -> dict[str, Any] | None:
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_unix_connection(address, limit=MAX_ANSWER), CONNECT_SECONDS
        )
    except (OSError, TimeoutError) as exc:
        log.info("the door could not reach the running Sightline: %r", exc)
        return None
    try:
        writer.write(json.dumps(request, ensure_ascii=False).encode() + b"\n")
        await writer.drain()
        return _read(await asyncio.wait_for(reader.readline(), timeout))
    except (OSError, TimeoutError, ValueError, asyncio.LimitOverrunError) as exc:
        log.info("the door's line failed: %r", exc)
        return None
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()


def _read(line: bytes) -> dict[str, Any] | None:
    try:
        found = json.loads(line)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    return found if isinstance(found, dict) else None
