"""Hostile servers as `sightline ask` meets them: one clear line, bounded memory, nothing lost.

Each stream shape (Ollama's NDJSON, the OpenAI shape's SSE, Anthropic's SSE) sends
in turn an endless line, a gzip bomb as a chat's error body or as the model list
(about 6 MB inflating to 6 GB), keep-alive bytes forever (after some words, or none),
an answer that never ends, and words trickling past the turn's limit. The child's
address space is capped (tests/faults/cli.py), so reading any of them whole would end
in a MemoryError or a kill instead of the one line asserted here; and the conversation
keeps the person's message and what came of the answer, with the error beside it. The
idle and turn limits are shortened by the provider's config (idle_seconds,
turn_seconds), the answer's cap by the child's sitecustomize.
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
from tests.servers.hostile import (
    ENDLESS_ANSWER,
    ENDLESS_LINE,
    GZIP_BOMB,
    KEEPALIVE_FLOOD,
    WORDS,
    WORDS_THEN_KEEPALIVE,
)

SHAPES = ("ollama", "openai", "anthropic")
IDLE_SECONDS = 1  # the provider's idle_seconds in the child's config
TURN_SECONDS = 2  # and its turn_seconds
ANSWER_CHARS = 100_001  # the child's cap on an answer, set before Sightline loads
PROMPT = "Is anyone there?"


@dataclass
class Setup:
    """One shape's server and a Sightline home whose only provider it is."""

    shape: str
    server: Any
    home: SightlineHome
    env: dict[str, str]
    model: str  # PROVIDER:MODEL
    listing: tuple[str, ...]  # the paths `ask` reads to know its model
    reply: Any  # the server module's Reply class

    def ask(self, answered: str = "") -> str:
        """Run `sightline ask` (in at most 30 s); its one line on stderr, checked, and what
        it printed of the answer (`answered`; "" for none)."""
        done = sightline(self.env, "ask", "--model", self.model, PROMPT, timeout=30)
        line = one_clear_line(done)
        assert done.returncode == 1, done.stderr
        assert done.stdout.rstrip("\n") == answered
        return line.removeprefix("sightline: ")

    def transcript(self) -> list[tuple[str, ...]]:
        with Store.open(self.home.data) as store:
            [conversation] = store.conversations.list()
            return [describe(item) for item in store.items(conversation.id)]

    def kept_the_message(self, message: str) -> None:
        assert self.transcript() == [("user", PROMPT, "complete"), ("notice", "error", message)]


def answer_cap_lowered(folder: Path) -> str:
    """A sitecustomize that lowers the child's cap on an answer, as a test in this process
    would."""
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(
        "import routing.wires.answer_cap\n"
        f"routing.wires.answer_cap.ANSWER_CHARS = {ANSWER_CHARS}\n",
        encoding="utf-8",
    )
    return os.pathsep.join([str(folder), str(ROOT)])


def provider_table(shape: str, server: Any) -> str:
    limits = f"idle_seconds = {IDLE_SECONDS}\nturn_seconds = {TURN_SECONDS}\n"
    if shape == "ollama":
        return f'id = "ollama"\nkind = "ollama"\nbase_url = "{server.base_url}"\n{limits}'
    if shape == "openai":
        return f'id = "mine"\nkind = "custom"\nbase_url = "{server.url}"\n{limits}'
    return f'id = "claude"\nkind = "anthropic"\nbase_url = "{server.base_url}"\n{limits}'


@pytest.fixture(params=SHAPES)
def setup(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Setup]:
    """Each shape in turn, its server on loopback, `sightline ask` pointed at it."""
    shape: str = request.param
    servers: dict[str, Any] = {
        # A named Ollama model is asked about alone; the whole list only where that fails.
        "ollama": (
            ollama.FakeOllama,
            ollama.Reply,
            "ollama:llama3.2:3b",
            ("/api/show", "/api/tags"),
        ),
        "openai": (openai_chat.FakeOpenAI, openai_chat.Reply, "mine:gpt-4o-mini", ("/v1/models",)),
        "anthropic": (
            anthropic.FakeAnthropic,
            anthropic.Reply,
            "claude:claude-haiku-4-5-20251001",
            ("/v1/models",),
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
            "PYTHONPATH": answer_cap_lowered(tmp_path / "site"),
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
    for path in setup.listing:
        setup.server.hostile[path] = GZIP_BOMB
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


def test_keepalives_after_some_words_time_out_keeping_the_words(setup: Setup) -> None:
    setup.server.enqueue(setup.reply(hostile=WORDS_THEN_KEEPALIVE))
    words = WORDS.decode()
    message = setup.ask(answered=words)
    assert message == (
        f"Nothing of the answer came from 127.0.0.1:{setup.server.port} for 1 second, so "
        "Sightline stopped waiting. Try again, or pick a lighter model."
    )
    assert setup.transcript() == [
        ("user", PROMPT, "complete"),
        ("assistant", words, "failed"),
        ("notice", "error", message),
    ]


def test_an_endless_answer_is_cut_at_its_cap_and_kept(setup: Setup) -> None:
    setup.server.enqueue(setup.reply(hostile=ENDLESS_ANSWER))
    kept = (WORDS.decode() * (ANSWER_CHARS // len(WORDS) + 1))[:ANSWER_CHARS]
    message = setup.ask(answered=kept)
    assert message == (
        f"The answer from 127.0.0.1:{setup.server.port} was cut at 100,001 characters, the "
        "most Sightline keeps of one answer; what came before is kept."
    )
    assert setup.transcript() == [
        ("user", PROMPT, "complete"),
        ("assistant", kept, "failed"),
        ("notice", "error", message),
    ]


def test_words_trickling_past_the_turn_s_limit_end_it_and_are_kept(setup: Setup) -> None:
    # A piece every 0.1 s for 20 s: never idle for its second, past its turn's 2 seconds.
    setup.server.enqueue(setup.reply(text="tick " * 200, chunk_chars=5, delay=0.1))
    done = sightline(setup.env, "ask", "--model", setup.model, PROMPT, timeout=30)
    message = one_clear_line(done).removeprefix("sightline: ")
    assert message == (
        "This turn took longer than 2 seconds, the most one turn may take, so Sightline "
        f"stopped waiting for 127.0.0.1:{setup.server.port}; what came is kept."
    )
    user, answer, notice = setup.transcript()
    assert user == ("user", PROMPT, "complete") and notice == ("notice", "error", message)
    assert answer[1].startswith("tick tick ") and answer[1] == done.stdout.rstrip("\n")
    assert answer[2] == "failed" and len(answer[1]) < len("tick " * 200)
