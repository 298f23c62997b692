"""The window's brain: the core objects from the set-up, run on asyncio; it holds no widgets.

Widgets call its methods and listen to its signals, and to those of its parts: the chat
list (`chats`), the turn's feed (`feed`), the send (`sending`), the sight checks
(`sight`). Everything slow (listing models, streaming an answer) is a task on the qasync
loop, so the UI thread only ever waits on the local SQLite file. The parts the window's first
paint doesn't need are made, and their modules imported, when first used.
"""

from __future__ import annotations

from collections.abc import Coroutine, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from app.presenters.model_lister import ModelLister
from app.ui.chats import Chats
from app.ui.chores import Chores
from app.ui.composer.attaching import Attaching
from app.ui.turn_feed import TurnFeed

# asyncio (~25 ms) loads with the first chore (app/ui/chores.py), after the window's
# first paint, which comes before asyncio loads (app/ui/app.py).
if TYPE_CHECKING:
    from app.assembly import Assembly
    from app.config import Config
    from app.keys import KeyStore
    from app.presenters.approvals import ApprovalRequest
    from app.presenters.listing import ModelListing
    from app.presenters.sight_checks import SightChecks
    from app.presenters.turn_tools import TurnTools
    from app.store import Store, StoredItem
    from app.tools.base import Tool
    from app.turn.agent_folder import AgentFolders
    from app.turn.tool_step import Approval
    from app.ui.conversation.versions import Versions
    from app.ui.describing import Describing
    from app.ui.running_turn import RunningTurn
    from app.ui.sending import Sending
    from app.ui.turn_side import TurnSide
    from app.ui.window_server import WindowServer
    from routing.catalogue import Catalogue
    from routing.models import ProviderConfig
    from routing.transcript import ToolCall

AUTO = "auto"  # routing.router.AUTO, repeated so the first paint needn't import routing


