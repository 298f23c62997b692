"""Sightline's side of the protocol: what the agent sends, queued for the running turn.

The SDK calls these methods from its own tasks. Updates go to the turn's inbox as
they come, the answer's words that follow one another as one run (an agent may send
a word a message, and the turn takes a run in one step); a permission request goes
there too, with a future the turn answers once the person has (or Stop has:
`cancelled`), and so do the asks and notices of the door the agent started (over the
door's line, app/tools/door_line.py). Sightline offers the agent no file system and
no terminal, so every other request is refused as the protocol says.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from acp import RequestError
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    TextContentBlock,
    ToolCallUpdate,
)

from app.turn.acp.content import block_text
from routing.transcript import Notice, ToolCall

log = logging.getLogger(__name__)

MAX_QUEUED = 10_000  # updates waiting for the turn; beyond this the agent floods
MAX_RUN = 1_000_000  # characters of one run of words; more start another


@dataclass
class PermissionAsked:
    """The agent asks whether it may run a tool; `answer` gets the option chosen."""

    tool_call: ToolCallUpdate
    options: list[PermissionOption]
    answer: asyncio.Future[str | None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )  # an optionId, or None for `cancelled`


@dataclass
class DoorAsked:
    """The door asks whether the person allows one of its calls; `answer` gets yes or no."""

    call: ToolCall
    answer: asyncio.Future[bool] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


@dataclass(frozen=True)
class DoorTold:
    """What a door call made cross (a picture to the agent, who looked): for the chat."""

    notice: Notice


@dataclass(frozen=True)
class Update:
    """One `session/update` of the session the turn is prompting."""

    update: Any


@dataclass
class Words:
    """Chunks of the answer's words that came one after another, not yet taken."""

    parts: list[str]
    size: int  # characters


Inbox = Update | Words | PermissionAsked | DoorAsked | DoorTold


class SightlineClient:
    """The ACP client the agent talks to: everything it sends lands in `inbox`."""

    def __init__(self) -> None:
        self.inbox: deque[Inbox] = deque()
        self._arrival: asyncio.Future[None] | None = None  # the turn, waiting for the inbox
        self.session_id = ""  # updates of other sessions (or of none yet) are not this turn's
        self.replaying = False  # `session/load` replays history: already stored, so dropped
        self.dropped = 0

    def _put(self, item: Inbox) -> bool:
        if len(self.inbox) >= MAX_QUEUED:
            self.dropped += 1
            return False
        self.inbox.append(item)
        if self._arrival is not None and not self._arrival.done():
            self._arrival.set_result(None)
        return True

    def arrival(self) -> asyncio.Future[None]:
        """Done once the inbox holds something (at once if it does), or `wake` is called."""
        if self._arrival is None or self._arrival.done():
            self._arrival = asyncio.get_running_loop().create_future()
        if self.inbox:
            self._arrival.set_result(None)
        return self._arrival

    def wake(self) -> None:
        """The turn, waiting for the inbox, is to look again (its prompt was answered, or
        it waited long enough)."""
        if self._arrival is not None and not self._arrival.done():
            self._arrival.set_result(None)

    async def wait(self, seconds: float) -> None:
        """Until the inbox holds something, `wake` is called or `seconds` pass: one future
        and one timer (asyncio.wait over the inbox and the prompt made and dropped a waiter,
        callbacks and a timer each time, a dozen times a turn)."""
        arrival = self.arrival()
        timer = asyncio.get_running_loop().call_later(seconds, self.wake)
        try:
            await arrival
        finally:
            timer.cancel()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        """An update: queued for the turn, unless it is another session's or a replay;
        words join the run of words still waiting, if the newest thing waiting is one."""
        if session_id != self.session_id or self.replaying:
            return
        if getattr(update, "session_update", "") != "agent_message_chunk":
            self._put(Update(update))
            return
        # Text spelled out, and the inbox read once: this runs for each of an answer's chunks.
        content = update.content
        text = content.text if type(content) is TextContentBlock else block_text(content)
        inbox = self.inbox
        last = inbox[-1] if inbox else None
        if type(last) is Words and last.size < MAX_RUN:
            last.parts.append(text)
            last.size += len(text)
            return
        self._put(Words([text], len(text)))

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        """Ask the person, through the turn; `cancelled` when the turn is over or stopped."""
        asked = PermissionAsked(tool_call, list(options))
        if session_id != self.session_id or not self._put(asked):
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        chosen = await asked.answer
        if chosen is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=chosen)
        )

    def ready(self, most: int = 256) -> list[Inbox]:
        """What is already waiting, up to `most` (taken together: a run of words is one write)."""
        taken: list[Inbox] = []
        while len(taken) < most and self.inbox:
            taken.append(self.inbox.popleft())
        return taken

    async def door_asks(self, call: ToolCall) -> bool:
        """The door's line: whether the person allows the call, asked through the turn."""
        asked = DoorAsked(call)
        if not self._put(asked):
            return False
        return await asked.answer

    def door_told(self, notice: Notice) -> None:
        """What a door call made cross (or not), for the chat: stored by the turn."""
        self._put(DoorTold(notice))

    def cancel_pending(self) -> None:
        """Answer every request still waiting: permissions `cancelled`, the door's calls
        refused (Stop, or the turn ended); what the door told is dropped with them."""
        self.answer_unasked(self.ready(MAX_QUEUED))

    @staticmethod
    def answer_unasked(items: list[Inbox]) -> None:
        """Requests that will never be put to the person: permissions `cancelled`, the
        door's calls refused."""
        for item in items:
            if isinstance(item, PermissionAsked) and not item.answer.done():
                item.answer.set_result(None)
            elif isinstance(item, DoorAsked) and not item.answer.done():
                item.answer.set_result(False)

    # Sightline offers no file system and no terminal (initialize says so): refused.
    async def write_text_file(self, *args: Any, **kwargs: Any) -> None:
        """Not offered."""
        raise RequestError.method_not_found("fs/write_text_file")

    async def read_text_file(self, *args: Any, **kwargs: Any) -> None:
        """Not offered."""
        raise RequestError.method_not_found("fs/read_text_file")

    async def create_terminal(self, *args: Any, **kwargs: Any) -> None:
        """Not offered."""
        raise RequestError.method_not_found("terminal/create")

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """An extension Sightline doesn't know."""
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        """An extension notification: logged, nothing else."""
        log.debug("agent extension notification %s", method)

    def on_connect(self, conn: Any) -> None:
        """Nothing to do when the connection opens."""
