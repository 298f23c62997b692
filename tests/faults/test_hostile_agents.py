"""Hostile agents as `sightline ask` meets them: one clear line, no traceback, what came kept.

An ACP agent (tests/servers/acp_agent.py) and Codex's app server
(tests/servers/codex_app_server.py) each send one line of 100 MB mid-answer: the turn
ends with the one line that says so, and nothing follows it (a pipe left full once used
to close after the event loop, printing `RuntimeError: Event loop is closed`). Each
also sends a tiny update every 2 seconds, never idle and never done: the turn's overall
limit (its `turn_seconds`, shortened in the config) ends it.
"""

from __future__ import annotations

import time
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


def hostile_agent(
    kind: str, home: SightlineHome, folder: Path, *, acp: str, codex: str
) -> tuple[str, str]:
    """The fake ACP agent or Codex app server added to `home`, behaving as told: the model
    to ask for and the name Sightline gives it."""
    if kind == "acp":
        with_agent(home, folder, acp)
        return "fake", "The agent fake"
    with_fake_codex(home, folder / "codex.json", codex)
    return "codex", "Codex (codex)"


def answers(home: SightlineHome) -> list[tuple[str, ...]]:
    with Store.open(home.data) as store:
        [conversation] = store.conversations.list()
        return [describe(item) for item in store.items(conversation.id)]


@pytest.mark.parametrize("kind", ["acp", "codex"])
def test_a_100_mb_line_is_one_clear_line_and_no_traceback(
    kind: str, agent_home: SightlineHome, tmp_path: Path
) -> None:
    model, name = hostile_agent(kind, agent_home, tmp_path, acp="long_line", codex="long-line")
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


@pytest.mark.parametrize("kind", ["acp", "codex"])
def test_a_tiny_update_every_2_seconds_ends_at_the_turn_s_limit(
    kind: str, agent_home: SightlineHome, tmp_path: Path
) -> None:
    model, name = hostile_agent(kind, agent_home, tmp_path, acp="trickle", codex="trickle")
    with agent_home.config.open("a", encoding="utf-8") as config:
        config.write("turn_seconds = 3\n")  # the agent's table is the file's last
    started = time.monotonic()
    done = sightline(agent_home.env(), "ask", "--model", model, "Go on.", timeout=60)
    assert time.monotonic() - started < 30
    line = one_clear_line(done)
    assert line == (
        f"sightline: {name} worked on this turn for longer than 3 seconds, the most one turn "
        "may take, so it was stopped; what it said is kept."
    )
    user, answer, notice = answers(agent_home)
    assert user == ("user", "Go on.", "complete")
    assert answer[2] == "stopped" and answer[1].endswith("..")  # an update every 2 s
    assert notice == ("notice", "error", line.removeprefix("sightline: "))
