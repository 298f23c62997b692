"""The window's turn tools: a broken `mcpServers` file leaves Sightline's own tools, a
server that can't start is left out and told once, new settings start afresh."""

from __future__ import annotations

import json
from pathlib import Path

from app.presenters.turn_tools import TurnTools


def servers_file(tmp_path: Path, servers: object) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


async def test_without_servers_the_tools_are_sightlines_own() -> None:
    told: list[str] = []
    tools = TurnTools(told.append)
    assert [t.spec.name for t in await tools.tools(None)] == ["read_file", "screenshot"]
    assert told == []


async def test_a_broken_servers_file_is_told_and_sightlines_tools_stay(tmp_path: Path) -> None:
    told: list[str] = []
    broken = tmp_path / "mcp.json"
    broken.write_text("{not json", encoding="utf-8")
    tools = TurnTools(told.append)
    assert [t.spec.name for t in await tools.tools(broken)] == ["read_file", "screenshot"]
    [problem] = told
    assert problem.startswith("The MCP servers can't be used: ")


async def test_a_server_that_cannot_start_is_left_out_and_told_once(tmp_path: Path) -> None:
    told: list[str] = []
    path = servers_file(tmp_path, {"gone": {"command": str(tmp_path / "no-such-program")}})
    tools = TurnTools(told.append)
    try:
        for _ in range(2):
            assert [t.spec.name for t in await tools.tools(path)] == ["read_file", "screenshot"]
        [problem] = told
        assert problem.startswith("The MCP server gone is unavailable: ")
        # New settings: the servers start afresh, and a problem is told again.
        first = tools.toolbox
        await tools.aclose()
        await tools.tools(path)
        assert tools.toolbox is not first and len(told) == 2
    finally:
        await tools.aclose()
