"""The person's settings: a TOML file, the environment, and sensible defaults.

With no file at all Sightline runs on defaults: Ollama at `OLLAMA_HOST` (or its
usual address) and discovery of local servers. A broken file is reported with
its path, the line and the key at fault (app/config_check.py), never silently
ignored.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import urlsplit

from app import paths
from app.config_check import (
    ID_PATTERN,
    ID_RULE,
    Key,
    SettingsError,
    flag,
    kind_of,
    maybe_flag,
    problem,
    read_settings_file,
    text,
    texts,
)
from routing.addresses import ollama_base_url
from routing.context_window import Overflow
from routing.endpoints import without_credentials

if TYPE_CHECKING:  # loaded only for [[providers]] and discovery: see _parse_provider
    from routing.models import ProviderConfig

MAX_CONFIG_BYTES = 4_000_000  # a config is a few KB; this bounds what is read, not taste
# The window's server for other apps (Settings ▸ Serving): on, its port, Sightline's tools.
SERVE_KEYS = ("serve_in_window", "serve_port", "serve_tools")
SERVE_PORT = 11435  # app.serve.server.DEFAULT_PORT, which loads uvicorn: not before the paint


_TOP_LEVEL_KEYS = frozenset(
    {
        "discover_local",
        "auto_may_use_cloud",
        "check_sight",
        "vision_model",
        "system_prompt",
        "context_overflow",
        "mcp_config",
        "mcp_start_at_launch",
        "always_allow_tools",
        "data_dir",
        "providers",
        *SERVE_KEYS,
    }
)
# How long a provider's stream may show no progress, and its turn take (app/turn/limits.py).
LIMIT_KEYS = frozenset({"idle_seconds", "turn_seconds"})
_PROVIDER_KEYS = (
    frozenset({"id", "kind", "base_url", "api_key", "enabled", "local", "api"}) | LIMIT_KEYS
)
# An agent (kind "acp") is a program to start, not an address (app/turn/acp/).
AGENT_KEYS = frozenset({"id", "kind", "command", "args", "env", "enabled", "local"}) | LIMIT_KEYS
CODEX_KEYS = AGENT_KEYS | {"model_provider"}
_LONGEST = 7 * 24 * 3600.0  # a week: any limit longer is a mistake, not a wish
_TOML_WHERE = re.compile(r"(.*?)(?: \(at line (\d+), column (\d+)\))?\Z", re.DOTALL)


class ConfigError(SettingsError):
    """The config file can't be used; the message names the file, the line, the key and
    what to change."""


class Config(NamedTuple):
    """Everything read from the config file and the environment.

    A named tuple: a start defines and makes one before its first paint, where a frozen
    dataclass of this size takes 1.5 ms to define (it compiles its methods).
    """

    data_dir: Path  # where the store, the logs and the window's state are kept
    providers: tuple[ProviderConfig, ...] = ()
    discover_local: bool = True
    auto_may_use_cloud: bool = False  # Auto stays on this computer unless the person allows
    check_sight: bool = True  # a model of unknown sight is checked before its first picture
    vision_model: str = ""  # PROVIDER:MODEL that describes pictures for blind models
    system_prompt: str = ""  # what a new chat tells its model first; "" for nothing
    # What a chat does once it outgrows its model's window, unless it says (routing/fitting.py).
    context_overflow: Overflow = Overflow.LEAVE_OUT
    mcp_config: Path | None = None  # a file holding the `mcpServers` JSON
    mcp_start_at_launch: bool = False  # start MCP servers with the window, not on first use
    always_allow_tools: tuple[str, ...] = ()  # tools that run without asking the person
    serve_in_window: bool = False  # the window serves other apps while it is open
    serve_port: int = SERVE_PORT
    serve_tools: bool = False  # served turns may use Sightline's tools, each call asked
    source: Path | None = None  # the file read, when there was one
    # The file SIGHTLINE_CONFIG names when it doesn't exist yet: the defaults hold until
    # settings are saved, which writes it.
    named_missing: Path | None = None

    def provider(self, provider_id: str) -> ProviderConfig | None:
        """The configured provider with this id, if any."""
        return next((p for p in self.providers if p.id == provider_id), None)


def ollama_address(environ: Mapping[str, str]) -> str:
    """Ollama's address: `OLLAMA_HOST` read the way Ollama's own client reads it."""
    return ollama_base_url(None, environ)


def missing_words(path: Path) -> str:
    """What to say, once, of a config file SIGHTLINE_CONFIG names that doesn't exist yet."""
    return (
        f"SIGHTLINE_CONFIG names {path}, which doesn't exist yet: Sightline uses its "
        "defaults, and saving Settings writes it."
    )


