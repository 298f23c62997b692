"""An agent's table of the config: the program to start, its arguments and environment.

An agent (kind "acp" or "codex") is a program, not an address (app/turn/acp/,
app/turn/codex/); app/config.py reads every other table and hands an agent's here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from app.config import AGENT_KEYS, CODEX_KEYS, limits_of
from app.config_check import (
    ID_PATTERN,
    ID_RULE,
    Key,
    environment,
    flag,
    maybe_flag,
    problem,
    text,
    texts,
)

if TYPE_CHECKING:
    from routing.models import ProviderConfig


def parse_agent(table: Mapping[str, Any], at: Key) -> ProviderConfig:
    """An agent's table: the program to start (`command`, `args`, `env`), `local`, `enabled`,
    its limits."""
    from routing.models import ProviderConfig

    kind = str(table.get("kind"))
    keys = CODEX_KEYS if kind == "codex" else AGENT_KEYS
    unknown = sorted(set(table) - keys)
    if unknown:
        raise problem(
            (*at, unknown[0]),
            f'is not a key of an agent (kind = "{kind}"); it has: {", ".join(sorted(keys))}',
        )
    provider_id = table.get("id", "")
    if not isinstance(provider_id, str) or not ID_PATTERN.match(provider_id):
        raise problem((*at, "id"), f'is needed: an agent\'s id is {ID_RULE}, like id = "opencode"')
    command = text(table, at, "command", "codex" if kind == "codex" else "", what="text in quotes")
    if not command.strip():
        raise problem(
            (*at, "command"),
            "is needed: the program to start, in quotes (found on PATH, or a full path), "
            'like command = "opencode"',
        )
    if any(not c.isprintable() for c in command):
        raise problem((*at, "command"), "holds a line break or another control character")
    args = texts(table, at, "args", what='a list of texts, like args = ["acp"]')
    like = 'like env = { OPENCODE_DISABLE_MODELS_FETCH = "1" }'
    env = environment(table, at, "env", what=f"a table of texts, {like}")
    from routing.secrets import register_env

    register_env(env.items())  # the agent may print them in its log
    model_provider = text(
        table, at, "model_provider", what="the name of one of Codex's model providers, in quotes"
    )
    if any(not c.isprintable() for c in model_provider):
        raise problem((*at, "model_provider"), "holds a line break or another control character")
    # Codex's own local providers imply `local`; anything else runs off this computer
    # unless the person says otherwise.
    local = maybe_flag(table, at, "local", " (does the agent's own model run on this computer?)")
    if local is None and kind != "codex":
        local = False
    idle, turn = limits_of(table, at)
    return ProviderConfig(
        id=provider_id,
        kind=kind,
        base_url="",
        enabled=flag(table, at, "enabled", True),
        local=local,
        command=command.strip(),
        args=args,
        env=tuple(env.items()),
        model_provider=model_provider.strip(),
        idle_seconds=idle,
        turn_seconds=turn,
    )
