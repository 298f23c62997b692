"""The agent's output as the SDK's message transport: each line parsed once, the first
unreadable one ending the stream with the reason kept (the reading itself:
tests/app/turn/test_child_lines.py)."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from app.turn.acp.process import AgentProcess, CheckedLines


def lines_of(data: bytes) -> tuple[AgentProcess, CheckedLines]:
    process = AgentProcess("fake")
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    return process, CheckedLines(process, reader, cast(Any, None))


async def received(lines: CheckedLines) -> list[dict[str, Any]]:
    got = []
    while (message := await lines.receive()) is not None:
        got.append(message)
    return got


async def test_messages_come_parsed_and_heard() -> None:
    process, lines = lines_of(b'{"id": 1, "result": {}}\n{"method": "session/update"}\n')
    assert await received(lines) == [{"id": 1, "result": {}}, {"method": "session/update"}]
    assert process.malformed == "" and process.last_heard > 0


async def test_the_first_unreadable_line_ends_the_stream() -> None:
    process, lines = lines_of(b'{"method": "a"}\nnot json\n{"method": "b"}\n')
    assert await received(lines) == [{"method": "a"}]  # what came before it is taken
    assert process.malformed == "a line that is not JSON"
    assert not process.running
    assert await lines.receive() is None  # and nothing after it
