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
answers a waiting permission request `cancelled`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import RequestError
from pydantic import ValidationError

from app.store import Store, StoredItem, StoreError
from app.tools.base import Tool
from app.tools.mcp.config import McpServerConfig
from app.turn.acp.client import PermissionAsked, Update
from app.turn.acp.content import block_text, prompt_blocks, tool_parts, tool_result
from app.turn.acp.errors import AgentProblem, AgentStopped
from app.turn.acp.session import AgentSession, DoorOffer, choose_model, start_agent
from app.turn.engine import agent_for, agent_model
from app.turn.events import (
    ItemAdded,
    ItemFinished,
    NotSaved,
    PartAdded,
    PlanEntry,
    PlanUpdated,
    TextAdded,
    ThoughtAdded,
    TurnEnded,
    TurnEvent,
    UsageAdded,
)
from app.turn.sight import looker_disclosure, nobody_sees_notice
from app.turn.tool_step import STOPPED, AllowAll, Approval, DenyAll, ToolStep
from routing.catalogue import Catalogue
from routing.chat_settings import ChatSettings
from routing.describing.describer import Describer
from routing.describing.framing import TURN_BUDGET, TurnBudget
from routing.describing.looker import WireLooker
from routing.describing.request import in_words
from routing.documents import flatten_pages, pdfs_for_model
from routing.models import ModelInfo, ProviderConfig, SightFrom
from routing.router import RoutingPrefs, choose_looker
from routing.transcript import (
    CarriedPart,
    Crossed,
    Message,
    MessageStatus,
    Notice,
    NoticeKind,
    TextPart,
    ToolCall,
    user_message,
)
from routing.wires.base import Usage
from routing.wires.payload import bounded_arguments
from vision.pdf import PdfFile
from vision.pictures import Picture

__all__ = ["AcpEngine"]

log = logging.getLogger(__name__)

IDLE_SECONDS = 300.0  # an agent silent this long mid-turn (not waiting for the person) hung
CANCEL_SECONDS = 5.0  # after session/cancel, for the agent to end its prompt
SESSION = "acp"  # CarriedPart shape: the agent's session id, kept with its answers
THOUGHT = "acp_thought"  # CarriedPart shape: what it thought aloud, shown collapsed
PLAN = "acp_plan"  # CarriedPart shape: its last plan
MAX_THOUGHT_CHARS = 200_000


