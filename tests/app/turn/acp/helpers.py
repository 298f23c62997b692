"""What the agent engine's tests share: the fake agent as a provider, and reading events."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

from app.turn.events import ItemAdded, TurnEnded, TurnEvent
from routing.models import ProviderConfig
from routing.transcript import Notice


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


async def collect(events: AsyncIterator[TurnEvent]) -> list[TurnEvent]:
    return [event async for event in events]


def ended(events: list[TurnEvent]) -> TurnEnded:
    last = events[-1]
    assert isinstance(last, TurnEnded)
    return last


def notices(events: list[TurnEvent]) -> list[Notice]:
    return [
        e.item.item for e in events if isinstance(e, ItemAdded) and isinstance(e.item.item, Notice)
    ]
