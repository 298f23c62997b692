"""Agents in the config: a provider of kind "acp" is a program to start (app/config_agents.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.config import ConfigError, agent_providers, effective_providers, parse_config
from routing.presets import preset_for
from routing.secrets import redact

PATH = Path("/home/someone/.config/sightline/config.toml")
DATA = Path("/tmp/sightline-data")


def parsed(*providers: dict[str, Any]) -> Any:
    return parse_config({"discover_local": False, "providers": list(providers)}, PATH, DATA, {})


def test_an_agent_as_the_issue_writes_it() -> None:
    config = parsed(
        {
            "id": "opencode",
            "kind": "acp",
            "command": "opencode",
            "args": ["acp"],
            "env": {"OPENCODE_DISABLE_MODELS_FETCH": "1"},
        },
        {"id": "ollama", "kind": "ollama", "base_url": "http://127.0.0.1:11434"},
    )
    [agent] = agent_providers(config)
    assert (agent.id, agent.command, agent.args) == ("opencode", "opencode", ("acp",))
    assert agent.env == (("OPENCODE_DISABLE_MODELS_FETCH", "1"),)
    assert agent.is_agent and not agent.is_local  # its own model runs elsewhere unless said
    # The catalogue never gets it: an agent has no wire to list models through.
    assert [p.id for p in effective_providers(config, {})] == ["ollama"]
    assert preset_for("acp").wire == "acp"


@pytest.mark.parametrize("kind", ["acp", "codex"])
def test_an_agent_s_own_limits_are_read_in_seconds(kind: str) -> None:
    table = {"id": "slow", "kind": kind, "command": "x", "idle_seconds": 60, "turn_seconds": 7200}
    [agent] = agent_providers(parsed(table))
    assert (agent.idle_seconds, agent.turn_seconds) == (60.0, 7200.0)
    with pytest.raises(ConfigError, match="turn_seconds must be a number of seconds above 0"):
        parsed(table | {"turn_seconds": "2h"})


def test_local_says_whether_its_model_runs_here() -> None:
    [agent] = agent_providers(parsed({"id": "a", "kind": "acp", "command": "x", "local": True}))
    assert agent.is_local


def test_a_disabled_agent_is_not_offered() -> None:
    config = parsed({"id": "a", "kind": "acp", "command": "x", "enabled": False})
    assert agent_providers(config) == []


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ({"kind": "acp", "command": "x"}, "id is needed: an agent's id is letters"),
        ({"id": "a", "kind": "acp"}, "command is needed: the program to start, in quotes"),
        ({"id": "a", "kind": "acp", "command": "  "}, "command is needed"),
        ({"id": "a", "kind": "acp", "command": 3}, "command must be text in quotes, not a number"),
        ({"id": "a", "kind": "acp", "command": "a\nb"}, "command holds a line break"),
        ({"id": "a", "kind": "acp", "command": "x", "args": "acp"}, "args must be a list"),
        ({"id": "a", "kind": "acp", "command": "x", "args": [1]}, "args[0] must be a string"),
        ({"id": "a", "kind": "acp", "command": "x", "args": ["\0"]}, "args[0] contains a NUL"),
        ({"id": "a", "kind": "acp", "command": "x", "env": ["A"]}, "env must be a table"),
        ({"id": "a", "kind": "acp", "command": "x", "env": {"A": 1}}, "env.A must be a string"),
        ({"id": "a", "kind": "acp", "command": "x", "env": {"A B": "1"}}, 'env["A B"] is not'),
        ({"id": "a", "kind": "acp", "command": "x", "local": "no"}, "local must be true or false"),
        ({"id": "a", "kind": "acp", "command": "x", "base_url": "h"}, "base_url is not a key"),
        ({"id": "a:b", "kind": "acp", "command": "x"}, "no colon"),
    ],
)
def test_a_broken_agent_table_names_what_to_change(table: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parsed(table)
    assert str(caught.value).startswith(f"{PATH}: providers[0].")
    assert words in str(caught.value)


def test_command_on_a_model_provider_says_it_is_for_agents() -> None:
    with pytest.raises(ConfigError, match='command is for an agent \\(kind = "acp"\\)'):
        parsed({"id": "o", "kind": "ollama", "command": "ollama"})


def test_the_unknown_kind_message_lists_acp() -> None:
    with pytest.raises(ConfigError, match="acp"):
        parsed({"id": "o", "kind": "agent"})


def test_codex_as_the_issue_writes_it() -> None:
    config = parsed(
        {"id": "codex", "kind": "codex", "model_provider": "ollama", "env": {"CODEX_HOME": "/x"}},
        {"id": "cloud", "kind": "codex", "command": "/opt/codex/bin/codex"},
        {"id": "home-box", "kind": "codex", "model_provider": "box", "local": True},
    )
    local, cloud, box = agent_providers(config)
    # command defaults to codex; Codex's own ollama runs here, so `local` is implied.
    assert (local.kind, local.command, local.model_provider, local.is_local) == (
        "codex",
        "codex",
        "ollama",
        True,
    )
    assert local.env == (("CODEX_HOME", "/x"),)
    assert (cloud.command, cloud.model_provider, cloud.is_local) == (
        "/opt/codex/bin/codex",
        "",
        False,
    )
    assert box.is_local  # said so: a provider of the person's own Codex config
    # None of them is listed by the catalogue (only the local servers looked for are).
    assert not any(p.is_agent for p in effective_providers(config, {}))
    assert preset_for("codex").wire == "codex"


def test_a_codex_key_on_an_acp_agent_says_which_keys_an_acp_agent_has() -> None:
    with pytest.raises(
        ConfigError, match=r'model_provider is not a key of an agent \(kind = "acp"\)'
    ):
        parsed({"id": "oc", "kind": "acp", "command": "opencode", "model_provider": "ollama"})
    with pytest.raises(ConfigError, match="model_provider must be the name"):
        parsed({"id": "codex", "kind": "codex", "model_provider": 3})


@pytest.mark.parametrize("kind", ["acp", "codex"])
def test_an_agents_env_values_are_secrets_once_the_config_is_read(kind: str) -> None:
    said = "token agent-tok-778899, pin 4321, debug 1"
    assert redact(said) == said
    env = {"T": "agent-tok-778899", "AGENT_PASSWORD": "4321", "DEBUG": "1"}
    parsed({"id": "a", "kind": kind, "command": "x", "env": env})
    # What the agent prints in its log is redacted; a plain setting stays readable.
    assert redact(said) == "token [redacted], pin [redacted], debug 1"