def load_config(environ: Mapping[str, str] = os.environ) -> Config:
    """Read the config file (if there is one) and apply the environment."""
    path = paths.config_file(environ)
    data_dir = paths.data_dir(environ)
    if not path.exists():
        named = path if environ.get("SIGHTLINE_CONFIG") else None
        return Config(data_dir=data_dir, named_missing=named)
    import tomllib  # ~2.5 ms, only where there is a file to read (a first start has none)

    try:
        text = read_settings_file(path, MAX_CONFIG_BYTES, "config file")
        raw = tomllib.loads(text)
    except SettingsError as exc:
        raise ConfigError.said_of(exc, "") from None
    except tomllib.TOMLDecodeError as exc:
        # tomllib says where at the end of its words: "… (at line 3, column 13)".
        words, line, column = _TOML_WHERE.match(str(exc)).groups()  # type: ignore[union-attr]
        raise ConfigError(
            f"not valid TOML: {words}",
            source=str(path),
            line=int(line) if line else None,
            column=int(column) if column else None,
        ) from None
    except RecursionError:
        raise ConfigError(
            "tables or lists are nested too deeply to be a Sightline config", source=str(path)
        ) from None
    return parse_config(raw, path, data_dir, environ, lines=text.splitlines())


def parse_config(
    raw: Mapping[str, Any],
    path: Path,
    data_dir: Path,
    environ: Mapping[str, str] = os.environ,
    *,
    lines: list[str] | None = None,
) -> Config:
    """Turn a parsed TOML document into a Config, naming the key at fault on error.

    `lines` (the file's text) lets an error name the line of the key at fault.
    """
    try:
        return _parse_document(raw, path, data_dir, environ)
    except SettingsError as exc:
        raise ConfigError.said_of(exc, str(path), toml_line(lines or [], exc.key)) from None


def _parse_document(
    raw: Mapping[str, Any], path: Path, data_dir: Path, environ: Mapping[str, str]
) -> Config:
    unknown = sorted(set(raw) - _TOP_LEVEL_KEYS)
    if unknown:
        settings = ", ".join(sorted(_TOP_LEVEL_KEYS))
        raise problem((unknown[0],), f"is not a setting; the settings are: {settings}")
    vision_model = text(raw, (), "vision_model", what='"PROVIDER:MODEL" in quotes')
    if vision_model and ":" not in vision_model:
        raise problem(("vision_model",), 'must be "PROVIDER:MODEL", like "ollama:llava:7b"')
    mcp = text(raw, (), "mcp_config", what="the path of a JSON file, in quotes")
    tables = raw.get("providers", [])
    if not isinstance(tables, list):
        raise problem(("providers",), f"must be [[providers]] tables, not {kind_of(tables)}")
    providers: list[ProviderConfig] = []
    for index, table in enumerate(tables):
        if not isinstance(table, dict):
            raise problem(
                ("providers", index), f"must be a [[providers]] table, not {kind_of(table)}"
            )
        provider = _parse_provider(table, ("providers", index), environ)
        if any(p.id == provider.id for p in providers):
            raise problem(
                ("providers", index, "id"),
                f"{provider.id!r} is an earlier provider's id too; ids must differ",
            )
        providers.append(provider)
    overflow = text(raw, (), "context_overflow", what='"leave_out" or "stop" in quotes')
    if overflow and overflow not in set(Overflow):
        raise problem(("context_overflow",), 'must be "leave_out" or "stop"')
    folder = text(raw, (), "data_dir", what="a folder path in quotes")
    if folder and not environ.get("SIGHTLINE_DATA_DIR"):
        data_dir = _expanded(folder, "data_dir")
    return Config(
        providers=tuple(providers),
        discover_local=flag(raw, (), "discover_local", True),
        auto_may_use_cloud=flag(raw, (), "auto_may_use_cloud", False),
        check_sight=flag(raw, (), "check_sight", True),
        vision_model=vision_model,
        system_prompt=text(raw, (), "system_prompt", what="text in quotes"),
        context_overflow=Overflow(overflow) if overflow else Overflow.LEAVE_OUT,
        mcp_config=(path.parent / _expanded(mcp, "mcp_config")) if mcp else None,
        mcp_start_at_launch=flag(raw, (), "mcp_start_at_launch", False),
        always_allow_tools=texts(
            raw, (), "always_allow_tools", what='a list of tool names, like ["read_file"]'
        ),
        data_dir=data_dir,
        source=path,
        serve_in_window=flag(raw, (), "serve_in_window", False),
        serve_port=_port(raw.get("serve_port", SERVE_PORT)),
        serve_tools=flag(raw, (), "serve_tools", False),
    )


