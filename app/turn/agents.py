"""`AgentEngines`: the engines that are programs, each turn to its agent's kind.

An ACP agent (kind "acp") runs in `AcpEngine`, Codex's app server (kind "codex") in
`CodexEngine`; `sightline ask` and the window hold one `AgentEngines` and never ask
which. Each engine is made on its kind's first turn (neither SDK nor process is
loaded for a kind nobody uses). Both get Sightline's own tools: the ACP agent through
the door it is offered, Codex as dynamic tools.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from app.store import Store
from app.tools.base import Tool
from app.tools.mcp.config import McpServerConfig
from app.turn.engine import agent_for
from app.turn.events import TurnEvent
from app.turn.tool_step import DenyAll, ToolStep
from app.turn.turn_input import TurnInput
from routing.agent_refs import AgentOffer
from routing.catalogue import Catalogue
from routing.models import ProviderConfig
from routing.router import RoutingPrefs

if TYPE_CHECKING:
    from app.turn.acp.engine import AcpEngine
    from app.turn.codex.engine import CodexEngine


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
        cwd: Path | None = None,
        denied_hint: str = "",
    ) -> None:
        self.store = store
        self.agents = list(agents)
        self.catalogue = catalogue
        self.tool_step = tool_step or ToolStep(DenyAll())
        self.prefs = prefs or RoutingPrefs()
        self.mcp_servers = list(mcp_servers)
        self.cwd = cwd or Path.cwd()  # the chat's working folder (headless: where it runs)
        self.denied_hint = denied_hint
        self._acp: AcpEngine | None = None
        self._codex: CodexEngine | None = None

    @property
    def offered(self) -> dict[str, AgentOffer]:
        """What each agent offered when it last started (its models, an ACP agent's modes)."""
        offers: dict[str, AgentOffer] = {}
        for engine in (self._acp, self._codex):
            if engine is not None:
                offers.update(engine.offered)
        return offers

    async def aclose(self) -> None:
        """End every program these engines started."""
        engines = [e for e in (self._acp, self._codex) if e is not None]
        self._acp = self._codex = None
        for engine in engines:
            await engine.aclose()

    async def run(self, asked: TurnInput) -> AsyncGenerator[TurnEvent, None]:
        """The turn, by the engine of the named agent's kind (ACP when none is named: it
        says there is no such agent)."""
        agent = agent_for(asked.requested_model, self.agents)
        engine = self._codex_engine() if agent and agent.kind == "codex" else self._acp_engine()
        turn = engine.run(replace(asked, tools=()))
        async with aclosing(turn) as events:
            async for event in events:
                yield event

    def _acp_engine(self) -> AcpEngine:
        from app.turn.acp.engine import AcpEngine

        if self._acp is None:
            self._acp = AcpEngine(
                self.store,
                [a for a in self.agents if a.kind == "acp"],
                self.catalogue,
                self.tool_step,
                prefs=self.prefs,
                mcp_servers=self.mcp_servers,
                cwd=self.cwd,
                denied_hint=self.denied_hint,
            )
        self._acp.catalogue, self._acp.prefs = self.catalogue, self.prefs  # today's, if changed
        return self._acp

    def _codex_engine(self) -> CodexEngine:
        from app.turn.codex.engine import CodexEngine

        if self._codex is None:
            self._codex = CodexEngine(
                self.store,
                self.agents,
                self.tool_step,
                cwd=self.cwd,
                denied_hint=self.denied_hint,
                tools=sightline_tools(),
                catalogue=self.catalogue,
                prefs=self.prefs,
            )
        self._codex.catalogue, self._codex.prefs = self.catalogue, self.prefs  # today's
        return self._codex
