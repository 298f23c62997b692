"""The `mcpServers` JSON that Claude Desktop, Cursor and others use, read as pasted.

Accepted: `{"mcpServers": {"name": {...}}}` (other top-level keys, such as the
rest of a Claude Desktop config file, are ignored) and the bare inner object
`{"name": {...}}`. An entry runs a local program over stdio (`command`, `args`,
`env`, `cwd`); `"disabled": true` leaves it out; a remote entry (`url`, or `type`
"http"/"sse") is kept with `unsupported` set so the person is told, not ignored.

Every problem is a `McpConfigError` naming the place (`mcpServers.foo.args[1]`)
and what is wrong; no input makes this module raise anything else.

Every `env` value of a loaded file is registered as a secret (routing/secrets.py
`register_env`; all but a plain setting such as `1` or `info`): servers take their
tokens there, and one that prints its token to stderr, returns it from a tool, or a
problem that quotes it, must not carry it into the log, the store or in front of the
person.
Text that is only checked (pasted in Settings, not yet saved) registers nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from routing.json_kinds import json_kind
from routing.secrets import register_env
from vision.files import FileRefused, read_capped

REMOTE_UNSUPPORTED = "remote MCP servers are not supported yet"
MAX_FILE_BYTES = 4_000_000  # a settings file is a few KB; this bounds what is read
_REMOTE_TYPES = frozenset({"http", "sse", "streamable-http", "streamablehttp", "streamable_http"})
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
_EXAMPLE = '{"mcpServers": {"name": {"command": "npx", "args": ["-y", "package"]}}}'


class McpConfigError(ValueError):
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


class _Object(dict[str, Any]):
    """A JSON object that remembers which keys it saw more than once."""

    duplicates: tuple[str, ...] = ()


def _object_hook(pairs: list[tuple[str, Any]]) -> _Object:
    obj = _Object(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        twice: list[str] = []
        for key, _ in pairs:
            if key in seen:
                twice.append(key)
            seen.add(key)
        obj.duplicates = tuple(twice)
    return obj


def _where(path: str, key: str | int) -> str:
    """The path of a member: `a.b` for plain names, `a["odd name"]` and `a[2]` otherwise."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _PLAIN_NAME.match(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key)}]"


def _syntax_error(text: str, exc: json.JSONDecodeError) -> str:
    """Where the JSON breaks, with a hint for the two usual slips."""
    message = f"not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
    here = text[exc.pos : exc.pos + 2]
    before = text[: exc.pos].rstrip()
    if here.startswith(("//", "/*")):
        message += " (JSON does not allow comments)"
    elif before.endswith(",") and here[:1] in ("}", "]"):
        message += " (JSON does not allow a comma before a closing bracket)"
    elif here[:1] == "'":
        message += ' (JSON needs "double quotes")'
    return message


def _text(value: Any, where: str, what: str) -> str:
    """A string field's value, refusing other kinds and NUL characters."""
    if not isinstance(value, str):
        raise McpConfigError(f"{where} must be a string, not {json_kind(value)}")
    if "\0" in value:
        raise McpConfigError(f"{where} contains a NUL character, which {what} can't hold")
    return value


def _server(name: str, entry: Any, where: str) -> McpServerConfig | None:
    """One entry checked and read; None when it is disabled."""
    if not isinstance(entry, dict):
        raise McpConfigError(
            f'{where} must be an object like {{"command": "npx", "args": [...]}}, '
            f"not {json_kind(entry)}"
        )
    disabled = entry.get("disabled", False)
    if not isinstance(disabled, bool):
        raise McpConfigError(f"{_where(where, 'disabled')} must be true or false")
    if disabled:
        return None
    kind = entry.get("type", "stdio")
    if not isinstance(kind, str):
        raise McpConfigError(f'{_where(where, "type")} must be "stdio", not {json_kind(kind)}')
    kind = kind.lower()
    if "url" in entry or "serverUrl" in entry or kind in _REMOTE_TYPES:
        url = entry.get("url", entry.get("serverUrl", ""))
        shown = f" ({url})" if isinstance(url, str) and url else ""
        return McpServerConfig(name, "", unsupported=f"{REMOTE_UNSUPPORTED}{shown}")
    if kind != "stdio":
        raise McpConfigError(
            f'{_where(where, "type")} must be "stdio" (remote "http" and "sse" servers '
            "are not supported yet)"
        )
    if "command" not in entry or entry["command"] is None:
        raise McpConfigError(f"{where}: command is missing")
    command = _text(entry["command"], _where(where, "command"), "a command")
    if not command.strip():
        raise McpConfigError(f"{where}: command is empty")
    return McpServerConfig(
        name=name,
        command=command,
        args=_args(entry.get("args"), _where(where, "args")),
        env=_env(entry.get("env"), _where(where, "env")),
        cwd=_cwd(entry.get("cwd"), _where(where, "cwd")),
    )


