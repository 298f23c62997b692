"""What the engines' tests share: one question run to its end through any engine (the
model runner or an agent's), a fake agent's program as a provider, an approver that
records, and how an agent's turn (ACP or Codex) reads when Sightline cut it (reading a
turn's events is tests/events.py's, re-exported here for the tests that import it from
this module)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import pytest

from app.store import Store
from app.tools.base import Tool
from app.turn.agent_engine import AgentEngine
from app.turn.agent_problems import AgentCut
from app.turn.engine import Engine
from app.turn.events import TurnEvent
from app.turn.tool_step import Approval, ToolStep
from app.turn.turn_input import TurnInput
from routing.chat_settings import ChatSettings
from routing.models import ProviderConfig
from routing.transcript import NoticeKind, ToolCall
from routing.wires import answer_cap
from tests.events import collect, ended, notices
from vision.pdf import PdfFile
from vision.pictures import Picture

__all__ = [
    "Recording",
    "collect",
    "ended",
    "engines_made",
    "fake_program",
    "first_turn",
    "flooded",
    "notices",
    "per_answer",
    "run_turn",
]

E = TypeVar("E", bound=AgentEngine)

ROOT = str(Path(__file__).resolve().parents[3])  # the checkout, so the fakes import tests.*


def fake_program(
    kind: str,
    module: str,
    env: tuple[tuple[str, str], ...],
    *,
    local: bool = False,
    model_provider: str = "",
) -> ProviderConfig:
    """An agent of `kind` (named after its kind, "fake" for ACP) whose program is the
    tests' fake `module`, run by this Python with `env` and the tests importable."""
    return ProviderConfig(
        "fake" if kind == "acp" else kind,
        kind,
        "",
        local=local,
        command=sys.executable,
        args=("-m", module),
        env=(*env, ("PYTHONPATH", ROOT)),
        model_provider=model_provider,
    )


async def run_turn(
    engine: Engine,
    cid: str,
    text: str,
    model: str = "auto",
    pictures: tuple[Picture, ...] = (),
    *,
    tools: Sequence[Tool] = (),
    pdfs: tuple[PdfFile, ...] = (),
    settings: ChatSettings | None = None,
) -> list[TurnEvent]:
    """One question to `engine` in chat `cid`, asking for `model`: every event of its turn."""
    asked = TurnInput(cid, text, pictures, model, tools, pdfs, settings)
    return await collect(engine.run(asked))


async def first_turn(
    engine: AgentEngine,
    text: str,
    model: str,
    pictures: tuple[Picture, ...] = (),
    *,
    pdfs: tuple[PdfFile, ...] = (),
) -> tuple[str, list[TurnEvent]]:
    """A new chat's first question to an agent's engine: the chat, and its turn's events."""
    chat = engine.store.conversations.create()
    return chat, await run_turn(engine, chat, text, model, pictures, pdfs=pdfs)


@asynccontextmanager
async def engines_made(kind: type[E], store: Store, cwd: Path) -> AsyncIterator[Callable[..., E]]:
    """A test's `engine_for` fixture: `engine_for(agent, **options)` is an engine of `kind`
    for that one agent in `cwd`; every engine it made is closed after the test."""
    made: list[E] = []

    def make_and_keep(agent: ProviderConfig, **options: Any) -> E:
        engine = kind(store, [agent], cwd=cwd, **options)
        made.append(engine)
        return engine

    try:
        yield make_and_keep
    finally:
        for engine in made:
            await engine.aclose()


class Recording:
    """An approver that answers every call the same way and keeps what it was asked."""

    def __init__(self, answer: Approval) -> None:
        self.answer = answer
        self.asked: list[ToolCall] = []

    async def approve(self, conversation_id: str, call: ToolCall, others: int = 0) -> Approval:
        self.asked.append(call)
        return self.answer


async def clean_turn(
    engine_for: Callable[..., E], agent: ProviderConfig, text: str, model: str, **options: Any
) -> tuple[E, str, list[TurnEvent]]:
    """A new chat's first turn with an engine for `agent` (made with `options`), ended
    without an error: the engine, the chat and the events."""
    engine = engine_for(agent, **options)
    chat, events = await first_turn(engine, text, model)
    assert ended(events).error is None
    return engine, chat, events


def per_answer(name: str, once: object, conversation: object, deny: object) -> Any:
    """Runs a test once for each answer a person can give an approval (as `answer`), with
    what the agent should hear back for it (as `name`)."""
    rows = [(Approval.ONCE, once), (Approval.CONVERSATION, conversation), (Approval.DENY, deny)]
    return pytest.mark.parametrize(("answer", name), rows)


async def approved_turn(
    engine_for: Callable[..., AgentEngine], agent: ProviderConfig, answer: Approval, model: str
) -> tuple[Recording, str, list[TurnEvent]]:
    """A clean turn "go" whose every ask `answer` settles (a refusal's notice ends in
    " (hint)"): the approver, the chat and the events."""
    approver = Recording(answer)
    step = ToolStep(approver)
    _engine, chat, events = await clean_turn(
        engine_for, agent, "go", model, tool_step=step, denied_hint=" (hint)"
    )
    return approver, chat, events


def cut_saying(events: list[TurnEvent], message: str) -> AgentCut:
    """The agent's turn ended cut by Sightline, in these words."""
    problem = ended(events).error
    assert isinstance(problem, AgentCut) and problem.message == message
    return problem


def cut_at_the_cap(events: list[TurnEvent], name: str, cap: int) -> AgentCut:
    """The agent's turn ended at the cap on its output, said so (once, as an error notice)."""
    problem = cut_saying(
        events,
        f"{name} sent more than {cap:,} characters in this turn (its words, thoughts and "
        "tools' output), the most Sightline keeps, so it was stopped there; what fits is kept.",
    )
    assert [n.text for n in notices(events) if n.kind == NoticeKind.ERROR] == [problem.message]
    return problem


async def flooded(
    engine: AgentEngine, model: str, name: str, cap: int, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, list[TurnEvent]]:
    """A first turn "go" to an agent that floods, with Sightline's cap on a turn's output
    set to `cap`: cut there and said so. The chat and the events."""
    monkeypatch.setattr(answer_cap, "ANSWER_CHARS", cap)
    chat, events = await first_turn(engine, "go", model)
    cut_at_the_cap(events, name, cap)
    return chat, events


def with_env(agent: ProviderConfig, **env: str) -> ProviderConfig:
    """The agent, run with these environment variables besides its own."""
    return replace(agent, env=(*agent.env, *env.items()))


def cut_at_the_limit(events: list[TurnEvent], name: str, limit: str) -> AgentCut:
    """The agent's turn ended at its overall limit (`limit` in words: "1 second")."""
    return cut_saying(
        events,
        f"{name} worked on this turn for longer than {limit}, the most one turn may "
        "take, so it was stopped; what it said is kept.",
    )
