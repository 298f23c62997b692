"""How a chat names an agent: `AGENT[:MODEL][#MODE]`.

The agent's id, then the model it offers (`:`), then its mode (`#`); either may be
left out for the agent's own default: a model's ref (routing/refs.py) with a mode after it.
This module imports nothing of Sightline's but that, so the picker can read a ref before the
window's first paint without loading the turn.
"""

from __future__ import annotations

from routing.refs import ref_halves


def ref_parts(ref: str) -> tuple[str, str, str]:
    """The agent id, model and mode a ref names ("" for each left out)."""
    named, _, mode = (ref or "").strip().partition("#")
    agent, model = ref_halves(named)
    return agent, model, mode


def agent_ref(agent_id: str, model: str = "", mode: str = "") -> str:
    """The ref of an agent with its model and mode."""
    return agent_id + (f":{model}" if model else "") + (f"#{mode}" if mode else "")