@dataclass
class _Turn:
    """What one turn of an agent has stored so far."""

    conversation_id: str
    ref: str
    answer: StoredItem | None = None
    thoughts: list[str] = field(default_factory=list)
    plan: tuple[PlanEntry, ...] = ()
    calls: dict[str, ToolCall] = field(default_factory=dict)  # open: no result yet
    seen: set[str] = field(default_factory=set)  # every call id of the turn
    content: dict[str, Any] = field(default_factory=dict)  # a call's latest content
    asking: PermissionAsked | None = None


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
    ) -> None:
        self.store = store
        self.agents = list(agents)
        self.catalogue = catalogue  # who looks at pictures for an agent that doesn't take them
        self.tool_step = tool_step or ToolStep(DenyAll())
        self.prefs = prefs or RoutingPrefs()
        self.describer = describer or Describer()
        self.mcp_servers = list(mcp_servers)
        self.cwd = cwd or Path.cwd()  # the chat's working folder (headless: where it runs)
        self.idle_timeout = idle_timeout
        self.denied_hint = denied_hint  # how to allow what was refused (`ask`: --allow-tools)
        self.turn_budget = turn_budget
        self._sessions: dict[str, AgentSession] = {}  # conversation id -> its running agent

    async def aclose(self) -> None:
        """End every agent this engine started."""
        sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            await session.close()

    async def run(
        self,
        conversation_id: str,
        text: str,
        pictures: tuple[Picture, ...] = (),
        requested_model: str = "auto",
        tools: Sequence[Tool] = (),
        pdfs: tuple[PdfFile, ...] = (),
        settings: ChatSettings | None = None,
    ) -> AsyncGenerator[TurnEvent, None]:
        """Run one turn with the agent `requested_model` names, yielding each stored event.

        `tools` and `settings` are the model-API turn's: an agent brings its own tools
        (the person's MCP servers reach it through `session/new`) and its own prompt.
        """
        message = user_message(text, pictures, pdfs)
        try:
            async with aclosing(self._turn(conversation_id, message, requested_model)) as events:
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

    async def _turn(
        self, conversation_id: str, message: Message, requested: str
    ) -> AsyncGenerator[TurnEvent, None]:
        yield ItemAdded(self.store.add_message(conversation_id, message))
        agent = agent_for(requested, self.agents)
        if agent is None:
            problem = AgentProblem(f"There is no agent {requested!r} in the config.")
            yield ItemAdded(self._error(conversation_id, problem))
            yield TurnEnded(problem)
            return
        model = agent_model(requested)
        ref = f"{agent.id}:{model}" if model else agent.id
        self.store.conversations.set_model(conversation_id, ref)
        try:
            session = await self._session(conversation_id, agent)
            await choose_model(session, model)
        except AgentProblem as problem:
            yield ItemAdded(self._error(conversation_id, problem))
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
        turn = _Turn(conversation_id, ref)
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
        # The door's calls are allowed only where every call of the run is (headless
        # --allow-tools); the window's live approval through the door is still to come.
        door = DoorOffer(conversation_id, allowed=isinstance(self.tool_step.approver, AllowAll))
        session = await start_agent(agent, self.cwd, self.mcp_servers, earlier, door=door)
        self._sessions[conversation_id] = session
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
        self, session: AgentSession, turn: _Turn, message: Message
    ) -> AsyncIterator[TurnEvent]:
        """Send the prompt and store the agent's updates until it answers."""
        blocks: list[Any] = []
        async for event in self._blocks(session, turn, message, blocks):
            yield event
        connection = session.process.connection
        assert connection is not None
        session.process.last_heard = asyncio.get_running_loop().time()
        prompt = asyncio.create_task(
            connection.prompt(session_id=session.session_id, prompt=blocks)
        )
        try:
            while True:
                item = await self._next(session, prompt)
                if item is None:
                    break
                if isinstance(item, PermissionAsked):
                    async for event in self._permission(session, turn, item):
                        yield event
                else:
                    for event in self._update(turn, item):
                        yield event
            response = prompt.result()
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
            problem = self._why(session, exc)
            if isinstance(problem, AgentStopped):
                await self._drop(turn.conversation_id, prompt)
            for event in self._failed(turn, problem):
                yield event
            return
        for event in self._ended(session, turn, response):
            yield event

    async def _blocks(
        self, session: AgentSession, turn: _Turn, message: Message, blocks: list[Any]
    ) -> AsyncIterator[TurnEvent]:
        """The prompt: words, PDFs as Sightline's reading, pictures as pictures or words."""
        read = flatten_pages(pdfs_for_model((message,), reads_pdfs=False).messages)
        prepared = read[0]
        if prepared.pictures and session.sees:
            agent = session.agent
            if not agent.is_local:
                labels = ", ".join(p.label or "a picture" for p in prepared.pictures)
                count = len(prepared.pictures)
                what = f"{count} picture{'s' if count != 1 else ''} ({labels})"
                notice = Notice(
                    NoticeKind.INFO,
                    f"{what} went to the agent {agent.id}, whose model runs off this computer.",
                    crossed=Crossed(turn.ref, f"agent {agent.id}", what, "you sent them", False),
                )
                yield ItemAdded(self.store.add_notice(turn.conversation_id, notice))
        elif prepared.pictures:
            worded = None
            async for event in self._in_words(session, turn, prepared):
                if isinstance(event, Message):
                    worded = event
                else:
                    yield event
            prepared = worded or prepared
        blocks.extend(prompt_blocks(prepared, with_pictures=session.sees))

    async def _in_words(
        self, session: AgentSession, turn: _Turn, message: Message
    ) -> AsyncIterator[TurnEvent | Message]:
        """Pictures described for an agent that doesn't take them (who looks: as for any
        blind model; a local agent's chat asks no model off this computer)."""
        agent = session.agent
        model = ModelInfo(
            agent.id,
            turn.ref.partition(":")[2] or "default",
            sees=False,
            local=agent.is_local,
            sight_from=SightFrom.LISTING,
        )
        looker = None
        reason = ""
        if self.catalogue is not None:
            wanted = [p.id for p in self.catalogue.providers if p.is_local or not agent.is_local]
            listed = {s.provider.id for s in self.catalogue.statuses()}
            if missing := [i for i in wanted if i not in listed]:
                await self.catalogue.refresh(missing)
            seeing = [
                m for m in self.catalogue.models() if m.gets_pictures and m.provider_id in wanted
            ]
            choice = choose_looker(
                seeing, model, configured=self.prefs.vision_model, local_chat=agent.is_local
            )
            if choice is not None:
                looker, reason = WireLooker(self.catalogue, choice.model), choice.reason
        result = await in_words(
            (message,),
            turn_from=0,
            describer=self.describer,
            looker=looker,
            budget=TurnBudget(cap=self.turn_budget),
        )
        if looker is not None and result.asked:
            failed = len(result.asked) - len(result.fresh)
            notice = looker_disclosure(
                looker, model, result.asked, result.pages, reason, failed=failed
            )
            yield ItemAdded(self.store.add_notice(turn.conversation_id, notice))
        elif looker is None:
            notice = nobody_sees_notice(list(message.pictures), model, local=agent.is_local)
            yield ItemAdded(self.store.add_notice(turn.conversation_id, notice))
        if result.input_tokens or result.output_tokens:
            yield UsageAdded(Usage(result.input_tokens, result.output_tokens), "describer")
        yield result.messages[0]

    async def _next(
        self, session: AgentSession, prompt: asyncio.Task[Any]
    ) -> Update | PermissionAsked | None:
        """The agent's next update or request; None once the prompt is answered and all
        its updates taken; AgentStopped when it has been silent too long."""
        inbox = session.client.inbox
        while True:
            if not inbox.empty():
                return inbox.get_nowait()
            if prompt.done():
                return None
            left = self.idle_timeout - session.process.quiet_for()
            if left <= 0:
                raise AgentStopped(
                    f"The agent {session.agent.id} sent nothing for {self.idle_timeout:g} s, "
                    "so it was stopped; what it said is kept. Your next message starts it again."
                )
            getter = asyncio.ensure_future(inbox.get())
            try:
                await asyncio.wait({getter, prompt}, timeout=left, return_when="FIRST_COMPLETED")
            finally:
                if not getter.done():
                    getter.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await getter
            if getter.done() and not getter.cancelled():
                return getter.result()

    def _update(self, turn: _Turn, item: Update) -> list[TurnEvent]:
        """One `session/update`, stored; the events it makes."""
        update = item.update
        kind = getattr(update, "session_update", "")
        events: list[TurnEvent] = []
        if kind == "agent_message_chunk":
            text = block_text(update.content)
            if text:
                answer = self._answer(turn, events)
                self.store.append_text(answer.id, text)
                events.append(TextAdded(answer.id, text))
        elif kind == "agent_thought_chunk":
            text = block_text(update.content)
            if text and sum(map(len, turn.thoughts)) < MAX_THOUGHT_CHARS:
                answer = self._answer(turn, events)
                turn.thoughts.append(text)
                events.append(ThoughtAdded(answer.id, text))
        elif kind in ("tool_call", "tool_call_update"):
            events += self._tool(turn, update)
        elif kind == "plan":
            answer = self._answer(turn, events)
            turn.plan = tuple(
                PlanEntry(str(e.content), str(e.status), str(e.priority)) for e in update.entries
            )
            events.append(PlanUpdated(answer.id, turn.plan))
        return events

    def _answer(self, turn: _Turn, events: list[TurnEvent]) -> StoredItem:
        """The answer being streamed, begun on the agent's first word."""
        if turn.answer is None:
            turn.answer = self.store.begin_assistant(turn.conversation_id, turn.ref)
            events.append(ItemAdded(turn.answer))
        return turn.answer

    def _tool(self, turn: _Turn, update: Any) -> list[TurnEvent]:
        """A tool call begun or updated: a call on the answer, then its result message."""
        events: list[TurnEvent] = []
        call_id = str(update.tool_call_id)
        if call_id not in turn.seen:
            turn.seen.add(call_id)
            raw = update.raw_input if isinstance(update.raw_input, dict) else {}
            name = update.title or update.kind or "tool"
            call = ToolCall(call_id, str(name)[:200], bounded_arguments(raw))
            answer = self._answer(turn, events)
            self.store.add_part(answer.id, call)
            turn.calls[call_id] = call
            events.append(PartAdded(answer.id, call))
        if update.content is not None:
            turn.content[call_id] = (update.content, update.raw_output)
        elif update.raw_output is not None:
            previous = turn.content.get(call_id, (None, None))[0]
            turn.content[call_id] = (previous, update.raw_output)
        if update.status in ("completed", "failed") and call_id in turn.calls:
            call = turn.calls.pop(call_id)
            content, raw_output = turn.content.get(call_id, (None, None))
            result = tool_result(
                call.id,
                call.name,
                tool_parts(content, raw_output),
                failed=update.status == "failed",
            )
            self._end_answer(turn, events, MessageStatus.COMPLETE)
            stored = self.store.add_message(turn.conversation_id, Message("tool", (result,)))
            events.append(ItemAdded(stored))
        return events

    def _end_answer(self, turn: _Turn, events: list[TurnEvent], status: MessageStatus) -> None:
        """The answer so far ends (its thoughts, plan and session kept with it); the agent's
        next words begin another after the tool's result."""
        if turn.answer is None:
            return
        answer_id = turn.answer.id
        for part in self._kept(turn):
            self.store.add_part(answer_id, part)
        turn.thoughts, turn.answer = [], None
        self.store.finish_message(answer_id, status)
        events.append(ItemFinished(answer_id, status))

    def _kept(self, turn: _Turn) -> list[CarriedPart]:
        agent_id = turn.ref.partition(":")[0]
        session = self._sessions.get(turn.conversation_id)
        parts = []
        if session is not None:
            parts.append(CarriedPart(SESSION, agent_id, {"session": session.session_id}))
        if turn.thoughts:
            parts.append(CarriedPart(THOUGHT, agent_id, {"text": "".join(turn.thoughts)}))
        if turn.plan:
            entries = [{"content": e.content, "status": e.status} for e in turn.plan]
            parts.append(CarriedPart(PLAN, agent_id, {"entries": entries}))
        return parts

    async def _permission(
        self, session: AgentSession, turn: _Turn, asked: PermissionAsked
    ) -> AsyncIterator[TurnEvent]:
        """The agent asks to run a tool: the person answers through the turn's approver."""
        tool_call = asked.tool_call
        title = tool_call.title or tool_call.kind or "run a tool"
        raw = tool_call.raw_input if isinstance(tool_call.raw_input, dict) else {}
        name = f"{session.agent.id}.{tool_call.kind or 'tool'}"
        call = ToolCall(
            str(tool_call.tool_call_id), name, bounded_arguments({"title": title, **raw})
        )
        turn.asking = asked
        step = self.tool_step
        try:
            if name in step.always_allowed or name in step.allowed_in(turn.conversation_id):
                answer = Approval.ONCE
            else:
                answer = await step.approver.approve(turn.conversation_id, call)
                if answer == Approval.CONVERSATION and step.grants is not None:
                    step.grants.grant(turn.conversation_id, name)
        finally:
            session.process.last_heard = asyncio.get_running_loop().time()  # the person's time
        turn.asking = None  # kept when Stop came while asking: it is answered `cancelled`
        kinds = {
            Approval.ONCE: ("allow_once", "allow_always"),
            Approval.STEP: ("allow_once", "allow_always"),
            Approval.CONVERSATION: ("allow_always", "allow_once"),
            Approval.DENY: ("reject_once", "reject_always"),
        }[answer]
        option = next(
            (o.option_id for kind in kinds for o in asked.options if o.kind == kind), None
        )
        if not asked.answer.done():
            asked.answer.set_result(option)
        if answer == Approval.DENY:
            notice = Notice(
                NoticeKind.INFO,
                f"The agent {session.agent.id} asked to {title}, which was not allowed."
                + self.denied_hint,
            )
            yield ItemAdded(self.store.add_notice(turn.conversation_id, notice))

    def _ended(self, session: AgentSession, turn: _Turn, response: Any) -> list[TurnEvent]:
        """The prompt was answered: the answer ends as the agent's stop reason says."""
        events: list[TurnEvent] = []
        usage = getattr(response, "usage", None)
        if usage is not None:
            events.append(UsageAdded(Usage(usage.input_tokens, usage.output_tokens)))
        reason = getattr(response, "stop_reason", "end_turn")
        status = MessageStatus.STOPPED if reason == "cancelled" else MessageStatus.COMPLETE
        self._answer(turn, events)
        self._stop_calls(turn, events)
        if turn.answer is None:  # a tool result ended it: the session is kept on an empty one
            self._answer(turn, events)
        self._end_answer(turn, events, status)
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

    def _stop_calls(self, turn: _Turn, events: list[TurnEvent]) -> None:
        """Calls the agent never finished get a 'stopped' result each, after the answer."""
        if not turn.calls:
            return
        calls, turn.calls = list(turn.calls.values()), {}
        self._end_answer(turn, events, MessageStatus.COMPLETE)
        results = tuple(tool_result(c.id, c.name, (TextPart(STOPPED),), failed=True) for c in calls)
        events.append(
            ItemAdded(self.store.add_message(turn.conversation_id, Message("tool", results)))
        )

    def _failed(self, turn: _Turn, problem: AgentProblem) -> list[TurnEvent]:
        events: list[TurnEvent] = []
        if turn.answer is not None:
            self._end_answer(turn, events, MessageStatus.FAILED)
        self._stop_calls(turn, events)
        events.append(ItemAdded(self._error(turn.conversation_id, problem)))
        events.append(TurnEnded(problem, turn.ref))
        return events

    async def _cancel(self, session: AgentSession, turn: _Turn, prompt: asyncio.Task[Any]) -> None:
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
            if turn.answer is not None:
                self._end_answer(turn, events, MessageStatus.STOPPED)
            self._stop_calls(turn, events)

    async def _drop(self, conversation_id: str, prompt: asyncio.Task[Any]) -> None:
        """End the chat's agent: the next turn starts it again."""
        prompt.cancel()
        with contextlib.suppress(BaseException):
            await prompt
        session = self._sessions.pop(conversation_id, None)
        if session is not None:
            await session.close()

    def _why(self, session: AgentSession, exc: BaseException) -> AgentProblem:
        """A failed prompt, in words; AgentStopped when the agent must be started again."""
        agent = session.agent.id
        log.info("the agent %s failed its turn: %r", agent, exc)
        if session.process.malformed:
            return AgentStopped(
                f"The agent {agent} sent {session.process.malformed}, which Sightline can't "
                "read, so its turn ended; what it said is kept. Your next message starts it again."
            )
        if not session.running or isinstance(exc, ConnectionError):
            status = session.process.exit_status()
            how = f" (exit status {status})" if status is not None else ""
            return AgentStopped(
                f"The agent {agent} stopped mid-turn{how}; what it said is kept. Your next "
                "message starts it again."
            )
        if isinstance(exc, RequestError):
            return AgentProblem(f"The agent {agent} could not answer: {exc}", str(exc.data or ""))
        return AgentStopped(
            f"The agent {agent} answered in a way Sightline can't read, so its turn ended; "
            "your next message starts it again.",
            detail=f"{type(exc).__name__}: {exc}"[:2000],
        )

    def _error(self, conversation_id: str, problem: AgentProblem) -> StoredItem:
        notice = Notice(NoticeKind.ERROR, problem.message, details=problem.detail)
        return self.store.add_notice(conversation_id, notice)
