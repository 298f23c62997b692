"""What answers a turn: an engine. The model-API `TurnRunner` is one, an agent another.

Every engine stores the turn as it goes (app/store) and yields the same `TurnEvent`s
(app/turn/events.py), so the window, `sightline ask` and the ledger take any engine's
turn alike. An engine that runs its own tool loop (an agent) reports its tool calls
and results as the events and messages a model's tool step would give.

`requested_model` says which engine: an agent's id (its own default model) or
`AGENT:MODEL` picks that agent; anything else (`auto`, `PROVIDER:MODEL`) is a model's.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Iterable
from contextlib import aclosing
from typing import Protocol

from app.store import Store, StoredItem, StoreError
from app.turn.events import NotSaved, TurnEnded, TurnEvent, TurnProblem
from app.turn.turn_input import TurnInput
from routing.agent_refs import ref_parts
from routing.models import ProviderConfig
from routing.transcript import Notice, NoticeKind

log = logging.getLogger(__name__)


class Engine(Protocol):
    """Answers turns of any conversation, storing each event before yielding it."""

    def run(self, asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        """Store the person's message, answer it, and yield each event once it is stored."""
        ...


async def saved(turn: AsyncGenerator[TurnEvent, None]) -> AsyncGenerator[TurnEvent, None]:
    """An engine's turn as it yields it; a store that can't be written (a full disk) ends it
    with `NotSaved`: what was saved before stays, and nothing more is asked."""
    try:
        async with aclosing(turn) as events:
            async for event in events:
                yield event
    except StoreError as exc:
        log.warning("the turn could not be saved: %s", exc)
        yield TurnEnded(
            NotSaved(
                f"Sightline could not save this turn: {exc} What was saved before stays; "
                "free some disk space, then send it again."
            )
        )


def error_notice(store: Store, conversation_id: str, problem: TurnProblem) -> StoredItem:
    """An engine's problem as the chat's error notice (its details for the window's "Details")."""
    notice = Notice(NoticeKind.ERROR, problem.message, details=problem.detail)
    return store.add_notice(conversation_id, notice)


def agent_for(requested_model: str, agents: Iterable[ProviderConfig]) -> ProviderConfig | None:
    """The agent `requested_model` names (`AGENT[:MODEL][#MODE]`), or None for a model."""
    provider_id = ref_parts(requested_model)[0]
    return next((a for a in agents if a.is_agent and a.id == provider_id), None)


def agent_model(requested_model: str) -> str:
    """The agent's model `AGENT:MODEL` names; "" for the agent's own default."""
    return ref_parts(requested_model)[1]


def agent_mode(requested_model: str) -> str:
    """The agent's mode `AGENT[:MODEL]#MODE` names; "" for the agent's own default."""
    return ref_parts(requested_model)[2]


def engine_for(
    requested_model: str,
    agents: Iterable[ProviderConfig],
    models: Engine,
    agent_engine: Engine | None,
) -> Engine:
    """The engine for a turn: the agent engine when an agent is named, else the models'."""
    if agent_engine is not None and agent_for(requested_model, agents) is not None:
        return agent_engine
    return models
