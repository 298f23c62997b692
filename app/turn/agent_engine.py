"""`AgentEngine`: what every agent engine does around its protocol (Zed's agent servers'
shape: one base, one package per protocol: app/turn/acp/, app/turn/codex/).

The person's message is stored first. The chat's agent is started on first use and
kept for the next turn (one running program per chat); one that crashed, hung or sent
what can't be read is dropped, and the next turn starts it again. A new program resumes
the session it had in this chat, found in what is kept with its answers (the record's
`SESSION_SHAPE`); when it can't, the chat is told it doesn't remember the earlier turns.
Every turn is recorded as it comes (app/turn/agent_record.py) and ends one of four
ways: answered, cut (its output reached the cap or the turn its overall limit: stopped
as Stop stops it, the session kept), stopped (the program hung or ended: dropped), or
failed (told, the answer so far kept). Pictures for an agent whose model doesn't see
are put into words by the sight policy (`sight`, app/turn/sight_policy.py).

A protocol supplies only its own part: how it names an agent, starts and readies a
session, runs one turn (`answer`), stops one, and says why one failed.
"""

from __future__ import annotations

import asyncio
import contextlib
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from pathlib import Path
from typing import ClassVar, Generic, Protocol, TypeVar

from app.store import Store, StoreError
from app.turn.agent_problems import AgentCut, AgentProblem, AgentStopped
from app.turn.agent_record import AgentRecord
from app.turn.engine import agent_for, agent_mode, agent_model, error_notice, saved
from app.turn.events import ItemAdded, TurnEnded, TurnEvent
from app.turn.limits import output_cut, turn_limit, worked_too_long
from app.turn.sight_policy import SightPolicy
from app.turn.tool_step import DenyAll, ToolStep
from app.turn.turn_input import TurnInput
from routing.agent_offers import AgentOffer
from routing.agent_refs import agent_ref
from routing.catalogue import Catalogue
from routing.models import ProviderConfig
from routing.router import RoutingPrefs
from routing.transcript import MessageStatus, Notice, NoticeKind

__all__ = ["IDLE_SECONDS", "AgentEngine", "RunningAgent"]

IDLE_SECONDS = 300.0  # an agent silent this long mid-turn (not waiting for the person) hung


class RunningAgent(Protocol):
    """One chat's running agent, as the base keeps it."""

    remembered: bool  # False: a new session where the chat has earlier turns

    @property
    def agent(self) -> ProviderConfig:
        """The agent's config, as the turn found it."""
        ...

    @property
    def session_id(self) -> str:
        """The session (ACP) or thread (Codex) its turns go to."""
        ...

    @property
    def running(self) -> bool:
        """Whether the program still runs and its connection is sound."""
        ...

    async def close(self) -> None:
        """End the program (and what it was given: the door's line)."""
        ...


S = TypeVar("S", bound=RunningAgent)
R = TypeVar("R", bound=AgentRecord)


