"""The door's line to the running turn: asks answered and notices taken only with the
line's token; whatever else arrives is dropped without a traceback."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest

from app.tools.door_line import DoorLine, ask_line, line_supported, tell_line
from routing.transcript import Notice, NoticeKind, ToolCall

pytestmark = pytest.mark.skipif(not line_supported(), reason="no Unix sockets on this system")


class Turn:
    """The running turn's side: what it was asked and told."""

    def __init__(self, allow: bool) -> None:
        self.allow = allow
        self.asked: list[ToolCall] = []
        self.told: list[Notice] = []

    async def ask(self, call: ToolCall) -> bool:
        self.asked.append(call)
        return self.allow

    async def tell(self, notice: Notice) -> None:
        self.told.append(notice)


@pytest.fixture
async def line() -> AsyncIterator[tuple[DoorLine, Turn]]:
    turn = Turn(allow=True)
    opened = DoorLine(turn.ask, turn.tell)
    await opened.open()
    yield opened, turn
    await opened.close()


async def test_an_ask_with_the_token_is_answered(line: tuple[DoorLine, Turn]) -> None:
    door, turn = line
    call = ToolCall("door-1", "read_file", {"path": "a.png"})
    assert await ask_line(door.address, door.token, call)
    assert turn.asked == [call]
    notice = Notice(NoticeKind.DISCLOSURE, "a.png went to the agent")
    assert await tell_line(door.address, door.token, notice)
    assert turn.told == [notice]


async def test_without_the_token_nothing_is_asked(line: tuple[DoorLine, Turn]) -> None:
    door, turn = line
    assert not await ask_line(door.address, "not-the-token", ToolCall("d", "read_file", {}))
    assert turn.asked == []


@pytest.mark.parametrize(
    "sent",
    [b"[" * 100_000 + b"\n", b"\xff\xfe not utf-8\n", b"null\n", b"x" * 300_000 + b"\n"],
)
async def test_a_line_that_is_no_request_is_dropped(
    line: tuple[DoorLine, Turn], sent: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    door, turn = line
    with caplog.at_level(logging.INFO):
        reader, writer = await asyncio.open_unix_connection(door.address)
        writer.write(sent)
        await writer.drain()
        assert await asyncio.wait_for(reader.read(), 10) == b""  # closed without an answer
        writer.close()
    assert turn.asked == [] and turn.told == []
    assert not any(record.exc_info for record in caplog.records)  # no traceback logged
