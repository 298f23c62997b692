"""One tool of an MCP server as a Sightline `Tool`: the name and spec models see, and its run.

The turn loop runs an `McpTool` like any built-in tool; the call goes to its server
(`app/tools/mcp/server.py`), and every failure comes back as an error result.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection
from typing import TYPE_CHECKING

from mcp import types

from routing.transcript import ToolCall, ToolResult
from routing.wires.base import ToolSpec

if TYPE_CHECKING:
    from app.tools.mcp.server import McpServer

MAX_NAME = 64  # the longest tool name OpenAI, Anthropic and Gemini all accept
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def offered_name(server: str, tool: str, taken: Collection[str] = ()) -> str:
    """The name a model sees for a server's tool: `<server>__<tool>`, valid for every provider.

    Only [A-Za-z0-9_-], at most 64 characters, starting with a letter or `_` (Gemini's
    rule); a name that had to be shortened or is already taken gets a short hash.
    """
    base = f"{_UNSAFE.sub('_', server) or 'mcp'}__{_UNSAFE.sub('_', tool) or 'tool'}"
    if not (base[0].isalpha() or base[0] == "_"):
        base = f"mcp_{base}"
    if len(base) <= MAX_NAME and base not in taken:
        return base
    salt = 0
    while True:
        digest = hashlib.sha256(f"{server}\0{tool}\0{salt}".encode()).hexdigest()[:8]
        name = f"{base[: MAX_NAME - 9]}_{digest}"
        if name not in taken:
            return name
        salt += 1


def tool_spec(name: str, tool: types.Tool) -> ToolSpec:
    """What a model is told about an MCP tool, offered as `name`."""
    description = tool.description or tool.title or f"The {tool.name} tool."
    schema = dict(tool.input_schema) if isinstance(tool.input_schema, dict) else {}
    schema.setdefault("type", "object")
    if schema["type"] == "object":
        schema.setdefault("properties", {})
    return ToolSpec(name=name, description=description, parameters=schema)


class McpTool:
    """One tool of an MCP server, run by the turn loop like any other tool."""

    def __init__(self, server: McpServer, tool_name: str, spec: ToolSpec) -> None:
        self.server = server
        self.tool_name = tool_name
        self._spec = spec

    @property
    def spec(self) -> ToolSpec:
        """The name (`<server>__<tool>`), description and input schema offered to models."""
        return self._spec

    async def run(self, call: ToolCall) -> ToolResult:
        """Run the call on the server; failures come back as an error result."""
        return await self.server.call(
            self.tool_name, call.arguments, call_id=call.id, offered_as=call.name
        )
