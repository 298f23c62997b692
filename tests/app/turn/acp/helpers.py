"""What the agent engine's tests share: the fake agent as a provider (reading a turn's
events: tests/app/turn/engine_helpers.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from routing.models import ProviderConfig


def fake(tmp_path: Path, *behaviours: str, local: bool = False) -> ProviderConfig:
    """The fake agent with these behaviours, logging what it is asked into tmp_path."""
    env = (("FAKE_ACP", ",".join(behaviours)), ("FAKE_ACP_LOG", str(tmp_path)))
    root = str(Path(__file__).resolve().parents[4])
    return ProviderConfig(
        "fake",
        "acp",
        "",
        local=local,
        command=sys.executable,
        args=("-m", "tests.servers.acp_agent"),
        env=(*env, ("PYTHONPATH", root)),
    )
