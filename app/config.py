"""The person's settings: a TOML file, the environment, and sensible defaults.

With no file at all Sightline runs on defaults: Ollama at `OLLAMA_HOST` (or its
usual address) and discovery of local servers. A broken file is reported with
its path and line, never silently ignored.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from app import paths
from routing.addresses import ollama_base_url
from routing.endpoints import without_credentials

if TYPE_CHECKING:  # loaded only for [[providers]] and discovery: see _parse_provider
    from routing.models import ProviderConfig

MAX_CONFIG_BYTES = 4_000_000  # a config is a few KB; this bounds what is read, not taste
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


_TOP_LEVEL_KEYS = frozenset(
    {
        "discover_local",
        "auto_may_use_cloud",
        "check_sight",
        "vision_model",
        "system_prompt",
        "mcp_config",
        "mcp_start_at_launch",
        "always_allow_tools",
        "data_dir",
        "providers",
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


class ConfigError(ValueError):
    """The config file can't be used; the message names the file and what to change."""


@dataclass(frozen=True)
class Config:
    """Everything read from the config file and the environment."""

    providers: tuple[ProviderConfig, ...] = ()
    discover_local: bool = True
    auto_may_use_cloud: bool = False  # Auto stays on this computer unless the person allows
    check_sight: bool = True  # a model of unknown sight is checked before its first picture
    vision_model: str = ""  # PROVIDER:MODEL that describes pictures for blind models
    system_prompt: str = ""  # what a new chat tells its model first; "" for nothing
    mcp_config: Path | None = None  # a file holding the `mcpServers` JSON
    mcp_start_at_launch: bool = False  # start MCP servers with the window, not on first use
    always_allow_tools: tuple[str, ...] = ()  # tools that run without asking the person
    data_dir: Path = field(default_factory=paths.data_dir)
    source: Path | None = None  # the file read, when there was one

    def provider(self, provider_id: str) -> ProviderConfig | None:
        """The configured provider with this id, if any."""
        return next((p for p in self.providers if p.id == provider_id), None)


def ollama_address(environ: Mapping[str, str]) -> str:
    """Ollama's address: `OLLAMA_HOST` read the way Ollama's own client reads it."""
    return ollama_base_url(None, environ)


