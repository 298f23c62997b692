"""What the MCP tests share: the real stdio test server (tests/servers/mcp_server.py), no mocks."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator

import pytest

from app.tools.mcp.server import McpServer
from tests.servers.mcp_server import settings


@pytest.fixture
async def server() -> AsyncIterator[McpServer]:
    """A started test server, with a short call timeout so hangs end fast."""
    mcp = McpServer(settings(), timeout=20)
    await mcp.ensure_started()
    try:
        yield mcp
    finally:
        await mcp.close()


async def pid_of(server: McpServer) -> int:
    """The pid of the server's current child, as the child itself reports it."""
    return int((await server.call("pid", {})).text)


def gone(pid: int) -> bool:
    """Whether no process has this pid any more (a zombie still counts as there)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def wait_until_gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not gone(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True
