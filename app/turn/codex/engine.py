"""`CodexEngine`: Codex's app server answers the turn, and every event is stored as it comes.

A chat names it `CODEX_ID[:MODEL]`, where CODEX_ID is a provider of kind "codex" (its
`command`, `args`, `env`, `local` and `model_provider` are used); starting it, the
handshake and its thread are app/turn/codex/session.py's.

The person's message is stored first. The chat's Codex is started on first use and
kept; one that crashed, hung or sent what can't be read is dropped, and the next turn
starts it again. The thread id is kept with each answer (`CarriedPart` shape "codex"),
so a new process resumes the thread (`thread/resume`), and a failed resume starts a new
one with a notice. Threads start with `approvalPolicy: "untrusted"` (every command is
asked about) in the `read-only` sandbox, Sightline's tools as dynamic tools. Pictures go
as `image` inputs (clamped, data URLs) and their crossing off this computer is disclosed;
when Sightline knows the model Codex runs can't see (a model of one of Sightline's
providers named like the `model_provider`, say Ollama's), they are described first, who
looks chosen as for any blind model (app/turn/engine_words.py), and so are the pictures
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

from app.store import Store, StoreError
from app.tools.base import Tool
from app.turn.acp.errors import AgentCut, AgentProblem, AgentStopped
from app.turn.codex.asking import CodexAsking, data_url
from app.turn.codex.ending import cancelled, completed, failed, interrupted, why_failed
from app.turn.codex.process import CodexRefused
from app.turn.codex.record import THREAD, CodexRecord
from app.turn.codex.session import START_SECONDS, CodexSession, start_codex
from app.turn.engine import error_notice, saved
from app.turn.engine_words import EngineWords, blind_engine
from app.turn.events import ItemAdded, TurnEnded, TurnEvent, UsageAdded
from app.turn.limits import output_cut, turn_limit, worked_too_long
from app.turn.tool_step import DenyAll, ToolStep
from app.turn.turn_input import TurnInput
from routing.agent_refs import AgentOffer, agent_ref, ref_parts
from routing.catalogue import Catalogue
from routing.documents import flatten_pages, pdfs_for_model
from routing.models import ModelInfo, ProviderConfig
from routing.router import RoutingPrefs
from routing.transcript import Crossed, Message, MessageStatus, Notice, NoticeKind
from vision.pictures import Picture, PictureError, clamp

__all__ = ["KIND", "CodexEngine"]

log = logging.getLogger(__name__)

KIND = "codex"  # ProviderConfig.kind of a Codex app server
IDLE_SECONDS = 300.0  # Codex silent this long mid-turn (not waiting for the person) hung
CANCEL_SECONDS = 5.0  # after turn/interrupt, for the turn to end


class CodexEngine:
    """Runs turns of any conversation with the Codex app servers of the config."""

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
        self.store = store
        self.providers = [p for p in providers if p.kind == KIND]
        self.tool_step = tool_step or ToolStep(DenyAll())
        self.cwd = cwd or Path.cwd()
        self.idle_timeout = idle_timeout  # unless the provider's config sets its idle_seconds
        self.cancel_timeout = cancel_timeout
        self.turn_timeout = turn_timeout  # None: its turn_seconds, else Sightline's limit
        self.tools = None if tools is None else list(tools)  # None: each turn's tools
        # Who looks at pictures for a model Sightline knows is blind.
        self.words = EngineWords(catalogue, prefs or RoutingPrefs())
        self._asking = CodexAsking(store, self.tool_step, denied_hint, self.words)
        self._sessions: dict[str, CodexSession] = {}
        # The models each Codex offered when it last started, for the picker.
        self.offered: dict[str, AgentOffer] = {}

    async def aclose(self) -> None:
        """End every Codex this engine started."""
        sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            await session.process.close()

    async def run(self, asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        """Run one turn with the Codex `requested_model` names, yielding each stored event."""
        offered = list(asked.tools) if self.tools is None else self.tools
        turn = self._turn(asked.conversation_id, asked.message(), asked.requested_model, offered)
        async for event in saved(turn):
            yield event

    async def _turn(
        self, chat: str, message: Message, requested: str, tools: list[Tool]
    ) -> AsyncGenerator[TurnEvent, None]:
        yield ItemAdded(self.store.add_message(chat, message))
        provider_id, model, _mode = ref_parts(requested)  # Codex has no modes
        provider = next((p for p in self.providers if p.id == provider_id), None)
        if provider is None:
            problem = AgentProblem(f"There is no Codex {requested!r} in the config.")
            yield ItemAdded(error_notice(self.store, chat, problem))
            yield TurnEnded(problem)
            return
        ref = agent_ref(provider.id, model)
        self.store.conversations.set_model(chat, ref)
        try:
            session = await self._session(chat, provider, model, tools)
        except AgentProblem as problem:
            yield ItemAdded(error_notice(self.store, chat, problem))
            yield TurnEnded(problem, ref)
            return
        if not session.remembered:
            session.remembered = True
            notice = Notice(
                NoticeKind.INFO,
                f"Codex ({provider.id}) started a new thread: "
                "Codex doesn't remember the earlier turns of this chat.",
            )
            yield ItemAdded(self.store.add_notice(chat, notice))
        record = CodexRecord(self.store, chat, ref, session.thread_id)
        record.blind = await self.blind_model(provider, model)
        async for event in self._run_turn(
            session, record, message, {t.spec.name: t for t in tools}
        ):
            yield event

    # -- starting -------------------------------------------------------------------

    async def _session(
        self, chat: str, provider: ProviderConfig, model: str, tools: list[Tool]
    ) -> CodexSession:
        """The chat's running Codex, started (again) when there is none or it ended."""
        session = self._sessions.get(chat)
        if session is not None and session.process.running and session.provider == provider:
            return session
        if session is not None:
            self._sessions.pop(chat, None)
            await session.process.close()
        earlier = self._earlier_thread(chat, provider)
        session = await start_codex(provider, self.cwd, earlier, model, tools)
        self._sessions[chat] = session
        models = session.models
        if provider.model_provider:  # Codex lists only its own: the provider's, as listed here
            models = tuple(m.name for m in await self._provider_models(provider))
        self.offered[provider.id] = AgentOffer(models)
        return session

    async def _provider_models(self, provider: ProviderConfig) -> list[ModelInfo]:
        """The models of the Sightline provider named like Codex's `model_provider` (listed
        first if it wasn't yet); none when Sightline has no such provider."""
        catalogue, named = self.words.catalogue, provider.model_provider
        if catalogue is None or not named:
            return []
        listed = {s.provider.id for s in catalogue.statuses()}
        if named not in listed and any(p.id == named for p in catalogue.providers):
            await catalogue.refresh([named])
        return [m for m in catalogue.models() if m.provider_id == named]

    def _earlier_thread(self, chat: str, provider: ProviderConfig) -> str:
        """The thread this Codex had in this chat (kept with its answers); " " when the chat
        has earlier turns but no thread of its own, "" for a new chat."""
        messages = self.store.messages(chat)
        for past in reversed(messages):
            for part in past.carried(THREAD, provider.id):
                found = part.data.get("thread")
                if isinstance(found, str) and found:
                    return found
        return " " if len(messages) > 1 else ""

    # -- a turn ---------------------------------------------------------------------

    async def blind_model(self, provider: ProviderConfig, model: str) -> ModelInfo | None:
        """The model this Codex runs, when Sightline lists it and knows it can't see: a
        model of the Sightline provider named like Codex's `model_provider` (Ollama's)."""
        if not model:
            return None
        listed = next((m for m in await self._provider_models(provider) if m.name == model), None)
        if listed is None or listed.gets_pictures:
            return None
        return blind_engine(provider.id, model, local=provider.is_local)

    async def _inputs(
        self, record: CodexRecord, session: CodexSession, message: Message
    ) -> tuple[list[dict[str, Any]], list[TurnEvent]]:
        prepared = flatten_pages(pdfs_for_model((message,), reads_pdfs=False).messages)[0]
        events: list[TurnEvent] = []
        blind = record.blind
        if blind is not None and prepared.pictures:
            worded = await self.words.words((prepared,), blind)
            prepared = worded.messages[0]
            for notice in worded.notices:
                events.append(ItemAdded(self.store.add_notice(record.conversation_id, notice)))
            if worded.usage is not None:
                events.append(UsageAdded(worded.usage, "describer"))
        text = prepared.text
        inputs: list[dict[str, Any]] = []
        sent: list[Picture] = []
        for picture in prepared.pictures:
            try:
                sent.append(clamp(picture))
            except PictureError as exc:
                text = f"{text}\n{exc}".strip()
        inputs.append({"type": "text", "text": text, "text_elements": []})
        inputs.extend({"type": "image", "url": data_url(p)} for p in sent)
        if sent and not session.provider.local:
            labels = ", ".join(p.label or "a picture" for p in sent)
            what = f"{len(sent)} picture{'s' if len(sent) != 1 else ''} ({labels})"
            notice = Notice(
                NoticeKind.INFO,
                f"{what} went to Codex ({session.provider.id}), whose model runs off this "
                "computer.",
                crossed=Crossed(
                    record.ref, f"codex {session.provider.id}", what, "you sent them", False
                ),
            )
            events.append(ItemAdded(self.store.add_notice(record.conversation_id, notice)))
        return inputs, events

    async def _run_turn(
        self, session: CodexSession, record: CodexRecord, message: Message, tools: dict[str, Tool]
    ) -> AsyncGenerator[TurnEvent, None]:
        inputs, events = await self._inputs(record, session, message)
        for event in events:
            yield event
        process, turn_id = session.process, ""
        record.clock.limit = self.turn_timeout or turn_limit(session.provider)
        record.clock.start()
        try:
            started = await process.request(
                "turn/start", {"threadId": session.thread_id, "input": inputs}, START_SECONDS
            )
            turn_id = str(started["turn"]["id"])
            while True:
                incoming = await self._next(session, record)
                events = []
                done = await self._take(session, record, incoming, tools, events)
                for event in events:
                    yield event
                if done:
                    return
                if record.cut:
                    raise AgentCut(output_cut(f"Codex ({session.provider.id})", record.cap))
        except (asyncio.CancelledError, GeneratorExit):
            await self._interrupt(session, record, turn_id)
            raise
        except AgentCut as cut:  # interrupted as Stop interrupts it, the thread kept
            for event in await self._interrupt(session, record, turn_id):
                yield event
            yield ItemAdded(error_notice(self.store, record.conversation_id, cut))
            yield TurnEnded(cut, record.ref)
        except AgentStopped as hung:
            await self._drop(record.conversation_id)
            for event in failed(self.store, record, hung):
                yield event
        except (CodexRefused, ConnectionError, TimeoutError, KeyError, TypeError) as exc:
            problem = await why_failed(session, exc)
            if isinstance(problem, AgentStopped):
                await self._drop(record.conversation_id)
            for event in failed(self.store, record, problem):
                yield event

    async def _next(self, session: CodexSession, record: CodexRecord) -> dict[str, Any]:
        """Codex's next message; AgentStopped when it ended or was silent too long,
        AgentCut when the turn passed its overall limit."""
        process, name = session.process, f"Codex ({session.provider.id})"
        idle = session.provider.idle_seconds or self.idle_timeout
        left, turn_left = idle - process.quiet_for(), record.clock.left()
        if turn_left <= 0:
            raise AgentCut(worked_too_long(name, record.clock.limit))
        try:
            incoming = await asyncio.wait_for(process.inbox.get(), max(min(left, turn_left), 0.01))
        except TimeoutError:
            if record.clock.left() <= 0:
                raise AgentCut(worked_too_long(name, record.clock.limit)) from None
            raise AgentStopped(
                f"{name} sent nothing for {idle:g} s, so it was stopped; what it said is "
                "kept. Your next message starts it again."
            ) from None
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
                    result = await self._asking.answer(
                        record, method, params, tools, bool(session.provider.local), events
                    )
            except (asyncio.CancelledError, GeneratorExit):
                # Stop while the person decides: the request is answered `cancel` before
                # the turn is interrupted, so Codex isn't left waiting for it.
                with contextlib.suppress(Exception):
                    await session.process.respond(incoming["id"], cancelled(incoming))
                raise
            finally:
                session.process.last_heard = asyncio.get_running_loop().time()  # the person's time
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
            completed(self.store, record, turn, events)
            return True
        return False

    async def _interrupt(
        self, session: CodexSession, record: CodexRecord, turn_id: str
    ) -> list[TurnEvent]:
        """Stop: `turn/interrupt` (app/turn/codex/ending.py), the answer kept as stopped."""
        if not await interrupted(session, record, turn_id, self.cancel_timeout):
            await self._drop(record.conversation_id)
        events: list[TurnEvent] = []
        with contextlib.suppress(StoreError):
            record.end_answer(events, MessageStatus.STOPPED)
            record.stop_calls(events)
        return events

    async def _drop(self, chat: str) -> None:
        """End the chat's Codex: the next turn starts it again."""
        session = self._sessions.pop(chat, None)
        if session is not None:
            await session.process.close()
