"""The window's one running turn: its task, its events into the view, its end.

A turn is the engine that answers and the person's question (`TurnInput`): a send, a
regenerate, an agent asked again. The tools it offers are gathered once it runs (MCP
servers may take a while to start, and Stop stops that too). Its events go through the
`TurnFeed` to the open conversation; an agent's thoughts and plan, which the feed
doesn't know, are told alike. When a turn fails before the person's message was stored,
or when nothing can be stored any more, the words and attachments go back to the
composer.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from app.presenters.pending import Attachments
from app.ui.turn_feed import TurnFeed

# asyncio is imported by the methods that use it, after the window's first paint.
if TYPE_CHECKING:
    import asyncio
    from collections.abc import Awaitable

    from app.tools.base import Tool
    from app.turn.engine import Engine
    from app.turn.events import PlanEntry
    from app.turn.turn_input import TurnInput

log = logging.getLogger(__name__)


class RunningTurn:
    """At most one turn at a time, told to the window through the callbacks it is given."""

    def __init__(
        self,
        feed: TurnFeed,
        tools: Callable[[], Awaitable[list[Tool]]],
        *,
        busy: Callable[[bool], None],
        thought: Callable[[int, str], None],
        plan: Callable[[int, tuple[PlanEntry, ...]], None],
        problem: Callable[[str], None],
        give_back: Callable[[str, Attachments], None],
        titled: Callable[[str], None],
    ) -> None:
        self._feed = feed
        self._tools = tools
        self._busy = busy
        self._thought = thought
        self._plan = plan
        self._problem = problem
        self._give_back = give_back
        self._titled = titled  # the chat's row again: a first message titles its chat
        self.task: asyncio.Task[None] | None = None  # until its end is told
        self.conversation_id = ""  # the chat it answers

    @property
    def running(self) -> bool:
        """Whether a turn runs (until its end is told, so the window and this agree)."""
        return self.task is not None

    def begin(
        self, engine: Engine, asked: TurnInput, text: str = "", attached: Attachments | None = None
    ) -> None:
        """Have `engine` answer `asked`; `text` and `attached` are what the person sent (given
        back to the composer when the turn can't keep them)."""
        import asyncio  # after the first paint (see the imports)

        self.conversation_id = asked.conversation_id
        self._feed.begin()
        task = asyncio.ensure_future(self._run(engine, asked, text, attached or Attachments()))
        # A done callback, not a `finally`: a task cancelled before its first step
        # never enters the coroutine's body, and "busy" must still end.
        task.add_done_callback(self._done)
        self.task = task
        self._busy(True)

    def stop(self) -> None:
        """Stop the running turn; the words so far stay, marked stopped."""
        if self.task is not None and not self.task.done():
            self.task.cancel()

    async def stopped(self) -> None:
        """Stop the running turn and wait until it has unwound (its marks written)."""
        import asyncio  # after the first paint (see the imports)

        task = self.task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _run(
        self, engine: Engine, asked: TurnInput, text: str, attached: Attachments
    ) -> None:
        import asyncio
        from dataclasses import replace

        from app.turn.events import ItemAdded, NotSaved, PlanUpdated, ThoughtAdded, TurnEnded

        conversation_id = asked.conversation_id
        saved = False  # the person's message is in the store (a Retry reuses it)
        try:
            asked = replace(asked, tools=await self._tools())
            async with contextlib.aclosing(engine.run(asked)) as events:
                async for event in events:
                    self._feed.forward(conversation_id, event)
                    if isinstance(event, ThoughtAdded):  # an agent's: the feed knows none
                        self._thought(event.item_id, event.text)
                    elif isinstance(event, PlanUpdated):
                        self._plan(event.item_id, event.entries)
                    if isinstance(event, ItemAdded):
                        saved = True
                        if event.item.parent_id is None:
                            self._titled(conversation_id)  # the first words title it
                    if isinstance(event, TurnEnded) and event.error is not None:
                        # The error notice is in the transcript, and the message with
                        # it, for Retry; words that could not be saved go back.
                        if isinstance(event.error, NotSaved):  # no notice could be stored
                            # Nothing more can be saved until there is room: the words
                            # wait in the composer for then, whatever was saved before.
                            self._give_back(text, attached)
                            self._feed.finish_streaming_item()
                            self._problem(event.error.message)
                        elif not saved:
                            self._give_back(text, attached)
                            self._problem(event.error.message)
        except asyncio.CancelledError:
            # The turn marked its partial answer STOPPED while unwinding; show that,
            # and the "stopped" results it stored for calls cut short.
            self._feed.finish_streaming_item()
            self._feed.show_unseen(conversation_id)
        except Exception as exc:  # a store or programming error: keep the window alive
            log.exception("the turn failed")
            self._feed.finish_streaming_item()
            if not saved:
                self._give_back(text, attached)
            self._problem(f"The answer could not be finished: {exc}")

    def _done(self, task: asyncio.Task[None]) -> None:
        if task is self.task:
            self.task = None
        self._feed.end()
        self._busy(False)
        self._titled(self.conversation_id)
