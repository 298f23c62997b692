"""The MCP servers of the settings together (McpHub), against the real stdio test server."""

from __future__ import annotations

from app.tools.mcp.config import parse_mcp_servers
from app.tools.mcp.hub import McpHub
from routing.transcript import ToolCall
from tests.servers.mcp_server import settings


async def test_hub_leaves_out_servers_that_fail_and_keeps_their_problems() -> None:
    configs = parse_mcp_servers(
        '{"mcpServers": {"gone": {"command": "sightline-no-such-program"},'
        ' "remote": {"url": "https://mcp.example.com/mcp"}}}'
    )
    hub = McpHub([*configs, settings()])
    try:
        tools = await hub.tools()
        names = {tool.spec.name for tool in tools}
        assert "test__echo" in names
        assert not any(name.startswith(("gone", "remote")) for name in names)
        assert set(hub.problems) == {"gone", "remote"}
        assert '"sightline-no-such-program" was not found' in hub.problems["gone"]
        assert "remote MCP servers are not supported yet" in hub.problems["remote"]
    finally:
        await hub.aclose()


async def test_hub_names_never_clash_between_servers() -> None:
    hub = McpHub([settings("my server"), settings("my_server")])
    try:
        names = [tool.spec.name for tool in await hub.tools()]
        assert len(names) == len(set(names))
        assert "my_server__echo" in names
        other = [n for n in names if n.startswith("my_server__echo_")]
        assert len(other) == 1
        (tool,) = [t for t in await hub.tools() if t.spec.name == other[0]]
        assert (await tool.run(ToolCall("1", other[0], {"text": "x"}))).text == "x"
    finally:
        await hub.aclose()
