"""Agents in the window: which refs are agents, each chat's working folder, its engine.

An agent works in a folder of the person's choosing, asked when a chat with it
starts. The folder is kept with the chat as a `CarriedPart` on the person's first
message to the agent (shape `FOLDER`): the chat's settings JSON keeps only the
model parameters it checks, and a part needs no new store column. Every chat has
its own `AgentEngines`, because an engine starts its agents in one folder;
its agents keep running between turns and end when the window closes.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from routing.transcript import CarriedPart, Message  # loaded by the store: costs nothing here

if TYPE_CHECKING:
    from PySide6.QtWidgets import QFileDialog, QWidget

    from app.config import Config
    from app.store import Store
    from app.tools.mcp.config import McpServerConfig
    from app.turn.agents import AgentEngines
    from app.turn.events import TurnEvent
    from app.turn.tool_step import ToolStep
    from app.turn.turn_input import TurnInput
    from routing.agent_refs import AgentOffer
    from routing.catalogue import Catalogue
    from routing.models import ProviderConfig
    from routing.router import RoutingPrefs

log = logging.getLogger(__name__)

FOLDER = "acp_folder"  # CarriedPart shape: the chat's working folder, {"cwd": path}


def agents_of(config: Config) -> list[ProviderConfig]:
    """The configured agents the picker offers."""
    from app.config import agent_providers

    return agent_providers(config)


def agent_named(ref: str, config: Config) -> ProviderConfig | None:
    """The agent `ref` names (`AGENT` or `AGENT:MODEL`), or None for a model."""
    from app.turn.engine import agent_for

    return agent_for(ref, agents_of(config))


class AgentTurns:
    """The window's agent engines, one per chat, and the chats' working folders."""

    def __init__(self, store: Store) -> None:
        """Nothing started: an engine is made on a chat's first agent turn."""
        self.store = store
        self._engines: dict[str, AgentEngines] = {}
        self._folders: dict[str, Path] = {}  # chosen, not yet stored with a message
        # What each agent offered when it last started: its models and modes, for the picker.
        self.offers: dict[str, AgentOffer] = {}

    def folder(self, conversation_id: str) -> Path | None:
        """The chat's working folder: chosen now, or kept with its messages."""
        if not conversation_id:
            return None
        if conversation_id in self._folders:
            return self._folders[conversation_id]
        for message in self.store.messages(conversation_id):
            for part in message.parts:
                if isinstance(part, CarriedPart) and part.shape == FOLDER:
                    cwd = part.data.get("cwd")
                    if isinstance(cwd, str) and cwd:
                        self._folders[conversation_id] = Path(cwd)
                        return self._folders[conversation_id]
        return None

    def choose_folder(self, conversation_id: str, folder: Path) -> None:
        """The folder the person chose for this chat; stored with its next message."""
        self._folders[conversation_id] = folder

    def engine(
        self,
        config: Config,
        catalogue: Catalogue | None,
        tool_step: ToolStep | None,
        prefs: RoutingPrefs | None,
    ) -> ChatAgent:
        """An engine for a chat's next agent turn (see `ChatAgent`)."""
        return ChatAgent(self, config, catalogue, tool_step, prefs)

    async def _engine_for(
        self,
        conversation_id: str,
        config: Config,
        catalogue: Catalogue | None,
        tool_step: ToolStep | None,
        prefs: RoutingPrefs | None,
    ) -> AgentEngines:
        """The chat's engine, made again when the agents or the folder changed."""
        from app.turn.agents import AgentEngines

        agents = agents_of(config)
        cwd = self.folder(conversation_id) or Path.home()
        engine = self._engines.get(conversation_id)
        if engine is not None and (engine.agents != agents or engine.cwd != cwd):
            self._engines.pop(conversation_id)
            await engine.aclose()
            engine = None
        if engine is None:
            engine = AgentEngines(
                self.store,
                agents,
                catalogue,
                tool_step,
                prefs=prefs,
                mcp_servers=_mcp_servers(config),
                cwd=cwd,
            )
            self._engines[conversation_id] = engine
        # Settings may have given the window a new catalogue and preferences since: pictures
        # are described with today's.
        engine.catalogue = catalogue
        if prefs is not None:
            engine.prefs = prefs
        return engine

    def _keep_folder(self, stored_id: int, conversation_id: str, agent_id: str) -> None:
        """Store the chosen folder on the person's message, unless one is stored already."""
        folder = self._folders.get(conversation_id)
        if folder is None or _stored_folder(self.store.messages(conversation_id)):
            return
        self.store.add_part(stored_id, CarriedPart(FOLDER, agent_id, {"cwd": str(folder)}))

    async def aclose(self) -> None:
        """End every agent the chats started."""
        engines, self._engines = list(self._engines.values()), {}
        for engine in engines:
            try:
                await engine.aclose()
            except Exception:  # one agent that won't end must not keep the others running
                log.exception("an agent did not end cleanly")


