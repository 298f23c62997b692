"""The agents Settings edits, and the `[[providers]]` tables new ones become.

An agent pasted in Settings → Agents (app/agent_servers.py) or already in the
config file is an `AgentDraft` until Save; then a new one's table (kind "acp",
its command, args and env) is written into the config file, keeping the rest.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import tomlkit
from tomlkit.items import AoT, Table

from app.agent_servers import PastedAgent
from app.config import ConfigError
from app.config_file import read_config_document, write_config_text
from routing.models import ProviderConfig
from routing.secrets import register_env


@dataclass
class AgentDraft:
    """One agent as Settings edits it; nothing is written until Save."""

    id: str
    command: str
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = field(default=(), repr=False)  # may hold secrets
    local: bool = False  # its own model runs on this computer
    enabled: bool = True
    saved: bool = False  # in the config file: its table (model, env, …) is kept as it is
    kind: str = "acp"  # or "codex", written in the file by hand: kept as it is
    model_provider: str = ""

    def to_config(self) -> ProviderConfig:
        """The agent as the config file keeps it."""
        same = {name: getattr(self, name) for name in _KEPT_AS_IS}
        return ProviderConfig(base_url="", local=self.local, **same)


# What a draft and a configured agent hold alike, under the same names.
_KEPT_AS_IS = ("id", "kind", "enabled", "command", "args", "env", "model_provider")


def agent_draft_from(provider: ProviderConfig) -> AgentDraft:
    """A draft of a configured agent."""
    same = {name: getattr(provider, name) for name in _KEPT_AS_IS}
    return AgentDraft(local=provider.is_local, saved=True, **same)


def draft_of(agent: PastedAgent) -> AgentDraft:
    """A draft of a pasted agent, not yet in the config file (its model elsewhere); its
    env values are secrets from now on."""
    register_env(agent.env)  # it may print them in its log
    return AgentDraft(id=agent.id, command=agent.command, args=agent.args, env=agent.env)


def agent_table(agent: AgentDraft) -> Table:
    """The `[[providers]]` table of a new agent, as the issue writes one."""
    table = tomlkit.table()
    table["id"] = agent.id
    table["kind"] = "acp"
    table["command"] = agent.command
    if agent.args:
        table["args"] = list(agent.args)
    if agent.env:
        env = tomlkit.inline_table()
        env.update(dict(agent.env))
        table["env"] = env
    table["local"] = agent.local
    return table


def write_new_agents(path: Path, agents: Iterable[AgentDraft]) -> None:
    """Put the tables of agents added in Settings into the config file; the rest stays.

    Runs before app.config_file.save_providers, which keeps a table it finds by id
    (so the command, args and env written here survive it) and then writes the
    order, `enabled` and `local`. A table of the same id (a removed provider whose
    name was reused) is replaced, so the file never holds an id twice.
    """
    new = [a for a in agents if not a.saved]
    if not new:
        return
    document = read_config_document(path)
    existing = document.get("providers")
    if existing is not None and not isinstance(existing, AoT):
        raise ConfigError(
            "providers is not written as [[providers]] tables, so agents can't be added to "
            "it here; write each provider as a [[providers]] table",
            source=str(path),
        )
    tables = list(existing) if existing is not None else []
    for agent in new:
        tables = [t for t in tables if t.get("id", t.get("kind")) != agent.id]
        tables.append(agent_table(agent))
    if "providers" in document:
        del document["providers"]
    document.append("providers", AoT(tables))
    write_config_text(path, tomlkit.dumps(document))  # whole, 0600
