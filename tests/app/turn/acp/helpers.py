"""What the agent engine's tests share: the fake agent as a provider (reading a turn's
events and running the program: tests/app/turn/engine_helpers.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from app.turn.acp.engine import AcpEngine
from routing.models import ProviderConfig
from tests.app.turn.engine_helpers import fake_program

# What the `engine_for` fixture gives: an engine for one agent (with AcpEngine's options),
# closed after the test.
EngineFor = Callable[..., AcpEngine]


def fake(tmp_path: Path, *behaviours: str, local: bool = False) -> ProviderConfig:
    """The fake agent with these behaviours, logging what it is asked into tmp_path."""
    env = (("FAKE_ACP", ",".join(behaviours)), ("FAKE_ACP_LOG", str(tmp_path)))
    return fake_program("acp", "tests.servers.acp_agent", env, local=local)
