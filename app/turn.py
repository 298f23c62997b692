"""One turn: store the person's message, pick who answers, stream the answer, keep it all.

Everything is written to the store as it happens and reported as `TurnEvent`s,
which the window and `sightline ask` both consume. Stopping is cancelling the
task that iterates `run`: the partial answer stays, marked stopped.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass

from app.store import Store, StoredItem
from routing.catalogue import Catalogue
from routing.errors import ProviderError
from routing.presets import preset_for
from routing.router import Choice, choose_auto, is_auto
from routing.shaping import limits_for, shape_messages
from routing.transcript import MessageStatus, Notice, NoticeKind, Part, user_message
from routing.wires.base import ChatRequest, Done, TextDelta, ToolCallEvent, Usage
from vision.pictures import Picture

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ItemAdded:
    """A message or notice joined the conversation."""

    item: StoredItem


@dataclass(frozen=True)
class TextAdded:
    """More words of a streaming answer."""

    item_id: int
    text: str


@dataclass(frozen=True)
class PartAdded:
    """A part (such as a tool call) joined a streaming answer."""

    item_id: int
    part: Part


@dataclass(frozen=True)
class ItemFinished:
    """A streaming answer ended (complete, stopped or failed)."""

    item_id: int
    status: MessageStatus


@dataclass(frozen=True)
class UsageAdded:
    """Tokens the turn cost so far."""

    usage: Usage


@dataclass(frozen=True)
class TurnEnded:
    """The turn is over; `error` is set when it failed."""

    error: ProviderError | None = None
    model_ref: str = ""


TurnEvent = ItemAdded | TextAdded | PartAdded | ItemFinished | UsageAdded | TurnEnded


class TurnRunner:
    """Runs turns of any conversation against the catalogue's providers."""

    def __init__(self, store: Store, catalogue: Catalogue) -> None:
        self.store = store
        self.catalogue = catalogue

    async def run(
        self,
        conversation_id: str,
        text: str,
        pictures: tuple[Picture, ...] = (),
        requested_model: str = "auto",
    ) -> AsyncGenerator[TurnEvent, None]:
        """Run one turn, yielding each event once it is stored."""
        yield ItemAdded(self.store.add_message(conversation_id, user_message(text, pictures)))
        try:
            choice = await self._choose(requested_model, has_pictures=bool(pictures))
        except ProviderError as error:
            yield ItemAdded(self._error_notice(conversation_id, error))
            yield TurnEnded(error)
            return
        self.store.set_conversation_model(conversation_id, requested_model or "auto")
        if choice.by_sightline:
            notice = Notice(
                NoticeKind.ROUTING,
                f"{choice.model.ref} answers ({choice.where()}): {choice.reason}.",
            )
            yield ItemAdded(self.store.add_notice(conversation_id, notice))
        async for event in self._answer(conversation_id, choice):
            yield event

    async def _choose(self, requested: str, *, has_pictures: bool) -> Choice:
        if not is_auto(requested):
            return Choice(await self.catalogue.resolve(requested), "your choice", False)
        if not self.catalogue.models():
            await self.catalogue.refresh()
        return choose_auto(self.catalogue.models(), has_pictures=has_pictures)

    async def _answer(self, conversation_id: str, choice: Choice) -> AsyncIterator[TurnEvent]:
        model = choice.model
        preset = preset_for(self.catalogue.provider(model.provider_id).kind)
        messages = shape_messages(
            self.store.messages(conversation_id), limits_for(preset.max_picture_side)
        )
        request = ChatRequest(model=model.name, messages=messages)
        answer: StoredItem | None = None
        status = MessageStatus.FAILED
        try:
            async for event in self.catalogue.wire(model.provider_id).stream(request):
                if isinstance(event, Usage):
                    yield UsageAdded(event)
                    continue
                if isinstance(event, Done):
                    status = MessageStatus.COMPLETE
                    continue
                if answer is None:
                    # The answer exists once its first word does, so an early failure
                    # leaves one error notice rather than an empty message.
                    answer = self.store.begin_assistant(conversation_id, model.ref)
                    yield ItemAdded(answer)
                if isinstance(event, TextDelta):
                    self.store.append_text(answer.id, event.text)
                    yield TextAdded(answer.id, event.text)
                elif isinstance(event, ToolCallEvent):
                    self.store.add_part(answer.id, event.call)
                    yield PartAdded(answer.id, event.call)
        except ProviderError as error:
            log.warning("%s failed: %s | %s", model.ref, error.kind, error.detail)
            if answer is not None:
                self.store.finish_message(answer.id, MessageStatus.FAILED)
                yield ItemFinished(answer.id, MessageStatus.FAILED)
            yield ItemAdded(self._error_notice(conversation_id, error))
            yield TurnEnded(error, model.ref)
            return
        except (asyncio.CancelledError, GeneratorExit):
            if answer is not None:
                self.store.finish_message(answer.id, MessageStatus.STOPPED)
            raise
        if answer is None:
            answer = self.store.begin_assistant(conversation_id, model.ref)
            yield ItemAdded(answer)
        self.store.finish_message(answer.id, status)
        yield ItemFinished(answer.id, status)
        yield TurnEnded(None, model.ref)

    def _error_notice(self, conversation_id: str, error: ProviderError) -> StoredItem:
        notice = Notice(NoticeKind.ERROR, error.message, details=f"kind: {error.kind}")
        return self.store.add_notice(conversation_id, notice)
