"""The task that owns a server's session: calls side by side, timeouts, cancels, closing."""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

from app.tools.mcp.config import McpServerConfig
from app.tools.mcp.errors import McpStartError
from app.tools.mcp.server import McpServer
from tests.app.tools.mcp.conftest import gone, pid_of
from tests.servers.mcp_server import STUBBORN_ENV, settings


async def test_calls_run_side_by_side(server: McpServer) -> None:
    started = time.monotonic()
    results = await asyncio.gather(*(server.call("sleep", {"seconds": 0.6}) for _ in range(3)))
    assert [r.text for r in results] == ["slept 0.6"] * 3
    assert time.monotonic() - started < 1.5  # not one after another


async def test_a_hanging_call_times_out() -> None:
    mcp = McpServer(settings(), timeout=0.5)
    try:
        before = await pid_of(mcp)
        started = time.monotonic()
        result = await mcp.call("sleep", {"seconds": 30})
        assert time.monotonic() - started < 5
        assert result.is_error
        assert "did not finish sleep within 0.5 s" in result.text
        assert (await mcp.call("echo", {"text": "ok"})).text == "ok"
        assert await pid_of(mcp) == before  # a timeout doesn't cost the server
    finally:
        await mcp.close()


async def test_cancelling_a_call_propagates_and_the_server_keeps_working(server: McpServer) -> None:
    before = await pid_of(server)
    task = asyncio.create_task(server.call("sleep", {"seconds": 30}))
    await asyncio.sleep(0.3)  # the call is on the server by now
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    async with asyncio.timeout(5):
        assert (await server.call("echo", {"text": "after"})).text == "after"
    assert await pid_of(server) == before


async def test_a_server_that_never_answers_times_out_starting() -> None:
    code = "import time; time.sleep(60)"
    mcp = McpServer(McpServerConfig("mute", sys.executable, ("-c", code)), start_timeout=0.5)
    with pytest.raises(McpStartError, match=r"did not answer within 0\.5 s"):
        await mcp.ensure_started()
    await mcp.close()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM can't be ignored on Windows")
async def test_close_kills_a_server_that_will_not_stop() -> None:
    mcp = McpServer(settings(**{STUBBORN_ENV: "1"}))
    pid = await pid_of(mcp)
    started = time.monotonic()
    await mcp.close()
    assert gone(pid)
    assert time.monotonic() - started < 10  # the SDK's grace periods, then SIGKILL


async def test_close_during_a_call_ends_the_call_with_an_error() -> None:
    mcp = McpServer(settings())
    pid = await pid_of(mcp)
    task = asyncio.create_task(mcp.call("sleep", {"seconds": 30}))
    await asyncio.sleep(0.3)
    await mcp.close()
    result = await task
    assert result.is_error and "was closed while running sleep" in result.text
    assert gone(pid)
