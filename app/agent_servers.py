"""The `agent_servers` JSON that Zed uses, read as pasted, and the agents it becomes.

Settings → Agents takes what people copy from their Zed settings.json:
`{"agent_servers": {"My Agent": {"command": "opencode", "args": ["acp"], "env": {}}}}`
(other top-level keys, such as the rest of a Zed settings file, are ignored), or
the bare inner object `{"My Agent": {...}}`. Zed's settings allow `//` and `/* */`
comments and trailing commas, so those are read too.

An entry with a `command` becomes an agent: a `[[providers]]` table of kind
"acp" in the config file (app/config.py). An entry Zed starts by its name alone
(`"gemini": {}`, `"claude": {"default_mode": "plan"}`) has no program Sightline
could start: it is skipped with words saying why, and the rest are still read.

A problem with the text as a whole is said in the one style of app/config_check.py
(`pasted text, line 4, column 5: not valid JSON: …`); an entry that can't be started
is skipped with the same words for its key (`args must be a list of strings, …`).
Nothing here runs a command: app/agent_commands.py only looks for it. `env` values
may hold tokens, so they are never logged, never part of a message, and shown
masked; an agent's are registered for redaction once it is added
(app/agent_drafts.py `draft_of`), as a configured agent's are when the config is read.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.agent_commands import command_status, shown_command
from app.config_check import (
    ID_PATTERN,
    PASTED,
    SettingsError,
    environment,
    kind_of,
    must_be,
    problem,
    text,
    texts,
)
from app.json_text import read_json

MAX_PASTE_BYTES = 256 * 1024  # a Zed settings file is a few KB; this bounds what is read
_UNSAFE = re.compile(r"[^a-z0-9_.-]+")
_MCP_KEYS = ("context_servers", "mcpServers")
EXAMPLE = '{"agent_servers": {"My Agent": {"command": "opencode", "args": ["acp"]}}}'


@dataclass(frozen=True)
class PastedAgent:
    """One entry of the pasted JSON that Sightline can start, with the id it gets."""

    name: str  # as Zed names it
    id: str  # the config file's id: derived from the name, unique
    command: str
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = field(default=(), repr=False)  # may hold secrets


@dataclass(frozen=True)
class Skipped:
    """An entry that can't become an agent, and why in plain words."""

    name: str
    reason: str


