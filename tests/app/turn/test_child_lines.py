"""An engine's program's lines, read within bounds: each a JSON-RPC message, or the
reason it isn't one."""

from __future__ import annotations

import asyncio
import json
import logging
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.turn.child_lines import (
    MAX_LINE_BYTES,
    MAX_STDERR_LINE,
    jsonrpc_message,
    log_stderr,
    read_message,
)
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
        (b'{"method": "a"} {"method": "b"}', "a line that is not JSON"),  # two on one line
        (b'{"method": "a"} x', "a line that is not JSON"),
        (b'{"method": "\xff"}', "a line that is not JSON"),  # not UTF-8
    ],
)
async def test_a_line_that_is_no_message_says_why(line: bytes, why: str) -> None:
    assert await read_message(reader_of(line + b"\n")) == (None, why)


@pytest.mark.parametrize(
    "line",
    [
        b'  {"method": "m", "params": {"text": "caf\xc3\xa9 \xf0\x9f\x90\x88"}}  \r',
        b'\xef\xbb\xbf{"method": "m", "params": {"text": "caf\xc3\xa9 \xf0\x9f\x90\x88"}}',
        b'{"method": "m", "params": {"text": "caf\\u00e9 \\ud83d\\udc08"}}',
    ],
)
async def test_a_message_reads_as_json_reads_it(line: bytes) -> None:
    # spaces around it, a byte-order mark, escapes: what json.loads makes of the line
    assert json.loads(line) == {"method": "m", "params": {"text": "café 🐈"}}
    assert await read_message(reader_of(line + b"\n")) == (json.loads(line), "")


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(
    params=_JSON_VALUES,
    around=st.tuples(*[st.text(" \t\r", max_size=3)] * 2),
    ascii_only=st.booleans(),
)
def test_any_message_reads_as_json_loads_reads_it(
    params: object, around: tuple[str, str], ascii_only: bool
) -> None:
    text = json.dumps({"method": "m", "params": params}, ensure_ascii=ascii_only)
    line = (around[0] + text + around[1]).encode("utf-8", "surrogatepass")
    assert jsonrpc_message(line) == (json.loads(line), "")


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