class Controller(QObject):
    """Conversations, models and turns for one window."""

    models_changed = Signal(object)  # ModelListing
    # id ("" for a new chat), its items (a list, declared `object`: tests/ui/test_signal_types.py),
    # the model's ref
    conversation_loaded = Signal(str, object, str)
    approval_requested = Signal(object)  # ApprovalRequest: a tool call waits for the person
    approval_settled = Signal(object)  # ApprovalRequest: answered, or dropped by Stop
    thought_added = Signal(int, str)  # answer's item id, more of what an agent thinks aloud
    plan_updated = Signal(int, object)  # answer's item id, an agent's plan (PlanEntry tuple)
    busy_changed = Signal(bool)
    draft_restored = Signal(str)
    problem = Signal(str)  # something went wrong outside any conversation
    deleted_changed = Signal(object)  # `versions`': DeletedItems left for Undo, or None

    def __init__(self, assembly: Assembly, parent: QObject | None = None) -> None:
        """Wrap the set-up over an open store; the catalogue and turns are made by `start`."""
        super().__init__(parent)
        self.assembly = assembly
        store = assembly.store
        self._started = False
        self._current = ""
        self._chores = Chores()  # background work, held so it isn't collected mid-way
        # The catalogue in use and its models, published as each provider answers.
        self._lister = ModelLister(self.config, assembly.config_path, self.models_changed.emit)
        # The list of conversations: search, rename, delete with Undo, export, the ledger.
        self.chats = Chats(store, self)
        self.chats.restored.connect(self._restored)
        # The composer's pictures and PDFs: read as chores, noted for the listed models.
        self.attaching = Attaching(lambda: self._lister.listing, self.chore, self)
        # A turn's events as signals, which the open conversation's view listens to.
        self.feed = TurnFeed(store, lambda: self._current, self)

    # -- parts made on first use: the first paint needs none of them, nor their modules --

    def _made(self, part: str) -> bool:
        """Whether a part made on first use has been (its cached property keeps it here)."""
        return part in self.__dict__

    @property
    def turn(self) -> RunningTurn:
        """The running turn: its task, its events into the view, its end told."""
        return self._turn_side.turn

    @cached_property
    def sending(self) -> Sending:
        """The send and its checks; who answers it (the models' runner, the agents' engines)."""
        from app.ui.sending import Sending

        return Sending(self)

    @cached_property
    def folders(self) -> AgentFolders:
        """Each chat's working folder (the person's home until one is chosen)."""
        return self.assembly.folders(Path.home())

    @cached_property
    def versions(self) -> Versions:
        """Versions of the open chat, deleting messages with Undo, the chat's own settings."""
        from app.ui.conversation.versions import Versions

        versions = Versions(self.store, self.reload, self)  # what a crash left for Undo goes now
        versions.deleted_changed.connect(self.deleted_changed)
        return versions

    @cached_property
    def describing(self) -> Describing:
        """Pictures in words when the person asks."""
        from app.ui.describing import Describing

        return Describing(self)

    @cached_property
    def sight(self) -> SightChecks:
        """A model's sight: learned blind, checked again, the sight check."""
        from app.presenters.sight_checks import SightChecks

        return SightChecks(
            self.store,
            lambda: self.catalogue,
            self.problem.emit,
            lambda catalogue: self._lister.publish(catalogue, listing=False),
            self.refresh_models,
        )

    @cached_property
    def serving(self) -> WindowServer:
        """Other apps served, while the person has it on."""
        from app.ui.window_server import WindowServer

        return WindowServer(self)

    @cached_property
    def turn_tools(self) -> TurnTools:
        """Built-in tools and MCP servers."""
        from app.presenters.turn_tools import TurnTools

        return TurnTools(self.problem.emit)

    @cached_property
    def _turn_side(self) -> TurnSide:
        """The catalogue, tool step, approvals, runner and turn: made by `start` at the latest."""
        from app.ui.turn_side import TurnSide

        return TurnSide(self, self._lister, self._tools)

    # -- state -----------------------------------------------------------------

    @property
    def config(self) -> Config:
        """The config in use (new settings replace it)."""
        return self.assembly.config

    @property
    def store(self) -> Store:
        """The conversations' store, open for the window's life."""
        return self.assembly.store

    @property
    def current_id(self) -> str:
        """The open conversation's id, or "" for a new chat not yet sent."""
        return self._current

    @property
    def busy(self) -> bool:
        """Whether a turn is running: until `busy_changed(False)`, so the two always agree."""
        return self._made("_turn_side") and self.turn.running

    @property
    def keys(self) -> KeyStore:
        """The window's keys: one per window, as a key kept for the session lives here."""
        return self.assembly.keys

    @property
    def listing(self) -> ModelListing:
        """The latest model listing."""
        return self._lister.listing

    @property
    def catalogue(self) -> Catalogue | None:
        """The catalogue in use (None until the first `start` has built it)."""
        return self._lister.catalogue

    @property
    def environ(self) -> Mapping[str, str]:
        """The environment the providers' keys and addresses are read from."""
        return self.assembly.environ

    @property
    def config_path(self) -> Path:
        """The config file settings are saved to (it may not exist yet)."""
        return self.assembly.config_path

    @property
    def agents(self) -> list[ProviderConfig]:
        """The configured agents, which the picker offers beside the models."""
        return self.assembly.agents

    # -- life cycle ------------------------------------------------------------

    def load(self) -> None:
        """Show the saved conversations (local disk only: safe before the first paint)."""
        self.chats.refresh()
        self.conversation_loaded.emit("", [], AUTO)
        self.chats.offer_left_over()

    def start(self) -> None:
        """Build the network side and start listing models; call after the first paint."""
        if not self._started:
            self._started = True
            self.chore(self._turn_side.connect())
            if self.config.mcp_start_at_launch:  # the person wants them ready, not lazily
                self.chore(self._tools())
            self.serving.start_if_chosen()  # the server for other apps, if left on
            _ = self.versions  # made by now at the latest: what a crash left for Undo goes

    async def apply_settings(self) -> None:
        """Read the config file again and use its providers (ConfigError when it is broken)."""
        await self._turn_side.apply_settings()

    def chore(self, work: Coroutine[object, object, object]) -> None:
        """Run `work` on the loop, held until it ends; a failure is logged."""
        self._chores.run(work)

    async def aclose(self) -> None:
        """Stop whatever runs and close the providers' connections (the store stays open);
        a part never made has nothing to close."""
        if self._made("serving"):
            await self.serving.aclose()  # first: its turns stop while the store is open
        if self.busy:
            await self.turn.stopped()
        await self._chores.stop()
        await self._lister.aclose()
        if self._made("_turn_side"):
            await self._turn_side.aclose()
        if self._made("sending"):
            await self.sending.aclose()
        if self._made("turn_tools"):
            await self.turn_tools.aclose()

    # -- models ----------------------------------------------------------------

    def refresh_models(self) -> None:
        """List every provider's models again; the picker fills in as each answers."""
        self._lister.refresh()

    def check_sight(self, ref: str) -> None:
        """Ask the model about a probe picture; its verdict becomes its sight (and is kept)."""
        self.chore(self.sight.check(ref))

    # -- conversations ---------------------------------------------------------

    def new_conversation(self) -> None:
        """Open an empty chat; it is stored once the person sends something."""
        self._current = ""
        self.sending.new_chat()
        self.versions.new_chat()
        self.conversation_loaded.emit("", [], "")

    def open_new(self, conversation_id: str, model_ref: str) -> None:
        """Show the chat a send has just stored as the open one."""
        self._current = conversation_id
        self.versions.chat_created(conversation_id)
        self.conversation_loaded.emit(conversation_id, [], model_ref)
        self.chats.touched(conversation_id)

    def reload(self, conversation_id: str) -> None:
        """Show the open chat again (another version, a delete): the branch it shows now."""
        if conversation_id and conversation_id == self._current:
            summary = self.store.conversations.get(conversation_id)
            model = summary.model if summary and summary.model else AUTO
            self.conversation_loaded.emit(conversation_id, self.store.page(conversation_id), model)

    def select_conversation(self, conversation_id: str) -> None:
        """Open a saved conversation with its messages and its model."""
        if conversation_id == self._current:
            return
        summary = self.store.conversations.get(conversation_id)
        if summary is None:
            self.chats.refresh()
            return
        items = self._page(conversation_id)  # its end: the rest as the person scrolls up
        if items is None:
            return
        self._current = conversation_id
        if not items or items[0].parent_id is None:  # the whole chat: its folder, if any
            self.folders.opened(conversation_id, (i.item for i in items))
        self.conversation_loaded.emit(conversation_id, items, summary.model or AUTO)

    def earlier(self, conversation_id: str, before: int) -> list[StoredItem]:
        """The page of the open chat shown before the item `before` ([] at its start)."""
        return self._page(conversation_id, before) or []

    def _page(self, conversation_id: str, before: int | None = None) -> list[StoredItem] | None:
        """A page of a chat; None when it is damaged (said; the others still open)."""
        from app.store import DamagedConversation

        try:
            return self.store.page(conversation_id, before)
        except DamagedConversation as exc:
            self.problem.emit(str(exc))
            return None

    def folder(self, conversation_id: str) -> Path | None:
        """A chat's working folder, if it has one ("": the new chat's, chosen by a send)."""
        if conversation_id:  # no send needed: a chat left open shows its folder in the first frame
            return self.folders.folder(conversation_id)
        return self.sending.folder("") if self._made("sending") else None

    def delete_conversation(self, conversation_id: str) -> None:
        """Delete a conversation, stopping its turn first if one runs."""
        self.chore(self._delete(conversation_id))

    async def _delete(self, conversation_id: str) -> None:
        if self.busy and self.turn.conversation_id == conversation_id:
            # The turn writes its "stopped" mark as it unwinds; let it, then delete.
            await self.turn.stopped()
        if conversation_id == self._current:
            self.new_conversation()
        self.chats.delete(conversation_id)  # hidden now, gone once its Undo is over

    def _restored(self, conversation_id: str) -> None:
        if not self._current:  # Undo brings the chat back into view if nothing else is open
            self.select_conversation(conversation_id)

    # -- the open chat's messages ------------------------------------------------

    def busy_here(self) -> bool:
        """Whether the open chat's turn is running (its messages can't change meanwhile)."""
        return self.busy and self.turn.conversation_id == self._current

    def show_version(self, item_id: int) -> bool:
        """Show another version of a message or an answer; False while the chat answers."""
        if self.busy_here() or not self._current:
            return False
        self.versions.show_version(self._current, item_id)
        return True

    def delete_item(self, item_id: int) -> bool:
        """Delete a message with its answer, or an answer, with Undo; False while busy."""
        if self.busy_here() or not self._current:
            return False
        self.versions.delete(self._current, item_id)
        return True

    def stop(self) -> None:
        """Stop the running turn; the words so far stay, marked stopped."""
        if self.busy:
            self.turn.stop()

    # -- tools -------------------------------------------------------------------

    async def _tools(self) -> list[Tool]:
        """Every tool a turn offers; the one place they are gathered (MCP servers start here)."""
        return await self.turn_tools.tools(self.config.mcp_config)

    async def approve(self, conversation_id: str, call: ToolCall, others: int = 0) -> Approval:
        """Ask the person, through the window's approval card, whether a call may run."""
        return await self._turn_side.approvals.ask(conversation_id, call, others)

    def answer_approval(self, request: ApprovalRequest, answer: str) -> None:
        """The person's answer to a waiting call: "once", "step", "conversation" or "deny"."""
        from app.turn.tool_step import Approval

        self._turn_side.approvals.answer(request.serial, Approval(answer))

    def waiting_approval(self, conversation_id: str) -> ApprovalRequest | None:
        """The call of this conversation that waits for the person, if any."""
        asked = conversation_id and self._made("_turn_side")  # else nothing was ever asked
        return self._turn_side.approvals.waiting_in(conversation_id) if asked else None

    def allowed_tools(self, conversation_id: str) -> frozenset[str]:
        """Tools the person allowed for the whole of this conversation."""
        step = self._turn_side.tool_step if self._made("_turn_side") else None
        return step.allowed_in(conversation_id) if step is not None else frozenset()
