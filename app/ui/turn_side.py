"""What the window's turns need: the providers with their keys, the catalogue in use, the
tool step with the person's approvals of its calls, the models' runner and the running turn.
No widgets, like the controller that owns it.

The controller makes it on first use, at the latest when it starts (after the window's
first paint), so neither this module nor the turn machinery it loads comes before then.
New settings connect again: the catalogue they replace is retired, and closed once the turn
that may still use it has ended.
"""

from __future__ import annotations

import asyncio  # loaded by the time the controller starts (app/ui/app.py)
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from app.presenters.approvals import Approvals
from app.ui.running_turn import RunningTurn

if TYPE_CHECKING:
    from app.presenters.model_lister import ModelLister
    from app.presenters.pending import Attachments
    from app.tools.base import Tool
    from app.turn.tool_step import ToolStep
    from app.ui.controller import Controller
    from routing.catalogue import Catalogue
    from routing.models import ProviderConfig


class TurnSide:
    """The catalogue in use, the runner over it and the turn it runs; connected anew by new
    settings."""

    def __init__(
        self,
        controller: Controller,
        lister: ModelLister,
        tools: Callable[[], Awaitable[list[Tool]]],
    ) -> None:
        """Connect `controller`'s providers, whose models `lister` lists; turns offer `tools()`."""
        self._c = c = controller
        self._lister = lister
        self._connecting = asyncio.Lock()  # one connection at a time
        self._retired: set[Catalogue] = set()  # old catalogues, closed once their turn ends
        self._key_problem_told = False
        # One for the window's life, so "Allow in this chat" outlives new settings.
        self.tool_step: ToolStep | None = None
        self.approvals = Approvals(c.approval_requested.emit, c.approval_settled.emit)
        self.turn = RunningTurn(
            c.feed,
            tools,
            busy=c.busy_changed.emit,
            thought=c.thought_added.emit,
            plan=c.plan_updated.emit,
            problem=c.problem.emit,
            give_back=self._give_back,
            titled=c.chats.touched,
        )

    def _give_back(self, text: str, attached: Attachments) -> None:
        self._c.draft_restored.emit(text)  # a failed turn's words, back in the composer
        self._c.attaching.give_back(attached)

    async def apply_settings(self) -> None:
        """Read the config file again and connect its providers (ConfigError when it is
        broken, before anything changes); the MCP servers start afresh."""
        from app.config import load_config

        c = self._c
        config = load_config(c.environ)  # raises before anything changes
        c.assembly.config = config
        self._lister.config, self._lister.config_path = config, c.config_path
        await c.turn_tools.aclose()  # the MCP servers may have changed
        await self.connect()

    async def connect(self) -> None:
        """Build the catalogue of the configured providers and the runner over it, and list
        its models (the catalogue it replaces is retired)."""
        c = self._c
        async with self._connecting:
            # The keyring may wait on D-Bus (or an unlock prompt): never on the UI thread.
            providers = await asyncio.to_thread(c.assembly.providers)
            catalogue = c.assembly.catalogue(providers)
            if self.tool_step is None:
                self.tool_step = c.assembly.tool_step(c, kept=True)
            self.tool_step.always_allowed = frozenset(c.config.always_allow_tools)
            c.sending.runner = c.assembly.runner(catalogue, self.tool_step)
            old = await self._lister.use(catalogue)
            self._tell_key_problem(providers)
            if old is not None:
                self._retired.add(old)
                c.chore(self._retire(old))

    async def _retire(self, catalogue: Catalogue) -> None:
        # A turn already running keeps the catalogue it started with until it ends.
        turn = self.turn.task
        if turn is not None and not turn.done():
            await asyncio.wait({turn})
        await catalogue.aclose()
        self._retired.discard(catalogue)

    def _tell_key_problem(self, providers: list[ProviderConfig]) -> None:
        from routing.presets import preset_for

        # Only worth a word when a provider that needs a key has none: then the missing
        # keyring is why a key typed last time is gone. Said once per window.
        keyless = any(preset_for(p.kind).needs_key and not p.api_key for p in providers)
        keys = self._c.keys
        if keys.problem and keyless and not self._key_problem_told:
            self._key_problem_told = True
            self._c.problem.emit(keys.problem)

    async def aclose(self) -> None:
        """Close the catalogue in use and those retired (once the lister has stopped)."""
        for catalogue in (*self._retired, self._lister.catalogue):
            if catalogue is not None:
                await catalogue.aclose()
        self._retired.clear()