def _port(value: Any) -> int:
    """`serve_port`: a port a server may listen on (0, "any free one", has no place here:
    the apps pointed at the window's server need an address that stays)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
        raise problem(("serve_port",), "must be a port number from 1 to 65535, like 11435")
    return value


def _expanded(value: str, key: str) -> Path:
    """A path with ~ expanded; a ~user that doesn't exist is the key's error."""
    try:
        return Path(value).expanduser()
    except RuntimeError as exc:
        raise problem((key,), f"can't be used: {exc}") from None


def toml_line(lines: list[str], key: Key) -> int | None:
    """The line of the file where `key` is written: a top-level key's own line, or a
    key's in the n-th [[providers]] table (else that table's header). None when the text
    doesn't show it (an inline table, a key that was left out)."""
    if not key or not lines:
        return None
    headers = [n for n, line in enumerate(lines) if line.lstrip().startswith("[")]
    if key[0] == "providers" and len(key) > 1 and isinstance(key[1], int):
        tables = [n for n in headers if lines[n].strip().startswith("[[providers]]")]
        if key[1] >= len(tables):
            return None
        start = tables[key[1]]
        end = next((n for n in tables if n > start), len(lines))
        if len(key) > 2:
            found = _key_line(lines, start + 1, end, str(key[2]))
            if found:
                return found
        return start + 1
    return _key_line(lines, 0, headers[0] if headers else len(lines), str(key[0]))


def _key_line(lines: list[str], start: int, end: int, name: str) -> int | None:
    quoted = re.escape(name)
    written = re.compile(rf"""\s*(?:{quoted}|"{quoted}"|'{quoted}')\s*[=.]""")
    return next((n + 1 for n in range(start, end) if written.match(lines[n])), None)


def checked_base_url(base_url: str) -> str:
    """Why an address can't be used ("" when it can): Sightline checks it before any request."""
    if any(c.isspace() or not c.isprintable() for c in base_url):
        return "it holds a space, a line break or another control character"
    if not base_url.startswith(("http://", "https://")):
        return "it must start with http:// or https://"
    try:
        parts = urlsplit(base_url)
        port = parts.port
    except ValueError as exc:  # an unclosed [, a port that is no number or out of range
        words = str(exc)
        if "IPv6" in words:
            return "an IPv6 host is written in brackets, closed with ] (like http://[::1]:8080)"
        if "out of range" in words:
            return "its port must be a number from 1 to 65535"
        return "its port is not a number"
    if not parts.hostname:
        return "it names no host"
    if port == 0:
        return "port 0 can't be connected to"
    return ""


