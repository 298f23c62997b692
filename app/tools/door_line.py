"""The line between the door and the Sightline that started its agent.

The door (`sightline mcp-serve`) runs in a process the agent started, so it can't
show an approval card. The running turn opens a line (`DoorLine`): a Unix socket
in a folder only the person can open, with a random token besides. The door asks
it whether the person allows each call (`ask_line`), and tells it what crossed
(`tell_line`), so the window's approval card answers the door's calls and its
disclosures appear in the conversation as they happen. One JSON line each way per
connection, every read capped.
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
from dataclasses import asdict
from pathlib import Path
from typing import Any

from routing.transcript import Crossed, Notice, NoticeKind, ToolCall

log = logging.getLogger(__name__)

TOKEN_ENV = "SIGHTLINE_DOOR_TOKEN"  # the token travels in the door's environment, not its args
MAX_LINE = 256 * 1024  # a call's arguments are bounded before they are sent; notices are short
MAX_TEXT = 20_000  # a told notice's words
ANSWER_SECONDS = 3600.0  # the person may take their time over an approval card
TELL_SECONDS = 5.0

Ask = Callable[[ToolCall], Awaitable[bool]]
Tell = Callable[[Notice], Awaitable[None]]


def line_supported() -> bool:
    """Whether this system has Unix sockets (every desktop Sightline runs on does)."""
    return hasattr(socket, "AF_UNIX")


class DoorLine:
    """The running turn's end of the line: answers asks and takes notices for one chat."""

    def __init__(self, ask: Ask, tell: Tell) -> None:
        self.ask = ask
        self.tell = tell
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
            answer: dict[str, Any] = {}
            if request.get("kind") == "ask":
                call = _call_of(request)
                answer = {"allowed": bool(call is not None and await self.ask(call))}
            elif request.get("kind") == "tell":
                notice = _notice_of(request.get("notice"))
                if notice is not None:
                    await self.tell(notice)
            writer.write(json.dumps(answer).encode() + b"\n")
            await writer.drain()
        except (OSError, ValueError, asyncio.LimitOverrunError) as exc:
            log.info("the door's line dropped a request: %r", exc)
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


async def ask_line(address: str, token: str, call: ToolCall) -> bool:
    """Whether the person allows `call`; False when the line can't be reached."""
    request = {
        "kind": "ask",
        "token": token,
        "id": call.id,
        "name": call.name,
        "arguments": call.arguments,
    }
    answer = await _exchange(address, request, ANSWER_SECONDS)
    return bool(answer and answer.get("allowed") is True)


async def tell_line(address: str, token: str, notice: Notice) -> bool:
    """Tell the running Sightline what happened; False when it couldn't be told."""
    body = {
        "kind": notice.kind.value,
        "text": notice.text,
        "details": notice.details,
        "crossed": asdict(notice.crossed) if notice.crossed else None,
    }
    answer = await _exchange(
        address, {"kind": "tell", "token": token, "notice": body}, TELL_SECONDS
    )
    return answer is not None


async def _exchange(address: str, request: dict[str, Any], timeout: float) -> dict[str, Any] | None:
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_unix_connection(address, limit=MAX_LINE), TELL_SECONDS
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


def _call_of(request: dict[str, Any]) -> ToolCall | None:
    name, arguments = request.get("name"), request.get("arguments")
    if not isinstance(name, str) or not isinstance(arguments, dict):
        return None
    return ToolCall(str(request.get("id", "door"))[:200], name[:200], arguments)


def _notice_of(body: Any) -> Notice | None:
    """A told notice, read as strictly as anything else that arrives."""
    if not isinstance(body, dict):
        return None
    try:
        kind = NoticeKind(str(body.get("kind")))
    except ValueError:
        return None
    crossed = body.get("crossed")
    fact = None
    if isinstance(crossed, dict):
        try:
            fact = Crossed(
                model=str(crossed["model"])[:400],
                host=str(crossed["host"])[:400],
                what=str(crossed["what"])[:2000],
                why=str(crossed["why"])[:2000],
                local=crossed.get("local") if isinstance(crossed.get("local"), bool) else None,
            )
        except KeyError:
            return None
    return Notice(
        kind, str(body.get("text", ""))[:MAX_TEXT], str(body.get("details", ""))[:MAX_TEXT], fact
    )
