"""The window's brain: owns the store, catalogue and turns, runs them on asyncio, holds no widgets.

Widgets call its methods and listen to its signals. Everything slow (listing
models, streaming an answer) is a task on the qasync loop, so the UI thread only
ever waits on the local SQLite file.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from app import paths
from app.presenters.approvals import ApprovalRequest, Approvals
from app.presenters.listing import ModelListing  # where other modules have always imported it from
from app.presenters.model_lister import ModelLister
from app.presenters.pending import Attachments
from app.presenters.turn_tools import TurnTools
from app.ui.agent_turns import AgentTurns, agent_named, agents_of
from app.ui.chats import Chats
from app.ui.composer.attaching import Attaching
from app.ui.conversation.versions import Versions
from app.ui.running_turn import RunningTurn
from app.ui.turn_feed import TurnFeed
from routing.transcript import ToolCall  # loaded by the store: costs nothing here

# asyncio (~25 ms) is imported by the methods that use it: they all run after the
# window's first paint, which comes before asyncio loads (app/ui/app.py).
if TYPE_CHECKING:
    import asyncio
    from collections.abc import AsyncGenerator, Callable, Sequence

    from app.config import Config
    from app.keys import KeyStore
    from app.store import Store, StoredItem
    from app.tools.base import Tool
    from app.turn.boundary import Leaving
    from app.turn.engine import Engine
    from app.turn.events import TurnEvent
    from app.turn.runner import TurnRunner
    from app.turn.tool_step import Approval, ToolStep
    from routing.agent_refs import AgentOffer
    from routing.catalogue import Catalogue
    from routing.models import ModelInfo, ProviderConfig
    from routing.router import RoutingPrefs

log = logging.getLogger(__name__)

AUTO = "auto"  # routing.router.AUTO, repeated so the first paint needn't import routing


class Controller(QObject):
    """Conversations, models and turns for one window."""

    models_changed = Signal(object)  # ModelListing
    conversations_changed = Signal(list)  # list[ConversationSummary]
    conversation_loaded = Signal(str, list, str)  # id ("" for a new chat), items, model ref
    item_added = Signal(object)  # StoredItem
    text_added = Signal(int, str)  # item id, more words
    item_finished = Signal(object)  # StoredItem, as stored once the answer ended
    call_added = Signal(int, object)  # answer's item id, a ToolCall it just made
    approval_requested = Signal(object)  # ApprovalRequest: a tool call waits for the person
    approval_settled = Signal(object)  # ApprovalRequest: answered, or dropped by Stop
    thought_added = Signal(int, str)  # answer's item id, more of what an agent thinks aloud
    plan_updated = Signal(int, object)  # answer's item id, an agent's plan (PlanEntry tuple)
    busy_changed = Signal(bool)
    draft_restored = Signal(str)
    problem = Signal(str)  # something went wrong outside any conversation

    def __init__(
        self,
        config: Config,
        store: Store,
        environ: Mapping[str, str] = os.environ,
        parent: QObject | None = None,
    ) -> None:
        """Wrap an open store; the catalogue and turns are made by `start`."""
        super().__init__(parent)
        self.config = config
        self.store = store
        self._environ = environ
        self._keys: KeyStore | None = None  # made on first use: see `keys`
        self._key_problem_told = False
        self._started = False
        self._connecting: asyncio.Lock | None = None  # made by the first `_connect`
        self._retired: set[Catalogue] = set()  # old catalogues, closed once their turn ends
        self._runner: TurnRunner | None = None
        self._current = ""
        self._chores: set[asyncio.Task[None]] = set()  # held so they aren't collected mid-way
        # The catalogue in use and its models, published as each provider answers.
        self._lister = ModelLister(self.config, self._config_path(), self.models_changed.emit)
        self._approvals = Approvals(self.approval_requested.emit, self.approval_settled.emit)
        # One for the window's life, so "Allow in this chat" outlives new settings.
        self._tool_step: ToolStep | None = None
        self.turn_tools = TurnTools(self.problem.emit)  # built-in tools and MCP servers
        # The list of conversations: search, rename, delete with Undo, export, the ledger.
        self.chats = Chats(store, self)
        self.chats.changed.connect(self.conversations_changed)
        self.chats.restored.connect(self._restored)
        # The composer's pictures and PDFs: read as chores, noted for the listed models.
        self.attaching = Attaching(lambda: self._lister.listing, self._chore, self)
        # A turn's events, shown in the open conversation through this controller's signals.
        self._feed = TurnFeed(store, lambda: self._current, self)
        self._feed.item_added.connect(self.item_added)
        self._feed.text_added.connect(self.text_added)
        self._feed.item_finished.connect(self.item_finished)
        self._feed.call_added.connect(self.call_added)
        # The running turn: its task, its events into the view, its end told.
        self._turn = RunningTurn(
            self._feed,
            self._tools,
            busy=self.busy_changed.emit,
            thought=self.thought_added.emit,
            plan=self.plan_updated.emit,
            problem=self.problem.emit,
            give_back=self._give_back,
            titled=self.chats.refresh,
        )
        # Versions of the open chat, deleting messages with Undo, the chat's own settings.
        self.versions = Versions(store, self._reload, self)
        # Agents: an engine per chat (its working folder), started on the chat's first turn.
        self._agents = AgentTurns(store)
        self._prefs: RoutingPrefs | None = None
        self._new_chat_folder: Path | None = None  # chosen for a chat not yet sent

    # -- state -----------------------------------------------------------------

    @property
    def current_id(self) -> str:
        """The open conversation's id, or "" for a new chat not yet sent."""
        return self._current

    @property
    def busy(self) -> bool:
        """Whether a turn is running: until `busy_changed(False)`, so the two always agree."""
        return self._turn.running

    @property
    def keys(self) -> KeyStore:
        """The window's keys: one per window, as a key kept for the session lives here."""
        if self._keys is None:
            # Made on first use (after the first paint): app.keys loads routing.models.
            from app.keys import KeyStore

            self._keys = KeyStore(self.config.data_dir)
        return self._keys

    @property
    def listing(self) -> ModelListing:
        """The latest model listing."""
        return self._lister.listing

    @property
    def environ(self) -> Mapping[str, str]:
        """The environment the providers' keys and addresses are read from."""
        return self._environ

    @property
    def config_path(self) -> Path:
        """The config file settings are saved to (it may not exist yet)."""
        return self._config_path()

    def _config_path(self) -> Path:
        return self.config.source or paths.config_file(self._environ)

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
            self._chore(self._connect())
            if self.config.mcp_start_at_launch:  # the person wants them ready, not lazily
                self._chore(self._start_tools())

    async def apply_settings(self) -> None:
        """Read the config file again and use its providers (ConfigError when it is broken)."""
        from app.config import load_config

        config = load_config(self._environ)  # raises before anything changes
        self.config = config
        self._lister.config, self._lister.config_path = config, self._config_path()
        await self.turn_tools.aclose()  # the MCP servers may have changed: start afresh
        await self._connect()

    async def _connect(self) -> None:
        # Imported here, not at the top: they pull in httpx and friends, which the
        # first paint does not need.
        import asyncio

        from app.config import effective_providers
        from app.keys import with_keys
        from app.turn.runner import TurnRunner
        from app.turn.tool_step import ToolStep
        from routing.catalogue import Catalogue
        from routing.router import RoutingPrefs

        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            wanted = effective_providers(self.config, self._environ)
            # The keyring may wait on D-Bus (or an unlock prompt): never on the UI thread.
            providers = await asyncio.to_thread(with_keys, wanted, self.keys, self._environ)
            learned = self.store.learned
            catalogue = Catalogue(
                providers,
                blind=learned.blind(),
                checked=learned.checks(),
                refused=learned.refused(),
            )
            prefs = RoutingPrefs(
                self.config.auto_may_use_cloud, self.config.vision_model, self.config.check_sight
            )
            self._prefs = prefs
            if self._tool_step is None:
                self._tool_step = ToolStep(self, grants=self.store.grants)  # kept per chat
            self._tool_step.always_allowed = frozenset(self.config.always_allow_tools)
            from routing.chat_settings import ChatSettings

            defaults = ChatSettings(system_prompt=self.config.system_prompt or None)
            self._runner = TurnRunner(
                self.store, catalogue, self._tool_step, prefs=prefs, defaults=defaults
            )
            old = await self._lister.use(catalogue)
            self._tell_key_problem(providers)
            if old is not None:
                self._retired.add(old)
                self._chore(self._retire(old))

    async def _retire(self, catalogue: Catalogue) -> None:
        import asyncio  # after the first paint (see the imports)

        # A turn already running keeps the catalogue it started with until it ends.
        turn = self._turn.task
        if turn is not None and not turn.done():
            await asyncio.wait({turn})
        await catalogue.aclose()
        self._retired.discard(catalogue)

    def _tell_key_problem(self, providers: list[ProviderConfig]) -> None:
        from routing.presets import preset_for

        # Only worth a word when a provider that needs a key has none: then the missing
        # keyring is why a key typed last time is gone. Said once per window.
        keyless = any(preset_for(p.kind).needs_key and not p.api_key for p in providers)
        if self.keys.problem and keyless and not self._key_problem_told:
            self._key_problem_told = True
            self.problem.emit(self.keys.problem)

    def _chore(self, work: Coroutine[object, object, None]) -> None:
        import asyncio  # after the first paint (see the imports)

        chore = asyncio.ensure_future(work)
        self._chores.add(chore)
        chore.add_done_callback(self._chore_done)

    def _chore_done(self, chore: asyncio.Task[None]) -> None:
        self._chores.discard(chore)
        if not chore.cancelled() and chore.exception() is not None:
            log.error("a background task failed", exc_info=chore.exception())

    async def aclose(self) -> None:
        """Stop whatever runs and close the providers' connections (the store stays open)."""
        import asyncio  # after the first paint (see the imports)

        await self._turn.stopped()
        for task in list(self._chores):  # each one's end takes it out of the set
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        await self._lister.aclose()
        for catalogue in (*self._retired, self._catalogue):
            if catalogue is not None:
                await catalogue.aclose()
        self._retired.clear()
        await self._agents.aclose()
        await self.turn_tools.aclose()

    # -- models ----------------------------------------------------------------

    @property
    def _catalogue(self) -> Catalogue | None:
        return self._lister.catalogue

    def refresh_models(self) -> None:
        """List every provider's models again; the picker fills in as each answers."""
        self._lister.refresh()

    # -- conversations ---------------------------------------------------------

    def new_conversation(self) -> None:
        """Open an empty chat; it is stored once the person sends something."""
        self._current = ""
        self._new_chat_folder = None
        self.versions.new_chat()
        self.conversation_loaded.emit("", [], "")

    def _reload(self, conversation_id: str) -> None:
        """Show the open chat again (another version, a delete): the branch it shows now."""
        if conversation_id and conversation_id == self._current:
            summary = self.store.conversations.get(conversation_id)
            model = summary.model if summary and summary.model else AUTO
            self.conversation_loaded.emit(conversation_id, self.store.items(conversation_id), model)

    def select_conversation(self, conversation_id: str) -> None:
        """Open a saved conversation with its messages and its model."""
        if conversation_id == self._current:
            return
        from app.store import DamagedConversation

        summary = self.store.conversations.get(conversation_id)
        if summary is None:
            self.chats.refresh()
            return
        try:
            items = self.store.items(conversation_id)
        except DamagedConversation as exc:  # the chat shown stays; the others still open
            self.problem.emit(str(exc))
            return
        self._current = conversation_id
        self.conversation_loaded.emit(conversation_id, items, summary.model or AUTO)

    def delete_conversation(self, conversation_id: str) -> None:
        """Delete a conversation, stopping its turn first if one runs."""
        self._chore(self._delete(conversation_id))

    async def _delete(self, conversation_id: str) -> None:

        if self._turn.conversation_id == conversation_id:
            # The turn writes its "stopped" mark as it unwinds; let it, then delete.
            await self._turn.stopped()
        if conversation_id == self._current:
            self.new_conversation()
        self.chats.delete(conversation_id)  # hidden now, gone once its Undo is over

    def _restored(self, conversation_id: str) -> None:
        if not self._current:  # Undo brings the chat back into view if nothing else is open
            self.select_conversation(conversation_id)

    # -- turns -----------------------------------------------------------------

    @property
    def agents(self) -> list[ProviderConfig]:
        """The configured agents, which the picker offers beside the models."""
        return agents_of(self.config)

    def agent_offers(self) -> dict[str, AgentOffer]:
        """The models and modes each agent offered when it last started (for the picker)."""
        return dict(self._agents.offers)

    def needs_folder(self, model_ref: str) -> bool:
        """Whether the open chat must be given a working folder before `model_ref` answers
        (an agent, in a chat that has none yet)."""
        return agent_named(model_ref, self.config) is not None and self.folder() is None

    def folder(self, conversation_id: str | None = None) -> Path | None:
        """The working folder of a chat (the open one by default), if it has one."""
        chat = self._current if conversation_id is None else conversation_id
        return self._agents.folder(chat) if chat else self._new_chat_folder

    def set_folder(self, folder: Path) -> None:
        """The working folder the person chose for the open chat (a new one: once sent)."""
        if self._current:
            self._agents.choose_folder(self._current, folder)
        else:
            self._new_chat_folder = folder

    def send(self, text: str, model_ref: str, replacing: int | None = None) -> bool:
        """Start a turn with the person's words and attachments; False when none started.

        With `replacing` (a message of the person's being edited), the chat forks
        there: the new message is another version of it, and the old branch stays.
        """
        waiting = self.attaching.attachments
        if not (text.strip() or waiting.anything):
            return False
        if self.busy or self._runner is None:
            return False
        if waiting.reading:
            return False  # a file is still being read: it belongs with this message
        if not self._current:
            self._current = self.store.conversations.create(model=model_ref)
            folder, self._new_chat_folder = self._new_chat_folder, None
            if folder is not None and agent_named(model_ref, self.config) is not None:
                self._agents.choose_folder(self._current, folder)  # before the header shows
            self.versions.chat_created(self._current)
            self.conversation_loaded.emit(self._current, [], model_ref)
            self.chats.refresh()
        elif replacing is not None:
            edited = self.store.get_item(replacing)
            if edited is not None and edited.conversation_id == self._current:
                self.store.branches.rewind(self._current, edited.parent_id)
                self._reload(self._current)
        attached = self.attaching.take()
        text = text if text.strip() else ""  # attachments alone: no blank words with them
        runner, conversation_id = self._engine(model_ref), self._current

        from app.turn.turn_input import TurnInput

        def turn(tools: Sequence[Tool]) -> AsyncGenerator[TurnEvent, None]:
            pdfs = tuple(a.pdf for a in attached.pdfs)
            asked = TurnInput(conversation_id, text, attached.pictures, model_ref, tools, pdfs)
            return runner.run(asked)

        self._begin_turn(turn, text, attached)
        return True

    def _engine(self, model_ref: str) -> Engine:
        """What answers `model_ref`: the chat's agent engine for an agent, else the models'."""
        from app.turn.engine import engine_for

        assert self._runner is not None
        agent = self._agents.engine(self.config, self._catalogue, self._tool_step, self._prefs)
        return engine_for(model_ref, self.agents, self._runner, agent)

    def regenerate(self, item_id: int, model_ref: str) -> bool:
        """Answer the turn `item_id` belongs to again (a retry, for a failed one), as a
        new version beside the earlier answers; False when it can't now."""
        if self.busy or self._runner is None or not self._current:
            return False
        asked = self.versions.asked(self._current, item_id)
        if asked is None:
            return False
        if agent_named(model_ref, self.config) is not None:
            return self._ask_agent_again(asked, model_ref)
        # Shown at once without the earlier answer; the runner rewinds to the same place.
        self.store.branches.rewind(self._current, asked.id)
        self._reload(self._current)
        runner, conversation_id = self._runner, self._current

        def turn(tools: Sequence[Tool]) -> AsyncGenerator[TurnEvent, None]:
            return runner.regenerate(conversation_id, asked.id, model_ref, tools)

        from app.presenters.pending import Attachments

        self._begin_turn(turn, "", Attachments())
        return True

    def _ask_agent_again(self, asked: StoredItem, model_ref: str) -> bool:
        """An agent answers a turn again: its session can't forget the turn, so the person's
        message is sent to it once more, as another version of that message."""
        from app.presenters.pending import Attachments
        from routing.transcript import Message, PicturePart

        message = asked.item
        if not isinstance(message, Message):
            return False
        self.store.branches.rewind(self._current, asked.parent_id)
        self._reload(self._current)
        engine, conversation_id = self._engine(model_ref), self._current
        pictures = tuple(p.picture for p in message.parts if isinstance(p, PicturePart))
        from app.turn.turn_input import TurnInput

        def turn(tools: Sequence[Tool]) -> AsyncGenerator[TurnEvent, None]:
            asked = TurnInput(
                conversation_id, message.text, pictures, model_ref, tools, message.pdfs
            )
            return engine.run(asked)

        self._begin_turn(turn, "", Attachments())
        return True

    def _begin_turn(
        self,
        turn: Callable[[Sequence[Tool]], AsyncGenerator[TurnEvent, None]],
        text: str,
        attached: Attachments,
    ) -> None:
        self._turn.begin(self._current, turn, text, attached)

    def busy_here(self) -> bool:
        """Whether the open chat's turn is running (its messages can't change meanwhile)."""
        return self.busy and self._turn.conversation_id == self._current

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

    def earlier_pictures_leaving(self, model_ref: str) -> Leaving | None:
        """What of the open chat would first leave this computer if `model_ref` answered."""
        from app.turn.boundary import would_leave

        if self._catalogue is None:
            return None
        return would_leave(self.store, self._catalogue, self._current, model_ref)

    def decide_earlier_pictures(self, choice: str) -> None:
        """Keep the person's answer for the open chat's earlier pictures ("send"/"withhold")."""
        if self._current:
            self.store.crossings.set_earlier_pictures(self._current, choice)

    def model_answer(self, ref: str) -> ModelInfo | None:
        """The model's one answer now, lessons included (None: Auto, an agent, not listed)."""
        if self._catalogue is None or not ref.partition(":")[2]:
            return None
        return self._catalogue.find(ref)

    def learned_blind(self) -> frozenset[str]:
        """Models that refused pictures (in this or an earlier session)."""
        if self._catalogue is not None:
            return self._catalogue.blind
        return frozenset(self.store.learned.blind())

    def check_again(self, ref: str) -> None:
        """Forget that a model refused pictures; its listing says again whether it sees."""
        self.store.learned.forget_blind(ref)
        if self._catalogue is not None:
            self._catalogue.forget_blind(ref)
        self.refresh_models()

    def check_sight(self, ref: str) -> None:
        """Ask the model about a probe picture; its verdict becomes its sight (and is kept)."""
        if self._catalogue is not None and (model := self._catalogue.find(ref)) is not None:
            self._chore(self._check_sight(self._catalogue, model))

    async def _check_sight(self, catalogue: Catalogue, model: ModelInfo) -> None:
        from routing.sight_check import check_sight

        self.problem.emit(f"Checking whether {model.ref} sees pictures…")
        result = await check_sight(catalogue, model)
        endpoint, name = catalogue.learn_sight(model, result.verdict)
        self.store.learned.remember_check(endpoint, name, result.verdict, result.answer)
        words = {
            "sees": "sees pictures",
            "blind": "doesn't see pictures: they go to it in words",
            "unsure": "gave no clear answer, so it is treated as a model that can't see",
        }[result.verdict]
        self.problem.emit(f"Sight check: {model.ref} {words}.")
        self._lister.publish(catalogue, listing=False)

    def stop(self) -> None:
        """Stop the running turn; the words so far stay, marked stopped."""
        self._turn.stop()

    # -- tools -------------------------------------------------------------------

    async def _tools(self) -> list[Tool]:
        """Every tool a turn offers; the one place they are gathered (MCP servers start here)."""
        return await self.turn_tools.tools(self.config.mcp_config)

    async def _start_tools(self) -> None:
        await self._tools()

    async def approve(self, conversation_id: str, call: ToolCall, others: int = 0) -> Approval:
        """Ask the person, through the window's approval card, whether a call may run."""
        return await self._approvals.ask(conversation_id, call, others)

    def answer_approval(self, request: ApprovalRequest, answer: str) -> None:
        """The person's answer to a waiting call: "once", "step", "conversation" or "deny"."""
        from app.turn.tool_step import Approval

        self._approvals.answer(request.serial, Approval(answer))

    def waiting_approval(self, conversation_id: str) -> ApprovalRequest | None:
        """The call of this conversation that waits for the person, if any."""
        return self._approvals.waiting_in(conversation_id) if conversation_id else None

    def allowed_tools(self, conversation_id: str) -> frozenset[str]:
        """Tools the person allowed for the whole of this conversation."""
        step = self._tool_step
        return step.allowed_in(conversation_id) if step is not None else frozenset()

    def _give_back(self, text: str, attached: Attachments) -> None:
        self.draft_restored.emit(text)
        self.attaching.give_back(attached)
