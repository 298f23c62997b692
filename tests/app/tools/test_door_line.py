"""The door's line to the running turn: calls served only with the line's token;
whatever else arrives is dropped without a traceback."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.tools.door_line import DoorLine, call_line, line_supported

pytestmark = pytest.mark.skipif(not line_supported(), reason="no Unix sockets on this system")


class Turn:
    """The running turn's side: the calls it was handed, and what it answers."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def serve(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self.calls.append((name, arguments))
        return self.answer


RAN = {"content": [{"type": "text", "text": "ran"}], "isError": False}


@pytest.fixture
async def line() -> AsyncIterator[tuple[DoorLine, Turn]]:
    turn = Turn(RAN)
    opened = DoorLine(turn.serve)
    await opened.open()
    yield opened, turn
    await opened.close()


async def test_a_call_with_the_token_is_served_and_its_result_sent_back(
    line: tuple[DoorLine, Turn],
) -> None:
    door, turn = line
    assert await call_line(door.address, door.token, "read_file", {"path": "a.png"}) == RAN
    assert turn.calls == [("read_file", {"path": "a.png"})]


async def test_without_the_token_nothing_is_served(line: tuple[DoorLine, Turn]) -> None:
    door, turn = line
    assert await call_line(door.address, "not-the-token", "read_file", {}) is None
    assert turn.calls == []


async def test_a_line_nobody_listens_on_is_no_answer(tmp_path: Any) -> None:
    assert await call_line(str(tmp_path / "nobody"), "t", "read_file", {}) is None


async def test_a_large_result_comes_back_whole(line: tuple[DoorLine, Turn]) -> None:
    door, turn = line
    picture = {"type": "image", "data": "A" * (8 << 20), "mimeType": "image/png"}
    turn.answer = {"content": [picture]}
    found = await call_line(door.address, door.token, "read_file", {"path": "big.png"})
    assert found == turn.answer


@pytest.mark.parametrize(
    "sent",
    [
        b"[" * 100_000 + b"\n",
        b"\xff\xfe not utf-8\n",
        b"null\n",
        b"x" * 300_000 + b"\n",
        b'{"kind": "ask", "name": "read_file", "arguments": {}}\n',
    ],
)
async def test_a_line_that_is_no_call_is_dropped(
    line: tuple[DoorLine, Turn], sent: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    door, turn = line
    with caplog.at_level(logging.INFO):
        reader, writer = await asyncio.open_unix_connection(door.address)
        writer.write(sent)
        await writer.drain()
        assert await asyncio.wait_for(reader.read(), 10) == b""  # closed without an answer
        writer.close()
    assert turn.calls == []
    assert not any(record.exc_info for record in caplog.records)  # no traceback logged


async def test_a_call_of_the_old_kind_with_the_token_is_not_served(
    line: tuple[DoorLine, Turn],
) -> None:
    door, turn = line
    reader, writer = await asyncio.open_unix_connection(door.address)
    request = f'{{"kind": "tell", "token": "{door.token}", "notice": {{"kind": "info"}}}}\n'
    writer.write(request.encode())
    await writer.drain()
    assert await asyncio.wait_for(reader.read(), 10) == b""
    writer.close()
    assert turn.calls == []
