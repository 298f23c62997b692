"""The agent's output as the SDK's message transport: each line parsed once, within
bounds, the first unreadable one ending the stream with the reason kept."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from app.turn.acp.process import AgentProcess, CheckedLines
from app.turn.child_lines import MAX_LINE_BYTES


def lines_of(data: bytes, limit: int = MAX_LINE_BYTES) -> tuple[AgentProcess, CheckedLines]:
    process = AgentProcess("fake")
    reader = asyncio.StreamReader(limit=limit)
    reader.feed_data(data)
    reader.feed_eof()
    return process, CheckedLines(process, reader, cast(Any, None))


async def received(lines: CheckedLines) -> list[dict[str, Any]]:
    got = []
    while (message := await lines.receive()) is not None:
        got.append(message)
    return got


async def test_messages_come_parsed_blank_lines_skipped_and_the_last_needs_no_newline() -> None:
    process, lines = lines_of(b'{"id": 1, "result": {}}\n\n  \n{"method": "session/update"}')
    assert await received(lines) == [{"id": 1, "result": {}}, {"method": "session/update"}]
    assert process.malformed == "" and process.last_heard > 0


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
async def test_the_first_unreadable_line_ends_the_stream(line: bytes, why: str) -> None:
    process, lines = lines_of(b'{"method": "a"}\n' + line + b'\n{"method": "b"}\n')
    assert await received(lines) == [{"method": "a"}]  # what came before it is taken
    assert process.malformed == why
    assert not process.running


async def test_a_line_past_the_cap_ends_the_stream() -> None:
    process, lines = lines_of(b'{"method": "a"}\n{"method": "' + b"x" * 4096 + b'"}\n', 1024)
    assert await received(lines) == [{"method": "a"}]
    assert process.malformed == f"a message longer than {MAX_LINE_BYTES} bytes"
