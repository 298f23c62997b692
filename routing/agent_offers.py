"""What an agent offered when it last started: its models and its modes.

An agent's turn says so (app/turn/agents.py); the picker lists them under the agent once
it has, so this loads with the first agent, not before the window's first paint.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AgentOffer:
    """What an agent offered when it last started: its models and its modes (values),
    which the picker lists under it."""

    models: tuple[str, ...] = ()
    modes: tuple[str, ...] = ()
