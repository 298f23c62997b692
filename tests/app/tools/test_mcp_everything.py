"""The reference MCP server from npm, `@modelcontextprotocol/server-everything`, through McpServer.

Its `get-tiny-image` (`getTinyImage` in older versions) returns text, a PNG image
block, text: the picture must arrive as a picture, between the two texts.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.tools.mcp.config import McpServerConfig
from app.tools.mcp.server import McpServer
from routing.transcript import PicturePart, TextPart, ToolCall

BINARY = os.environ.get("SIGHTLINE_MCP_EVERYTHING", "")

pytestmark = pytest.mark.skipif(
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


async def test_echo_and_close(everything: McpServer) -> None:
    result = await everything.call("echo", {"message": "hello"})
    assert not result.is_error and "hello" in result.text
    await everything.close()
    assert not everything.started
