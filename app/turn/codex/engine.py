"""`CodexEngine`: Codex's app server answers the turn, and every event is stored as it comes.

A chat names it `CODEX_ID[:MODEL]`, where CODEX_ID is a provider of kind "codex" (its
`command`, `args`, `env`, `local` and `model_provider` are used); starting it, the
handshake and its thread are app/turn/codex/session.py's.

What every agent engine does (the session per chat, restart, resume, the record, how a
turn ends) is the base's (app/turn/agent_engine.py); here is Codex's part. The thread
id is kept with each answer (`CarriedPart` shape "codex"), so a new process resumes the
thread (`thread/resume`), and a failed resume starts a new one with a notice. Threads
start with `approvalPolicy: "untrusted"` (every command is asked about) in the
`read-only` sandbox, Sightline's tools as dynamic tools. Pictures go
as `image` inputs (clamped, data URLs) and their crossing off this computer is disclosed;
when Sightline knows the model Codex runs can't see (a model of one of Sightline's
providers named like the `model_provider`, say Ollama's), they are described first, who
looks chosen as for any blind model (app/turn/sight_policy.py), and so are the pictures
of a tool's result. Stop sends `turn/interrupt` and keeps the answer as stopped; so
does Sightline when Codex's output reaches its cap or the turn its overall limit
(app/turn/limits.py), and the turn ends saying which.

The models it offers the picker are Codex's own list for its own sign-in, else those
Sightline lists for the provider its `model_provider` names (Codex lists only its own).

Left out for now: PDFs beyond Sightline's reading of their words, and
`turn/diff/updated` (each file change's own diff is its result).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Sequence
from pathlib import Path
from typing import Any

from app.store import Store
from app.tools.base import Tool
from app.turn.agent_engine import IDLE_SECONDS, AgentEngine
from app.turn.agent_problems import AgentProblem
from app.turn.codex.asking import CodexAsking, clamped, data_url
from app.turn.codex.ending import cancelled, completed, interrupted, why_failed
from app.turn.codex.process import CodexRefused
from app.turn.codex.record import CodexRecord
from app.turn.codex.session import START_SECONDS, CodexSession, start_codex
from app.turn.engine import agent_model
from app.turn.events import ItemAdded, TurnEvent, UsageAdded
from app.turn.sight_policy import AgentSight, SightPolicy, agent_sight
from app.turn.tool_step import ToolStep
from app.turn.turn_input import TurnInput
from routing.agent_offers import AgentOffer
from routing.agent_refs import ref_parts
from routing.catalogue import Catalogue
from routing.documents import flatten_pages, pdfs_for_model
from routing.models import ModelInfo, ProviderConfig
from routing.router import RoutingPrefs
from routing.transcript import Message, Notice, NoticeKind

__all__ = ["KIND", "CodexEngine"]

log = logging.getLogger(__name__)

KIND = "codex"  # ProviderConfig.kind of a Codex app server
CANCEL_SECONDS = 5.0  # after turn/interrupt, for the turn to end


class CodexEngine(AgentEngine[CodexSession, CodexRecord]):
    """Runs turns of any conversation with the Codex app servers of the config."""

    RECORD = CodexRecord
    NAMED = "Codex ({id})"
    UNKNOWN = "There is no Codex {requested!r} in the config."
    FORGOT = (
        "Codex ({id}) started a new thread: Codex doesn't remember the earlier turns of this chat."
    )
    MODES = False
    FAILURES = (CodexRefused, ConnectionError, TimeoutError, KeyError, TypeError)

    def __init__(
        self,
        store: Store,
        providers: Sequence[ProviderConfig],
        tool_step: ToolStep | None = None,
        *,
        cwd: Path | None = None,
        idle_timeout: float = IDLE_SECONDS,
        cancel_timeout: float = CANCEL_SECONDS,
        denied_hint: str = "",
        tools: Sequence[Tool] | None = None,
        catalogue: Catalogue | None = None,
        prefs: RoutingPrefs | None = None,
        turn_timeout: float | None = None,
    ) -> None:
        super().__init__(
            store,
            [p for p in providers if p.kind == KIND],
            tool_step,
            SightPolicy(catalogue, prefs or RoutingPrefs()),
            cwd=cwd,
            idle_timeout=idle_timeout,
            turn_timeout=turn_timeout,
        )
        self.cancel_timeout = cancel_timeout
        self.tools = None if tools is None else list(tools)  # None: each turn's tools
        self._asking = CodexAsking(store, self.tool_step, denied_hint, self.sight)

    def _tools(self, asked: TurnInput) -> list[Tool]:
        """The tools Codex is given: the engine's own, else the turn's."""
        return list(asked.tools) if self.tools is None else self.tools

    # -- starting -------------------------------------------------------------------

    async def start(self, agent: ProviderConfig, earlier: str, asked: TurnInput) -> CodexSession:
        """`codex app-server` started, its thread resumed or started with the tools."""
        model = agent_model(asked.requested_model)
        return await start_codex(agent, self.cwd, earlier, model, self._tools(asked))

    async def offer(self, session: CodexSession) -> AgentOffer:
        """Codex's own models, or (Codex lists only its own) its model provider's."""
        models = session.models
        if session.provider.model_provider:
            models = tuple(m.name for m in await self._provider_models(session.provider))
        return AgentOffer(models)

    async def record(self, conversation_id: str, ref: str, session: CodexSession) -> CodexRecord:
        """The turn's record in the thread, knowing whether the model Codex runs sees."""
        record = CodexRecord(self.store, conversation_id, ref, session.thread_id)
        record.sight = await self._sight(session.provider, ref)
        return record

    async def _provider_models(self, provider: ProviderConfig) -> list[ModelInfo]:
        """The models of the Sightline provider named like Codex's `model_provider` (listed
        first if it wasn't yet); none when Sightline has no such provider."""
        catalogue, named = self.sight.catalogue, provider.model_provider
        if catalogue is None or not named:
            return []
        listed = {s.provider.id for s in catalogue.statuses()}
        if named not in listed and any(p.id == named for p in catalogue.providers):
            await catalogue.refresh([named])
        return [m for m in catalogue.models() if m.provider_id == named]

    async def _sight(self, provider: ProviderConfig, ref: str) -> AgentSight:
        """Codex as the sight policy sees it: it takes pictures unless Sightline lists the
        model it runs and knows that can't see (a model of the Sightline provider named
        like Codex's `model_provider`, Ollama's say)."""
        model = ref_parts(ref)[1]
        listed = None
        if model:
            models = await self._provider_models(provider)
            listed = next((m for m in models if m.name == model), None)
        blind = listed is not None and not listed.gets_pictures
        return agent_sight(
            provider.id, local=provider.is_local, sees=not blind, model=model, ref=ref, kind=KIND
        )

    # -- a turn ---------------------------------------------------------------------

    async def _inputs(
        self, record: CodexRecord, session: CodexSession, message: Message
    ) -> tuple[list[dict[str, Any]], list[TurnEvent]]:
        prepared = flatten_pages(pdfs_for_model((message,), reads_pdfs=False).messages)[0]
        events: list[TurnEvent] = []
        sight = record.sight
        assert sight is not None
        if not sight.sees and prepared.pictures:
            worded = await self.sight.words((prepared,), sight.model, local=sight.model.local)
            prepared = worded.messages[0]
            for notice in worded.notices:
                events.append(ItemAdded(self.store.add_notice(record.conversation_id, notice)))
            if worded.usage is not None:
                events.append(UsageAdded(worded.usage, "describer"))
        # Clamped off the window's thread (a 4K screenshot: ~90 ms); words go as they are.
        text, sent = (
            await asyncio.to_thread(clamped, prepared.text, prepared.pictures)
            if prepared.pictures
            else (prepared.text, [])
        )
        inputs: list[dict[str, Any]] = [{"type": "text", "text": text, "text_elements": []}]
        inputs.extend({"type": "image", "url": data_url(p)} for p in sent)
        crossing = self.sight.to_agent(sight, sent, why="you sent them")
        if crossing is not None:
            events.append(ItemAdded(self.store.add_notice(record.conversation_id, crossing)))
        return inputs, events

    async def answer(
        self, session: CodexSession, record: CodexRecord, asked: TurnInput
    ) -> AsyncGenerator[TurnEvent, None]:
        """`turn/start` with the person's message, then Codex's messages stored until it
        completes the turn."""
        inputs, events = await self._inputs(record, session, asked.message())
        for event in events:
            yield event
        tools = {t.spec.name: t for t in self._tools(asked)}
        self.start_clock(record, session.provider)
        started = await session.process.request(
            "turn/start", {"threadId": session.thread_id, "input": inputs}, START_SECONDS
        )
        record.turn_id = str(started["turn"]["id"])
        while True:
            incoming = await self._next(session, record)
            events = []
            done = await self._take(session, record, incoming, tools, events)
            for event in events:
                yield event
            if done:
                return
            self.check_cut(record, session.provider)

    async def _next(self, session: CodexSession, record: CodexRecord) -> dict[str, Any]:
        """Codex's next message; AgentStopped when it ended or was silent too long,
        AgentCut when the turn passed its overall limit."""
        process, provider = session.process, session.provider
        idle = self.idle_seconds(provider)
        left, turn_left = idle - process.quiet_for(), record.clock.left()
        if turn_left <= 0:
            raise self.too_long(record, provider)
        try:
            incoming = await asyncio.wait_for(process.inbox.get(), max(min(left, turn_left), 0.01))
        except TimeoutError:
            if record.clock.left() <= 0:
                raise self.too_long(record, provider) from None
            raise self.hung(provider, idle) from None
        if incoming is None:
            raise ConnectionError("Codex's output ended")
        return incoming

    async def _take(
        self,
        session: CodexSession,
        record: CodexRecord,
        incoming: dict[str, Any],
        tools: dict[str, Tool],
        events: list[TurnEvent],
    ) -> bool:
        """One message of Codex's, stored; True once the turn is over."""
        method = str(incoming["method"])
        params = incoming.get("params") if isinstance(incoming.get("params"), dict) else {}
        assert isinstance(params, dict)
        if "id" in incoming:  # Codex asks
            try:
                with record.clock.paused():  # the person's time deciding is not the turn's
                    result = await self._asking.answer(record, method, params, tools, events)
            except (asyncio.CancelledError, GeneratorExit):
                # Stop while the person decides: the request is answered `cancel` before
                # the turn is interrupted, so Codex isn't left waiting for it.
                with contextlib.suppress(Exception):
                    await session.process.respond(incoming["id"], cancelled(incoming))
                raise
            finally:
                session.process.heard()  # the person's time
            await session.process.respond(incoming["id"], result)
            return False
        if params.get("threadId") not in (None, session.thread_id):
            return False
        if method == "item/agentMessage/delta":
            record.words(str(params.get("delta") or ""), events)
        elif method in ("item/reasoning/summaryTextDelta", "item/reasoning/textDelta"):
            record.thought(str(params.get("delta") or ""), events)
        elif method in ("item/started", "item/completed") and isinstance(params.get("item"), dict):
            record.item(params["item"], method == "item/completed", events)
        elif method == "item/commandExecution/outputDelta":
            record.command_output(str(params.get("itemId") or ""), str(params.get("delta") or ""))
        elif method == "thread/tokenUsage/updated" and isinstance(params.get("tokenUsage"), dict):
            record.token_usage(params["tokenUsage"])
        elif method == "error" and not params.get("willRetry"):
            error = params.get("error") if isinstance(params.get("error"), dict) else {}
            assert isinstance(error, dict)
            words = str(error.get("message") or "an error")[:2000]
            notice = Notice(
                NoticeKind.ERROR,
                f"Codex: {words}",
                details=str(error.get("additionalDetails") or "")[:2000],
            )
            events.append(ItemAdded(self.store.add_notice(record.conversation_id, notice)))
        elif method == "turn/completed":
            turn = params.get("turn") if isinstance(params.get("turn"), dict) else {}
            assert isinstance(turn, dict)
            completed(record, turn, events)
            return True
        return False

    async def stop(self, session: CodexSession, record: CodexRecord) -> bool:
        """`turn/interrupt` (app/turn/codex/ending.py), waiting questions answered `cancel`."""
        return await interrupted(session, record, self.cancel_timeout)

    async def why_failed(self, session: CodexSession, exc: Exception) -> AgentProblem:
        """A refusal, the program's end or a line Sightline can't read, in words."""
        return await why_failed(session, exc)
