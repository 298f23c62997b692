"""Hostile servers as `sightline ask` meets them: one clear line, bounded memory, nothing lost.

Each stream shape (Ollama's NDJSON, the OpenAI shape's SSE, Anthropic's SSE) sends
in turn an endless line, a gzip bomb as a chat's error body or as the model list
(about 6 MB inflating to 6 GB), and keep-alive bytes forever. The child's address
space is capped (tests/faults/cli.py), so reading any of them whole would end in a
MemoryError or a kill instead of the one line asserted here; and the conversation
keeps the person's message, with the error beside it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.store import Store
from tests.conftest import SightlineHome
from tests.faults.cli import ROOT, one_clear_line, sightline
from tests.faults.conftest import describe
from tests.servers import anthropic, ollama, openai_chat
from tests.servers.hostile import ENDLESS_LINE, GZIP_BOMB, KEEPALIVE_FLOOD

SHAPES = ("ollama", "openai", "anthropic")
IDLE_LIMIT = 1.0  # the child's, set before Sightline loads (see `idle_limit_lowered`)
PROMPT = "Is anyone there?"


@dataclass
class Setup:
    """One shape's server and a Sightline home whose only provider it is."""

    shape: str
    server: Any
    home: SightlineHome
    env: dict[str, str]
    model: str  # PROVIDER:MODEL
    listing: str  # the path of its model list
    reply: Any  # the server module's Reply class

    def ask(self) -> str:
        """Run `sightline ask` (in at most 30 s); its one line on stderr, checked."""
        done = sightline(self.env, "ask", "--model", self.model, PROMPT, timeout=30)
        line = one_clear_line(done)
        assert done.returncode == 1, done.stderr
        assert done.stdout == ""
        return line.removeprefix("sightline: ")

    def transcript(self) -> list[tuple[str, ...]]:
        with Store.open(self.home.data) as store:
            [conversation] = store.conversations.list()
            return [describe(item) for item in store.items(conversation.id)]

    def kept_the_message(self, message: str) -> None:
        assert self.transcript() == [
            ("user", PROMPT, "complete"),
            ("notice", "error", message),
        ]


def idle_limit_lowered(folder: Path) -> str:
    """A sitecustomize that lowers the child's idle limit, as a test in this process would."""
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(
        f"import routing.wires.bounded\nrouting.wires.bounded.IDLE_LIMIT = {IDLE_LIMIT}\n",
        encoding="utf-8",
    )
    return os.pathsep.join([str(folder), str(ROOT)])


def provider_table(shape: str, server: Any) -> str:
    if shape == "ollama":
        return f'id = "ollama"\nkind = "ollama"\nbase_url = "{server.base_url}"\n'
    if shape == "openai":
        return f'id = "mine"\nkind = "custom"\nbase_url = "{server.url}"\n'
    return f'id = "claude"\nkind = "anthropic"\nbase_url = "{server.base_url}"\n'


@pytest.fixture(params=SHAPES)
def setup(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Setup]:
    """Each shape in turn, its server on loopback, `sightline ask` pointed at it."""
    shape: str = request.param
    servers: dict[str, Any] = {
        "ollama": (ollama.FakeOllama, ollama.Reply, "ollama:llama3.2:3b", "/api/tags"),
        "openai": (openai_chat.FakeOpenAI, openai_chat.Reply, "mine:gpt-4o-mini", "/v1/models"),
        "anthropic": (
            anthropic.FakeAnthropic,
            anthropic.Reply,
            "claude:claude-haiku-4-5-20251001",
            "/v1/models",
        ),
    }
    server_class, reply, model, listing = servers[shape]
    with server_class() as server:
        config = tmp_path / "config.toml"
        config.write_text(
            f"discover_local = false\n\n[[providers]]\n{provider_table(shape, server)}",
            encoding="utf-8",
        )
        home = SightlineHome(config=config, data=tmp_path / "data")
        env = home.env() | {
            "PYTHONPATH": idle_limit_lowered(tmp_path / "site"),
            "ANTHROPIC_API_KEY": anthropic.DEFAULT_KEY,
        }
        yield Setup(shape, server, home, env, model, listing, reply)


def names_the_server(message: str, setup: Setup) -> None:
    assert f"127.0.0.1:{setup.server.port}" in message


def test_an_endless_line_is_one_line_and_keeps_the_message(setup: Setup) -> None:
    setup.server.enqueue(setup.reply(hostile=ENDLESS_LINE))
    message = setup.ask()
    assert message.startswith("The server at ") and "sent more than Sightline accepts" in message
    assert "of the stream over 16 MB" in message
    names_the_server(message, setup)
    setup.kept_the_message(message)


def test_a_gzip_bomb_error_body_is_one_line_and_keeps_the_message(setup: Setup) -> None:
    setup.server.enqueue(setup.reply(hostile=GZIP_BOMB, status=500))
    message = setup.ask()
    assert "sent more than Sightline accepts (an HTTP 500 error body over 1 MB)" in message
    names_the_server(message, setup)
    setup.kept_the_message(message)


def test_a_gzip_bomb_model_list_is_one_line_and_keeps_the_message(setup: Setup) -> None:
    setup.server.hostile[setup.listing] = GZIP_BOMB
    message = setup.ask()
    assert "sent more than Sightline accepts (the model list over 32 MB)" in message
    names_the_server(message, setup)
    setup.kept_the_message(message)


def test_a_keepalive_flood_times_out_and_keeps_the_message(setup: Setup) -> None:
    setup.server.enqueue(setup.reply(hostile=KEEPALIVE_FLOOD))
    message = setup.ask()
    assert message.startswith("Nothing of the answer came from ")
    assert "for 1 second, so Sightline stopped waiting" in message
    names_the_server(message, setup)
    setup.kept_the_message(message)
