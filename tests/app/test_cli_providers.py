"""`sightline models` and `ask` work for every kind of provider, over real loopback HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.servers.anthropic import DEFAULT_KEY, FakeAnthropic
from tests.servers.lmstudio import FakeLMStudio
from tests.servers.openai_chat import FakeOpenAI

OPENAI_KEY = "sk-loopback-openai-0123456789"


@dataclass
class Fleet:
    openai: FakeOpenAI
    llamacpp: FakeOpenAI
    lmstudio: FakeLMStudio
    anthropic: FakeAnthropic
    config: Path
    data: Path

    def env(self) -> dict[str, str]:
        import os

        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env |= {
            "SIGHTLINE_CONFIG": str(self.config),
            "SIGHTLINE_DATA_DIR": str(self.data),
            "OPENAI_API_KEY": OPENAI_KEY,
            "ANTHROPIC_API_KEY": DEFAULT_KEY,
        }
        return env


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[Fleet]:
    servers = (
        FakeOpenAI(api_key=OPENAI_KEY),
        FakeOpenAI(flavour="llamacpp"),
        FakeLMStudio(),
        FakeAnthropic(),
    )
    for server in servers:
        server.start()
    openai, llamacpp, lmstudio, anthropic = servers
    config = tmp_path / "config.toml"
    config.write_text(
        "discover_local = false\n"
        f'[[providers]]\nid = "oa"\nkind = "openai"\nbase_url = "{openai.url}"\nlocal = false\n'
        f'[[providers]]\nid = "llama"\nkind = "custom"\nbase_url = "{llamacpp.url}"\n'
        f'[[providers]]\nid = "lms"\nkind = "lmstudio"\nbase_url = "{lmstudio.base_url}"\n'
        f'[[providers]]\nid = "claude"\nkind = "anthropic"\nbase_url = "{anthropic.base_url}"\n'
        "local = false\n"
    )
    yield Fleet(openai, llamacpp, lmstudio, anthropic, config, tmp_path / "data")
    for server in servers:
        server.stop()


def run(fleet: Fleet, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        env=fleet.env(),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )


def test_models_lists_every_kind(fleet: Fleet) -> None:
    done = run(fleet, "models", "--json")
    assert done.returncode == 0, done.stderr
    rows = {(r["provider"], r["model"]): r for r in json.loads(done.stdout)}
    assert rows[("oa", "gpt-4o-mini")]["local"] is False
    assert rows[("oa", "gpt-4o-mini")]["sees"] is True  # OpenAI: every model sees
    assert rows[("lms", "google/gemma-3-4b")]["sees"] is True  # LM Studio's own list
    assert rows[("lms", "qwen/qwen3-8b")]["sees"] is False
    assert rows[("lms", "qwen/qwen3-8b")]["local"] is True
    assert rows[("claude", "claude-haiku-4-5-20251001")]["sees"] is True
    assert {p for p, _ in rows} == {"oa", "llama", "lms", "claude"}


@pytest.mark.parametrize(
    "ref", ["oa:gpt-4o-mini", "lms:qwen/qwen3-8b", "claude:claude-haiku-4-5-20251001"]
)
def test_ask_works_for_every_kind(fleet: Fleet, ref: str) -> None:
    done = run(fleet, "ask", "--model", ref, "Hello over there")
    assert done.returncode == 0, done.stderr
    assert "Hello over there" in done.stdout


def test_ask_llamacpp_server_of_your_own(fleet: Fleet) -> None:
    model = json.loads(run(fleet, "models", "--json").stdout)
    name = next(r["model"] for r in model if r["provider"] == "llama")
    done = run(fleet, "ask", "--model", f"llama:{name}", "Hi llama")
    assert done.returncode == 0, done.stderr
    body = fleet.llamacpp.requests[-1][2]
    assert body["messages"][-1]["content"] == "Hi llama"  # a plain string, never an array


def test_a_refused_key_says_which_and_where(fleet: Fleet) -> None:
    env = fleet.env() | {"OPENAI_API_KEY": "sk-wrong-key-000000"}
    done = subprocess.run(
        [sys.executable, "-m", "app", "ask", "--model", "oa:gpt-4o-mini", "hi"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "OPENAI_API_KEY" in done.stderr


def test_no_key_is_left_in_files(fleet: Fleet) -> None:
    run(fleet, "ask", "--model", "oa:gpt-4o-mini", "hi")
    run(fleet, "ask", "--model", "claude:claude-haiku-4-5-20251001", "hi")
    for path in fleet.data.rglob("*"):
        if path.is_file():
            content = path.read_bytes()
            assert OPENAI_KEY.encode() not in content, path
            assert DEFAULT_KEY.encode() not in content, path