class AgentEngine(ABC, Generic[S, R]):
    """Runs turns of any conversation with the agents of one protocol."""

    RECORD: ClassVar[type[AgentRecord]]  # the protocol's record (its session's shape)
    # How the protocol names an agent as a sentence begins ("The agent {id}", "Codex ({id})"),
    # the turn for an agent the config doesn't have, and a new session where the chat has
    # earlier turns.
    NAMED: ClassVar[str]
    UNKNOWN: ClassVar[str]
    FORGOT: ClassVar[str]
    MODES: ClassVar[bool] = True  # the protocol has modes (`AGENT[:MODEL]#MODE`)
    # What the protocol's turn may raise that is the agent's failing, not Sightline's bug.
    FAILURES: ClassVar[tuple[type[Exception], ...]] = (Exception,)

    def __init__(
        self,
        store: Store,
        agents: Sequence[ProviderConfig],
        tool_step: ToolStep | None,
        sight: SightPolicy,
        *,
        cwd: Path | None = None,
        idle_timeout: float = IDLE_SECONDS,
        turn_timeout: float | None = None,
    ) -> None:
        self.store = store
        self.agents = list(agents)
        self.tool_step = tool_step or ToolStep(DenyAll())
        self.sight = sight  # who looks at pictures for an agent whose model doesn't see
        self.cwd = cwd or Path.cwd()  # the chat's working folder (headless: where it runs)
        self.idle_timeout = idle_timeout  # unless the agent's config sets its idle_seconds
        self.turn_timeout = turn_timeout  # None: its turn_seconds, else Sightline's limit
        self._sessions: dict[str, S] = {}  # conversation id -> its running agent
        # What each agent offered when it last started (its models and modes), for the picker.
        self.offered: dict[str, AgentOffer] = {}

    @property
    def catalogue(self) -> Catalogue | None:
        """Who may look at pictures for an agent whose model doesn't see them."""
        return self.sight.catalogue

    @catalogue.setter
    def catalogue(self, catalogue: Catalogue | None) -> None:
        self.sight.catalogue = catalogue

    @property
    def prefs(self) -> RoutingPrefs:
        """The person's routing preferences (who may look)."""
        return self.sight.prefs

    @prefs.setter
    def prefs(self, prefs: RoutingPrefs) -> None:
        self.sight.prefs = prefs

    # -- the protocol's part ---------------------------------------------------------

    def named(self, agent: ProviderConfig) -> str:
        """The agent as a sentence begins with it."""
        return self.NAMED.format(id=agent.id)

    @abstractmethod
    async def start(self, agent: ProviderConfig, earlier: str, asked: TurnInput) -> S:
        """The agent started, with a session: `earlier` resumed when it can be (" ": the
        chat has earlier turns but no session of this agent's); AgentProblem when not."""

    async def ready(self, session: S, requested: str) -> None:
        """Before each turn: the session set to what `requested` asks (its model, its mode)."""

    @abstractmethod
    async def offer(self, session: S) -> AgentOffer:
        """What the agent offers the picker, once it started."""

    @abstractmethod
    async def record(self, conversation_id: str, ref: str, session: S) -> R:
        """The turn's record."""

    @abstractmethod
    def answer(self, session: S, record: R, asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        """The turn in the protocol: the question sent, what comes stored, until it ends.
        It raises AgentCut (stop it), AgentStopped (drop it) or one of `FAILURES`."""

    @abstractmethod
    async def stop(self, session: S, record: R) -> bool:
        """Stop the agent's turn as Stop does (its pending questions answered); False when
        it did not end its turn in time (it is dropped)."""

    @abstractmethod
    async def why_failed(self, session: S, exc: Exception) -> AgentProblem:
        """A failed turn in words; AgentStopped when the agent must be started again."""

    # -- every agent's -----------------------------------------------------------------

    async def aclose(self) -> None:
        """End every agent this engine started."""
        sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            await session.close()

    async def run(self, asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        """Run one turn with the agent `asked.requested_model` names, yielding each stored
        event. `asked.tools` and `asked.settings` are the model-API turn's: an agent brings
        its own tools and its own prompt (Codex may be given Sightline's as its own)."""
        # Each layer closes the one it reads: a reader that stops early closes the turn now.
        async with aclosing(saved(self._turn(asked))) as events:
            async for event in events:
                yield event

    async def _turn(self, asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        chat, requested = asked.conversation_id, asked.requested_model
        yield ItemAdded(self.store.add_message(chat, asked.message()))
        agent = agent_for(requested, self.agents)
        if agent is None:
            problem = AgentProblem(self.UNKNOWN.format(requested=requested))
            yield ItemAdded(error_notice(self.store, chat, problem))
            yield TurnEnded(problem)
            return
        mode = agent_mode(requested) if self.MODES else ""
        ref = agent_ref(agent.id, agent_model(requested), mode)
        self.store.conversations.set_model(chat, ref)
        try:
            session = await self._session(chat, agent, asked)
            await self.ready(session, requested)
        except AgentProblem as problem:
            yield ItemAdded(error_notice(self.store, chat, problem))
            yield TurnEnded(problem, ref)
            return
        if not session.remembered:
            session.remembered = True
            notice = Notice(NoticeKind.INFO, self.FORGOT.format(id=agent.id))
            yield ItemAdded(self.store.add_notice(chat, notice))
        record = await self.record(chat, ref, session)
        async with aclosing(self._ended(session, record, asked)) as events:
            async for event in events:
                yield event

    async def _session(self, chat: str, agent: ProviderConfig, asked: TurnInput) -> S:
        """The chat's running agent, started (again) when there is none or it ended."""
        session = self._sessions.get(chat)
        if session is not None and session.running and session.agent == agent:
            return session
        if session is not None:
            self._sessions.pop(chat, None)
            await session.close()
        session = await self.start(agent, self.earlier_session(chat, agent), asked)
        self._sessions[chat] = session
        self.offered[agent.id] = await self.offer(session)
        return session

    def earlier_session(self, chat: str, agent: ProviderConfig) -> str:
        """The session this agent had in this chat (kept with its answers), if any; a chat
        with earlier turns but none of this agent's gets " ", so a new session there says
        the agent doesn't remember them; "" for a new chat."""
        messages = self.store.messages(chat)
        shape, key = self.RECORD.SESSION_SHAPE, self.RECORD.SESSION_KEY
        for past in reversed(messages):
            for part in past.carried(shape, agent.id):
                found = part.data.get(key)
                if isinstance(found, str) and found:
                    return found
        return " " if len(messages) > 1 else ""

    async def _ended(
        self, session: S, record: R, asked: TurnInput
    ) -> AsyncGenerator[TurnEvent, None]:
        """The protocol's turn, and how it ends when it doesn't end answered."""
        try:
            async with aclosing(self.answer(session, record, asked)) as events:
                async for event in events:
                    yield event
        except AgentCut as cut:  # stopped as Stop stops it, the session kept
            for event in await self._stopped(session, record):
                yield event
            yield ItemAdded(error_notice(self.store, record.conversation_id, cut))
            yield TurnEnded(cut, record.ref)
        except AgentStopped as hung:
            await self._drop(record.conversation_id)
            for event in record.failed(hung):
                yield event
        except (asyncio.CancelledError, GeneratorExit):
            await self._stopped(session, record)
            raise
        except self.FAILURES as exc:
            problem = await self.why_failed(session, exc)
            if isinstance(problem, AgentStopped):
                await self._drop(record.conversation_id)
            for event in record.failed(problem):
                yield event

    async def _stopped(self, session: S, record: R) -> list[TurnEvent]:
        """Stop: the agent's turn stopped (dropped if it won't), the answer kept as stopped."""
        if not await self.stop(session, record):
            await self._drop(record.conversation_id)
        events: list[TurnEvent] = []
        with contextlib.suppress(StoreError):
            record.end_answer(events, MessageStatus.STOPPED)
            record.stop_calls(events)
        return events

    async def _drop(self, chat: str) -> None:
        """End the chat's agent: the next turn starts it again."""
        session = self._sessions.pop(chat, None)
        if session is not None:
            await session.close()

    # -- what the protocols' turns share ---------------------------------------------------

    def start_clock(self, record: R, agent: ProviderConfig) -> None:
        """The turn's overall limit starts (the agent's `turn_seconds`, else Sightline's)."""
        record.clock.limit = self.turn_timeout or turn_limit(agent)
        record.clock.start()

    def idle_seconds(self, agent: ProviderConfig) -> float:
        """How long the agent may be silent mid-turn before it counts as hung."""
        return agent.idle_seconds or self.idle_timeout

    def too_long(self, record: R, agent: ProviderConfig) -> AgentCut:
        """The turn passed its overall limit."""
        return AgentCut(worked_too_long(self.named(agent), record.clock.limit))

    def hung(self, agent: ProviderConfig, idle: float) -> AgentStopped:
        """The agent was silent for `idle` seconds."""
        return AgentStopped(
            f"{self.named(agent)} sent nothing for {idle:g} s, so it was stopped; what it "
            "said is kept. Your next message starts it again."
        )

    def check_cut(self, record: R, agent: ProviderConfig) -> None:
        """AgentCut once the agent's output reached the turn's cap."""
        if record.cut:
            raise AgentCut(output_cut(self.named(agent), record.cap))
