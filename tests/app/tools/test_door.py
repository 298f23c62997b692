"""The door: `sightline mcp-serve` run as a process and driven by the `mcp` SDK's own client."""

from __future__ import annotations

import base64
import io
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters, stdio_client, types
from PIL import Image

from app.store import Store
from routing.transcript import Notice, NoticeKind
from tests.app.cli.helpers import sightline
from tests.conftest import SightlineHome
from tests.servers.acp_agent import read_log
from tests.servers.acp_config import with_agent
from tests.servers.ollama import FakeOllama

ROOT = Path(__file__).resolve().parents[3]


@asynccontextmanager
async def door(home: SightlineHome, *flags: str) -> AsyncIterator[Client]:
    """`python -m app mcp-serve FLAGS`, started by the SDK's stdio client, as an agent does."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "app", "mcp-serve", *flags], env=home.env(), cwd=ROOT
    )
    client = Client(stdio_client(params), mode="legacy", cache=None)
    async with client:
        yield client


def png(path: Path) -> Path:
    Image.new("RGB", (8, 6), "red").save(path)
    return path


def texts(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def new_chat(home: SightlineHome) -> str:
    store = Store.open(home.data)
    try:
        return store.conversations.create("with an agent")
    finally:
        store.close()


def notices(home: SightlineHome, conversation: str) -> list[Notice]:
    store = Store.open(home.data)
    try:
        return [i.item for i in store.items(conversation) if isinstance(i.item, Notice)]
    finally:
        store.close()


async def test_lists_read_file_then_screenshot(home: SightlineHome) -> None:
    async with door(home, "--allow-tools") as client:
        listed = await client.list_tools()
    assert [t.name for t in listed.tools] == ["read_file", "screenshot"]
    assert listed.tools[0].input_schema["required"] == ["path"]


async def test_read_file_of_a_text_file(home: SightlineHome, tmp_path: Path) -> None:
    note = tmp_path / "todo.txt"
    note.write_text("buy milk\n", encoding="utf-8")
    async with door(home, "--allow-tools") as client:
        result = await client.call_tool("read_file", {"path": str(note)})
    assert not result.is_error
    assert texts(result) == "buy milk\n"


async def test_without_allow_tools_a_call_is_refused_and_not_run(
    home: SightlineHome, tmp_path: Path
) -> None:
    note = tmp_path / "secret.txt"
    note.write_text("the secret", encoding="utf-8")
    conversation = new_chat(home)
    flags = ("--sees", "--agent", "opencode", "--conversation", conversation)
    async with door(home, *flags) as client:
        result = await client.call_tool("read_file", {"path": str(note)})
    assert result.is_error
    assert "didn't allow read_file" in texts(result) and "--allow-tools" in texts(result)
    assert "the secret" not in texts(result)
    (notice,) = notices(home, conversation)  # the person is told what was refused
    assert notice.kind == NoticeKind.INFO and notice.crossed is None
    assert "opencode asked to use read_file" in notice.text


async def test_a_picture_goes_as_image_content_after_the_text_and_is_disclosed(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    conversation = new_chat(home)
    picture = png(tmp_path / "red.png")
    flags = ("--allow-tools", "--sees", "--agent", "opencode", "--conversation", conversation)
    async with door(home, *flags) as client:
        result = await client.call_tool("read_file", {"path": str(picture)})
    assert not result.is_error
    kinds = [c.type for c in result.content]
    assert kinds == ["text", "image"]
    image = result.content[1]
    assert isinstance(image, types.ImageContent) and image.mime_type == "image/png"
    assert Image.open(io.BytesIO(base64.b64decode(image.data))).size == (8, 6)
    assert fake_ollama.chat_requests() == []  # nobody described it: the agent looks itself
    (notice,) = notices(home, conversation)
    assert notice.kind == NoticeKind.DISCLOSURE and "red.png" in notice.text
    assert notice.crossed is not None
    assert notice.crossed.host == "agent opencode" and notice.crossed.local is False
    assert notice.crossed.what == "1 picture (red.png)"


async def test_a_blind_agent_gets_the_describers_words_and_the_looker_is_disclosed(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    conversation = new_chat(home)
    picture = png(tmp_path / "red.png")
    flags = ("--allow-tools", "--agent", "opencode", "--conversation", conversation)
    async with door(home, *flags) as client:
        result = await client.call_tool("read_file", {"path": str(picture)})
    assert not result.is_error
    assert [c.type for c in result.content] == ["text", "text"]
    assert "(I see 1 pictures)" in texts(result)  # the seeing model's words, not the picture
    asked = fake_ollama.chat_requests()[-1]
    assert asked["model"] in ("llava:7b", "qwen2.5vl:3b")
    assert asked["messages"][-1]["images"]
    (notice,) = notices(home, conversation)
    assert notice.kind == NoticeKind.DISCLOSURE and notice.crossed is not None
    assert notice.crossed.model.startswith("ollama:") and notice.crossed.what.startswith(
        "1 picture (red.png)"
    )


async def test_without_a_conversation_the_disclosure_goes_to_the_log(
    home: SightlineHome, tmp_path: Path
) -> None:
    picture = png(tmp_path / "red.png")
    async with door(home, "--allow-tools", "--sees", "--agent", "opencode") as client:
        result = await client.call_tool("read_file", {"path": str(picture)})
    assert [c.type for c in result.content] == ["text", "image"]
    logged = (home.data / "logs" / "sightline.log").read_text(encoding="utf-8")
    assert "door: 1 picture (red.png) went to the agent opencode" in logged
    assert not (home.data / "sightline.db").exists()  # no chat named: none was opened


@pytest.mark.parametrize("name", ["write_file", "bash"])
async def test_a_tool_the_door_lacks_is_an_error(home: SightlineHome, name: str) -> None:
    async with door(home, "--allow-tools") as client:
        result = await client.call_tool(name, {})
    assert result.is_error and "no tool" in texts(result)


# The fake agent (tests/servers/acp_agent.py, `door`) starts the door from the entry
# Sightline gave it in session/new and calls its read_file on the path it is told.


def ask_agent(home: SightlineHome, *flags: str) -> tuple[str, list[dict]]:
    """`sightline ask --json ... --model fake`: the chat's id and the events."""
    done = sightline(home, "ask", "--json", *flags, "--model", "fake")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    return lines[-1]["conversation"], lines


