"""A server's child process: its stderr in the log (each line redacted, whatever handler
reads it), a safe environment plus its own."""

from __future__ import annotations

import asyncio
import logging
import os
import time

import pytest

from app.tools.mcp.server import McpServer
from app.tools.mcp.stdio import LINE_LIMIT, StderrToLog
from routing.secrets import register_secret
from tests.servers.mcp_server import STDERR_ENV, settings


async def test_stderr_goes_to_the_log_not_the_terminal(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.INFO, logger="app.tools.mcp.stdio")
    mcp = McpServer(settings(**{STDERR_ENV: "starting up|ready to serve"}))
    try:
        await mcp.ensure_started()
        deadline = time.monotonic() + 5
        while "ready to serve" not in caplog.text and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    finally:
        await mcp.close()
    lines = [
        r for r in caplog.records if r.name == "app.tools.mcp.stdio" and r.levelno == logging.INFO
    ]
    messages = [r.getMessage() for r in lines]
    assert "MCP server test: starting up" in messages
    assert "MCP server test: ready to serve" in messages
    assert "ready to serve" not in capfd.readouterr().err


async def test_the_child_gets_a_safe_environment_plus_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SIGHTLINE_TEST_SECRET", "do-not-pass")
    mcp = McpServer(settings(GREETING="hello"))
    try:
        assert (await mcp.call("env", {"name": "GREETING"})).text == "hello"
        assert (await mcp.call("env", {"name": "SIGHTLINE_TEST_SECRET"})).text == "<unset>"
        assert (await mcp.call("env", {"name": "PATH"})).text == os.environ["PATH"]
    finally:
        await mcp.close()


TOKEN = "mcp-tøken/ü-0987654321"


@pytest.fixture
def token() -> None:
    """The test's own registry (tests/conftest.py), holding the server's token."""
    register_secret(TOKEN)


def pumped(*lines: str) -> StderrToLog:
    """A real pipe fed these lines, as a child writes them, read to its end."""
    stderr = StderrToLog("leaky")
    stderr.writer.write("".join(lines))
    stderr.close_writer()
    stderr.join(5)
    return stderr


def test_each_line_is_redacted_before_it_is_kept_or_logged(
    caplog: pytest.LogCaptureFixture, token: None
) -> None:
    # caplog's handler has no formatter of Sightline's: the line itself must be clean.
    caplog.set_level(logging.INFO, logger="app.tools.mcp.stdio")
    stderr = pumped(
        f"token={TOKEN}\n", 'config {"token": "mcp-t\\u00f8ken\\/\\u00fc-0987654321"}\n'
    )
    assert list(stderr.tail) == ["token=[redacted]", 'config {"token": "[redacted]"}']
    assert [r.getMessage() for r in caplog.records] == [
        "MCP server leaky: token=[redacted]",
        'MCP server leaky: config {"token": "[redacted]"}',
    ]


def test_a_huge_line_is_cut_after_redacting_and_the_next_line_is_whole(
    caplog: pytest.LogCaptureFixture, token: None
) -> None:
    caplog.set_level(logging.INFO, logger="app.tools.mcp.stdio")
    # The token sits across the point where the old reader cut a line in two.
    huge = "x" * (16384 - 5) + TOKEN + "y" * 3_000_000
    stderr = pumped(huge + "\n", f"after {TOKEN}\n")
    first, second = stderr.tail
    assert TOKEN[:5] not in first and TOKEN[-5:] not in first
    assert first.startswith("x" * 100) and first.endswith("the rest of the line left out]")
    assert len(first) < LINE_LIMIT + 100
    assert second == "after [redacted]"
    assert all(TOKEN not in r.getMessage() for r in caplog.records)
