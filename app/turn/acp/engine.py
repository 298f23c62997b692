"""`AcpEngine`: an agent answers the turn, and every event is stored as it comes.

The person's message is stored first. The chat's agent is started on first use and
kept for the next turn; one that crashed, hung or sent what can't be read is
dropped, and the next turn starts it again. Pictures go as `image` blocks to an
agent that takes them (a picture leaving this computer is disclosed), else they
are described by Sightline's describer, who looks decided as for any blind model,
with the agent's `local` deciding whether the chat is local. The agent's updates
become the answer's words, its thoughts and plan, its tool calls and their results
(stored as the model-API turn stores them, pictures included). A permission request
goes to the same approver as a model's tool call. Stop sends `session/cancel` and
answers a waiting permission request `cancelled`; so does Sightline when the agent's
output reaches its cap or the turn its overall limit (app/turn/limits.py), and the turn
ends saying which.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from acp import RequestError
from pydantic import ValidationError

from app.store import Store, StoreError
from app.tools.mcp.config import McpServerConfig
from app.turn.acp.asking import Asking
from app.turn.acp.client import DoorAsked, DoorTold, Inbox, PermissionAsked, Update
from app.turn.acp.errors import AgentCut, AgentProblem, AgentStopped, why_failed
from app.turn.acp.prompting import AgentPrompt
from app.turn.acp.recording import SESSION, TurnRecord
from app.turn.acp.session import (
    AgentSession,
    DoorOffer,
    choose_mode,
    choose_model,
    start_agent,
)
from app.turn.engine import agent_for, agent_mode, agent_model, error_notice, saved
from app.turn.events import ItemAdded, TurnEnded, TurnEvent, UsageAdded
from app.turn.limits import output_cut, turn_limit, worked_too_long
from app.turn.tool_step import AllowAll, DenyAll, ToolStep
from app.turn.turn_input import TurnInput
from routing.agent_refs import AgentOffer, agent_ref
from routing.catalogue import Catalogue
from routing.describing.describer import Describer
from routing.describing.framing import TURN_BUDGET
from routing.models import ProviderConfig
from routing.router import RoutingPrefs
from routing.transcript import Message, MessageStatus, Notice, NoticeKind
from routing.wires.base import Usage

__all__ = ["AcpEngine"]

log = logging.getLogger(__name__)

IDLE_SECONDS = 300.0  # an agent silent this long mid-turn (not waiting for the person) hung
CANCEL_SECONDS = 5.0  # after session/cancel, for the agent to end its prompt


class AcpEngine:
    """Runs turns of any conversation with the agents of the config."""

    def __init__(
        self,
        store: Store,
        agents: Sequence[ProviderConfig],
        catalogue: Catalogue | None = None,
        tool_step: ToolStep | None = None,
        *,
        prefs: RoutingPrefs | None = None,
        describer: Describer | None = None,
        mcp_servers: Sequence[McpServerConfig] = (),
        cwd: Path | None = None,
        idle_timeout: float = IDLE_SECONDS,
        denied_hint: str = "",
        turn_budget: int = TURN_BUDGET,
        turn_timeout: float | None = None,
    ) -> None:
        self.store = store
        self.agents = list(agents)
        self.tool_step = tool_step or ToolStep(DenyAll())
        self.mcp_servers = list(mcp_servers)
        self.cwd = cwd or Path.cwd()  # the chat's working folder (headless: where it runs)
        self.idle_timeout = idle_timeout  # unless the agent's config sets its idle_seconds
        self.turn_timeout = turn_timeout  # None: its turn_seconds, else Sightline's limit
        self._prompting = AgentPrompt(
            store, catalogue, prefs or RoutingPrefs(), describer or Describer(), turn_budget
        )
        self._asking = Asking(store, self.tool_step, denied_hint)
        self._sessions: dict[str, AgentSession] = {}  # conversation id -> its running agent
        # What each agent offered when it last started (its models and modes), for the picker.
        self.offered: dict[str, AgentOffer] = {}

    @property
    def catalogue(self) -> Catalogue | None:
        """Who looks at pictures for an agent that doesn't take them."""
        return self._prompting.words.catalogue

    @catalogue.setter
    def catalogue(self, catalogue: Catalogue | None) -> None:
        self._prompting.words.catalogue = catalogue

    @property
    def prefs(self) -> RoutingPrefs:
        """The person's routing preferences (who may look)."""
        return self._prompting.words.prefs

    @prefs.setter
    def prefs(self, prefs: RoutingPrefs) -> None:
        self._prompting.words.prefs = prefs

    async def aclose(self) -> None:
        """End every agent this engine started."""
        sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            await session.close()

    async def run(self, asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        """Run one turn with the agent `requested_model` names, yielding each stored event.

        `asked.tools` and `asked.settings` are the model-API turn's: an agent brings its
        own tools (the person's MCP servers reach it through `session/new`) and its own
        prompt.
        """
        turn = self._turn(asked.conversation_id, asked.message(), asked.requested_model)
        async for event in saved(turn):
            yield event

    async def _turn(
        self, conversation_id: str, message: Message, requested: str
    ) -> AsyncGenerator[TurnEvent, None]:
        yield ItemAdded(self.store.add_message(conversation_id, message))
        agent = agent_for(requested, self.agents)
        if agent is None:
            problem = AgentProblem(f"There is no agent {requested!r} in the config.")
            yield ItemAdded(error_notice(self.store, conversation_id, problem))
            yield TurnEnded(problem)
            return
        model, mode = agent_model(requested), agent_mode(requested)
        ref = agent_ref(agent.id, model, mode)
        self.store.conversations.set_model(conversation_id, ref)
        try:
            session = await self._session(conversation_id, agent)
            await choose_model(session, model)
            await choose_mode(session, mode)
        except AgentProblem as problem:
            yield ItemAdded(error_notice(self.store, conversation_id, problem))
            yield TurnEnded(problem, ref)
            return
        if not session.remembered:
            session.remembered = True
            notice = Notice(
                NoticeKind.INFO,
                f"The agent {agent.id} started a new session: it doesn't remember this chat's "
                "earlier turns.",
            )
            yield ItemAdded(self.store.add_notice(conversation_id, notice))
        turn = TurnRecord(self.store, conversation_id, ref, session.session_id)
        async for event in self._prompt(session, turn, message):
            yield event

    async def _session(self, conversation_id: str, agent: ProviderConfig) -> AgentSession:
        """The chat's running agent, started (again) when there is none or it ended."""
        session = self._sessions.get(conversation_id)
        if session is not None and session.running and session.agent == agent:
            return session
        if session is not None:
            self._sessions.pop(conversation_id, None)
            await session.close()
        earlier = self._earlier_session(conversation_id, agent)
        # The door's calls are asked and run by this turn, as the agent's own requests are.
        door = DoorOffer(
            self._prompting.words, allowed=isinstance(self.tool_step.approver, AllowAll)
        )
        session = await start_agent(agent, self.cwd, self.mcp_servers, earlier, door=door)
        self._sessions[conversation_id] = session
        self.offered[agent.id] = AgentOffer(
            tuple(m.value for m in session.models), tuple(m.value for m in session.modes)
        )
        return session

    def _earlier_session(self, conversation_id: str, agent: ProviderConfig) -> str:
        """The session this agent had in this chat (kept with its answers), if any; a
        chat with earlier turns but none of this agent's gets a marker, so a new session
        there says the agent doesn't remember them."""
        messages = self.store.messages(conversation_id)
        for past in reversed(messages):
            for part in past.carried(SESSION, agent.id):
                found = part.data.get("session")
                if isinstance(found, str):
                    return found
        return " " if len(messages) > 1 else ""  # " ": earlier turns, no session of its own

    async def _prompt(
        self, session: AgentSession, turn: TurnRecord, message: Message
    ) -> AsyncIterator[TurnEvent]:
        """Send the prompt and store the agent's updates until it answers."""
        blocks: list[Any] = []
        prompting = self._prompting.blocks(session, turn.conversation_id, turn.ref, message, blocks)
        async for event in prompting:
            yield event
        turn.sent = time.monotonic()
        turn.clock.limit = self.turn_timeout or turn_limit(session.agent)
        turn.clock.start()
        connection = session.process.connection
        assert connection is not None
        session.process.last_heard = asyncio.get_running_loop().time()
        prompt = asyncio.create_task(
            connection.prompt(session_id=session.session_id, prompt=blocks)
        )
        try:
            while True:
                item = await self._next(session, prompt, turn)
                if item is None:
                    break
                async for event in self._take(session, turn, [item, *session.client.ready()]):
                    yield event
                if turn.cut:
                    raise AgentCut(output_cut(f"The agent {session.agent.id}", turn.cap))
            response = prompt.result()
        except AgentCut as cut:  # the agent is stopped as Stop stops it, the session kept
            for event in await self._cancel(session, turn, prompt):
                yield event
            yield ItemAdded(error_notice(self.store, turn.conversation_id, cut))
            yield TurnEnded(cut, turn.ref)
            return
        except AgentStopped as hung:
            await self._drop(turn.conversation_id, prompt)
            for event in self._failed(turn, hung):
                yield event
            return
        except (asyncio.CancelledError, GeneratorExit):
            await self._cancel(session, turn, prompt)
            raise
        except (RequestError, ValidationError, ConnectionError, Exception) as exc:
            if isinstance(exc, ConnectionError):
                await session.process.settle()
            problem = why_failed(session, exc)
            if isinstance(problem, AgentStopped):
                await self._drop(turn.conversation_id, prompt)
            for event in self._failed(turn, problem):
                yield event
            return
        for event in self._ended(session, turn, response):
            yield event

    async def _take(
        self, session: AgentSession, turn: TurnRecord, items: list[Inbox]
    ) -> AsyncIterator[TurnEvent]:
        """What the agent (or its door) sent, stored in order, each event as it is made
        (the words before a question show before it is asked)."""
        updates: list[Any] = []
        left = list(items)
        try:
            while left:
                item = left.pop(0)
                if isinstance(item, Update):
                    updates.append(item.update)
                    continue
                for event in turn.updates(updates):
                    yield event
                updates = []
                with turn.clock.paused():  # the person's time deciding is not the turn's
                    taken = await self._take_one(session, turn, item)
                for event in taken:
                    yield event
        finally:  # stopped while the person decided: what came with it is answered too
            session.client.answer_unasked(left)
        for event in turn.updates(updates):
            yield event

    async def _take_one(
        self, session: AgentSession, turn: TurnRecord, item: PermissionAsked | DoorAsked | DoorTold
    ) -> list[TurnEvent]:
        if isinstance(item, DoorTold):
            return [ItemAdded(self.store.add_notice(turn.conversation_id, item.notice))]
        if isinstance(item, DoorAsked):
            refused = await self._asking.door(session, turn.conversation_id, item)
        else:

            def asking(asked: PermissionAsked | None) -> None:
                # kept while the person decides: Stop answers it `cancelled`
                turn.asking = asked

            refused = await self._asking.permission(session, turn.conversation_id, item, asking)
        return [ItemAdded(refused)] if refused is not None else []

    async def _next(
        self, session: AgentSession, prompt: asyncio.Task[Any], turn: TurnRecord
    ) -> Inbox | None:
        """The agent's next update or request; None once the prompt is answered and all
        its updates taken; AgentStopped when it has been silent too long, AgentCut when
        the turn passed its overall limit."""
        inbox = session.client.inbox
        idle = session.agent.idle_seconds or self.idle_timeout
        while True:
            if turn.clock.left() <= 0:  # first: a flood never leaves the inbox empty
                name = f"The agent {session.agent.id}"
                raise AgentCut(worked_too_long(name, turn.clock.limit))
            if not inbox.empty():
                return inbox.get_nowait()
            if prompt.done():
                return None
            left = idle - session.process.quiet_for()
            if left <= 0:
                raise AgentStopped(
                    f"The agent {session.agent.id} sent nothing for {idle:g} s, "
                    "so it was stopped; what it said is kept. Your next message starts it again."
                )
            getter = asyncio.ensure_future(inbox.get())
            wait = min(left, turn.clock.left())
            try:
                await asyncio.wait({getter, prompt}, timeout=wait, return_when="FIRST_COMPLETED")
            finally:
                if not getter.done():
                    getter.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await getter
            if getter.done() and not getter.cancelled():
                return getter.result()

    def _ended(self, session: AgentSession, turn: TurnRecord, response: Any) -> list[TurnEvent]:
        """The prompt was answered: the answer ends as the agent's stop reason says."""
        events: list[TurnEvent] = []
        usage = getattr(response, "usage", None)
        if usage is not None:
            events.append(UsageAdded(Usage(usage.input_tokens, usage.output_tokens)))
        reason = getattr(response, "stop_reason", "end_turn")
        status = MessageStatus.STOPPED if reason == "cancelled" else MessageStatus.COMPLETE
        turn.begin(events)
        turn.stop_calls(events)
        if turn.answer is None:  # a tool result ended it: the session is kept on an empty one
            turn.begin(events)
        turn.end_answer(events, status, turn.stats(usage))
        words = {
            "max_tokens": "stopped: it reached its longest answer",
            "max_turn_requests": "stopped: it reached its most steps in one turn",
            "refusal": "refused to answer",
        }.get(str(reason))
        if words:
            notice = Notice(NoticeKind.INFO, f"The agent {session.agent.id} {words}.")
            events.append(ItemAdded(self.store.add_notice(turn.conversation_id, notice)))
        events.append(TurnEnded(None, turn.ref))
        return events

    def _failed(self, turn: TurnRecord, problem: AgentProblem) -> list[TurnEvent]:
        events: list[TurnEvent] = []
        turn.end_answer(events, MessageStatus.FAILED)
        turn.stop_calls(events)
        events.append(ItemAdded(error_notice(self.store, turn.conversation_id, problem)))
        events.append(TurnEnded(problem, turn.ref))
        return events

    async def _cancel(
        self, session: AgentSession, turn: TurnRecord, prompt: asyncio.Task[Any]
    ) -> list[TurnEvent]:
        """Stop: `session/cancel`, pending permissions answered `cancelled`, the answer kept."""
        if turn.asking is not None and not turn.asking.answer.done():
            turn.asking.answer.set_result(None)
        session.client.cancel_pending()
        connection = session.process.connection
        try:
            if connection is not None and session.running:
                await asyncio.wait_for(connection.cancel(session_id=session.session_id), 1.0)
                await asyncio.wait_for(asyncio.shield(prompt), CANCEL_SECONDS)
        except (Exception, asyncio.CancelledError) as exc:
            log.info("the agent %s did not end its turn on cancel: %r", session.agent.id, exc)
            await self._drop(turn.conversation_id, prompt)
        session.client.cancel_pending()  # what came while cancelling is not this turn's
        events: list[TurnEvent] = []
        with contextlib.suppress(StoreError):
            turn.end_answer(events, MessageStatus.STOPPED)
            turn.stop_calls(events)
        return events

    async def _drop(self, conversation_id: str, prompt: asyncio.Task[Any]) -> None:
        """End the chat's agent: the next turn starts it again."""
        prompt.cancel()
        with contextlib.suppress(BaseException):
            await prompt
        session = self._sessions.pop(conversation_id, None)
        if session is not None:
            await session.close()
