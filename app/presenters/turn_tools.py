"""The tools each of the window's turns offers, gathered in one place.

Sightline's own tools and those of the person's MCP servers (each server started on
first use, or with the window when the person asks). A server that can't start is left
out, and told once; a broken `mcpServers` file leaves the built-in tools alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from app.toolbox import Toolbox
    from app.tools.base import Tool


class TurnTools:
    """The window's toolbox, made on first use and made again after new settings."""

    def __init__(self, problem: Callable[[str], None]) -> None:
        self._problem = problem
        self.toolbox: Toolbox | None = None
        self._told: set[str] = set()  # MCP servers whose problem was already shown

    async def tools(self, mcp_config: Path | None) -> list[Tool]:
        """Every tool a turn offers now (the MCP servers start here)."""
        from app.toolbox import Toolbox, builtin_tools
        from app.tools.mcp.config import McpConfigError

        if self.toolbox is None:
            try:
                self.toolbox = Toolbox(mcp_config)
            except McpConfigError as exc:
                self._problem(f"The MCP servers can't be used: {exc}")
                return builtin_tools()
        tools = await self.toolbox.tools()
        for name, problem in self.toolbox.problems.items():
            if name not in self._told:
                self._told.add(name)
                self._problem(f"The MCP server {name} is unavailable: {problem}")
        return tools

    async def aclose(self) -> None:
        """End the MCP servers; the next turn starts afresh (the config may have changed)."""
        toolbox, self.toolbox, self._told = self.toolbox, None, set()
        if toolbox is not None:
            await toolbox.aclose()
