"""One set-up for the window and `sightline ask`: Sightline's core objects, built from the config.

The window's controller and the commands ask an `Assembly` for what a turn needs — the
store, the providers with their keys, the catalogue with what the store learned, the tool
step, the model turns' runner and the agent engines — and build none of them themselves,
so a turn is answered alike wherever it was asked. Who holds what is the caller's: the
window keeps one tool step for its life and a new catalogue for new settings, `ask` builds
each once.

Qt-free, and light to import: the window makes its `Assembly` before its first paint, so
the turn, the wires and the keyring load inside the methods that first need them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.config import Config
    from app.keys import KeyStore
    from app.store import Store
    from app.tools.mcp.config import McpServerConfig
    from app.turn.agent_folder import AgentFolders
    from app.turn.agents import AgentEngines
    from app.turn.engine import Engine
    from app.turn.runner import TurnRunner
    from app.turn.tool_step import Approver, ToolStep
    from routing.catalogue import Catalogue
    from routing.chat_settings import ChatSettings
    from routing.models import ProviderConfig
    from routing.router import RoutingPrefs


class Assembly:
    """What the window and the commands are built from: the config, the store, the keys."""

    def __init__(
        self, config: Config, store: Store | None = None, environ: Mapping[str, str] = os.environ
    ) -> None:
        """Nothing is built yet (`store` None: a command that keeps nothing, such as the door)."""
        self.config = config  # the window's is replaced by new settings
        self._store = store
        self.environ = environ
        self._keys: KeyStore | None = None  # made on first use: see `keys`

    @classmethod
    def open(cls, config: Config, environ: Mapping[str, str] = os.environ) -> Assembly:
        """The set-up over the config's store, opened (a `StoreError` when it can't be)."""
        from app.store import Store

        return cls(config, Store.open(config.data_dir), environ)

    @property
    def store(self) -> Store:
        """The conversations' store."""
        assert self._store is not None, "this set-up was made without a store"
        return self._store

    @property
    def keys(self) -> KeyStore:
        """The keys: one per run, as a key kept for the session lives here."""
        if self._keys is None:
            from app.keys import KeyStore  # loads routing.models: after the first paint

            self._keys = KeyStore(self.config.data_dir)
        return self._keys

    @property
    def config_path(self) -> Path:
        """The config file settings are saved to (it may not exist yet)."""
        from app import paths

        return self.config.source or paths.config_file(self.environ)

    # -- who answers -------------------------------------------------------------

    @property
    def agents(self) -> list[ProviderConfig]:
        """The configured agents, which the picker and `--model` offer beside the models."""
        from app.config import agent_providers

        return agent_providers(self.config)

    def agent_named(self, ref: str) -> ProviderConfig | None:
        """The agent `ref` names (`AGENT[:MODEL][#MODE]`), or None for a model."""
        from app.turn.engine import agent_for

        return agent_for(ref, self.agents)

    def providers(self) -> list[ProviderConfig]:
        """The providers in use, each with its key (the keyring may wait on D-Bus or an
        unlock prompt: the window calls this off its thread)."""
        from app.config import effective_providers
        from app.keys import with_keys

        wanted = effective_providers(self.config, self.environ)
        return with_keys(wanted, self.keys, self.environ)

    def catalogue(self, providers: Sequence[ProviderConfig] | None = None) -> Catalogue:
        """Every provider's models (`providers`, else those in use), answered with what the
        store learned of them: refusals, sight checks, the person's marks, context windows."""
        from routing.catalogue import Catalogue

        chosen = self.providers() if providers is None else list(providers)
        if self._store is None:
            return Catalogue(chosen)
        learned = self._store.learned
        return Catalogue(
            chosen,
            blind=learned.blind(),
            checked=learned.checks(),
            refused=learned.refused(),
            windows=learned.windows(),
            marked=learned.marked(),
        )

    @property
    def prefs(self) -> RoutingPrefs:
        """The person's routing preferences: Auto and the cloud, who looks, the sight check."""
        from routing.router import RoutingPrefs

        config = self.config
        return RoutingPrefs(config.auto_may_use_cloud, config.vision_model, config.check_sight)

    @property
    def defaults(self) -> ChatSettings:
        """Settings' own for every chat: the system prompt, and what a chat does once it
        outgrows its model's window."""
        from routing.chat_settings import ChatSettings

        return ChatSettings(
            system_prompt=self.config.system_prompt or None, overflow=self.config.context_overflow
        )

    # -- what runs a turn --------------------------------------------------------

    def tool_step(
        self,
        approver: Approver,
        *,
        kept: bool = False,
        withheld: Callable[[str], bool] = lambda name: False,
    ) -> ToolStep:
        """Tool calls asked of `approver`; with `kept`, "Allow in this chat" is kept with
        the chat in the store (the window's step; it applies Settings' always-allowed
        tools itself, as they change)."""
        from app.turn.tool_step import ToolStep

        grants = self.store.grants if kept else None
        return ToolStep(approver, grants=grants, withheld=withheld)

    def runner(self, catalogue: Catalogue, tool_step: ToolStep) -> TurnRunner:
        """The model turns' engine over `catalogue`."""
        from app.turn.runner import TurnRunner

        return TurnRunner(
            self.store, catalogue, tool_step, prefs=self.prefs, defaults=self.defaults
        )

    def mcp_servers(self, source: Path | None = None) -> list[McpServerConfig]:
        """The person's MCP servers (`source`, else the config's), which an agent is given
        when its session starts; `McpConfigError` when the file is broken."""
        from app.tools.mcp.config import load_mcp_servers

        chosen = source or self.config.mcp_config
        return list(load_mcp_servers(chosen)) if chosen is not None else []

    def agent_engines(
        self,
        catalogue: Catalogue | None,
        tool_step: ToolStep,
        folders: AgentFolders,
        *,
        mcp_servers: Sequence[McpServerConfig] = (),
        denied_hint: str = "",
    ) -> AgentEngines:
        """The agents' engines, each chat's agent working in the folder `folders` keeps."""
        from app.turn.agents import AgentEngines

        return AgentEngines(
            self.store,
            self.agents,
            catalogue,
            tool_step,
            prefs=self.prefs,
            mcp_servers=mcp_servers,
            folders=folders,
            denied_hint=denied_hint,
        )

    def folders(self, default: Path) -> AgentFolders:
        """Each chat's working folder, `default` for a chat that has none yet."""
        from app.turn.agent_folder import AgentFolders

        return AgentFolders(self.store, default)

    def engine(self, ref: str, runner: Engine, agents: Engine | None) -> Engine:
        """What answers `ref`: the agents' engines for an agent, else the models' runner."""
        return agents if agents is not None and self.agent_named(ref) is not None else runner
