"""`AcpEngine`: an agent speaking the Agent Client Protocol answers the turn.

What every agent engine does (the session per chat, restart, resume, the record, how a
turn ends) is the base's (app/turn/agent_engine.py); here is ACP's part. The agent is
started with the SDK (app/turn/acp/session.py), offered Sightline's door, and set to
the chat's model and mode before each turn. Pictures go as `image` blocks to an agent
that takes them, else in words (app/turn/acp/prompting.py). The agent's updates become
the answer's words, its thoughts and plan, its tool calls and their results
(app/turn/acp/recording.py). A permission request, and each call of the door, goes to
the same approver as a model's tool call. Stop sends `session/cancel` and answers a
waiting permission request `cancelled`; so does Sightline when the agent's output
reaches its cap or the turn its overall limit (app/turn/limits.py).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from pathlib import Path
from typing import Any

from acp import RequestError
from pydantic import ValidationError

from app.store import Store
from app.tools.mcp.config import McpServerConfig
from app.turn.acp.asking import Asking
from app.turn.acp.client import DoorAsked, DoorTold, Inbox, PermissionAsked, Update, Words
from app.turn.acp.content import open_ahead
from app.turn.acp.errors import why_failed
from app.turn.acp.prompting import AgentPrompt
from app.turn.acp.recording import AcpRecord
from app.turn.acp.session import AgentSession, DoorOffer, choose_mode, choose_model, start_agent
from app.turn.agent_engine import IDLE_SECONDS, AgentEngine
from app.turn.agent_problems import AgentProblem
from app.turn.engine import agent_mode, agent_model
from app.turn.events import ItemAdded, TurnEnded, TurnEvent, UsageAdded
from app.turn.sight_policy import SightPolicy
from app.turn.tool_step import AllowAll, ToolStep
from app.turn.turn_input import TurnInput
from routing.agent_offers import AgentOffer
from routing.catalogue import Catalogue
from routing.describing.describer import Describer
from routing.describing.framing import TURN_BUDGET
from routing.models import ProviderConfig
from routing.router import RoutingPrefs
from routing.transcript import MessageStatus, Notice, NoticeKind
from routing.wires.base import Usage

__all__ = ["AcpEngine"]

log = logging.getLogger(__name__)

CANCEL_SECONDS = 5.0  # after session/cancel, for the agent to end its prompt


class AcpEngine(AgentEngine[AgentSession, AcpRecord]):
    """Runs turns of any conversation with the ACP agents of the config."""

    RECORD = AcpRecord
    NAMED = "The agent {id}"
    UNKNOWN = "There is no agent {requested!r} in the config."
    FORGOT = "The agent {id} started a new session: it doesn't remember this chat's earlier turns."
    FAILURES = (RequestError, ValidationError, ConnectionError, Exception)

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
        sight = SightPolicy(
            catalogue, prefs or RoutingPrefs(), describer or Describer(), turn_budget
        )
        super().__init__(
            store,
            agents,
            tool_step,
            sight,
            cwd=cwd,
            idle_timeout=idle_timeout,
            turn_timeout=turn_timeout,
        )
        self.mcp_servers = list(mcp_servers)
        self._prompting = AgentPrompt(store, sight)
        self._asking = Asking(store, self.tool_step, denied_hint)

    # -- starting ---------------------------------------------------------------------

    async def start(self, agent: ProviderConfig, earlier: str, asked: TurnInput) -> AgentSession:
        """The agent started with the SDK, its session new or loaded, the door offered."""
        # The door's calls are asked and run by this turn, as the agent's own requests are.
        door = DoorOffer(self.sight, allowed=isinstance(self.tool_step.approver, AllowAll))
        return await start_agent(agent, self.cwd, self.mcp_servers, earlier, door=door)

    async def ready(self, session: AgentSession, requested: str) -> None:
        """The chat's model and mode (`AGENT:MODEL#MODE`) set, when it names them."""
        await choose_model(session, agent_model(requested))
        await choose_mode(session, agent_mode(requested))

    async def offer(self, session: AgentSession) -> AgentOffer:
        """Its models and modes, as its config options name them."""
        return AgentOffer(
            tuple(m.value for m in session.models), tuple(m.value for m in session.modes)
        )

    async def record(self, conversation_id: str, ref: str, session: AgentSession) -> AcpRecord:
        """The turn's record, in the session the agent answers in."""
        return AcpRecord(self.store, conversation_id, ref, session.session_id)

    # -- a turn -----------------------------------------------------------------------

    async def answer(
        self, session: AgentSession, record: AcpRecord, asked: TurnInput
    ) -> AsyncGenerator[TurnEvent, None]:
        """Send the prompt and store the agent's updates until it answers."""
        session.prompt = None  # none of this turn's yet: Stop has nothing to cancel
        blocks: list[Any] = []
        prompting = self._prompting.blocks(
            session, record.conversation_id, record.ref, asked.message(), blocks
        )
        async with aclosing(prompting):  # closed at once when the turn's reader leaves
            async for event in prompting:
                yield event
        record.sent = time.monotonic()  # after describing: the agent's time is its own
        self.start_clock(record, session.agent)
        connection = session.process.connection
        assert connection is not None
        session.process.heard()
        session.prompt = prompt = asyncio.create_task(
            connection.prompt(session_id=session.session_id, prompt=blocks)
        )
        prompt.add_done_callback(lambda _: session.client.wake())  # `_next` waits for it too
        while True:
            item = await self._next(session, prompt, record)
            if item is None:
                break
            taking = self._take(session, record, [item, *session.client.ready()])
            async with aclosing(taking):  # its `finally` answers what is left, at once
                async for event in taking:
                    yield event
            self.check_cut(record, session.agent)
        for event in self._answered(session, record, prompt.result()):
            yield event

    async def _take(
        self, session: AgentSession, turn: AcpRecord, items: list[Inbox]
    ) -> AsyncGenerator[TurnEvent, None]:
        """What the agent (or its door) sent, stored in order, each event as it is made
        (the words before a question show before it is asked)."""
        updates: list[Update | Words] = []
        left = list(items)
        try:
            while left:
                item = left.pop(0)
                if isinstance(item, Update | Words):
                    updates.append(item)
                    continue
                await _open_ahead(updates, turn)
                for event in turn.updates(updates):
                    yield event
                updates = []
                with turn.clock.paused():  # the person's time deciding is not the turn's
                    taken = await self._take_one(session, turn, item)
                for event in taken:
                    yield event
        finally:  # stopped while the person decided: what came with it is answered too
            session.client.answer_unasked(left)
        await _open_ahead(updates, turn)
        for event in turn.updates(updates):
            yield event

    async def _take_one(
        self, session: AgentSession, turn: AcpRecord, item: PermissionAsked | DoorAsked | DoorTold
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
        self, session: AgentSession, prompt: asyncio.Task[Any], turn: AcpRecord
    ) -> Inbox | None:
        """The agent's next update or request; None once the prompt is answered and all
        its updates taken; AgentStopped when it has been silent too long, AgentCut when
        the turn passed its overall limit."""
        client = session.client
        idle = self.idle_seconds(session.agent)
        while True:
            if turn.clock.left() <= 0:  # first: a flood never leaves the inbox empty
                raise self.too_long(turn, session.agent)
            if client.inbox:
                return client.inbox.popleft()
            if prompt.done():
                return None
            left = idle - session.process.quiet_for()
            if left <= 0:
                raise self.hung(session.agent, idle)
            await client.wait(min(left, turn.clock.left()))  # woken when the prompt is answered

    def _answered(self, session: AgentSession, turn: AcpRecord, response: Any) -> list[TurnEvent]:
        """The prompt was answered: the answer ends as the agent's stop reason says."""
        events: list[TurnEvent] = []
        usage = getattr(response, "usage", None)
        if usage is not None:
            events.append(UsageAdded(Usage(usage.input_tokens, usage.output_tokens)))
        reason = getattr(response, "stop_reason", "end_turn")
        status = MessageStatus.STOPPED if reason == "cancelled" else MessageStatus.COMPLETE
        turn.finish(events, status, turn.stats(usage))
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

    # -- its ends ---------------------------------------------------------------------

    async def stop(self, session: AgentSession, record: AcpRecord) -> bool:
        """`session/cancel`, pending permissions answered `cancelled`, the prompt awaited."""
        if record.asking is not None and not record.asking.answer.done():
            record.asking.answer.set_result(None)
        session.client.cancel_pending()
        connection, prompt = session.process.connection, session.prompt
        ended = True
        try:
            if connection is not None and session.running and prompt is not None:
                await asyncio.wait_for(connection.cancel(session_id=session.session_id), 1.0)
                await asyncio.wait_for(asyncio.shield(prompt), CANCEL_SECONDS)
        except (Exception, asyncio.CancelledError) as exc:
            log.info("the agent %s did not end its turn on cancel: %r", session.agent.id, exc)
            ended = False
        session.client.cancel_pending()  # what came while cancelling is not this turn's
        return ended

    async def why_failed(self, session: AgentSession, exc: Exception) -> AgentProblem:
        """The SDK's error, the connection's end or what it couldn't read, in words."""
        if isinstance(exc, ConnectionError):
            await session.process.settle()
        return why_failed(session, exc)


async def _open_ahead(updates: list[Update | Words], turn: AcpRecord) -> None:
    """The large pictures of these updates' tool calls opened off the window's thread."""
    await open_ahead((u.update for u in updates if isinstance(u, Update)), turn.opened)
