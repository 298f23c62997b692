"""The fake agent (tests/servers/acp_agent.py) and the fake Codex app server
(tests/servers/codex_app_server.py) written into a test home's config, as a person
writes an agent there."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Protocol

ROOT = Path(__file__).resolve().parents[2]


class Home(Protocol):
    """A test home: where its config file is."""

    config: Path


def with_agent(home: Home, log: Path, behaviours: str) -> None:
    """Add the fake agent to the home's config, acting as `behaviours` and logging to `log`."""
    text = home.config.read_text(encoding="utf-8")
    text += (
        "\n[[providers]]\n"
        'id = "fake"\n'
        'kind = "acp"\n'
        f"command = {json.dumps(sys.executable)}\n"
        'args = ["-m", "tests.servers.acp_agent"]\n'
        f'env = {{ FAKE_ACP = "{behaviours}", FAKE_ACP_LOG = {json.dumps(str(log))}, '
        f"PYTHONPATH = {json.dumps(str(ROOT))} }}\n"
    )
    home.config.write_text(text, encoding="utf-8")


def with_fake_codex(home: Home, state: Path, behaviours: str, model_provider: str = "") -> None:
    """Add the fake Codex app server (tests/servers/codex_app_server.py) as `codex`."""
    text = home.config.read_text(encoding="utf-8")
    text += (
        "\n[[providers]]\n"
        'id = "codex"\n'
        'kind = "codex"\n'
        f"command = {json.dumps(sys.executable)}\n"
        'args = ["-m", "tests.servers.codex_app_server"]\n'
        f'env = {{ FAKE_CODEX = "{behaviours}", FAKE_CODEX_STATE = {json.dumps(str(state))}, '
        f"PYTHONPATH = {json.dumps(str(ROOT))} }}\n"
    )
    if model_provider:
        text += f"model_provider = {json.dumps(model_provider)}\n"
    home.config.write_text(text, encoding="utf-8")
