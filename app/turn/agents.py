"""`AgentEngines`: the engines that are programs, each turn to its agent's kind.

An ACP agent (kind "acp") runs in `AcpEngine`, Codex's app server (kind "codex") in
`CodexEngine`; `sightline ask` and the window hold one `AgentEngines` and never ask
which. Each engine is made on its kind's first turn in a working folder (neither SDK nor
process is loaded for a kind nobody uses); the chat's folder is kept with it
(app/turn/agent_folder.py). Both get Sightline's own tools: the ACP agent through the
door it is offered, Codex as dynamic tools.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from app.store import Store
from app.tools.base import Tool
from app.tools.mcp.config import McpServerConfig
from app.turn.agent_folder import AgentFolders
from app.turn.engine import agent_for
from app.turn.events import TurnEvent
from app.turn.tool_step import DenyAll, ToolStep
from app.turn.turn_input import TurnInput
from routing.agent_offers import AgentOffer
from routing.catalogue import Catalogue
from routing.models import ProviderConfig
from routing.router import RoutingPrefs

if TYPE_CHECKING:
    from app.turn.acp.engine import AcpEngine
    from app.turn.codex.engine import CodexEngine

log = logging.getLogger(__name__)


def sightline_tools() -> list[Tool]:
    """Sightline's own tools, offered to every agent."""
    from app.tools.read_file import ReadFile
    from app.tools.screenshot import Screenshot

    return [ReadFile(), Screenshot()]


class AgentEngines:
    """Runs turns with the agents of the config, whichever their kind."""

    def __init__(
        self,
        store: Store,
        agents: Sequence[ProviderConfig],
        catalogue: Catalogue | None = None,
        tool_step: ToolStep | None = None,
        *,
        prefs: RoutingPrefs | None = None,
        mcp_servers: Sequence[McpServerConfig] = (),
        folders: AgentFolders | None = None,
        denied_hint: str = "",
    ) -> None:
        self.store = store
        self.agents = list(agents)
        self.catalogue = catalogue
        self.tool_step = tool_step or ToolStep(DenyAll())
        self.prefs = prefs or RoutingPrefs()
        self.mcp_servers = list(mcp_servers)
        # Each chat's working folder (headless, a chat with none works where it runs).
        self.folders = folders or AgentFolders(store, Path.cwd())
        self.denied_hint = denied_hint
        self._acp: dict[Path, AcpEngine] = {}  # an engine starts its agents in one folder
        self._codex: dict[Path, CodexEngine] = {}
        # What each agent offered when it last started (its models, an ACP agent's modes).
        self.offered: dict[str, AgentOffer] = {}

    async def aclose(self) -> None:
        """End every program these engines started."""
        engines: list[AcpEngine | CodexEngine] = [*self._acp.values(), *self._codex.values()]
        self._acp, self._codex = {}, {}
        for engine in engines:
            try:
                await engine.aclose()
            except Exception:  # one agent that won't end must not keep the others running
                log.exception("an agent did not end cleanly")

    async def run(self, asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        """The turn, by the engine of the named agent's kind (ACP when none is named: it
        says there is no such agent), in the chat's folder, which the person's message
        keeps when the chat keeps none yet."""
        agent = agent_for(asked.requested_model, self.agents)
        agent_id = agent.id if agent is not None else asked.requested_model
        folder, carried = self.folders.for_turn(asked.conversation_id, agent_id)
        codex = agent is not None and agent.kind == "codex"
        engine = self._codex_engine(folder) if codex else self._acp_engine(folder)
        turn = engine.run(replace(asked, tools=(), carried=carried))
        try:
            async with aclosing(turn) as events:
                async for event in events:
                    yield event
        finally:
            self.offered.update(engine.offered)

    def _acp_engine(self, folder: Path) -> AcpEngine:
        from app.turn.acp.engine import AcpEngine

        engine = self._acp.get(folder)
        if engine is None:
            engine = self._acp[folder] = AcpEngine(
                self.store,
                [a for a in self.agents if a.kind == "acp"],
                self.catalogue,
                self.tool_step,
                prefs=self.prefs,
                mcp_servers=self.mcp_servers,
                cwd=folder,
                denied_hint=self.denied_hint,
            )
        engine.catalogue, engine.prefs = self.catalogue, self.prefs  # today's, if changed
        return engine

    def _codex_engine(self, folder: Path) -> CodexEngine:
        from app.turn.codex.engine import CodexEngine

        engine = self._codex.get(folder)
        if engine is None:
            engine = self._codex[folder] = CodexEngine(
                self.store,
                self.agents,
                self.tool_step,
                cwd=folder,
                denied_hint=self.denied_hint,
                tools=sightline_tools(),
                catalogue=self.catalogue,
                prefs=self.prefs,
            )
        engine.catalogue, engine.prefs = self.catalogue, self.prefs  # today's, if changed
        return engine
