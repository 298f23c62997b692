"""The Tools page's settings without Qt: MCP servers as pasted, routing choices, and saving.

The `mcpServers` JSON is kept exactly as the person pasted it, in `mcp.json`
beside the config file (or the file `mcp_config` already names); the config
file gets `mcp_config`, `auto_may_use_cloud` and `vision_model`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from app.agent_commands import shown_command
from app.config import Config
from app.config_file import write_config_text
from app.presenters.settings_model import save_top_level
from app.tools.mcp.config import McpConfigError, McpServerConfig, parse_mcp_servers
from routing.models import ModelInfo

MCP_FILE = "mcp.json"
AUTOMATIC = "Choose automatically"
EMPTY_MCP = '{\n  "mcpServers": {}\n}\n'


@dataclass(frozen=True)
class McpCheck:
    """What "Check" found in the pasted JSON: the servers, or what is wrong and where."""

    servers: tuple[McpServerConfig, ...] = ()
    error: str = ""
    empty: bool = False  # nothing pasted: no MCP servers, which is fine
    position: tuple[int, int] | None = None  # (line, column) where the JSON breaks

    @property
    def ok(self) -> bool:
        """Whether the text can be saved."""
        return not self.error

    def words(self) -> str:
        """The result for the person: one line per server, or the error."""
        if self.error:
            return self.error
        if self.empty:
            return "No MCP servers. Paste the mcpServers JSON to add some."
        if not self.servers:
            return "The JSON is fine, but it names no server that is turned on."
        count = len(self.servers)
        stuck = sum(missing_command(s) is not None for s in self.servers if not s.unsupported)
        lines = [f"Found {count} server{'s' * (count != 1)}:"]
        if stuck:
            lines = [
                f"Found {count} server{'s' * (count != 1)}; {stuck} can't start here "
                f"(its command isn't installed):"
            ]
        for server in self.servers:
            if server.unsupported:
                lines.append(f"• {server.name}: {server.unsupported}")
            elif (missing := missing_command(server)) is not None:
                lines.append(f"• {server.name}: {missing}")
            else:
                lines.append(f"• {server.name}: {shown_command(server.command, server.args)}")
        return "\n".join(lines)


def missing_command(server: McpServerConfig) -> str | None:
    """Why a server's command can't start here (it isn't installed), or None when it can."""
    import shutil

    command = server.command
    path = server.env.get("PATH") if server.env else None
    if shutil.which(command, path=path or os.environ.get("PATH")) is not None:
        return None
    return (
        f"the command {command!r} was not found on this computer; install it, or write "
        "its full path"
    )


def check_mcp(text: str) -> McpCheck:
    """Read pasted `mcpServers` JSON; empty text means no servers."""
    if not text.strip():
        return McpCheck(empty=True)
    try:
        return McpCheck(servers=tuple(parse_mcp_servers(text)))
    except McpConfigError as exc:
        return McpCheck(error=str(exc), position=exc.position)


def mcp_path(config: Config, config_path: Path) -> Path:
    """Where the MCP servers are kept: the file the config names, else `mcp.json` beside it."""
    return config.mcp_config or config_path.parent / MCP_FILE


def read_mcp_text(path: Path) -> str:
    """The MCP file's text as it is ("" when there is none or it can't be read)."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return ""


def vision_choices(models: Iterable[ModelInfo], current: str) -> list[tuple[str, str]]:
    """(label, ref) for the Vision model list: automatic, every model that sees, the saved one."""
    choices = [(AUTOMATIC, "")]
    for model in models:
        if model.sees is True:
            where = "on this computer" if model.local else "cloud"
            choices.append((f"{model.name} — {model.provider_id}, {where}", model.ref))
    if current and all(ref != current for _, ref in choices):
        # Kept even when its provider is not answering now, so saving doesn't drop it.
        choices.append((f"{current} (not offered right now)", current))
    return choices


@dataclass(frozen=True)
class ToolsSettings:
    """What the Tools page saves."""

    mcp_text: str
    auto_may_use_cloud: bool
    vision_model: str
    always_allow: tuple[str, ...] = ()
    check_sight: bool = True
    system_prompt: str = ""  # every chat's, unless a chat has its own
    # What every chat does past its model's window, unless a chat says: "leave_out" or "stop".
    context_overflow: str = "leave_out"


def write_tools_settings(
    config_path: Path, config: Config, settings: ToolsSettings, *, mcp_changed: bool
) -> None:
    """Write the MCP file (when its text changed) and the config file's keys; ConfigError."""
    target = mcp_path(config, config_path)
    has_servers = bool(settings.mcp_text.strip())
    if mcp_changed and (has_servers or config.mcp_config is not None):
        _write_text(target, settings.mcp_text if has_servers else EMPTY_MCP)
    # Only what changed is written: a key the person never touched stays out of their file.
    values: dict[str, str | bool | list[str] | None] = {}
    if tuple(settings.always_allow) != tuple(config.always_allow_tools):
        values["always_allow_tools"] = list(settings.always_allow) or None
    if settings.auto_may_use_cloud != config.auto_may_use_cloud:
        values["auto_may_use_cloud"] = settings.auto_may_use_cloud
    if settings.check_sight != config.check_sight:
        values["check_sight"] = settings.check_sight
    if settings.system_prompt.strip() != config.system_prompt.strip():
        values["system_prompt"] = settings.system_prompt.strip() or None
    if settings.context_overflow != str(config.context_overflow):
        values["context_overflow"] = settings.context_overflow
    if settings.vision_model != config.vision_model:
        values["vision_model"] = settings.vision_model or None
    if config.mcp_config is None and mcp_changed and has_servers:
        # Relative to the config file, as the file itself reads it.
        values["mcp_config"] = MCP_FILE if target.parent == config_path.parent else str(target)
    if values:
        save_top_level(config_path, values)


def _write_text(path: Path, text: str) -> None:
    write_config_text(path, text if text.endswith("\n") else text + "\n")  # whole, 0600
