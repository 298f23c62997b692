"""The engine seam: which engine answers a `requested_model` (app/turn/engine.py)."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from app.turn.engine import Engine, agent_for, agent_model, engine_for
from app.turn.events import TurnEvent
from app.turn.runner import TurnRunner
from app.turn.turn_input import TurnInput
from routing.models import ProviderConfig

AGENT = ProviderConfig("opencode", "acp", "", command="opencode")
MODEL = ProviderConfig("ollama", "ollama", "http://127.0.0.1:11434")


def test_an_agent_is_named_by_its_id_or_id_and_model() -> None:
    assert agent_for("opencode", [AGENT]) is AGENT
    assert agent_for("opencode:local/m", [AGENT]) is AGENT
    assert agent_model("opencode:local/m") == "local/m"
    assert agent_model("opencode") == ""
    assert agent_for("auto", [AGENT]) is None
    assert agent_for("ollama:llama3.2:3b", [AGENT, MODEL]) is None  # a model API is no agent


class Unrun:
    """An engine told apart only by who it is: picking one runs nothing."""

    def run(self, asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        raise AssertionError("picking an engine runs no turn")


def test_engine_for_picks_the_agents_engine_only_for_an_agent() -> None:
    models, agents = Unrun(), Unrun()
    assert engine_for("opencode:x", [AGENT], models, agents) is agents
    assert engine_for("auto", [AGENT], models, agents) is models
    assert engine_for("opencode", [AGENT], models, None) is models


def test_the_model_turn_runner_is_an_engine() -> None:
    # Checked by mypy as much as here: the runner satisfies the protocol as it is.
    engine: Engine = TurnRunner.__new__(TurnRunner)
    assert callable(engine.run)
