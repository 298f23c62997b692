"""The server for other apps, run inside the window while the person has it on (Settings ▸
Serving): uvicorn on the window's own asyncio loop (qasync), over the window's store.

Sharing the window's loop and store is what makes it the window's: a conversation it
serves shows in the chat list as it is stored, and a served turn's tool call waits on the
window's approval card like any chat's. Closing the window stops it first, so the turns it
is answering are stopped and stored as stopped while the store is still open.

Light to import, as the controller makes it when it starts (after the first paint):
uvicorn, starlette and app.serve load only once serving is turned on.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from app.presenters.served_chats import asking
from app.presenters.serving_settings import ServingChoice
from app.ui.turn_feed import TurnFeed

if TYPE_CHECKING:
    import asyncio

    from app.presenters.listing import ModelListing
    from app.serve.hosted import Hosted
    from app.serve.served import Served
    from app.tools.base import Tool
    from app.turn.events import TurnEvent
    from app.turn.tool_step import Approval
    from app.ui.controller import Controller
    from routing.catalogue import Catalogue
    from routing.models import ProviderConfig
    from routing.transcript import ToolCall

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServerStatus:
    """What the Serving page shows: serving or not, where, with which token, or why not."""

    on: bool = False
    openai_url: str = ""
    ollama_url: str = ""
    token: str = ""
    problem: str = ""  # why it is not serving (or why the choice wasn't kept), in plain words
    busy: bool = False  # starting or stopping


class WindowServer(QObject):
    """The window's server: started and stopped as the person chooses, stopped with the window."""

    changed = Signal(object)  # ServerStatus

    def __init__(self, controller: Controller) -> None:
        """Nothing runs yet: `start_if_chosen` (after the first paint) or `choose` starts it."""
        super().__init__(controller)
        self._controller = controller
        self.choice = ServingChoice.of(controller.config)
        self.status = ServerStatus()
        self._hosted: Hosted | None = None
        self._served: Served | None = None
        self._following: Catalogue | None = None  # the window's catalogue the served one copies
        self._catalogues: list[Catalogue] = []  # served ones, closed when serving stops
        self._switching: asyncio.Lock | None = None  # made on first use, after the first paint
        self._closed = False
        self._with_tools = False  # as the server runs now: the page can't change it meanwhile
        self._feeds: dict[str, TurnFeed] = {}  # a running served turn's, by its chat
        self._requests: dict[str, asyncio.Task[Any]] = {}  # the request a served turn answers
        controller.models_changed.connect(self._follow_settings)
        controller.chats.deleted_changed.connect(self._stop_deleted)

    @property
    def running(self) -> bool:
        """Whether it serves now."""
        return self._hosted is not None and self._hosted.running

    def start_if_chosen(self) -> None:
        """Serve if the person left it on last time; called once the window has painted."""
        if self.choice.on:
            self._controller.chore(self._apply())

    def choose(self, choice: ServingChoice) -> None:
        """The person's choice, acted on at once (started or stopped) and kept."""
        self.choice = choice
        self._controller.chore(self._apply(remember=True))

    async def _apply(self, *, remember: bool = False) -> None:
        import asyncio  # after the first paint (see the imports)

        if self._switching is None:
            self._switching = asyncio.Lock()
        async with self._switching:  # a quick on-off-on is done in the order chosen
            if self._closed:
                return
            wanted = self.choice
            self._show(ServerStatus(on=self.running, busy=True))
            if self.running and not wanted.on:
                await self._stop()
            problem = await self._start(wanted) if wanted.on and not self.running else ""
            kept = ServingChoice(self.running, wanted.port, wanted.tools)
            if remember:
                problem = problem or await self._remember(kept)
            elif problem:  # left on last time, and can't be now: said as the window opens
                self._controller.problem.emit(f"Sightline can't serve other apps: {problem}")
            self._show(self._serving(problem))

    async def _start(self, choice: ServingChoice) -> str:
        """Serve on `choice.port`: "" once serving, else why not (the port is taken…)."""
        import asyncio  # after the first paint (see the imports)

        from app.serve.hosted import Hosted
        from app.serve.hosted_turns import hosted_served
        from app.serve.server import ServeProblem

        controller = self._controller
        window = controller.catalogue
        if window is not None:  # its providers carry their keys already
            providers = list(window.providers)
        else:  # the keyring may wait on D-Bus: never on the window's thread
            providers = await asyncio.to_thread(controller.assembly.providers)
        catalogue = self._catalogue_for(providers)
        self._following = window
        served = hosted_served(controller.assembly, catalogue, self)
        try:
            self._hosted = Hosted.start(
                served, controller.config.data_dir, choice.port, allow_tools=choice.tools
            )
        except ServeProblem as exc:
            await self._close_catalogues()
            return str(exc)
        self._served, self._with_tools = served, choice.tools
        log.info("serving other apps at %s", self._hosted.address.openai_url)
        return ""

    async def _stop(self) -> None:
        hosted, self._hosted, self._served = self._hosted, None, None
        self._with_tools = False
        if hosted is not None:
            await hosted.stop()
        await self._close_catalogues()

    async def _remember(self, choice: ServingChoice) -> str:
        import asyncio  # after the first paint (see the imports)

        from app.config import ConfigError
        from app.presenters.serving_settings import remember

        try:
            await asyncio.to_thread(remember, self._controller.config_path, choice)
        except ConfigError as exc:
            return f"Sightline can't keep this choice for the next start: {exc}"
        return ""

    def _serving(self, problem: str) -> ServerStatus:
        hosted = self._hosted
        if hosted is None or not hosted.running:
            return ServerStatus(problem=problem)
        address = hosted.address
        return ServerStatus(True, address.openai_url, address.ollama_url, address.token, problem)

    def _show(self, status: ServerStatus) -> None:
        self.status = status
        self.changed.emit(status)

    # -- new settings ---------------------------------------------------------------

    def _catalogue_for(self, providers: Sequence[ProviderConfig]) -> Catalogue:
        # Its own, not the window's: the window closes its old catalogue once its own turn
        # ends, which a served turn still running on it would not survive.
        catalogue = self._controller.assembly.catalogue(providers)
        self._catalogues.append(catalogue)
        return catalogue

    def _follow_settings(self, _listing: ModelListing) -> None:
        """New settings gave the window a new catalogue: the next served turns use its
        providers too (the turns running keep theirs until they end)."""
        window, served = self._controller.catalogue, self._served
        if served is None or window is None or window is self._following:
            return
        from app.serve.hosted_turns import hosted_served  # loaded: serving is on

        self._following = window
        fresh = hosted_served(
            self._controller.assembly, self._catalogue_for(list(window.providers)), self
        )
        served.catalogue, served.runner = fresh.catalogue, fresh.runner

    async def _close_catalogues(self) -> None:
        catalogues, self._catalogues = self._catalogues, []
        for catalogue in catalogues:
            await catalogue.aclose()

    async def aclose(self) -> None:
        """Stop serving for good (the window closes): running served turns are stopped."""
        self._closed = True
        if self._switching is not None:
            async with self._switching:
                await self._stop()
        else:
            await self._stop()

    # -- the host of served turns (app.serve.hosted_turns.TurnHost) ---------------------

    async def tools(self) -> Sequence[Tool]:
        """Sightline's tools, when the person allowed them for the server; else none."""
        if not self._with_tools:
            return ()
        controller = self._controller
        return await controller.turn_tools.tools(controller.config.mcp_config)

    async def approve(self, conversation_id: str, call: ToolCall, others: int = 0) -> Approval:
        """Ask on the window's approval card; said aloud when that chat isn't the one shown."""
        controller = self._controller
        if conversation_id != controller.current_id:
            controller.problem.emit(asking(controller.chats.title(conversation_id), call.name))
        return await controller.approve(conversation_id, call, others)

    def turn_started(self, conversation_id: str) -> None:
        """A served conversation was stored: the list shows it now, and its turn is shown as
        it happens whenever the chat is open (its own feed: served turns run side by side,
        while the window's feed follows one turn at a time)."""
        self._controller.chats.touched(conversation_id)
        feed = self._feeds[conversation_id] = TurnFeed(
            self._controller.store, lambda: self._controller.current_id, self
        )
        shown = self._controller.feed
        feed.item_added.connect(shown.item_added)
        feed.text_added.connect(shown.text_added)
        feed.item_finished.connect(shown.item_finished)
        feed.call_added.connect(shown.call_added)
        feed.begin()
        import asyncio  # loaded by now: a served turn runs on the window's asyncio loop

        request = asyncio.current_task()  # the served turn runs in its request's own task
        if request is not None:
            self._requests[conversation_id] = request

    def _stop_deleted(self, _deleted: object) -> None:
        """A served chat the person deleted stops its turn, as a client hanging up does."""
        from app.serve.streaming import let_go

        conversations = self._controller.store.conversations
        for conversation_id, request in list(self._requests.items()):
            if conversations.get(conversation_id) is None:  # in the bin: deleted
                del self._requests[conversation_id]
                let_go(request)

    def turn_event(self, conversation_id: str, event: TurnEvent) -> None:
        """One event of a served turn: in the window at once when its chat is open."""
        feed = self._feeds.get(conversation_id)
        if feed is not None:
            feed.forward(conversation_id, event)

    def turn_ended(self, conversation_id: str) -> None:
        """A served turn ended: the list moves it up, and the chat, if open, shows it all."""
        self._requests.pop(conversation_id, None)
        feed = self._feeds.pop(conversation_id, None)
        if feed is not None:
            feed.end()
            feed.deleteLater()
        self._controller.chats.touched(conversation_id)
        self._controller.reload(conversation_id)
