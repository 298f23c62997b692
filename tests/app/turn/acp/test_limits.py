"""An agent's turn within its bounds (app/turn/limits.py, app/turn/acp/recording.py): the
fake ACP agent as a process, flooding or trickling.

Its words, thoughts and tools' output together reach the cap: what fits is kept, the
agent is sent `session/cancel`, the turn ends saying so. A tiny update every moment
never lets it go idle: the turn's overall limit ends it, cancelled the same way. The
person's time at an approval is not the turn's.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path

import pytest

from app.store import Store
from app.turn.acp.engine import CANCEL_SECONDS
from app.turn.events import TextAdded, TurnEvent
from app.turn.tool_step import Approval, ToolStep
from app.turn.turn_input import TurnInput
from routing.transcript import MessageStatus, ToolCall
from tests.app.turn.acp.helpers import EngineFor, fake
from tests.app.turn.engine_helpers import (
    cut_at_the_limit,
    ended,
    first_turn,
    flooded,
    run_turn,
    with_env,
)
from tests.servers.acp_agent import read_log


async def test_a_flood_is_cut_at_the_cap_and_the_agent_cancelled(
    store: Store, tmp_path: Path, engine_for: EngineFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = engine_for(fake(tmp_path, "flood"))
    chat, _events = await flooded(engine, "fake", "The agent fake", 20_000, monkeypatch)
    _user, answer, stopped_tool = store.messages(chat)
    # Words, thoughts and the tool's output came a thousand characters each, in turn.
    words = answer.text.removeprefix("Part one. ")
    assert 6_000 <= len(words) <= 7_000 and set(words) == {"x"}
    assert answer.status == MessageStatus.STOPPED
    thoughts = answer.carried("acp_thought", "fake")[0].data["text"]
    assert len(answer.text) + len(thoughts) <= 20_000
    assert stopped_tool.tool_results[0].is_error  # the call it never finished
    log = read_log(tmp_path)
    assert {"cancel": "s-1"} in log
    [cancelled] = [e["flood_cancelled_after"] for e in log if "flood_cancelled_after" in e]
    assert cancelled < 200_000  # it stopped on Sightline's word, long before its count


async def test_a_trickle_past_the_turn_s_limit_is_cancelled(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    agent = with_env(fake(tmp_path, "trickle"), FAKE_ACP_EVERY="0.05")
    engine = engine_for(agent, turn_timeout=1.0)
    chat = store.conversations.create()
    events: list[TurnEvent] = []
    heard = 0.0  # the agent's first words: its start (slow on a busy machine) is not the turn's
    async for event in engine.run(TurnInput(chat, "go", requested_model="fake")):
        heard = heard or (time.monotonic() if isinstance(event, TextAdded) else 0.0)
        events.append(event)
    # Its limit, then the wait for an agent that goes on after session/cancel, and a margin.
    assert heard and time.monotonic() - heard < 1.0 + CANCEL_SECONDS + 3
    cut_at_the_limit(events, "The agent fake", "1 second")
    _user, answer = store.messages(chat)
    assert answer.text.startswith("Part one. ...") and answer.status == MessageStatus.STOPPED
    assert {"cancel": "s-1"} in read_log(tmp_path)


async def test_an_agent_s_own_turn_seconds_is_its_limit(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    agent = replace(with_env(fake(tmp_path, "trickle"), FAKE_ACP_EVERY="0.05"), turn_seconds=0.5)
    engine = engine_for(agent)
    events = await run_turn(engine, store.conversations.create(), "go", "fake")
    cut_at_the_limit(events, "The agent fake", "0.5 seconds")


class Patient:
    """An approver that takes its time, as a person reading the card does."""

    async def approve(self, conversation_id: str, call: ToolCall, others: int = 0) -> Approval:
        await asyncio.sleep(1.5)
        return Approval.ONCE


async def test_the_person_s_time_deciding_is_not_the_turn_s(
    store: Store, tmp_path: Path, engine_for: EngineFor
) -> None:
    engine = engine_for(
        fake(tmp_path, "permission"), tool_step=ToolStep(Patient()), turn_timeout=1.0
    )
    chat, events = await first_turn(engine, "go", "fake")
    assert ended(events).error is None
    assert store.messages(chat)[-1].text.endswith("You said: go (0 pictures)")
