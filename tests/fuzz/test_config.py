"""Any parsed config document, and any `mcpServers` text: settings, or one typed error.

`parse_config` gets what tomllib could hand it (strings, numbers, booleans, dates,
arrays, tables) under the keys it knows and others; `parse_mcp_servers` gets
arbitrary text, mutated real Claude Desktop configs and arbitrary JSON. Neither
may raise anything but its module's error (ConfigError, McpConfigError).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from app.agent_servers import AgentPaste, read_agent_servers
from app.config import Config, ConfigError, parse_config
from app.tools.mcp.config import McpConfigError, McpServerConfig, parse_mcp_servers
from routing.presets import KINDS
from tests.config_checks import (
    WRITTEN_ENTRY,
    agents_as_written,
    agents_can_be_saved,
    servers_as_written,
)
from tests.fuzz.strategies import FUZZ, JSON, known_bugs, shaped

PATH = Path("/home/someone/.config/sightline/config.toml")
DATA = Path("/home/someone/.local/share/sightline")

# What tomllib produces: no None, but dates and times, and integers of any size.
TOML_SCALARS = (
    st.text(max_size=30)
    | st.integers()
    | st.floats()
    | st.booleans()
    | st.dates()
    | st.times()
    | st.datetimes(timezones=st.none() | st.just(dt.UTC))
    | st.sampled_from(["", "~", "~/mcp.json", "~nosuchuser/x", "http://127.0.0.1:11434", "a:b"])
)
TOML_VALUES = st.recursive(
    TOML_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)
URLS = st.sampled_from(
    [
        "",
        "http://127.0.0.1:11434",
        "https://api.example.com/v1/",
        "127.0.0.1:11434",
        "http://[::1]:8080",
        "http://host:99999",
        "http://[bad",
        "ftp://files",
        "0.0.0.0",
    ]
) | st.text(max_size=30)
PROVIDER = shaped(
    {
        "id": st.sampled_from(["ollama", "mine", "a:b", ""]) | TOML_VALUES,
        "kind": st.sampled_from(KINDS) | TOML_VALUES,
        "base_url": URLS | TOML_VALUES,
        "api_key": st.text(max_size=20) | TOML_VALUES,
        "enabled": st.booleans() | TOML_VALUES,
        "local": st.booleans() | TOML_VALUES,
    }
)
# A document written well, so that settings with providers are read, not only refused.
WRITTEN_PROVIDER = st.fixed_dictionaries(
    {"kind": st.sampled_from(KINDS)},
    optional={
        "id": st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,8}", fullmatch=True),
        "base_url": st.sampled_from(["http://127.0.0.1:11434", "https://api.example.com/v1/"]),
        "api_key": st.text(max_size=20),
        "enabled": st.booleans(),
    },
)
DOCUMENT = shaped(
    {
        "discover_local": st.booleans() | TOML_VALUES,
        "auto_may_use_cloud": st.booleans() | TOML_VALUES,
        "vision_model": st.sampled_from(["", "ollama:llava:7b", "llava"]) | TOML_VALUES,
        "mcp_config": st.sampled_from(["mcp.json", "~/mcp.json"]) | TOML_VALUES,
        "data_dir": st.sampled_from(["/tmp/sightline", "~/sightline"]) | TOML_VALUES,
        "providers": st.lists(PROVIDER, max_size=3) | TOML_VALUES,
    }
)
WRITTEN_DOCUMENT = st.fixed_dictionaries(
    {},
    optional={
        "discover_local": st.booleans(),
        "auto_may_use_cloud": st.booleans(),
        "vision_model": st.sampled_from(["", "ollama:llava:7b"]),
        "data_dir": st.sampled_from(["/tmp/sightline", "~/sightline"]),
        "providers": st.lists(WRITTEN_PROVIDER, max_size=3),
    },
)
DOCUMENTS = DOCUMENT | WRITTEN_DOCUMENT
ENVIRON = st.fixed_dictionaries(
    {}, optional={"OLLAMA_HOST": URLS, "SIGHTLINE_DATA_DIR": st.sampled_from(["/tmp/x"])}
)
HOME_OF_NOBODY = "~nosuchuser-sightline/mcp.json"


def config_or_error(raw: dict[str, Any], environ: dict[str, str]) -> Config | None:
    try:
        config = parse_config(raw, PATH, DATA, environ)
    except ConfigError as error:
        assert str(error).startswith(str(PATH))  # every message names the file
        return None
    assert all(p.base_url.startswith(("http://", "https://")) for p in config.providers)
    assert len({p.id for p in config.providers}) == len(config.providers)
    said_as_written(raw, environ, config)
    return config


def said_as_written(raw: dict[str, Any], environ: dict[str, str], config: Config) -> None:
    """The settings are the document's: one provider per table, in order, of the kind and
    id written; each switch as written or its default; the environment's data folder first."""
    tables = raw.get("providers", [])
    assert [(p.kind, p.id) for p in config.providers] == [
        (table["kind"], table.get("id", table["kind"])) for table in tables
    ]
    assert config.discover_local is raw.get("discover_local", True)
    assert config.auto_may_use_cloud is raw.get("auto_may_use_cloud", False)
    assert config.vision_model == raw.get("vision_model", "")
    folder = raw.get("data_dir")
    if folder and not environ.get("SIGHTLINE_DATA_DIR"):
        assert config.data_dir == Path(folder).expanduser()
    else:
        assert config.data_dir == DATA


@known_bugs(
    "app/config.py parse_config: Path(...).expanduser() raises RuntimeError for a path that "
    "starts with ~user when there is no such user (mcp_config and data_dir), not ConfigError"
)
@FUZZ
@given(DOCUMENTS, ENVIRON)
@example({"mcp_config": HOME_OF_NOBODY}, {})
def test_any_config_document_is_settings_or_a_config_error(
    raw: dict[str, Any], environ: dict[str, str]
) -> None:
    config_or_error(raw, environ)


