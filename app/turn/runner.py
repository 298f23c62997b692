"""One turn: store the person's message, pick who answers, stream, run tools, keep it all.

Everything is written to the store as it happens and reported as `TurnEvent`s
(app/turn/events.py), which the window and `sightline ask` both consume. Each request
to a model, and what of the chat it carries, is app/turn/model_request.py's.
Stopping is cancelling the task that iterates `run`: the partial answer stays,
marked stopped, and every tool call in the transcript keeps an answer.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing

from app.store import Store, StoredItem
from app.store.branches import asked_in
from app.store.retried import make_way_for_retry
from app.tools.base import Tool
from app.turn.choosing import Needs, choose, offline, routing_notice
from app.turn.context_fit import ContextFit
from app.turn.engine import saved
from app.turn.events import ItemAdded, NothingToAnswer, TurnEnded, TurnEvent
from app.turn.handed_back import (
    HandedBack,
    handed_back,
    not_called,
    not_run_beside,
    offered_first,
    unforced,
)
from app.turn.limits import TurnClock, turn_limit
from app.turn.model_request import ModelRequests, Step
from app.turn.remedies import details_of
from app.turn.sight import TurnSight
from app.turn.tool_step import DenyAll, ToolStep, stopped_results
from app.turn.turn_input import TurnInput
from app.turn.unused_settings import UnusedSettings
from routing.catalogue import Catalogue
from routing.chat_settings import ChatSettings
from routing.context_window import about
from routing.describing.describer import Describer
from routing.describing.framing import TURN_BUDGET, TurnBudget
from routing.documents import pdfs_for_model
from routing.errors import CannotConnect, ContextTooLong, PicturesRefused, ProviderError, TimedOut
from routing.models import ModelInfo
from routing.router import Choice, RoutingPrefs
from routing.transcript import Message, Notice, NoticeKind, ToolCall, has_pictures
from routing.wires.base import ToolChoice, UnforcedTools

__all__ = ["TurnRunner"]

log = logging.getLogger(__name__)

MAX_TOOL_STEPS = 12


def _offered(model: ModelInfo, tools: Sequence[Tool]) -> dict[str, Tool]:
    """The tools to offer: none to a model known not to use them (unknown gets them)."""
    return {t.spec.name: t for t in tools} if model.tools is not False else {}


class TurnRunner:
    """Runs turns of any conversation against the catalogue's providers and the tools."""

    def __init__(
        self,
        store: Store,
        catalogue: Catalogue,
        tool_step: ToolStep | None = None,
        max_tool_steps: int = MAX_TOOL_STEPS,
        prefs: RoutingPrefs | None = None,
        describer: Describer | None = None,
        turn_budget: int = TURN_BUDGET,
        defaults: ChatSettings | None = None,
    ) -> None:
        self.store = store
        self.catalogue = catalogue
        self.tool_step = tool_step or ToolStep(DenyAll())
        self.max_tool_steps = max_tool_steps
        self.prefs = prefs or RoutingPrefs()
        self.describer = describer or Describer()  # shared by turns: descriptions are kept
        self.turn_budget = turn_budget  # described pictures per turn, all kinds together
        self.defaults = defaults or ChatSettings()  # Settings' system prompt, for every chat
        self.unused = UnusedSettings(store, catalogue)  # settings a model doesn't take
        self.context = ContextFit(store, catalogue)  # requests fitted to their model's window
        self._requests = ModelRequests(store, catalogue, self.unused, self.context)

    async def run(self, asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        """Run one turn, yielding each event once it is stored.

        `asked.settings` override the chat's own for this turn only. When the store can't be
        written (a full disk), the turn ends there with a `NotSaved` error: what was
        saved before (the person's message, the answer's words so far) stays, and
        nothing else is asked of the model.
        """
        # Each layer closes the one it reads (here and below): a reader that stops early
        # (`sightline ask | head`) closes the whole turn at once, so the answer is kept as
        # stopped while the store is open, not by the collector after it has closed.
        async with aclosing(saved(self._run(asked))) as events:
            async for event in events:
                yield event

    async def regenerate(
        self,
        conversation_id: str,
        item_id: int | None = None,
        requested_model: str = "auto",
        tools: Sequence[Tool] = (),
        settings: ChatSettings | None = None,
    ) -> AsyncGenerator[TurnEvent, None]:
        """Answer a turn again: the one `item_id` belongs to (the latest when None).

        The new answer follows the same message of the person, beside the earlier
        answers as another version, and only what came before it is sent. A failed or
        stopped turn is retried this way, without a second copy of the message; a failed
        response gives way to the new one (app/store/retried.py).
        """
        branch = self.store.items(conversation_id)
        asked = asked_in(branch, item_id)
        if asked is None:
            yield TurnEnded(NothingToAnswer("There is no message of yours to answer again."))
            return
        # A response that failed gives way to this one; any other stays as a version.
        make_way_for_retry(self.store, conversation_id, asked)
        assert isinstance(asked.item, Message)
        # Asked again as it was, its words and attachments those of the stored message.
        again = TurnInput(
            conversation_id, "", requested_model=requested_model, tools=tools, settings=settings
        )
        # Another model asked for this answer is for this answer only: the chat's stays.
        async with aclosing(saved(self._answer(again, asked.item, the_chats=False))) as events:
            async for event in events:
                yield event

    async def _run(self, asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        message = asked.message()
        yield ItemAdded(self.store.add_message(asked.conversation_id, message))
        async with aclosing(self._answer(asked, message)) as events:
            async for event in events:
                yield event

    async def _answer(
        self, asked: TurnInput, message: Message, *, the_chats: bool = True
    ) -> AsyncGenerator[TurnEvent, None]:
        """Everything after the person's `message` (stored already): choose, ask, run tools,
        until answered; `the_chats`: the model asked becomes the chat's model."""
        conversation_id, requested_model = asked.conversation_id, asked.requested_model
        # The asker's own tools last: one named as one of Sightline's is the asker's.
        tools = (*asked.tools, *(HandedBack(spec) for spec in asked.handed_back))
        settings = asked.settings
        # This turn's settings, over the chat's own, over Settings' defaults.
        own = self.store.conversations.settings(conversation_id)
        chosen = (settings or ChatSettings()).over(own).over(self.defaults)
        # A scanned PDF is pages to look at: the turn needs a model that sees, as for pictures.
        read = pdfs_for_model((message,), reads_pdfs=False).messages
        needs = Needs(pictures=any(has_pictures(m) for m in read), tools=bool(tools))
        unreachable: set[str] = set()  # providers this turn found it can't reach
        try:
            choice = await choose(self.catalogue, self.prefs, requested_model, needs, unreachable)
        except ProviderError as error:
            yield ItemAdded(self._error_notice(conversation_id, error))
            yield TurnEnded(error)
            return
        if the_chats:
            self.store.conversations.set_model(conversation_id, requested_model or "auto")
        if choice.by_sightline:
            yield ItemAdded(self._routed(conversation_id, choice))
        sight = TurnSight(
            self.catalogue,
            self.describer,
            self.prefs,
            chat_is_local=self.catalogue.provider(choice.model.provider_id).is_local,
            budget=TurnBudget(cap=self.turn_budget),
            unreachable=unreachable,
            remember_check=lambda key, result: self.store.learned.remember_check(
                *key, result.verdict, result.answer
            ),
        )
        steps = self._steps(conversation_id, choice, needs, tools, sight, chosen, asked.tool_choice)
        async with aclosing(steps) as events:
            async for event in events:
                yield event

    async def _steps(
        self,
        conversation_id: str,
        choice: Choice,
        needs: Needs,
        tools: Sequence[Tool],
        sight: TurnSight,
        settings: ChatSettings,
        forcing: ToolChoice | None = None,
    ) -> AsyncGenerator[TurnEvent, None]:
        """Ask, run the tools it calls, ask again, until it answers or the steps run out;
        `forcing`, the asker's tool choice, holds until the first tool results."""
        model = choice.model
        offered = _offered(model, tools)
        fell_back = healed = took_over = refitted = told_unforced = False
        step_number = 0
        clock = TurnClock(turn_limit(self.catalogue.provider(model.provider_id)))
        while True:
            if choice.by_sightline and not took_over:
                # Routing may choose: a model that sees takes the rest of the turn
                # rather than having this turn's pictures described for a blind one.
                # Only this turn's pictures count: the chat's end read, back to a turn's start.
                shown = self.store.page(conversation_id)
                messages = tuple(s.item for s in shown if isinstance(s.item, Message))
                taking = sight.takeover(model, messages, needs_tools=bool(offered) or needs.tools)
                if taking is not None:
                    took_over = True
                    choice, model, offered = taking, taking.model, _offered(taking.model, tools)
                    sight.answered_by(model)
                    yield ItemAdded(self._routed(conversation_id, taking, "now answers"))
                    disclosure = sight.takeover_disclosure(taking, messages)
                    yield ItemAdded(self.store.add_notice(conversation_id, disclosure))
            step = Step()
            wire = self.catalogue.wire(model.provider_id)
            cannot_force = isinstance(wire, UnforcedTools) and not told_unforced
            if forcing and forcing.forces and offered and cannot_force:
                # Its API can't be made to call one: said once, rather than the choice dropped.
                told_unforced = True
                notice = unforced(model.ref, forcing)
                yield ItemAdded(self.store.add_notice(conversation_id, notice))
            asking = offered_first(offered, forcing)
            turn = self._requests.send(
                conversation_id, model, asking, step, sight, settings, clock, forcing
            )
            async with aclosing(turn) as events:
                async for event in events:
                    yield event
            if isinstance(step.error, PicturesRefused) and step.answer is None and not healed:
                # Refused before a word was shown: learn it, put pictures into words, ask again.
                healed = True
                self.store.learned.remember_blind(model.ref)
                healed_notice = sight.heal(model, self.store.messages(conversation_id))
                yield ItemAdded(self.store.add_notice(conversation_id, healed_notice))
                continue
            if step.refit and step.answer is None and not refitted:
                # Past a window its server just stated: learned, fitted to it, asked again.
                refitted = True
                assert isinstance(step.error, ContextTooLong) and step.error.window is not None
                words = (
                    f"{model.ref} holds {about(step.error.window)}, its server says: "
                    "asked again with what fits."
                )
                yield ItemAdded(
                    self.store.add_notice(conversation_id, Notice(NoticeKind.INFO, words))
                )
                continue
            if step.error is not None:
                unreachable = isinstance(step.error, CannotConnect | TimedOut)
                if unreachable and step.answer is None and not fell_back:
                    fell_back = True
                    try:
                        choice = await offline(
                            self.catalogue, model, needs, step.error, sight.unreachable
                        )
                    except ProviderError:
                        pass
                    else:
                        model, offered = choice.model, _offered(choice.model, tools)
                        sight.answered_by(model)
                        yield ItemAdded(self._routed(conversation_id, choice))
                        continue
                yield ItemAdded(self._error_notice(conversation_id, step.error))
                yield TurnEnded(step.error, model.ref)
                return
            if not step.calls:
                if forcing is not None and forcing.forces:
                    # Asked to call a tool, it answered in words: the asker is told.
                    notice = not_called(model.ref, forcing)
                    yield ItemAdded(self.store.add_notice(conversation_id, notice))
                yield TurnEnded(None, model.ref)
                return
            if handed := handed_back(step.calls, offered):
                # The asker runs these: the turn ends, and the calls go back to it.
                if beside := not_run_beside(step.calls, handed):
                    unrun = Message("tool", beside)
                    yield ItemAdded(self.store.add_message(conversation_id, unrun))
                yield TurnEnded(None, model.ref, handed_back=handed)
                return
            if step_number == self.max_tool_steps:
                yield ItemAdded(self._stop_notice(conversation_id, step.calls))
                yield TurnEnded(None, model.ref)
                return
            step_number += 1
            forcing = None  # after tool results the model answers freely, as with OpenAI
            results = None
            try:
                results = await self.tool_step.run(conversation_id, step.calls, offered)
            finally:
                # Every call keeps an answer, even when Stop cut the step short.
                message = Message("tool", results or stopped_results(step.calls))
                stored = self.store.add_message(conversation_id, message)
            yield ItemAdded(stored)

    def _stop_notice(self, conversation_id: str, calls: list[ToolCall]) -> StoredItem:
        self.store.add_message(conversation_id, Message("tool", stopped_results(calls)))
        notice = Notice(
            NoticeKind.INFO,
            f"Stopped after {self.max_tool_steps} rounds of tool calls in one turn; "
            "send a message to let the model continue.",
        )
        return self.store.add_notice(conversation_id, notice)

    def _routed(self, conversation_id: str, choice: Choice, verb: str = "answers") -> StoredItem:
        notice = routing_notice(self.catalogue, choice, verb)
        return self.store.add_notice(conversation_id, notice)

    def _error_notice(self, conversation_id: str, error: ProviderError) -> StoredItem:
        notice = Notice(NoticeKind.ERROR, error.message, details=details_of(error))
        return self.store.add_notice(conversation_id, notice)
