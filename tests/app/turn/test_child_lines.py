"""An engine's program's lines, read within bounds: each a JSON-RPC message, or the
reason it isn't one."""

from __future__ import annotations

import asyncio
import logging
import sys

import pytest

from app.turn.child_lines import MAX_LINE_BYTES, MAX_STDERR_LINE, log_stderr, read_message
from routing.secrets import register_secret


def reader_of(data: bytes, limit: int = MAX_LINE_BYTES) -> asyncio.StreamReader:
    reader = asyncio.StreamReader(limit=limit)
    reader.feed_data(data)
    reader.feed_eof()
    return reader


async def test_messages_come_parsed_blank_lines_passed_over_the_last_without_newline() -> None:
    reader = reader_of(b'{"id": 1, "result": {}}\n\n  \n{"method": "session/update"}')
    assert await read_message(reader) == ({"id": 1, "result": {}}, "")
    assert await read_message(reader) == ({"method": "session/update"}, "")
    assert await read_message(reader) == (None, "")  # the output ended
    assert await read_message(reader) == (None, "")


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (b"not json", "a line that is not JSON"),
        (b"[1, 2]", "JSON that is not a JSON-RPC message"),
        (b'{"id": 3}', "a JSON-RPC message with neither a method nor a result"),
        (b'{"method": 7}', "a JSON-RPC message whose method is not text"),
        (b'{"id": [1], "result": 1}', "a JSON-RPC message whose id is neither a number nor text"),
        (b"[" * 100_000, "a line that is not JSON"),  # too deep for the parser
    ],
)
async def test_a_line_that_is_no_message_says_why(line: bytes, why: str) -> None:
    assert await read_message(reader_of(line + b"\n")) == (None, why)


async def test_a_line_past_the_cap_says_so() -> None:
    reader = reader_of(b'{"method": "' + b"x" * 4096 + b'"}\n', limit=1024)
    assert await read_message(reader) == (None, f"a message longer than {MAX_LINE_BYTES} bytes")


async def test_a_programs_log_is_redacted_before_it_is_cut(
    caplog: pytest.LogCaptureFixture,
) -> None:
    register_secret("child-token-0123456789")
    # A real program printing its token: whole, then where the line's cut would split it.
    program = (
        "import sys; t = 'child-token-0123456789'; print('token', t, file=sys.stderr); "
        f"print('x' * {MAX_STDERR_LINE - 10} + t, file=sys.stderr)"
    )
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", program, stderr=asyncio.subprocess.PIPE
    )
    assert child.stderr is not None
    with caplog.at_level(logging.INFO, logger="app.turn.child_lines"):
        await log_stderr(child.stderr, "agent x")  # caplog's handler has no redacting formatter
    await child.wait()
    first, second = (record.getMessage() for record in caplog.records)
    assert first == "agent x: token [redacted]"
    assert second == f"agent x: {'x' * (MAX_STDERR_LINE - 10)}[redacted]"