@FUZZ
@given(DOCUMENTS, ENVIRON)
def test_guard_any_config_document_without_home_folders_of_others(
    raw: dict[str, Any], environ: dict[str, str]
) -> None:
    def names_another_home(value: object) -> bool:
        return isinstance(value, str) and value.startswith("~") and not value.startswith("~/")

    raw = {
        k: v
        for k, v in raw.items()
        if not (k in ("mcp_config", "data_dir") and names_another_home(v))
    }
    config_or_error(raw, environ)


# -- mcpServers ----------------------------------------------------------------------

CLAUDE_DESKTOP = json.dumps(
    {
        "globalShortcut": "Ctrl+Space",
        "mcpServers": {
            "filesystem": {
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/Desktop"],
            },
            "github": {
                "command": "docker",
                "args": [
                    "run",
                    "-i",
                    "--rm",
                    "-e",
                    "GITHUB_TOKEN",
                    "ghcr.io/github/github-mcp-server",
                ],
                "env": {"GITHUB_TOKEN": "ghp_example"},
            },
            "remote": {"url": "https://mcp.example.com/sse"},
            "off": {"command": "uvx", "args": ["mcp-server-time"], "disabled": True},
        },
    },
    indent=2,
)


# What a hand-edited or half-pasted JSON file gets wrong, and numbers too long to read.
EDITS = ["{", "}", "[", "]", ",", '"', "'", "//", "/*", "\0", "1e999", "NaN", "1" * 5000]


@st.composite
def mutated(draw: st.DrawFn, text: str) -> str:
    """`text` with a few characters changed, cut, added or removed."""
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        at = draw(st.integers(min_value=0, max_value=len(text)))
        operation = draw(st.sampled_from(["insert", "delete", "cut", "replace"]))
        extra = draw(st.sampled_from(EDITS))
        if operation == "insert":
            text = text[:at] + extra + text[at:]
        elif operation == "delete":
            text = text[:at] + text[at + 1 :]
        elif operation == "cut":
            text = text[:at]
        else:
            text = text[:at] + extra + text[at + len(extra) :]
    return text


ENTRY = shaped(
    {
        "command": st.sampled_from(["npx", "", " ", "uvx"]) | JSON,
        "args": st.lists(st.text(max_size=10), max_size=3) | JSON,
        "env": st.dictionaries(st.text(max_size=8), st.text(max_size=8) | JSON, max_size=2) | JSON,
        "cwd": st.text(max_size=10) | JSON,
        "disabled": st.booleans() | JSON,
        "type": st.sampled_from(["stdio", "http", "sse", "SSE", "ws"]) | JSON,
        "url": st.text(max_size=10) | JSON,
    }
)


def servers_or_error(text: str) -> None:
    try:
        servers = parse_mcp_servers(text)
    except McpConfigError as error:
        assert str(error).startswith(("pasted text: ", "pasted text, line "))
        return
    assert all(isinstance(s, McpServerConfig) and s.name.strip() for s in servers)
    assert all(s.unsupported or s.command.strip() for s in servers)
    servers_as_written(text, servers)


@FUZZ
@given(st.text(max_size=200) | mutated(CLAUDE_DESKTOP))
@example(CLAUDE_DESKTOP)
@example("[" * 100_000)
@example('{"mcpServers": {"a": {"command": "x", "env": {"N": NaN}}}}')
def test_any_text_is_servers_or_an_mcp_config_error(text: str) -> None:
    servers_or_error(text)


@FUZZ
@given(
    st.dictionaries(st.text(max_size=10), ENTRY | JSON | WRITTEN_ENTRY, max_size=3), st.booleans()
)
def test_any_json_is_servers_or_an_mcp_config_error(inner: dict[str, Any], wrapped: bool) -> None:
    servers_or_error(json.dumps({"mcpServers": inner} if wrapped else inner))


ZED_AGENTS = json.dumps(
    {
        "agent_servers": {
            "OpenCode": {"command": "opencode", "args": ["acp"], "env": {}},
            "Gemini CLI": {"type": "custom", "command": "gemini", "args": ["--experimental-acp"]},
            "Claude Code": {},
        }
    },
    indent=2,
)


def agents_or_words(text: str) -> AgentPaste:
    pasted = read_agent_servers(text)
    assert pasted.empty or pasted.error or pasted.agents or pasted.skipped
    assert all(agent.id and agent.command for agent in pasted.agents)
    assert pasted.words({"PATH": ""}).strip()  # what the person reads, always something
    agents_can_be_saved(pasted)
    return pasted


@known_bugs("a number of thousands of digits raised ValueError out of the paste")
@FUZZ
@given(st.text(max_size=200) | mutated(ZED_AGENTS))
@example(ZED_AGENTS)
@example("[" * 100_000)
@example('{"agent_servers": {"a": {"command": "x", "args": [' + "1" * 5000 + "]}}}")
def test_any_pasted_text_is_agents_or_words_saying_why_not(text: str) -> None:
    agents_or_words(text)


@FUZZ
@given(
    st.dictionaries(st.text(max_size=10), ENTRY | JSON | WRITTEN_ENTRY, max_size=3), st.booleans()
)
def test_any_json_pasted_is_agents_or_words_saying_why_not(
    inner: dict[str, Any], wrapped: bool
) -> None:
    pasted = agents_or_words(json.dumps({"agent_servers": inner} if wrapped else inner))
    if wrapped:
        agents_as_written(inner, pasted)
