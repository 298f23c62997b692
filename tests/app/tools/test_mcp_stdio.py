"""A server's child process: its stderr in the log, a safe environment plus its own."""

from __future__ import annotations

import asyncio
import logging
import os
import time

import pytest

from app.tools.mcp_server import McpServer
from tests.app.tools.conftest import test_server
from tests.servers.mcp_server import STDERR_ENV


async def test_stderr_goes_to_the_log_not_the_terminal(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.INFO, logger="app.tools.mcp_stdio")
    mcp = McpServer(test_server(**{STDERR_ENV: "starting up|ready to serve"}))
    try:
        await mcp.ensure_started()
        deadline = time.monotonic() + 5
        while "ready to serve" not in caplog.text and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    finally:
        await mcp.close()
    lines = [
        r for r in caplog.records if r.name == "app.tools.mcp_stdio" and r.levelno == logging.INFO
    ]
    messages = [r.getMessage() for r in lines]
    assert "MCP server test: starting up" in messages
    assert "MCP server test: ready to serve" in messages
    assert "ready to serve" not in capfd.readouterr().err


async def test_the_child_gets_a_safe_environment_plus_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SIGHTLINE_TEST_SECRET", "do-not-pass")
    mcp = McpServer(test_server(GREETING="hello"))
    try:
        assert (await mcp.call("env", {"name": "GREETING"})).text == "hello"
        assert (await mcp.call("env", {"name": "SIGHTLINE_TEST_SECRET"})).text == "<unset>"
        assert (await mcp.call("env", {"name": "PATH"})).text == os.environ["PATH"]
    finally:
        await mcp.close()
