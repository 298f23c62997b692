"""One request to the model that answers: what of the chat it carries, streamed into the store.

Before it goes: earlier pictures and PDFs that never left this computer are withheld
or told about as they leave (app/turn/boundary.py), the pictures go as pictures or
words (app/turn/sight.py), the messages are shaped for the model (routing/shaping.py)
and only the settings it takes are sent (app/turn/unused_settings.py). As it streams:
words, tool calls and what the wire carries back are stored as they come, within the
turn's overall limit; what went away is noted for the chat whatever the outcome. A
cut-short answer's tool calls each keep an answer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field, replace

from app.store import Store, StoredItem
from app.tools.base import Tool
from app.turn.boundary import Kept, first_crossing, held_back
from app.turn.context_fit import ContextFit, Fitting
from app.turn.events import ItemAdded, ItemFinished, PartAdded, TextAdded, TurnEvent, UsageAdded
from app.turn.held_words import SaveOnPause
from app.turn.limits import TurnClock, turn_limit, turn_too_long
from app.turn.sight import TurnSight
from app.turn.stats import AnswerClock
from app.turn.tool_step import stopped_results
from app.turn.unused_settings import UnusedSettings
from routing.answer_stats import AnswerStats
from routing.catalogue import Catalogue
from routing.chat_settings import ChatSettings
from routing.endpoints import endpoint_name
from routing.errors import CannotConnect, ContextTooLong, ProviderError, ServerError
from routing.models import ModelInfo
from routing.parameters import SettingRefused, stream_taken
from routing.shaping import clamp_ahead, limits_for, shape_messages
from routing.transcript import Message, MessageStatus, ToolCall
from routing.wires.base import (
    Carried,
    ChatRequest,
    Done,
    TextDelta,
    ToolCallEvent,
    ToolChoice,
    Usage,
)
from routing.wires.payload import bounded_arguments

log = logging.getLogger(__name__)


@dataclass
class Step:
    """What one request to the model gave: its answer's id, tool calls, or error."""

    answer: StoredItem | None = None
    calls: list[ToolCall] = field(default_factory=list)
    error: ProviderError | None = None
    refit: bool = False  # it was past the window, newly learned: fitted to it, it may go


def _with_context(stats: AnswerStats, fitting: Fitting) -> AnswerStats:
    """The answer's stats with how full the model's window is after it: what the server
    counted in and out (the estimate of what went, where it counted nothing)."""
    used = (stats.input_tokens or fitting.tokens) + (stats.output_tokens or 0)
    return replace(stats, context_used=used, context_size=fitting.window)


