"""The MCP servers of the settings, together: what the toolbox starts, asks for tools, and stops.

Importing this imports the MCP SDK (half a second), so `app/toolbox.py` imports it
only when there are servers.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable

from app.tools.base import Tool
from app.tools.mcp.config import McpServerConfig
from app.tools.mcp.errors import McpStartError, not_started
from app.tools.mcp.server import DEFAULT_START_TIMEOUT, DEFAULT_TIMEOUT, McpServer
from routing.secrets import redact

logger = logging.getLogger(__name__)


class McpHub:
    """The MCP servers of the settings, their tools together, their problems kept for a notice."""

    def __init__(
        self,
        configs: Iterable[McpServerConfig],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        start_timeout: float = DEFAULT_START_TIMEOUT,
    ) -> None:
        self.servers: dict[str, McpServer] = {}
        self.problems: dict[str, str] = {}
        for config in configs:
            if config.unsupported:
                self.problems[config.name] = not_started(config)
            else:
                self.servers[config.name] = McpServer(
                    config, timeout=timeout, start_timeout=start_timeout
                )

    async def tools(self) -> list[Tool]:
        """Every tool of every server that starts; one that fails is left out, its problem kept."""
        servers = list(self.servers.values())
        outcomes = await asyncio.gather(
            *(s.ensure_started() for s in servers), return_exceptions=True
        )
        offered: list[Tool] = []
        taken: set[str] = set()
        for server, outcome in zip(servers, outcomes, strict=True):
            if isinstance(outcome, asyncio.CancelledError):
                raise outcome
            if isinstance(outcome, BaseException):
                if not isinstance(outcome, McpStartError):
                    logger.error("MCP server %s failed to start", server.name, exc_info=outcome)
                # Not worded by app.tools.mcp.errors (which redacts): the person reads it as it is.
                self.problems[server.name] = redact(str(outcome) or repr(outcome))
                continue
            try:
                tools = await server.tools(taken)
            except McpStartError as exc:  # it stopped again straight away
                self.problems[server.name] = str(exc)
                continue
            self.problems.pop(server.name, None)
            taken.update(tool.spec.name for tool in tools)
            offered.extend(tools)
        return offered

    async def aclose(self) -> None:
        """Stop every server."""
        await asyncio.gather(*(s.close() for s in self.servers.values()))
