"""Hostile agents as `sightline ask` meets them: one clear line, no traceback, what came kept.

An ACP agent (tests/servers/acp_agent.py) and Codex's app server
(tests/servers/codex_app_server.py) each send one line of 100 MB mid-answer: the turn
ends with the one line that says so, and nothing follows it (a pipe left full once used
to close after the event loop, printing `RuntimeError: Event loop is closed`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.store import Store
from tests.conftest import SightlineHome
from tests.faults.cli import one_clear_line, sightline
from tests.faults.conftest import describe
from tests.servers.acp_config import with_agent, with_fake_codex


@pytest.fixture
def agent_home(tmp_path: Path) -> SightlineHome:
    """A home with no provider but the agents each test adds."""
    config = tmp_path / "config.toml"
    config.write_text("discover_local = false\n", encoding="utf-8")
    return SightlineHome(config=config, data=tmp_path / "data")


def answers(home: SightlineHome) -> list[tuple[str, ...]]:
    with Store.open(home.data) as store:
        [conversation] = store.conversations.list()
        return [describe(item) for item in store.items(conversation.id)]


@pytest.mark.parametrize("kind", ["acp", "codex"])
def test_a_100_mb_line_is_one_clear_line_and_no_traceback(
    kind: str, agent_home: SightlineHome, tmp_path: Path
) -> None:
    if kind == "acp":
        with_agent(agent_home, tmp_path, "long_line")
        model, name = "fake", "The agent fake"
    else:
        with_fake_codex(agent_home, tmp_path / "codex.json", "long-line")
        model, name = "codex", "Codex (codex)"
    done = sightline(agent_home.env(), "ask", "--model", model, "Go on.", timeout=90)
    line = one_clear_line(done)
    assert "Event loop is closed" not in done.stderr and "Exception ignored" not in done.stderr
    assert line == (
        f"sightline: {name} sent a message longer than 32000000 bytes, which Sightline can't "
        "read, so its turn ended; what it said is kept. Your next message starts it again."
    )
    kept = answers(agent_home)
    assert kept[0] == ("user", "Go on.", "complete")
    assert kept[-1] == ("notice", "error", line.removeprefix("sightline: "))
