"""A server's stderr reaches the log and the person redacted, whatever handler reads it."""

from __future__ import annotations

import logging

import pytest

from app.tools.mcp_stdio import LINE_LIMIT, StderrToLog
from routing import secrets
from routing.secrets import register_secret

TOKEN = "mcp-tøken/ü-0987654321"


@pytest.fixture(autouse=True)
def token(monkeypatch: pytest.MonkeyPatch) -> None:
    """A registry of this test's own, holding the server's token."""
    monkeypatch.setattr(secrets, "_known", set())
    monkeypatch.setattr(secrets, "_pattern", None)
    register_secret(TOKEN)


def pumped(*lines: str) -> StderrToLog:
    """A real pipe fed these lines, as a child writes them, read to its end."""
    stderr = StderrToLog("leaky")
    stderr.writer.write("".join(lines))
    stderr.close_writer()
    stderr.join(5)
    return stderr


def test_each_line_is_redacted_before_it_is_kept_or_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # caplog's handler has no formatter of Sightline's: the line itself must be clean.
    caplog.set_level(logging.INFO, logger="app.tools.mcp_stdio")
    stderr = pumped(
        f"token={TOKEN}\n", 'config {"token": "mcp-t\\u00f8ken\\/\\u00fc-0987654321"}\n'
    )
    assert list(stderr.tail) == ["token=[redacted]", 'config {"token": "[redacted]"}']
    assert [r.getMessage() for r in caplog.records] == [
        "MCP server leaky: token=[redacted]",
        'MCP server leaky: config {"token": "[redacted]"}',
    ]


def test_a_huge_line_is_cut_after_redacting_and_the_next_line_is_whole(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="app.tools.mcp_stdio")
    # The token sits across the point where the old reader cut a line in two.
    huge = "x" * (16384 - 5) + TOKEN + "y" * 3_000_000
    stderr = pumped(huge + "\n", f"after {TOKEN}\n")
    first, second = stderr.tail
    assert TOKEN[:5] not in first and TOKEN[-5:] not in first
    assert first.startswith("x" * 100) and first.endswith("the rest of the line left out]")
    assert len(first) < LINE_LIMIT + 100
    assert second == "after [redacted]"
    assert all(TOKEN not in r.getMessage() for r in caplog.records)
