"""An agent's models and modes (app/turn/acp/session.py): read at session/new, chosen by ref."""

from __future__ import annotations

from pathlib import Path

from app.store import Store
from app.turn.engine import agent_for, agent_mode, agent_model
from routing.agent_refs import agent_ref
from tests.app.turn.acp.helpers import EngineFor, fake
from tests.app.turn.engine_helpers import clean_turn, ended, run_turn
from tests.servers.acp_agent import read_log


def test_a_ref_names_an_agent_its_model_and_its_mode(tmp_path: Path) -> None:
    agent = fake(tmp_path)
    for ref, model, mode in [
        ("fake", "", ""),
        ("fake:large", "large", ""),
        ("fake#code", "", "code"),
        ("fake:org/large#code", "org/large", "code"),
    ]:
        assert agent_for(ref, [agent]) == agent
        assert (agent_model(ref), agent_mode(ref)) == (model, mode)
        assert agent_ref("fake", model, mode) == ref


async def test_a_mode_is_set_with_set_mode_and_offered_for_the_picker(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    engine, chat, _events = await clean_turn(
        engine_for, fake(tmp_path, "models", "modes"), "hi", "fake:large#code"
    )
    log = read_log(tmp_path)
    assert {"set_mode": "code"} in log and log[-1]["model"] == "large"
    offer = engine.offered["fake"]
    assert (offer.models, offer.modes) == (("small", "large"), ("ask", "code"))
    assert store.messages(chat)[-1].model == "fake:large#code"
    wrong = ended(await run_turn(engine, chat, "hi", "fake#build")).error
    assert wrong is not None and "offers no mode 'build'; it offers: ask, code" in wrong.message
