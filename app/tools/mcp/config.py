"""The `mcpServers` JSON that Claude Desktop, Cursor and others use, read as pasted.

Accepted: `{"mcpServers": {"name": {...}}}` (other top-level keys, such as the
rest of a Claude Desktop config file, are ignored) and the bare inner object
`{"name": {...}}`. An entry runs a local program over stdio (`command`, `args`,
`env`, `cwd`); `"disabled": true` leaves it out; a remote entry (`url`, or `type`
"http"/"sse") is kept with `unsupported` set so the person is told, not ignored.

Every problem is a `McpConfigError` in the one style of app/config_check.py, naming
the text or file and the place (`pasted text: mcpServers.foo.args[1] must be a string,
not a number`); no input makes this module raise anything else.

Every `env` value of a loaded file is registered as a secret (routing/secrets.py
`register_env`; all but a plain setting such as `1` or `info`): servers take their
tokens there, and one that prints its token to stderr, returns it from a tool, or a
problem that quotes it, must not carry it into the log, the store or in front of the
person.
Text that is only checked (pasted in Settings, not yet saved) registers nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from app.config_check import (
    PASTED,
    Key,
    SettingsError,
    environment,
    flag,
    kind_of,
    must_be,
    problem,
    read_settings_file,
    text,
    texts,
)
from app.json_text import JsonObject, read_json
from routing.secrets import register_env

REMOTE_UNSUPPORTED = "remote MCP servers are not supported yet"
MAX_FILE_BYTES = 4_000_000  # a settings file is a few KB; this bounds what is read
_REMOTE_TYPES = frozenset({"http", "sse", "streamable-http", "streamablehttp", "streamable_http"})
_EXAMPLE = '{"mcpServers": {"name": {"command": "npx", "args": ["-y", "package"]}}}'


class McpConfigError(SettingsError):
    """MCP server settings that can't be used; the message says what is wrong and where."""


@dataclass(frozen=True)
class McpServerConfig:
    """One MCP server entry: how to start it, or why it can't be started."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    # Left out of the hash so the frozen dataclass stays hashable with a mapping inside.
    env: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), hash=False)
    cwd: str | None = None
    # Non-empty for an entry Sightline recognises but can't run (a remote server).
    unsupported: str = ""


def _server(name: str, entry: Any, at: Key) -> McpServerConfig | None:
    """One entry checked and read; None when it is disabled."""
    if not isinstance(entry, dict):
        raise must_be(at, 'an object like {"command": "npx", "args": [...]}', entry)
    if flag(entry, at, "disabled", False):
        return None
    kind = text(entry, at, "type", "stdio", what='"stdio"').lower()
    if "url" in entry or "serverUrl" in entry or kind in _REMOTE_TYPES:
        url = entry.get("url", entry.get("serverUrl", ""))
        shown = f" ({url})" if isinstance(url, str) and url else ""
        return McpServerConfig(name, "", unsupported=f"{REMOTE_UNSUPPORTED}{shown}")
    if kind != "stdio":
        raise problem(
            (*at, "type"), 'must be "stdio" (remote "http" and "sse" servers are not supported yet)'
        )
    command = text(entry, at, "command", holder="a command")
    if entry.get("command") is None:
        raise problem((*at, "command"), "is missing")
    if not command.strip():
        raise problem((*at, "command"), "is empty")
    args = texts(entry, at, "args", what="a list of strings")
    env = environment(
        entry, at, "env", what="an object of names and string values", strict_names=False
    )
    cwd = None if entry.get("cwd") is None else text(entry, at, "cwd", holder="a folder name")
    if cwd is not None and not cwd.strip():
        raise problem((*at, "cwd"), "is empty; leave it out to start in the default folder")
    return McpServerConfig(name, command, args, MappingProxyType(env), cwd)


def _servers_object(data: Any) -> tuple[dict[str, Any], Key]:
    """The object of named entries, and the path it sits at."""
    if not isinstance(data, dict):
        found = kind_of(data)
        raise problem((), f"the settings must be a JSON object like {_EXAMPLE}, not {found}")
    if "mcpServers" in data:
        servers = data["mcpServers"]
        if not isinstance(servers, dict):
            raise must_be(("mcpServers",), "an object", servers)
        return servers, ("mcpServers",)
    if isinstance(data.get("command"), str) or isinstance(data.get("url"), str):
        raise problem((), f"this looks like the settings of one server; give it a name: {_EXAMPLE}")
    return data, ()


def parse_mcp_servers(text: str, source: str = PASTED) -> list[McpServerConfig]:
    """The servers that `mcpServers` JSON describes, enabled ones only, in order."""
    try:
        return _parse(text)
    except SettingsError as exc:
        raise McpConfigError.said_of(exc, source) from None


def _parse(text: str) -> list[McpServerConfig]:
    if not isinstance(text, str):
        raise SettingsError(f"expected text, got {type(text).__name__}")
    if not text.removeprefix("\ufeff").strip():
        raise SettingsError(f"the text is empty; paste something like {_EXAMPLE}")
    servers, at = _servers_object(read_json(text))
    if isinstance(servers, JsonObject) and servers.duplicates:
        raise problem((*at, servers.duplicates[0]), "is named twice: a server's name must differ")
    configs: list[McpServerConfig] = []
    for name, entry in servers.items():
        if not name.strip():
            raise problem((*at, name), "has no name: a server needs a name that is not empty")
        config = _server(name, entry, (*at, name))
        if config is not None:
            configs.append(config)
    return configs


def load_mcp_servers(path: Path) -> list[McpServerConfig]:
    """The servers in an `mcpServers` JSON file; errors name the file."""
    try:
        text = read_settings_file(path, MAX_FILE_BYTES, "JSON file of MCP servers")
    except SettingsError as exc:
        raise McpConfigError.said_of(exc, "") from None
    servers = parse_mcp_servers(text, source=str(path))
    for server in servers:
        register_env(server.env.items())  # its log and its results may say them back
    return servers