class ModelRequests:
    """Sends a turn's requests to its models, each streamed into the store."""

    def __init__(
        self, store: Store, catalogue: Catalogue, unused: UnusedSettings, context: ContextFit
    ) -> None:
        self.store = store
        self.catalogue = catalogue
        self.unused = unused  # settings a model doesn't take
        self.context = context  # each request fitted to its model's window

    async def send(
        self,
        conversation_id: str,
        model: ModelInfo,
        tools: dict[str, Tool],
        step: Step,
        sight: TurnSight,
        settings: ChatSettings,
        turn_clock: TurnClock,
        tool_choice: ToolChoice | None = None,
    ) -> AsyncGenerator[TurnEvent, None]:
        """One request to the model, streamed into the store (within the turn's overall limit,
        `turn_clock`), made to call a tool where `tool_choice` says so; the outcome lands in
        `step`."""
        provider = self.catalogue.provider(model.provider_id)
        # What the model's window can reach of the chat: the rest is never even read.
        recent = self.context.history(conversation_id, self.catalogue.answer(model), settings)
        history = recent.messages
        kept: list[Kept] = []
        if not provider.is_local:
            # Earlier pictures that stayed on this computer: left out if the person
            # chose so for this chat, else told about as they leave (below).
            history, kept = held_back(self.store, conversation_id, history)
        seen = await sight.for_model(model, history)
        for notice in seen.notices:
            yield ItemAdded(self.store.add_notice(conversation_id, notice))
        self.store.crossings.note_sent_away(conversation_id, seen.looked_away)
        if seen.usage is not None:
            yield UsageAdded(seen.usage, source="describer")
        answer = self.catalogue.answer(model)
        limits = limits_for(answer.picture_side)
        await clamp_ahead(seen.messages, limits)  # off the window's thread, then shaped
        request = ChatRequest(
            model=model.name,
            messages=shape_messages(seen.messages, limits),
            tools=tuple(t.spec for t in tools.values()),
            system=settings.system_prompt or "",
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            context_length=settings.context_length,
            tool_choice=tool_choice,
        )
        # Within the model's window, before anything is judged to leave: what is left out
        # of the request never leaves.
        await self.context.count_if_near(answer, request, settings)
        fitting = self.context.fitted(conversation_id, answer, request, settings, recent.unread)
        for fit_notice in fitting.notices:
            yield ItemAdded(fit_notice)
        if fitting.error is not None:
            step.error = fitting.error
            return
        request = fitting.request
        leaving: set[str] = set()
        if not provider.is_local:
            host = endpoint_name(provider.base_url)
            leaving, crossing = first_crossing(kept, request.messages, history, model.ref, host)
            if crossing is not None:
                yield ItemAdded(self.store.add_notice(conversation_id, crossing))
        # Only what the model takes is sent; what it doesn't is told once.
        request, unused = self.unused.fit(conversation_id, answer, request)
        if unused is not None:
            yield ItemAdded(unused)
        status, reason = MessageStatus.FAILED, ""
        # Started here, after the describer, stopped with the stream: its time to the
        # first word and speed are the model's, not describing's or a tool's.
        clock = AnswerClock()
        turn_clock.limit = turn_limit(provider)  # the answering provider's, should it change
        server = endpoint_name(provider.base_url)
        events = turn_clock.watch(
            stream_taken(self.catalogue.wire(model.provider_id), request),
            lambda: turn_too_long(server, turn_clock.limit, provider.id),
        )
        pause = SaveOnPause(self.store)
        try:
            async for event in events:
                if isinstance(event, SettingRefused):  # asked again without it: learned, told
                    yield ItemAdded(self.unused.refused(conversation_id, model, event))
                    continue
                clock.saw(event)
                if isinstance(event, Usage):
                    self.context.reported(answer, fitting, event.input_tokens)
                    yield UsageAdded(event, window=fitting.window)
                    continue
                if isinstance(event, Done):
                    status, reason = MessageStatus.COMPLETE, event.reason
                    continue
                if step.answer is None:
                    # The answer exists once its first word does, so an early failure
                    # leaves one error notice rather than an empty message.
                    step.answer = self.store.begin_assistant(conversation_id, model.ref)
                    yield ItemAdded(step.answer)
                if isinstance(event, TextDelta):
                    self.store.append_text(step.answer.id, event.text)
                    pause.appended()
                    yield TextAdded(step.answer.id, event.text)
                elif isinstance(event, ToolCallEvent):
                    # Bounded as it comes in, so nothing stored can trip a later turn.
                    call = replace(event.call, arguments=bounded_arguments(event.call.arguments))
                    self.store.add_part(step.answer.id, call)
                    pause.appended()  # held with the words: written with them, or soon
                    step.calls.append(call)
                    yield PartAdded(step.answer.id, call)
                elif isinstance(event, Carried):
                    # What the wire must send back later (reasoning, thought signatures):
                    # kept with the answer, never shown.
                    self.store.add_part(step.answer.id, event.part)
                    pause.appended()
        except ProviderError as error:
            log.warning("%s failed: %s | %s", model.ref, error.kind, error.detail)
            if step.answer is None and isinstance(error, ServerError):
                # An answer that ended empty may be the window (llama-cpp-python's stream
                # past it is an empty 200): asked once more without streaming, it says.
                error = await self.context.why_empty(model, request, error)
            if isinstance(error, ContextTooLong):
                step.refit = self.context.learn(answer, error)
            if not isinstance(error, CannotConnect):  # the request reached the server
                self.store.crossings.note_sent_away(conversation_id, leaving)
            step.error, step.calls = error, []
            if step.answer is not None:
                stats = _with_context(clock.stats(), fitting)
                self.store.finish_message(step.answer.id, MessageStatus.FAILED, stats)
                yield ItemFinished(step.answer.id, MessageStatus.FAILED, stats)
                self._answer_calls(conversation_id, step)
            return
        except (asyncio.CancelledError, GeneratorExit):
            # it may have gone: assume so
            self.store.crossings.note_sent_away(conversation_id, leaving)
            if step.answer is not None:
                stats = _with_context(clock.stats(), fitting)
                self.store.finish_message(step.answer.id, MessageStatus.STOPPED, stats)
                self._answer_calls(conversation_id, step)
            raise
        finally:
            pause.cancel()
        self.store.crossings.note_sent_away(conversation_id, leaving)
        if step.answer is None:
            step.answer = self.store.begin_assistant(conversation_id, model.ref)
            yield ItemAdded(step.answer)
        stats = _with_context(clock.stats(), fitting)
        self.store.finish_message(step.answer.id, status, stats)
        yield ItemFinished(step.answer.id, status, stats, reason)

    def _answer_calls(self, conversation_id: str, step: Step) -> None:
        """Calls already stored on a cut-short answer get a 'stopped' result each."""
        assert step.answer is not None
        stored = self.store.get_item(step.answer.id)
        if stored is not None and isinstance(stored.item, Message) and stored.item.tool_calls:
            self.store.add_message(
                conversation_id, Message("tool", stopped_results(stored.item.tool_calls))
            )
