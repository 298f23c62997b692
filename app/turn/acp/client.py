"""Sightline's side of the protocol: what the agent sends, queued for the running turn.

The SDK calls these methods from its own tasks. Updates go to the turn's queue as
they come; a permission request goes there too, with a future the turn answers once
the person has (or Stop has: `cancelled`). Sightline offers the agent no file system
and no terminal, so every other request is refused as the protocol says.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from acp import RequestError
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

log = logging.getLogger(__name__)

MAX_QUEUED = 10_000  # updates waiting for the turn; beyond this the agent floods


@dataclass
class PermissionAsked:
    """The agent asks whether it may run a tool; `answer` gets the option chosen."""

    tool_call: ToolCallUpdate
    options: list[PermissionOption]
    answer: asyncio.Future[str | None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )  # an optionId, or None for `cancelled`


@dataclass(frozen=True)
class Update:
    """One `session/update` of the session the turn is prompting."""

    update: Any


class SightlineClient:
    """The ACP client the agent talks to: everything it sends lands in `inbox`."""

    def __init__(self) -> None:
        self.inbox: asyncio.Queue[Update | PermissionAsked] = asyncio.Queue()
        self.session_id = ""  # updates of other sessions (or of none yet) are not this turn's
        self.replaying = False  # `session/load` replays history: already stored, so dropped
        self.dropped = 0

    def _put(self, item: Update | PermissionAsked) -> bool:
        if self.inbox.qsize() >= MAX_QUEUED:
            self.dropped += 1
            return False
        self.inbox.put_nowait(item)
        return True

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        """An update: queued for the turn, unless it is another session's or a replay."""
        if session_id != self.session_id or self.replaying:
            return
        self._put(Update(update))

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

    def cancel_pending(self) -> None:
        """Answer every permission request still waiting `cancelled` (Stop, or the turn ended)."""
        while not self.inbox.empty():
            item = self.inbox.get_nowait()
            if isinstance(item, PermissionAsked) and not item.answer.done():
                item.answer.set_result(None)

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
