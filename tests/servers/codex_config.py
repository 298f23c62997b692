"""A CODEX_HOME for running the real `codex app-server` offline against a loopback
Responses API server (tests/servers/openai_responses.py), and the environment to run it in.

The home's config.toml names one provider, `loopback`, speaking `wire_api = "responses"`
at the given base URL with no key, no retries, no analytics, no update check and no
sign-in: nothing in it reaches the network. docs/codex.md says what was verified with it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from tests.servers.openai_responses import FakeResponses

MODEL = "gpt-5-mini"
PROVIDER = "loopback"
# Features that reach the network on their own (plugin and app sync), offer the model
# tools a test does not want (goals, pictures made), or never give up on a provider.
QUIET_FEATURES = (
    "plugins",
    "remote_plugin",
    "apps",
    "goals",
    "image_generation",
    "tool_suggest",
    "shell_snapshot",
    # Without this a provider that can't be reached is retried for ever ("Reconnecting...
    # waiting for network"); with it the turn fails.
    "unbounded_connection_retries",
)


def config_toml(base_url: str, model: str = MODEL, approval_policy: str = "on-request") -> str:
    """The config.toml text: the loopback provider as the only one, and quiet defaults."""
    url = json.dumps(base_url)  # a TOML basic string is a JSON string
    return (
        f"model = {json.dumps(model)}\n"
        f'model_provider = "{PROVIDER}"\n'
        f"approval_policy = {json.dumps(approval_policy)}\n"
        'sandbox_mode = "read-only"\n'
        "check_for_update_on_startup = false\n"
        "hide_agent_reasoning = false\n"
        'web_search = "disabled"\n'
        "\n"
        "[analytics]\n"
        "enabled = false\n"
        "\n"
        "[feedback]\n"
        "enabled = false\n"
        "\n"
        "[features]\n" + "".join(f"{name} = false\n" for name in QUIET_FEATURES) + "\n"
        "[agents]\n"
        "enabled = false\n"
        "\n"
        "[otel]\n"
        'exporter = "none"\n'
        "\n"
        f"[model_providers.{PROVIDER}]\n"
        'name = "Loopback"\n'
        f"base_url = {url}\n"
        'wire_api = "responses"\n'
        "requires_openai_auth = false\n"
        "request_max_retries = 0\n"
        "stream_max_retries = 0\n"
        "stream_idle_timeout_ms = 30000\n"
    )


def write_home(
    home: Path, base_url: str, model: str = MODEL, approval_policy: str = "on-request"
) -> Path:
    """Write a CODEX_HOME at `home` (0700) whose provider is the loopback server at
    `base_url` (".../v1"); returns `home`."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        config_toml(base_url, model, approval_policy), encoding="utf-8"
    )
    return home


def codex_env(home: Path, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment to run `codex app-server` in with `home` as its CODEX_HOME: the
    caller's (or `base`), without any OpenAI key or Codex variable that could sign it in."""
    env = {
        k: v
        for k, v in (os.environ if base is None else base).items()
        if not k.startswith(("OPENAI_", "CODEX_")) and k not in ("RUST_LOG",)
    }
    env["CODEX_HOME"] = str(home)
    env["RUST_LOG"] = "warn"
    env["NO_COLOR"] = "1"
    return env


def prepare(home: Path, base_url: str, **options: str) -> dict[str, str]:
    """Write the home and return the environment for it, in one call."""
    return codex_env(write_home(home, base_url, **options))


class CodexResponses(FakeResponses):
    """The loopback Responses server, as Codex is pointed at it."""
