"""Why an MCP server could not start, in words that say what to do."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.tools.mcp.config import McpServerConfig
from app.tools.mcp.errors import McpStartError
from app.tools.mcp.server import McpServer


async def test_a_missing_command_is_an_error_result_naming_it() -> None:
    mcp = McpServer(McpServerConfig("files", "npx-sightline-missing", ("-y", "pkg")))
    result = await mcp.call("read", {}, call_id="c9")
    assert result.is_error and result.call_id == "c9"
    assert "The MCP server files could not start" in result.text
    assert '"npx-sightline-missing" was not found' in result.text
    assert "full path" in result.text
    with pytest.raises(McpStartError, match="was not found"):
        await mcp.ensure_started()
    await mcp.close()


async def test_npx_missing_says_to_install_node(tmp_path: Path) -> None:
    mcp = McpServer(McpServerConfig("files", "npx", env={"PATH": str(tmp_path)}))
    with pytest.raises(McpStartError, match=r"Install Node\.js"):
        await mcp.ensure_started()


async def test_a_server_that_exits_at_once_reports_its_last_words() -> None:
    code = "import sys; print('missing API key', file=sys.stderr); sys.exit(2)"
    mcp = McpServer(McpServerConfig("quitter", sys.executable, ("-c", code)))
    with pytest.raises(McpStartError) as caught:
        await mcp.ensure_started()
    assert "exited before it was ready" in str(caught.value)
    assert "missing API key" in str(caught.value)
