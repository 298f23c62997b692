"""API keys never land in Sightline's files: not the database, not the log, not the config folder.

`sightline models` and `sightline ask` run as whole processes with keys in the
environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, DEEPSEEK_API_KEY) and one in the
config file's `api_key`, against loopback servers that check them. Then every file
under the data folder, the config folder and a private HOME is searched for every
key; only the config file the person wrote may hold one (their own).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.faults.cli import sightline
from tests.servers.anthropic import FakeAnthropic
from tests.servers.openai_chat import FakeOpenAI
from tests.servers.openai_chat import Reply as OpenAIReply

OPENAI_KEY = "sk-proj-ENVopenai0123456789abcdefXYZ"
ANTHROPIC_KEY = "sk-ant-api03-ENVanthropic-0123456789abcdef"
CONFIG_KEY = "cfgsecret-5f1d2c3b4a69788796a5b4c3"  # a shape no redaction pattern knows
WRONG_KEY = "dsk-wrong-77aa88bb99ccddeeff001122"  # refused; the server echoes it back
KEYS = (OPENAI_KEY, ANTHROPIC_KEY, CONFIG_KEY, WRONG_KEY)


@dataclass
class Setup:
    root: Path
    config: Path
    data: Path
    home: Path
    env: dict[str, str]
    mine: FakeOpenAI


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[Setup]:
    with (
        FakeOpenAI(api_key=OPENAI_KEY) as openai,
        FakeAnthropic(api_key=ANTHROPIC_KEY) as anthropic,
        FakeOpenAI(api_key=CONFIG_KEY) as mine,
        FakeOpenAI(api_key="the-right-one") as deepseek,
    ):
        config = tmp_path / "config" / "config.toml"
        config.parent.mkdir()
        config.write_text(
            "discover_local = false\n\n"
            f'[[providers]]\nid = "openai"\nkind = "openai"\nbase_url = "{openai.url}"\n\n'
            '[[providers]]\nid = "claude"\nkind = "anthropic"\n'
            f'base_url = "{anthropic.base_url}"\n\n'
            f'[[providers]]\nid = "mine"\nkind = "custom"\nbase_url = "{mine.url}"\n'
            f'api_key = "{CONFIG_KEY}"\n\n'
            f'[[providers]]\nid = "deepseek"\nkind = "deepseek"\nbase_url = "{deepseek.url}"\n',
            encoding="utf-8",
        )
        home = tmp_path / "home"
        home.mkdir()
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "SIGHTLINE_CONFIG": str(config),
            "SIGHTLINE_DATA_DIR": str(tmp_path / "data"),
            "OPENAI_API_KEY": OPENAI_KEY,
            "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
            "DEEPSEEK_API_KEY": WRONG_KEY,
        }
        yield Setup(tmp_path, config, tmp_path / "data", home, env, mine)


def files_holding_keys(*folders: Path) -> dict[str, list[str]]:
    """Every file under the folders that holds a key, with the keys it holds."""
    found: dict[str, list[str]] = {}
    for folder in folders:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            data = path.read_bytes()
            held = [key for key in KEYS if key.encode() in data]
            if held:
                found[str(path)] = held
    return found


def test_no_key_reaches_a_file_sightline_writes(setup: Setup) -> None:
    listed = sightline(setup.env, "models", "--json")
    assert listed.returncode == 0, listed.stderr
    providers = {row["provider"] for row in json.loads(listed.stdout)}
    assert providers == {"openai", "claude", "mine"}  # each key was used and accepted
    assert "deepseek" in listed.stderr and WRONG_KEY not in listed.stderr

    for model in ("openai:gpt-4o-mini", "claude:claude-haiku-4-5-20251001", "mine:gpt-4o-mini"):
        done = sightline(setup.env, "ask", "--json", "--model", model, "hello")
        assert done.returncode == 0, done.stderr
    refused = sightline(setup.env, "ask", "--model", "deepseek:deepseek-chat", "hello")
    assert refused.returncode == 1 and WRONG_KEY not in refused.stderr
    # A failure after the request went out, so the log gets the provider's words.
    setup.mine.enqueue(OpenAIReply(status=500, body={"error": {"message": "upstream failed"}}))
    failed = sightline(setup.env, "ask", "--model", "mine:gpt-4o-mini", "hello again")
    assert failed.returncode == 1

    assert (setup.data / "sightline.db").exists() and (setup.data / "logs").is_dir()
    assert (setup.data / "logs" / "sightline.log").stat().st_size > 0
    assert files_holding_keys(setup.data, setup.config.parent, setup.home) == {
        str(setup.config): [CONFIG_KEY],  # the person's own file, as they wrote it
    }


def test_a_key_a_provider_echoes_in_its_error_stays_out_of_the_log(setup: Setup) -> None:
    # Some servers and proxies repeat what they were sent in their error text.
    echo = f"upstream refused the request sent with Authorization: {CONFIG_KEY}"
    setup.mine.enqueue(OpenAIReply(status=500, body={"error": {"message": echo}}))
    failed = sightline(setup.env, "ask", "--model", "mine:gpt-4o-mini", "hello")
    assert failed.returncode == 1 and CONFIG_KEY not in failed.stderr
    assert files_holding_keys(setup.data) == {}
