"""What an engine's program sends, read within bounds: its JSON-RPC lines and its log.

An ACP agent and Codex's app server both speak JSON-RPC, one message a line, on their
stdout, and log on their stderr. A line is checked before it is taken (a program that
sends what isn't a JSON-RPC message has its connection ended, and the turn says so),
and each log line is redacted (`routing.secrets`) and bounded as it goes into
Sightline's log.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from routing.secrets import redact

log = logging.getLogger(__name__)

MAX_LINE_BYTES = 32_000_000  # one message; pictures travel base64 inside them
MAX_STDERR_LINE = 2_000  # a program's log line, as kept in ours
SHUTDOWN_SECONDS = 2.0  # stdin closed, then terminate, then kill
DISCARD_PIECE = 1 << 20  # what is left unread, dropped a piece at a time


_JSON = json.JSONDecoder()


def _parsed(line: bytes) -> Any:
    """The JSON value a line holds, alone on it; ValueError when it holds anything else.

    What `json.loads` does with bytes, at half its cost: it works out their encoding
    and matches whitespace with expressions on each side, about 1 µs of a message's 2,
    and an agent's answer is a message a word (0.4 ms of a 400-word turn). JSON-RPC
    lines are UTF-8; a byte-order mark is passed over, as `json.loads` does."""
    text = line.decode("utf-8", "surrogatepass").strip()
    if text.startswith("\ufeff"):
        text = text[1:]
    value, end = _JSON.raw_decode(text)
    if end != len(text):
        raise ValueError(f"more after the JSON value, at {end}")
    return value


def jsonrpc_message(line: bytes) -> tuple[dict[str, Any], str]:
    """The message of a line, or why it is not a JSON-RPC message ("" when it is one)."""
    try:
        message: Any = _parsed(line)
    except (ValueError, RecursionError):
        return {}, "a line that is not JSON"
    if not isinstance(message, dict):
        return {}, "JSON that is not a JSON-RPC message"
    # Spelled out, not any() over a generator: this runs for each of an answer's updates.
    if "method" not in message and "result" not in message and "error" not in message:
        return {}, "a JSON-RPC message with neither a method nor a result"
    if "method" in message and not isinstance(message["method"], str):
        return {}, "a JSON-RPC message whose method is not text"
    if "id" in message and not isinstance(message["id"], int | str | None):
        return {}, "a JSON-RPC message whose id is neither a number nor text"
    return message, ""


async def read_message(reader: asyncio.StreamReader) -> tuple[dict[str, Any] | None, str]:
    """The program's next message: `(message, "")`; `(None, why)` for a line that is too
    long or not a JSON-RPC message; `(None, "")` once its output ended. Blank lines are
    passed over."""
    while True:
        try:
            line = await reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            line = exc.partial  # the last line, without its newline
            if not line.strip():
                return None, ""
        except asyncio.LimitOverrunError:
            return None, f"a message longer than {MAX_LINE_BYTES} bytes"
        if line.strip():
            message, problem = jsonrpc_message(line)
            return (None, problem) if problem else (message, "")


async def log_stderr(stderr: asyncio.StreamReader, label: str) -> None:
    """The program's own log, one bounded line at a time, into Sightline's log."""
    with contextlib.suppress(OSError, ValueError):
        while True:
            try:
                line = await stderr.readline()
            except asyncio.LimitOverrunError:
                await stderr.read(MAX_LINE_BYTES)
                continue
            if not line:
                return
            # Redacted before it is cut, so a cut can't leave part of a secret; read
            # with a margin past the cut, so a huge line is not redacted whole.
            text = redact(line[: 8 * MAX_STDERR_LINE].decode("utf-8", "replace").rstrip())
            log.info("%s: %s", label, text[:MAX_STDERR_LINE])


async def discard_rest(*streams: asyncio.StreamReader | None) -> None:
    """What an ended program left unread, dropped until its pipes end (at most
    SHUTDOWN_SECONDS): a pipe left full past a line's cap stays paused, its transport
    open, and closing it at collection, after the loop, is a traceback."""
    for stream in streams:
        if stream is None:
            continue
        with contextlib.suppress(OSError, ValueError, RuntimeError, TimeoutError):
            async with asyncio.timeout(SHUTDOWN_SECONDS):
                while await stream.read(DISCARD_PIECE):
                    pass


async def stop_reading(
    tasks: list[asyncio.Task[None]], process: asyncio.subprocess.Process | None
) -> None:
    """The tasks that read an ended program cancelled and awaited, then what it left unread
    dropped: nobody reads its pipes now, and they end with the program."""
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
    tasks.clear()
    if process is not None:
        await discard_rest(process.stdout, process.stderr)
