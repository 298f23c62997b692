"""One MCP server: every failure an error result, started again after it stops, closed cleanly.

Also the reference MCP server from npm, `@modelcontextprotocol/server-everything`,
through McpServer: its `get-tiny-image` (`getTinyImage` in older versions) returns
text, a PNG image block, text: the picture must arrive as a picture, between the two
texts.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.tools.mcp.config import McpServerConfig
from app.tools.mcp.server import McpServer
from routing.transcript import PicturePart, TextPart, ToolCall
from tests.app.tools.mcp.conftest import gone, pid_of, wait_until_gone
from tests.servers.mcp_server import settings

BINARY = os.environ.get("SIGHTLINE_MCP_EVERYTHING", "")


async def test_bad_arguments_and_unknown_tools_are_error_results(server: McpServer) -> None:
    assert (await server.call("echo", {})).is_error
    assert (await server.call("no_such_tool", {})).is_error
    assert (await server.call("echo", {"text": "still fine"})).text == "still fine"


async def test_a_crash_mid_call_is_an_error_and_the_next_call_restarts(server: McpServer) -> None:
    before = await pid_of(server)
    result = await server.call("crash", {}, offered_as="test__crash")
    assert result.is_error and result.name == "test__crash"
    assert "The MCP server test stopped while running crash" in result.text
    assert await wait_until_gone(before)
    again = await server.call("echo", {"text": "back again"})
    assert again.text == "back again" and not again.is_error
    assert await pid_of(server) != before


async def test_a_server_that_died_while_idle_is_restarted(server: McpServer) -> None:
    before = await pid_of(server)
    os.kill(before, 9)
    assert await wait_until_gone(before)
    first = await server.call("echo", {"text": "hi"})
    if first.is_error:
        # The call raced the news of the death: it says the server stopped, and the
        # next call starts it again (SPEC: "the next call may start it again").
        assert "stopped" in first.text
        first = await server.call("echo", {"text": "hi"})
    assert first.text == "hi" and await pid_of(server) != before


async def test_cancelling_a_start_propagates_at_once_and_leaves_no_child(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    code = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60)"
    mcp = McpServer(McpServerConfig("mute", sys.executable, ("-c", code, str(pid_file))))
    task = asyncio.create_task(mcp.ensure_started())
    async with asyncio.timeout(5):
        while not pid_file.exists() or not pid_file.read_text():
            await asyncio.sleep(0.05)
    task.cancel()
    started = time.monotonic()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 0.5  # the child is stopped in the background
    await mcp.close()
    assert gone(int(pid_file.read_text()))


async def test_close_leaves_no_child_behind() -> None:
    mcp = McpServer(settings())
    pid = await pid_of(mcp)
    assert not gone(pid)
    await mcp.close()
    assert gone(pid)  # stopped and reaped, not a zombie
    assert not mcp.started
    assert (await mcp.call("echo", {"text": "reopened"})).text == "reopened"
    await mcp.close()


# -- the reference server from npm ---------------------------------------------------

needs_everything = pytest.mark.skipif(
    not (BINARY and Path(BINARY).is_file() and os.access(BINARY, os.X_OK)),
    reason=(
        "needs the npm package @modelcontextprotocol/server-everything installed at "
        "$SIGHTLINE_MCP_EVERYTHING (see .ci/run)"
    ),
)


@pytest.fixture
async def everything() -> AsyncIterator[McpServer]:
    server = McpServer(McpServerConfig("everything", BINARY, ("stdio",)), timeout=30)
    try:
        yield server
    finally:
        await server.close()


@needs_everything
async def test_get_tiny_image_is_text_picture_text(everything: McpServer) -> None:
    tools = {tool.tool_name: tool for tool in await everything.tools()}
    name = "get-tiny-image" if "get-tiny-image" in tools else "getTinyImage"
    tool = tools[name]
    assert tool.spec.name == f"everything__{name}"
    result = await tool.run(ToolCall("call-1", tool.spec.name, {}))
    assert not result.is_error
    assert [type(part) for part in result.parts] == [TextPart, PicturePart, TextPart]
    picture = result.pictures[0]
    assert picture.mime == "image/png"
    assert picture.width > 0 and picture.height > 0
    assert picture.data.startswith(b"\x89PNG\r\n\x1a\n")


@needs_everything
async def test_echo_and_close(everything: McpServer) -> None:
    result = await everything.call("echo", {"message": "hello"})
    assert not result.is_error and "hello" in result.text
    await everything.close()
    assert not everything.started