def load_config(environ: Mapping[str, str] = os.environ) -> Config:
    """Read the config file (if there is one) and apply the environment."""
    path = paths.config_file(environ)
    data_dir = paths.data_dir(environ)
    if not path.exists():
        if environ.get("SIGHTLINE_CONFIG"):
            raise ConfigError(f"{path}: SIGHTLINE_CONFIG names this file, but it does not exist.")
        return Config(data_dir=data_dir)
    from vision.files import FileRefused, read_capped

    try:
        # utf-8-sig: a byte-order mark (as some Windows editors write) is not a setting.
        text = read_capped(path, MAX_CONFIG_BYTES, what="config file").decode("utf-8-sig")
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(
            f"{path}: tables or lists are nested too deeply to be a Sightline config."
        ) from None
    except FileRefused as exc:
        raise ConfigError(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start} can't be read).") from None
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

    `lines` (the file's text) lets an error name the line of a provider's base_url.
    """
    unknown = sorted(set(raw) - _TOP_LEVEL_KEYS)
    if unknown:
        raise ConfigError(
            f"{path}: unknown setting {unknown[0]!r}; the settings are: "
            f"{', '.join(sorted(_TOP_LEVEL_KEYS))}."
        )
    discover = raw.get("discover_local", True)
    if not isinstance(discover, bool):
        raise ConfigError(f"{path}: discover_local must be true or false.")
    auto_cloud = raw.get("auto_may_use_cloud", False)
    if not isinstance(auto_cloud, bool):
        raise ConfigError(f"{path}: auto_may_use_cloud must be true or false.")
    check_sight = raw.get("check_sight", True)
    if not isinstance(check_sight, bool):
        raise ConfigError(f"{path}: check_sight must be true or false.")
    vision_model = raw.get("vision_model", "")
    if not isinstance(vision_model, str) or (vision_model and ":" not in vision_model):
        raise ConfigError(f'{path}: vision_model must be "PROVIDER:MODEL" in quotes.')
    system_prompt = raw.get("system_prompt", "")
    if not isinstance(system_prompt, str):
        raise ConfigError(f"{path}: system_prompt must be text in quotes.")
    mcp = raw.get("mcp_config")
    if mcp is not None and not isinstance(mcp, str):
        raise ConfigError(f"{path}: mcp_config must be the path of a JSON file, in quotes.")
    mcp_config = (path.parent / _expanded(mcp, path, "mcp_config")) if mcp else None
    at_launch = raw.get("mcp_start_at_launch", False)
    if not isinstance(at_launch, bool):
        raise ConfigError(f"{path}: mcp_start_at_launch must be true or false.")
    always = raw.get("always_allow_tools", [])
    if not isinstance(always, list) or not all(isinstance(n, str) for n in always):
        raise ConfigError(
            f'{path}: always_allow_tools must be a list of tool names, like ["read_file"].'
        )
    tables = raw.get("providers", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ConfigError(f"{path}: providers must be [[providers]] tables.")
    providers: list[ProviderConfig] = []
    for index, table in enumerate(tables):
        line = _base_url_line(lines or [], index)
        where = f"{path}: providers[{index + 1}]"
        provider = _parse_provider(table, where, environ, line=line)
        if any(p.id == provider.id for p in providers):
            raise ConfigError(
                f"{path}: two providers have the id {provider.id!r}; ids must differ."
            )
        providers.append(provider)
    folder = raw.get("data_dir")
    if folder is not None and not isinstance(folder, str):
        raise ConfigError(f"{path}: data_dir must be a folder path in quotes.")
    if folder and not environ.get("SIGHTLINE_DATA_DIR"):
        data_dir = _expanded(folder, path, "data_dir")
    return Config(
        providers=tuple(providers),
        discover_local=discover,
        auto_may_use_cloud=auto_cloud,
        check_sight=check_sight,
        vision_model=vision_model,
        system_prompt=system_prompt,
        mcp_config=mcp_config,
        mcp_start_at_launch=at_launch,
        always_allow_tools=tuple(always),
        data_dir=data_dir,
        source=path,
    )


def _expanded(value: str, path: Path, key: str) -> Path:
    """A path with ~ expanded; a ~user that doesn't exist is the key's error."""
    try:
        return Path(value).expanduser()
    except RuntimeError as exc:
        raise ConfigError(f"{path}: {key}: {exc}.") from None


def _base_url_line(lines: list[str], index: int) -> int | None:
    """The line number of the `index`-th [[providers]] table's base_url, if it has one."""
    tables = [n for n, line in enumerate(lines) if line.strip().startswith("[[providers]]")]
    if index >= len(tables):
        return None
    end = tables[index + 1] if index + 1 < len(tables) else len(lines)
    for number in range(tables[index] + 1, end):
        if lines[number].lstrip().startswith("base_url"):
            return number + 1
    return None


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
    table: Mapping[str, Any], where: str, environ: Mapping[str, str], *, line: int | None = None
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

        return parse_agent(table, where)
    unknown = sorted(set(table) - _PROVIDER_KEYS)
    if unknown and unknown[0] in AGENT_KEYS:
        raise ConfigError(
            f'{where}: {unknown[0]} is for an agent (kind = "acp"); a provider of kind '
            f"{kind!r} has: {', '.join(sorted(_PROVIDER_KEYS))}."
        )
    if unknown:
        hint = (
            " (settings for all of Sightline go above the first [[providers]])"
            if unknown[0] in _TOP_LEVEL_KEYS
            else ""
        )
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r}{hint}; a provider has: "
            f"{', '.join(sorted(_PROVIDER_KEYS))}."
        )
    if kind not in ALL_KINDS:
        raise ConfigError(f"{where}: kind {kind!r} is not one of: {', '.join(ALL_KINDS)}.")
    provider_id = table.get("id", kind)
    if not isinstance(provider_id, str) or not ID_PATTERN.match(provider_id):
        raise ConfigError(
            f"{where}: id {provider_id!r} must be letters, digits, '.', '_' or '-' (no colon)."
        )
    # Which endpoint of an OpenAI-shape provider (the Responses API or chat completions).
    api = table.get("api", "")
    if not isinstance(api, str):
        raise ConfigError(f'{where}: api must be "responses" or "chat", in quotes.')
    if problem := api_problem(preset_for(kind), api):
        raise ConfigError(f"{where}: {problem}.")
    base_url = table.get("base_url", "")
    if not isinstance(base_url, str):
        raise ConfigError(f"{where}: base_url must be a URL in quotes.")
    if kind == "ollama":
        try:
            base_url = ollama_base_url(base_url or None, environ)
        except ValueError as exc:
            raise ConfigError(f"{where}: base_url: {exc}") from None
    if not base_url:
        base_url = base_url_for(preset_for(kind), api)
    problem = checked_base_url(base_url)
    if problem:
        at = f" (line {line})" if line else ""
        raise ConfigError(
            f"{where}{at}: base_url {without_credentials(base_url)!r} can't be used: {problem}."
        )
    api_key = table.get("api_key", "")
    enabled = table.get("enabled", True)
    local = table.get("local")
    if not isinstance(api_key, str):
        raise ConfigError(f"{where}: api_key must be text in quotes.")
    if not isinstance(enabled, bool):
        raise ConfigError(f"{where}: enabled must be true or false.")
    if local is not None and not isinstance(local, bool):
        raise ConfigError(f"{where}: local must be true or false.")
    idle, turn = limits_of(table, where)
    return ProviderConfig(
        id=provider_id,
        kind=kind,
        base_url=base_url.rstrip("/"),
        api_key=api_key,
        enabled=enabled,
        local=local,
        api=api,
        idle_seconds=idle,
        turn_seconds=turn,
    )


def limits_of(table: Mapping[str, Any], where: str) -> tuple[float | None, float | None]:
    """A provider's own limits, `idle_seconds` and `turn_seconds` (None when not set)."""
    found: list[float | None] = []
    for key in ("idle_seconds", "turn_seconds"):
        value = table.get(key)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int | float) or not value > 0
        ):
            raise ConfigError(
                f"{where}: {key} must be a number of seconds above 0, like {key} = 600."
            )
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
