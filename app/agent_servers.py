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

Nothing here runs a command: `command_status` only looks for it. `env` values may
hold tokens, so they are never logged, never part of a message, and shown masked;
an agent's are registered for redaction once it is added (`draft_of`), as a
configured agent's are when the config is read.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.items import AoT, Table

from app.config import ConfigError
from app.config_file import write_config_text
from routing.json_kinds import json_kind
from routing.models import ProviderConfig
from routing.secrets import register_env

MAX_PASTE_BYTES = 256 * 1024  # a Zed settings file is a few KB; this bounds what is read
MASK = "•••"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")  # the config file's rule (app.config)
_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
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


# -- reading the paste ---------------------------------------------------------------


class _Broken(ValueError):
    """The pasted text can't be read as a whole; the message says why and where."""

    def __init__(self, message: str, position: tuple[int, int] | None = None) -> None:
        super().__init__(message)
        self.position = position


def read_agent_servers(text: str, taken: Iterable[str] = ()) -> AgentPaste:
    """Read pasted `agent_servers` JSON; `taken` are the ids already in use."""
    if not text.strip():
        return AgentPaste(empty=True)
    if len(text) > MAX_PASTE_BYTES or len(text.encode("utf-8", "replace")) > MAX_PASTE_BYTES:
        return AgentPaste(
            error=f"The pasted text is over {MAX_PASTE_BYTES // 1024} KiB, far more than "
            "agent_servers needs: paste only the agent_servers part of Zed's settings."
        )
    try:
        servers = _servers(_loaded(text))
    except _Broken as exc:
        return AgentPaste(error=str(exc), position=exc.position)
    used = set(taken)
    agents: list[PastedAgent] = []
    skipped: list[Skipped] = []
    for name, entry in servers.items():
        problem, agent = _entry(name, entry)
        if agent is None:
            skipped.append(Skipped(name, problem))
            continue
        agent_id = unique_id(agent_id_for(name), used)
        used.add(agent_id)
        agents.append(PastedAgent(name, agent_id, *agent))
    if not agents and not skipped:
        return AgentPaste(error="The JSON is fine, but agent_servers names no agent.")
    return AgentPaste(agents=tuple(agents), skipped=tuple(skipped))


def _loaded(text: str) -> Any:
    """The JSON value of text that may hold comments and trailing commas."""
    plain = without_trailing_commas(without_comments(text))
    try:
        return json.loads(plain)
    except json.JSONDecodeError as exc:
        hint = ' (JSON needs "double quotes")' if plain[exc.pos : exc.pos + 1] == "'" else ""
        raise _Broken(
            f"Not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}{hint}.",
            (exc.lineno, exc.colno),
        ) from None
    except RecursionError:
        raise _Broken("The JSON is nested too deeply to be agent_servers.") from None
    except ValueError:  # a number of thousands of digits, which Python won't read
        raise _Broken("The JSON holds a number too long to read.") from None


def _servers(value: Any) -> dict[str, Any]:
    """The object of agents: under `agent_servers`, or the pasted object itself."""
    if not isinstance(value, dict):
        raise _Broken(f"The JSON must be an object like {EXAMPLE}, not {json_kind(value)}.")
    if "agent_servers" in value:
        servers = value["agent_servers"]
        if servers is None:
            return {}
        if not isinstance(servers, dict):
            raise _Broken(
                f"agent_servers must be an object of agents by name, not {json_kind(servers)}."
            )
        return servers
    mcp = next((key for key in _MCP_KEYS if key in value), None)
    if mcp is not None:
        raise _Broken(
            f"This is {mcp}: MCP servers, which go in Settings → Tools. Agents are the "
            "agent_servers part of Zed's settings."
        )
    if not all(isinstance(entry, dict) for entry in value.values()):
        odd = next(name for name, entry in value.items() if not isinstance(entry, dict))
        raise _Broken(
            f"There is no agent_servers here ({odd!r} is not an agent). Paste the "
            f"agent_servers part of Zed's settings, like {EXAMPLE}."
        )
    return value


_Program = tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]  # command, args, env


def _entry(name: str, entry: Any) -> tuple[str, _Program | None]:
    """("", (command, args, env)) for an entry that can start, else (why not, None)."""
    if not name.strip():
        return "it has no name.", None
    if not isinstance(entry, dict):
        return (
            f'it must be an object like {{"command": "opencode", "args": ["acp"]}}, '
            f"not {json_kind(entry)}."
        ), None
    command = entry.get("command")
    if command is None or (isinstance(command, str) and not command.strip()):
        return (
            "it has no command. Zed starts this agent itself; for Sightline to start it, "
            'give it a "command" (and "args") as for a custom agent.'
        ), None
    if not isinstance(command, str):
        return f"its command must be a string, not {json_kind(command)}.", None
    if any(not c.isprintable() for c in command):
        return "its command holds a line break or another control character.", None
    args = entry.get("args")
    if args is None:
        args = []
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return 'its args must be a list of strings, like ["acp"].', None
    if any("\0" in a for a in args):
        return "its args hold a NUL character, which no program can be given.", None
    env = entry.get("env")
    if env is None:
        env = {}
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        return 'its env must be an object of strings, like {"NAME": "value"}.', None
    bad = next((key for key in env if not _ENV_NAME.match(key)), None)
    if bad is not None:
        return f"its env name {bad!r} must be letters, digits and '_'.", None
    if any("\0" in v for v in env.values()):
        return "an env value holds a NUL character, which the environment can't hold.", None
    program = command.strip()
    if program.startswith("~"):  # Zed expands it; the agent is started without a shell
        program = os.path.expanduser(program)
    return "", (program, tuple(args), tuple(env.items()))


