"""The tools Sightline offers a model: the built-in ones and those of the MCP servers."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from app.tools.base import Tool
from app.tools.read_file import ReadFile
from app.tools.screenshot import Screenshot

if TYPE_CHECKING:
    from app.tools.mcp.hub import McpHub


def builtin_tools() -> list[Tool]:
    """The tools every chat can use."""
    return [ReadFile(), Screenshot()]


BUILTIN_NAMES = frozenset(t.spec.name for t in builtin_tools())


class Toolbox:
    """Built-in tools plus the tools of the configured MCP servers (started on first use)."""

    def __init__(self, mcp_config: Path | None = None) -> None:
        """Read the `mcpServers` file now (a bad file raises McpConfigError); start nothing."""
        servers = []
        if mcp_config:  # its reader loads only for a file to read
            from app.tools.mcp.config import load_mcp_servers

            servers = load_mcp_servers(mcp_config)
        self.hub: McpHub | None = None
        if servers:  # the MCP SDK takes half a second to import: only when it is needed
            from app.tools.mcp.hub import McpHub

            self.hub = McpHub(servers)

    async def tools(self) -> list[Tool]:
        """Every tool to offer; MCP servers start here, and one that can't is left out."""
        tools = builtin_tools()
        if self.hub is not None:
            tools += await self.hub.tools()
        return tools

    def could_offer(self, name: str) -> bool:
        """Whether a call of this name is for one of the chat's tools, offered or not:
        a built-in one, or a `<server>__<tool>` when MCP servers are configured."""
        if name in BUILTIN_NAMES:
            return True
        return self.hub is not None and "__" in name

    @property
    def problems(self) -> dict[str, str]:
        """MCP servers that could not start, with why (for a notice)."""
        return dict(self.hub.problems) if self.hub is not None else {}

    async def aclose(self) -> None:
        """Stop the MCP servers."""
        if self.hub is not None:
            await self.hub.aclose()
