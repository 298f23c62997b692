"""An agent's table of the config: the program to start, its arguments and environment.

An agent (kind "acp" or "codex") is a program, not an address (app/turn/acp/,
app/turn/codex/); app/config.py reads every other table and hands an agent's here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from app.config import AGENT_KEYS, CODEX_KEYS, ID_PATTERN, ConfigError, limits_of

if TYPE_CHECKING:
    from routing.models import ProviderConfig

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse_agent(table: Mapping[str, Any], where: str) -> ProviderConfig:
    """An agent's table: the program to start (`command`, `args`, `env`), `local`, `enabled`,
    its limits."""
    from routing.models import ProviderConfig

    kind = str(table.get("kind"))
    keys = CODEX_KEYS if kind == "codex" else AGENT_KEYS
    unknown = sorted(set(table) - keys)
    if unknown:
        raise ConfigError(
            f'{where}: unknown key {unknown[0]!r}; an agent (kind = "{kind}") has: '
            f"{', '.join(sorted(keys))}."
        )
    provider_id = table.get("id", "")
    if not isinstance(provider_id, str) or not ID_PATTERN.match(provider_id):
        raise ConfigError(
            f"{where}: an agent needs an id of letters, digits, '.', '_' or '-' (no colon), "
            'like id = "opencode".'
        )
    command = table.get("command", "codex" if kind == "codex" else None)
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(
            f"{where}: agent {provider_id!r} needs command: the program to start, in quotes "
            '(found on PATH, or a full path), like command = "opencode".'
        )
    if any(not c.isprintable() for c in command):
        raise ConfigError(f"{where}: agent {provider_id!r}: command holds a control character.")
    args = table.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ConfigError(
            f'{where}: agent {provider_id!r}: args must be a list of texts, like args = ["acp"].'
        )
    env = table.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise ConfigError(
            f"{where}: agent {provider_id!r}: env must be a table of texts, like "
            'env = { OPENCODE_DISABLE_MODELS_FETCH = "1" }.'
        )
    bad = next((name for name in env if not _ENV_NAME.match(name)), None)
    if bad is not None:
        raise ConfigError(
            f"{where}: agent {provider_id!r}: env name {bad!r} must be letters, digits and '_'."
        )
    from routing.secrets import register_env

    register_env(env.items())  # the agent may print them in its log
    model_provider = table.get("model_provider", "")
    if not isinstance(model_provider, str) or any(not c.isprintable() for c in model_provider):
        raise ConfigError(
            f"{where}: agent {provider_id!r}: model_provider must be the name of one of Codex's "
            'model providers, in quotes, like model_provider = "ollama".'
        )
    # Codex's own local providers imply `local`; anything else runs off this computer
    # unless the person says otherwise.
    local = table.get("local", None if kind == "codex" else False)
    if local is not None and not isinstance(local, bool):
        raise ConfigError(
            f"{where}: agent {provider_id!r}: local must be true or false (does the agent's "
            "own model run on this computer?)."
        )
    enabled = table.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError(f"{where}: enabled must be true or false.")
    idle, turn = limits_of(table, where)
    return ProviderConfig(
        id=provider_id,
        kind=kind,
        base_url="",
        enabled=enabled,
        local=local,
        command=command.strip(),
        args=tuple(args),
        env=tuple(env.items()),
        model_provider=model_provider.strip(),
        idle_seconds=idle,
        turn_seconds=turn,
    )