class ChatAgent:
    """One chat's agent turn as an `Engine`: the chat's engine, its folder kept on the way."""

    def __init__(
        self,
        turns: AgentTurns,
        config: Config,
        catalogue: Catalogue | None,
        tool_step: ToolStep | None,
        prefs: RoutingPrefs | None,
    ) -> None:
        """What the engine is made with when the turn starts."""
        self._turns = turns
        self._made = (config, catalogue, tool_step, prefs)

    async def run(self, asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        """The agent's turn; the person's message, once stored, keeps the chat's folder."""
        from contextlib import aclosing

        from app.turn.engine import agent_for
        from app.turn.events import ItemAdded

        conversation_id = asked.conversation_id
        engine = await self._turns._engine_for(conversation_id, *self._made)
        agent = agent_for(asked.requested_model, engine.agents)
        agent_id = agent.id if agent is not None else asked.requested_model
        kept = False
        turn = engine.run(asked)
        try:
            async with aclosing(turn) as events:
                async for event in events:
                    if not kept and isinstance(event, ItemAdded):
                        item = event.item.item
                        if isinstance(item, Message) and item.role == "user":
                            kept = True
                            self._turns._keep_folder(event.item.id, conversation_id, agent_id)
                    yield event
        finally:
            self._turns.offers.update(engine.offered)


def _stored_folder(messages: Sequence[Message]) -> bool:
    return any(
        isinstance(part, CarriedPart) and part.shape == FOLDER
        for message in messages
        for part in message.parts
    )


def _mcp_servers(config: Config) -> list[McpServerConfig]:
    """The person's MCP servers, given to the agent at `session/new` (a broken file: none;
    the window already says what is wrong with it when its tools are gathered)."""
    from app.tools.mcp.config import McpConfigError, load_mcp_servers

    if config.mcp_config is None:
        return []
    try:
        return list(load_mcp_servers(config.mcp_config))
    except McpConfigError as exc:
        log.info("the agent gets no MCP servers: %s", exc)
        return []


def ask_folder(
    parent: QWidget, agent_id: str, chosen: Callable[[Path], None], start: Path | None = None
) -> QFileDialog:
    """Ask, without blocking the window, which folder the agent works in (the person's
    home to begin with); `chosen` is called with it, and nothing happens on Cancel."""
    from PySide6.QtWidgets import QFileDialog

    dialog = QFileDialog(
        parent, f"Which folder does {agent_id} work in?", str(start or Path.home())
    )
    dialog.setFileMode(QFileDialog.FileMode.Directory)
    dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
    dialog.setLabelText(QFileDialog.DialogLabel.Accept, "Work here")
    dialog.setAccessibleName("Working folder")
    dialog.fileSelected.connect(lambda path: chosen(Path(path)))
    dialog.finished.connect(dialog.deleteLater)
    dialog.open()  # never exec(): the window's asyncio runs on Qt's loop (qasync)
    return dialog