def _parse_provider(
    table: Mapping[str, Any], at: Key, environ: Mapping[str, str]
) -> ProviderConfig:
    # Here, not at the top: routing.models (with socket) and routing.presets (~5 ms)
    # then load before the window's first paint only when the file names providers.
    # The kinds are the presets', not `routing.wires.registry.known_kinds()`: the
    # registry would load the wire contract and the transcript too (~10 ms).
    from routing.models import ProviderConfig
    from routing.presets import AGENT_KINDS, ALL_KINDS, api_problem, base_url_for, preset_for

    kind = table.get("kind")
    if kind in AGENT_KINDS:
        from app.config_agents import parse_agent

        return parse_agent(table, at)
    keys = ", ".join(sorted(_PROVIDER_KEYS))
    unknown = sorted(set(table) - _PROVIDER_KEYS)
    if unknown and unknown[0] in AGENT_KEYS:
        raise problem(
            (*at, unknown[0]),
            f'is for an agent (kind = "acp"); a provider of kind {kind!r} has: {keys}',
        )
    if unknown:
        hint = (
            " (settings for all of Sightline go above the first [[providers]])"
            if unknown[0] in _TOP_LEVEL_KEYS
            else ""
        )
        raise problem((*at, unknown[0]), f"is not a provider's key{hint}; a provider has: {keys}")
    if kind not in ALL_KINDS:
        said = "is missing" if kind is None else f"{kind!r} is not one of"
        raise problem((*at, "kind"), f"{said}: {', '.join(ALL_KINDS)}")
    provider_id = table.get("id", kind)
    if not isinstance(provider_id, str) or not ID_PATTERN.match(provider_id):
        raise problem((*at, "id"), f"{provider_id!r} must be {ID_RULE}")
    # Which endpoint of an OpenAI-shape provider (the Responses API or chat completions).
    api = text(table, at, "api", what='"responses" or "chat", in quotes')
    if words := api_problem(preset_for(kind), api):
        raise problem((*at, "api"), f"can't be used: {words}")
    base_url = text(table, at, "base_url", what="a URL in quotes")
    if kind == "ollama":
        try:
            base_url = ollama_base_url(base_url or None, environ)
        except ValueError as exc:
            raise problem((*at, "base_url"), f"can't be used: {exc}") from None
    if not base_url:
        base_url = base_url_for(preset_for(kind), api)
    if words := checked_base_url(base_url):
        shown = without_credentials(base_url)
        raise problem((*at, "base_url"), f"{shown!r} can't be used: {words}")
    idle, turn = limits_of(table, at)
    return ProviderConfig(
        id=provider_id,
        kind=kind,
        base_url=base_url.rstrip("/"),
        api_key=text(table, at, "api_key", what="text in quotes"),
        enabled=flag(table, at, "enabled", True),
        local=maybe_flag(table, at, "local"),
        api=api,
        idle_seconds=idle,
        turn_seconds=turn,
    )


def limits_of(table: Mapping[str, Any], at: Key) -> tuple[float | None, float | None]:
    """A provider's own limits, `idle_seconds` and `turn_seconds` (None when not set)."""
    found: list[float | None] = []
    for key in ("idle_seconds", "turn_seconds"):
        value = table.get(key)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int | float) or not value > 0
        ):
            raise problem((*at, key), f"must be a number of seconds above 0, like {key} = 600")
        found.append(None if value is None else float(min(value, _LONGEST)))  # nan: refused above
    return found[0], found[1]


def agent_providers(config: Config) -> list[ProviderConfig]:
    """The enabled agents (kinds "acp" and "codex"): started as programs, never listed by
    the catalogue."""
    return [p for p in config.providers if p.enabled and p.is_agent]


def effective_providers(
    config: Config, environ: Mapping[str, str] = os.environ
) -> list[ProviderConfig]:
    """The providers to use: the enabled configured ones, plus local servers to look for.

    Agents are not among them: they have no wire (see `agent_providers`).
    """
    providers = [p for p in config.providers if p.enabled and not p.is_agent]
    if config.discover_local or not any(not p.is_agent for p in config.providers):
        taken = {p.id for p in config.providers}
        addresses = {p.base_url for p in config.providers}
        for candidate in discovery_candidates(environ):
            if candidate.id not in taken and candidate.base_url not in addresses:
                providers.append(candidate)
    return providers


def discovery_candidates(environ: Mapping[str, str] = os.environ) -> list[ProviderConfig]:
    """Local servers at their usual addresses; each is used only if it answers."""
    from routing.models import ProviderConfig  # after the first paint (see _parse_provider)

    return [
        ProviderConfig("ollama", "ollama", ollama_address(environ), discovered=True),
        ProviderConfig("lmstudio", "lmstudio", "http://127.0.0.1:1234", discovered=True),
        ProviderConfig("llamacpp", "custom", "http://127.0.0.1:8080/v1", discovered=True),
    ]
