"""One open window and everything behind it: config, store (the set-up's), controller.

`run_window` and the UI tests both build the window through `load_settings`
and `open_session`, so the tests exercise the real start-up path.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from app.assembly import Assembly
from app.config import Config
from app.store import Store
from app.ui.controller import Controller
from app.ui.main_window import MainWindow

if TYPE_CHECKING:
    from app.ui.warm_up import WarmUp


class StartupError(Exception):
    """Sightline can't open its window; the message says why and what to change."""


def load_settings(environ: Mapping[str, str] = os.environ) -> Config:
    """Read the config, turning a broken file into a StartupError."""
    from app.config import ConfigError, load_config

    try:
        return load_config(environ)
    except ConfigError as exc:
        raise StartupError(str(exc)) from None


class Session:
    """The window, its controller and the store they share."""

    def __init__(self, assembly: Assembly, *, start_on_paint: bool = True):
        """Build the window over the set-up's open store (no network yet).

        With `start_on_paint` the first paint starts the controller, so an asyncio
        loop must already run; `run_window` paints before asyncio loads and calls
        `start` itself once its loop runs.
        """
        self.config: Config = assembly.config  # as the window opened
        self.store: Store = assembly.store
        self._start_on_paint = start_on_paint
        self.controller = Controller(assembly)
        self.window = MainWindow(self.controller)
        self.painted_at: float | None = None
        self.closed = False
        self._warm_up: WarmUp | None = None
        self.window.first_painted.connect(self._first_paint)
        self.controller.load()
        if self.config.named_missing is not None:  # said once, as the window opens
            from app.config import missing_words

            self.controller.problem.emit(missing_words(self.config.named_missing))
        self.window.restore_state()  # size, splitter, ledger and the chat open last time

    def show(self) -> None:
        """Show the window; model listing starts after its first paint."""
        self.window.show()

    def start(self) -> None:
        """Start listing models (and MCP servers, if asked): after the first paint, on asyncio;
        then load what the first send needs while the person types (app/ui/warm_up.py)."""
        self.controller.start()
        if self._warm_up is None:
            from app.ui.warm_up import WarmUp

            self._warm_up = WarmUp(self.window)

    def _first_paint(self) -> None:
        self.painted_at = time.perf_counter()
        # Only now: listing imports the wires (httpx) and opens connections, and
        # none of that should delay the first frame.
        if self._start_on_paint:
            self.start()

    async def aclose(self) -> None:
        """Stop the turn and listing, close connections, then the store (once)."""
        if self.closed:
            return
        self.closed = True
        await self.controller.aclose()
        # Deletions still waiting for Undo become final: the Undo bar goes with the window.
        self.controller.chats.close()
        self.store.close()


def open_session(
    config: Config, environ: Mapping[str, str] = os.environ, *, start_on_paint: bool = True
) -> Session:
    """Open the store and build the window, turning a store failure into a StartupError."""
    from app.store import StoreError

    try:
        assembly = Assembly.open(config, environ)
    except StoreError as exc:
        raise StartupError(str(exc)) from None
    try:
        return Session(assembly, start_on_paint=start_on_paint)
    except BaseException:
        assembly.store.close()
        raise