def without_comments(text: str) -> str:
    """`text` with `//` and `/* */` comments outside strings turned to spaces.

    Line breaks stay, so a JSON error's line and column still point into the pasted text.
    """
    out = list(text)
    index, size = 0, len(text)
    in_string = False
    while index < size:
        char = text[index]
        if in_string:
            if char == "\\":
                index += 2
                continue
            if char == '"' or char == "\n":  # a line break ends a broken string for JSON too
                in_string = False
        elif char == '"':
            in_string = True
        elif text.startswith("//", index):
            end = text.find("\n", index)
            end = size if end < 0 else end
            out[index:end] = " " * (end - index)
            index = end
            continue
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            if end < 0:
                line = text.count("\n", 0, index) + 1
                column = index - (text.rfind("\n", 0, index) + 1) + 1
                raise _Broken(
                    f"A /* comment at line {line}, column {column} is never closed with */.",
                    (line, column),
                )
            end += 2
            for at in range(index, end):
                if out[at] != "\n":
                    out[at] = " "
            index = end
            continue
        index += 1
    return "".join(out)


def without_trailing_commas(text: str) -> str:
    """`text` with each comma just before a closing `}` or `]` (outside strings) a space."""
    out = list(text)
    index, size = 0, len(text)
    in_string = False
    while index < size:
        char = text[index]
        if in_string:
            if char == "\\":
                index += 2
                continue
            if char == '"' or char == "\n":
                in_string = False
        elif char == '"':
            in_string = True
        elif char == ",":
            after = index + 1
            while after < size and text[after] in " \t\r\n":
                after += 1
            if after < size and text[after] in "}]":
                out[index] = " "
            index = after
            continue
        index += 1
    return "".join(out)


# -- ids -------------------------------------------------------------------------------


def agent_id_for(name: str) -> str:
    """A config id from an agent's name: lowercase, spaces as dashes, only safe characters."""
    plain = unicodedata.normalize("NFKD", name)
    plain = "".join(c for c in plain if not unicodedata.combining(c)).lower()
    plain = re.sub(r"\s+", "-", plain.strip())
    plain = _UNSAFE.sub("", plain)  # the colon of `provider:model` among them
    plain = re.sub(r"-{2,}", "-", plain)
    plain = plain.lstrip("_.-").rstrip(".-")[:40].rstrip(".-")
    return plain if _ID_PATTERN.match(plain) else "agent"


def unique_id(base: str, taken: Iterable[str]) -> str:
    """`base`, else `base-2`, `base-3`, …: the first id not taken."""
    used = set(taken)
    if base not in used:
        return base
    number = 2
    while f"{base}-{number}" in used:
        number += 1
    return f"{base}-{number}"


# -- looking for the command (never running it) ------------------------------------------


def command_status(
    command: str,
    env: Iterable[tuple[str, str]] = (),
    environ: Mapping[str, str] = os.environ,
) -> tuple[bool, str]:
    """Whether the command is there to start, and where it is, in words."""
    if os.sep in command or (os.altsep and os.altsep in command):
        path = Path(command)
        if not path.is_absolute():
            return False, "a relative path: write its full path"
        if path.is_dir():
            return False, f"{command} is a folder, not a program"
        if not path.is_file():
            return False, f"no file {command} on this computer"
        if not os.access(path, os.X_OK):
            return False, f"{command} is a file, but not one that can be run"
        return True, f"found: {command}"
    search = dict(env).get("PATH") or environ.get("PATH", os.defpath)
    found = shutil.which(command, path=search)
    if found is None:
        return False, "not found on PATH: install it, or write its full path"
    return True, f"found on PATH: {found}"


def shown_command(command: str, args: Iterable[str], limit: int = 90) -> str:
    """A command line as a person would type it, cut to `limit` characters."""
    words = [command, *args]
    line = " ".join(json.dumps(w) if not w or any(c.isspace() for c in w) else w for w in words)
    return line if len(line) <= limit else line[: limit - 1] + "…"


def masked_env(env: Iterable[tuple[str, str]]) -> str:
    """The environment's names with every value hidden: `NAME=•••`."""
    return ", ".join(f"{name}={MASK}" for name, _ in env)


# -- the agents Settings edits ------------------------------------------------------------


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
        return ProviderConfig(
            id=self.id,
            kind=self.kind,
            base_url="",
            enabled=self.enabled,
            local=self.local,
            command=self.command,
            args=self.args,
            env=self.env,
            model_provider=self.model_provider,
        )


def agent_draft_from(provider: ProviderConfig) -> AgentDraft:
    """A draft of a configured agent."""
    return AgentDraft(
        id=provider.id,
        command=provider.command,
        args=provider.args,
        env=provider.env,
        local=provider.is_local,
        enabled=provider.enabled,
        saved=True,
        kind=provider.kind,
        model_provider=provider.model_provider,
    )


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
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        document = tomlkit.parse(text)
    except (OSError, UnicodeDecodeError, tomlkit.exceptions.ParseError) as exc:
        raise ConfigError(f"{path}: can't be updated: {exc}") from None
    existing = document.get("providers")
    if existing is not None and not isinstance(existing, AoT):
        raise ConfigError(
            f"{path}: providers is not written as [[providers]] tables, so agents can't be "
            "added to it here; write each provider as a [[providers]] table."
        )
    tables = list(existing) if existing is not None else []
    for agent in new:
        tables = [t for t in tables if t.get("id", t.get("kind")) != agent.id]
        tables.append(agent_table(agent))
    if "providers" in document:
        del document["providers"]
    document.append("providers", AoT(tables))
    write_config_text(path, tomlkit.dumps(document))  # whole, 0600
