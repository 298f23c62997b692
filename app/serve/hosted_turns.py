"""Served turns as a host sees them: each one told as it starts (its conversation is stored
by then) and as it ends, and given the host's own tools, whose calls the host's approver
answers one by one.

`sightline serve` has no one to ask, so its turns offer no tools (server.py); a host that
can ask the person, as the window does on its approval card, offers Sightline's tools
(read_file, screenshot, MCP servers) when the person allowed them for the server. Tools a
client brings in its request are another thing: they are the client's to run (see
docs/serving.md).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from app.serve.served import Served
from app.store import Store
from app.tools.base import Tool
from app.turn.events import TurnEvent
from app.turn.runner import TurnRunner
from app.turn.tool_step import Approval, ToolStep
from app.turn.turn_input import TurnInput
from routing.catalogue import Catalogue
from routing.chat_settings import ChatSettings
from routing.router import RoutingPrefs
from routing.transcript import ToolCall

if TYPE_CHECKING:
    from app.assembly import Assembly


class TurnHost(Protocol):
    """The program the server runs in: its tools, its person, and what it shows."""

    async def tools(self) -> Sequence[Tool]:
        """The tools a served turn may offer its model now (none: tools are off)."""
        ...

    async def approve(self, conversation_id: str, call: ToolCall, others: int = 0) -> Approval:
        """The person's answer to a served turn's tool call."""
        ...

    def turn_started(self, conversation_id: str) -> None:
        """A served conversation was stored and its turn starts."""
        ...

    def turn_event(self, conversation_id: str, event: TurnEvent) -> None:
        """One event of a served turn, as it happens (a host may show the chat live)."""
        ...

    def turn_ended(self, conversation_id: str) -> None:
        """A served turn ended: answered, failed or stopped."""
        ...


class HostedRunner(TurnRunner):
    """The turn runner of a host's served turns: the host's tools offered, the host told."""

    def __init__(
        self,
        host: TurnHost,
        store: Store,
        catalogue: Catalogue,
        tool_step: ToolStep,
        *,
        prefs: RoutingPrefs,
        defaults: ChatSettings,
    ) -> None:
        """A runner as the assembly makes one, telling `host` of its turns."""
        super().__init__(store, catalogue, tool_step, prefs=prefs, defaults=defaults)
        self.host = host

    async def run(self, asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        """The turn as `TurnRunner` runs it, with the host's tools beside any it was given."""
        host = self.host
        offered = (*asked.tools, *(await host.tools()))
        host.turn_started(asked.conversation_id)
        try:
            async with aclosing(super().run(replace(asked, tools=offered))) as events:
                async for event in events:
                    host.turn_event(asked.conversation_id, event)
                    yield event
        finally:
            host.turn_ended(asked.conversation_id)


def hosted_served(assembly: Assembly, catalogue: Catalogue, host: TurnHost) -> Served:
    """The served turns of a host, over `catalogue`: each call of a tool is asked of the
    host's person, every time (Settings' "run without asking" is for the person's own
    chats: another app's request is never given standing permission)."""
    store = assembly.store
    runner = HostedRunner(
        host,
        store,
        catalogue,
        assembly.tool_step(host),
        prefs=assembly.prefs,
        defaults=assembly.defaults,
    )
    return Served(store, catalogue, runner)