def logged(log: Path, key: str) -> object:
    return next(entry[key] for entry in read_log(log) if key in entry)


async def test_a_seeing_agent_gets_the_doors_picture_as_a_picture(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    log.mkdir()
    with_agent(home, log, "sees,door")
    picture = png(tmp_path / "red.png")
    conversation, lines = ask_agent(home, "--allow-tools", str(picture))
    entry = logged(log, "door_entry")
    assert isinstance(entry, list) and entry[:4] == [sys.executable, "-m", "app", "mcp-serve"]
    # It asks the running turn for each call over its line (headless: --allow-tools allows).
    assert "--sees" in entry and "--ask" in entry and "--allow-tools" not in entry
    assert entry[entry.index("--conversation") + 1] == conversation
    assert entry[entry.index("--agent") + 1] == "fake"
    assert logged(log, "door") == ["text", "image"]  # agent <- door: the picture itself
    [result] = [line for line in lines if line["type"] == "tool_result"]
    assert result["pictures"] == 1
    assert fake_ollama.chat_requests() == []
    crossed = [n.crossed for n in notices(home, conversation) if n.crossed is not None]
    assert [(c.host, c.what) for c in crossed] == [("agent fake", "1 picture (red.png)")]


async def test_a_blind_agent_gets_words_through_the_door(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    log.mkdir()
    with_agent(home, log, "door")
    picture = png(tmp_path / "red.png")
    conversation, _ = ask_agent(home, "--allow-tools", str(picture))
    entry = logged(log, "door_entry")
    assert isinstance(entry, list) and "--blind" in entry and "--sees" not in entry
    assert logged(log, "door") == ["text", "text"]
    assert fake_ollama.chat_requests()[-1]["messages"][-1]["images"]  # the looker saw it
    kinds = [n.kind for n in notices(home, conversation)]
    assert NoticeKind.DISCLOSURE in kinds


async def test_without_allow_tools_the_agents_door_call_is_refused(
    home: SightlineHome, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    log.mkdir()
    with_agent(home, log, "sees,door")
    picture = png(tmp_path / "red.png")
    conversation, _ = ask_agent(home, str(picture))
    entry = logged(log, "door_entry")
    assert isinstance(entry, list) and "--allow-tools" not in entry and "--ask" in entry
    assert logged(log, "door_error") is True
    said = [n.text for n in notices(home, conversation)]
    assert any("fake asked to use read_file through Sightline's door" in t for t in said)
    assert not any(n.crossed for n in notices(home, conversation))


def test_a_frozen_sightline_offers_itself_without_python(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.turn.acp.session import door_command

    assert door_command() == [sys.executable, "-m", "app"]
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert door_command() == [sys.executable]