@dataclass(frozen=True)
class AgentPaste:
    """What the pasted text holds: the agents, the entries skipped, or what is wrong."""

    agents: tuple[PastedAgent, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    error: str = ""
    position: tuple[int, int] | None = None  # (line, column) where the JSON breaks
    empty: bool = False  # nothing pasted

    @property
    def ok(self) -> bool:
        """Whether there are agents to add."""
        return not self.error and not self.empty and bool(self.agents)

    def words(self, environ: Mapping[str, str] = os.environ) -> str:
        """The result for the person: one line per entry, or what is wrong."""
        if self.error:
            return self.error
        if self.empty:
            return "Nothing pasted yet. Paste the agent_servers JSON from Zed's settings."
        count = len(self.agents)
        rows: list[str] = []
        missing = 0
        for agent in self.agents:
            found, where = command_status(agent.command, agent.env, environ)
            missing += not found
            names = len(agent.env)
            extra = f", with {names} environment variable{'s' * (names != 1)}" if names else ""
            line = shown_command(agent.command, agent.args)
            rows.append(f"• “{agent.name}” as {agent.id}: {line}{extra} — {where}")
        for skipped in self.skipped:
            rows.append(f"• “{skipped.name}” is skipped: {skipped.reason}")
        if not count:
            head = "Found no agent Sightline can start:"
        else:
            head = f"Found {count} agent{'s' * (count != 1)}"
            head += f"; {missing} can't start here yet:" if missing else ":"
        return "\n".join([head, *rows])


def read_agent_servers(text: str, taken: Iterable[str] = ()) -> AgentPaste:
    """Read pasted `agent_servers` JSON; `taken` are the ids already in use."""
    if not text.strip():
        return AgentPaste(empty=True)
    try:
        servers = _servers(text)
    except SettingsError as exc:
        error = SettingsError.said_of(exc, PASTED)
        return AgentPaste(error=str(error), position=error.position)
    used = set(taken)
    agents: list[PastedAgent] = []
    skipped: list[Skipped] = []
    for name, entry in servers.items():
        try:
            command, args, env = _program(name, entry)
        except SettingsError as exc:
            skipped.append(Skipped(name, exc.problem))
            continue
        agent_id = unique_id(agent_id_for(name), used)
        used.add(agent_id)
        agents.append(PastedAgent(name, agent_id, command, args, env))
    return AgentPaste(agents=tuple(agents), skipped=tuple(skipped))


def _servers(text: str) -> dict[str, Any]:
    """The object of agents: under `agent_servers`, or the pasted object itself."""
    if len(text) > MAX_PASTE_BYTES or len(text.encode("utf-8", "replace")) > MAX_PASTE_BYTES:
        raise SettingsError(
            f"over {MAX_PASTE_BYTES // 1024} KiB, far more than agent_servers needs; paste "
            "only the agent_servers part of Zed's settings"
        )
    value = read_json(text, comments=True)
    if not isinstance(value, dict):
        raise problem((), f"the JSON must be an object like {EXAMPLE}, not {kind_of(value)}")
    if "agent_servers" in value:
        servers = {} if value["agent_servers"] is None else value["agent_servers"]
        if not isinstance(servers, dict):
            raise must_be(("agent_servers",), "an object of agents by name", servers)
    elif mcp := next((key for key in _MCP_KEYS if key in value), None):
        raise problem(
            (mcp,),
            "holds MCP servers, which go in Settings → Tools; agents are the agent_servers "
            "part of Zed's settings",
        )
    elif odd := next((name for name, entry in value.items() if not isinstance(entry, dict)), None):
        raise problem(
            (odd,),
            "is not an agent, and there is no agent_servers here; paste the agent_servers "
            f"part of Zed's settings, like {EXAMPLE}",
        )
    else:
        servers = value
    if not servers:
        raise problem(("agent_servers",), "names no agent (the JSON is fine)")
    return servers


_Program = tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]  # command, args, env


def _program(name: str, entry: Any) -> _Program:
    """(command, args, env) of an entry that can start; SettingsError saying why not."""
    if not name.strip():
        raise problem((), "it has no name")
    if not isinstance(entry, dict):
        raise problem(
            (),
            f'it must be an object like {{"command": "opencode", "args": ["acp"]}}, '
            f"not {kind_of(entry)}",
        )
    command = text(entry, (), "command").strip()
    if not command:
        raise problem(
            (),
            "it has no command: Zed starts this agent itself; for Sightline to start it, "
            'give it a "command" (and "args") as for a custom agent',
        )
    if any(not c.isprintable() for c in command):
        raise problem(("command",), "holds a line break or another control character")
    args = texts(entry, (), "args", what='a list of strings, like ["acp"]')
    env = environment(entry, (), "env", what='an object of strings, like {"NAME": "value"}')
    if command.startswith("~"):  # Zed expands it; the agent is started without a shell
        command = os.path.expanduser(command)
    return command, args, tuple(env.items())


# -- ids -------------------------------------------------------------------------------


def agent_id_for(name: str) -> str:
    """A config id from an agent's name: lowercase, spaces as dashes, only safe characters."""
    plain = unicodedata.normalize("NFKD", name)
    plain = "".join(c for c in plain if not unicodedata.combining(c)).lower()
    plain = re.sub(r"\s+", "-", plain.strip())
    plain = _UNSAFE.sub("", plain)  # the colon of `provider:model` among them
    plain = re.sub(r"-{2,}", "-", plain)
    plain = plain.lstrip("_.-").rstrip(".-")[:40].rstrip(".-")
    return plain if ID_PATTERN.match(plain) else "agent"


def unique_id(base: str, taken: Iterable[str]) -> str:
    """`base`, else `base-2`, `base-3`, …: the first id not taken."""
    used = set(taken)
    if base not in used:
        return base
    number = 2
    while f"{base}-{number}" in used:
        number += 1
    return f"{base}-{number}"
