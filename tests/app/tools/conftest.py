"""What the MCP tests share: the real stdio test server (tests/servers/mcp_server.py), no mocks."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.tools.mcp_config import McpServerConfig
from app.tools.mcp_server import McpServer

ROOT = Path(__file__).resolve().parents[3]


def test_server(name: str = "test", **env: str) -> McpServerConfig:
    """The settings of the real test server, run by this Python."""
    return McpServerConfig(name, sys.executable, ("-m", "tests.servers.mcp_server"), env, str(ROOT))


test_server.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test


@pytest.fixture
async def server() -> AsyncIterator[McpServer]:
    """A started test server, with a short call timeout so hangs end fast."""
    mcp = McpServer(test_server(), timeout=20)
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
