"""An MCP server's tools as Sightline tools: the names and specs models see, and a run."""

from __future__ import annotations

from app.tools.base import Tool
from app.tools.mcp.server import McpServer
from app.tools.mcp.tool import MAX_NAME, McpTool, offered_name
from routing.transcript import TextPart, ToolCall

TEST_TOOLS = {"echo", "tiny_image", "broken_image", "fail", "crash", "sleep"}


async def test_tools_are_offered_with_prefixed_names_and_schemas(server: McpServer) -> None:
    tools = await server.tools()
    by_name = {tool.spec.name: tool for tool in tools}
    assert {f"test__{name}" for name in TEST_TOOLS} <= set(by_name)
    echo = by_name["test__echo"]
    assert isinstance(echo, McpTool) and echo.tool_name == "echo"
    assert echo.spec.description == "Say the text back, unchanged."
    assert echo.spec.parameters["type"] == "object"
    assert echo.spec.parameters["properties"]["text"]["type"] == "string"
    assert echo.spec.parameters["required"] == ["text"]
    assert by_name["test__tiny_image"].spec.parameters["properties"] == {}


async def test_echo_through_the_tool_protocol(server: McpServer) -> None:
    (echo,) = [t for t in await server.tools() if t.spec.name == "test__echo"]
    tool: Tool = echo
    result = await tool.run(ToolCall("call-1", "test__echo", {"text": "hello there"}))
    assert result.call_id == "call-1" and result.name == "test__echo"
    assert result.parts == (TextPart("hello there"),)
    assert not result.is_error


def test_offered_names_are_safe_for_every_provider() -> None:
    assert offered_name("files", "read_file") == "files__read_file"
    assert offered_name("my.server", "get tiny/image") == "my_server__get_tiny_image"
    assert offered_name("1password", "x") == "mcp_1password__x"
    long = offered_name("a-very-long-server-name-indeed", "and_an_even_longer_tool_name_" * 3)
    assert len(long) == MAX_NAME
    other = offered_name("a-very-long-server-name-indeed", "and_an_even_longer_tool_name_" * 4)
    assert other != long and len(other) == MAX_NAME
    taken = {"files__read"}
    assert offered_name("files", "read", taken).startswith("files__read_")
    for name in (long, other, offered_name("ü" * 80, "ツール")):
        assert all(c.isascii() and (c.isalnum() or c in "_-") for c in name)
        assert len(name) <= MAX_NAME