def _args(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise McpConfigError(f"{where} must be a list of strings, not {json_kind(value)}")
    return tuple(_text(item, _where(where, i), "an argument") for i, item in enumerate(value))


def _env(value: Any, where: str) -> Mapping[str, str]:
    if value is None:
        return MappingProxyType({})
    if not isinstance(value, dict):
        raise McpConfigError(f"{where} must be an object of names and string values")
    env: dict[str, str] = {}
    for key, item in value.items():
        place = _where(where, key)
        if not key or "=" in key or "\0" in key:
            raise McpConfigError(f"{place}: {json.dumps(key)} is not a usable variable name")
        if isinstance(item, int | float) and not isinstance(item, bool):
            raise McpConfigError(
                f'{place} must be a string, not a number (write "{item}" in quotes)'
            )
        env[key] = _text(item, place, "an environment variable")
    return MappingProxyType(env)


def _cwd(value: Any, where: str) -> str | None:
    if value is None:
        return None
    cwd = _text(value, where, "a folder name")
    if not cwd.strip():
        raise McpConfigError(f"{where} is empty; leave it out to start in the default folder")
    return cwd


def _servers_object(data: Any) -> tuple[dict[str, Any], str]:
    """The object of named entries, and the path it sits at."""
    if not isinstance(data, dict):
        raise McpConfigError(f"the settings must be a JSON object like {_EXAMPLE}")
    if "mcpServers" in data:
        servers = data["mcpServers"]
        if not isinstance(servers, dict):
            raise McpConfigError(f"mcpServers must be an object, not {json_kind(servers)}")
        return servers, "mcpServers"
    if isinstance(data.get("command"), str) or isinstance(data.get("url"), str):
        raise McpConfigError(
            f"this looks like the settings of one server; give it a name: {_EXAMPLE}"
        )
    return data, ""


def parse_mcp_servers(text: str, source: str = "pasted JSON") -> list[McpServerConfig]:
    """The servers that `mcpServers` JSON describes, enabled ones only, in order."""
    try:
        return _parse(text)
    except McpConfigError as exc:
        raise McpConfigError(f"{source}: {exc}") from None


def _parse(text: str) -> list[McpServerConfig]:
    if not isinstance(text, str):
        raise McpConfigError(f"expected text, got {type(text).__name__}")
    text = text.removeprefix("\ufeff")  # Notepad's byte-order mark
    if not text.strip():
        raise McpConfigError(f"is empty; paste something like {_EXAMPLE}")
    try:
        data = json.loads(text, object_pairs_hook=_object_hook)
    except json.JSONDecodeError as exc:
        raise McpConfigError(_syntax_error(text, exc)) from None
    except RecursionError:
        raise McpConfigError("is nested too deeply to read") from None
    except ValueError as exc:  # e.g. an integer with thousands of digits
        raise McpConfigError(f"can't be read: {exc}") from None
    servers, path = _servers_object(data)
    if isinstance(servers, _Object) and servers.duplicates:
        twice = servers.duplicates[0]
        raise McpConfigError(
            f"{path or 'the settings'}: the server {json.dumps(twice)} is named twice"
        )
    configs: list[McpServerConfig] = []
    for name, entry in servers.items():
        where = _where(path, name)
        if not name.strip():
            raise McpConfigError(f"{where}: a server needs a name that is not empty")
        config = _server(name, entry, where)
        if config is not None:
            configs.append(config)
    return configs


def load_mcp_servers(path: Path) -> list[McpServerConfig]:
    """The servers in an `mcpServers` JSON file; errors name the file."""
    try:
        raw = read_capped(path, MAX_FILE_BYTES, what="JSON file of MCP servers")
    except FileRefused as exc:  # a device, a pipe, a folder or gigabytes: one line, no wait
        raise McpConfigError(str(exc)) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise McpConfigError(
            f"{path}: is not UTF-8 text (byte {exc.start + 1} can't be read); save it as UTF-8"
        ) from None
    servers = parse_mcp_servers(text, source=str(path))
    for server in servers:
        register_env(server.env.items())  # its log and its results may say them back
    return servers
