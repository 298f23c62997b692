"""The real Codex app server (`codex app-server` of the pinned npm package) against the
tests' loopback Responses server, offline: its CODEX_HOME names only that server
(tests/servers/codex_config.py). `.ci/run` installs it and names it in SIGHTLINE_CODEX."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from app.store import Store
from app.tools.read_file import ReadFile
from app.turn.codex.engine import CodexEngine
from app.turn.events import TextAdded, TurnEnded, TurnEvent
from app.turn.tool_step import AllowAll, DenyAll, ToolStep
from routing.models import ProviderConfig
from tests.app.turn.engine_helpers import notices, run_turn
from tests.pictures import picture_file
from tests.servers.codex_config import PROVIDER, CodexResponses, prepare
from tests.servers.openai_responses import Reply
from vision.pictures import open_picture

CODEX = os.environ.get("SIGHTLINE_CODEX", "")

pytestmark = [
    pytest.mark.real_engine,
    pytest.mark.skipif(
        not CODEX,
        reason="Codex is not installed: `npm install @openai/codex@0.169.0` (or .ci/run) "
        "provides the `codex` launcher; set SIGHTLINE_CODEX to it",
    ),
]


async def turn(
    store: Store, tmp_path: Path, server: CodexResponses, text: str, **options: Any
) -> list[TurnEvent]:
    env = prepare(tmp_path / "codex-home", server.url)
    provider = ProviderConfig(
        "codex",
        "codex",
        "",
        local=True,
        command=CODEX,
        env=tuple(env.items()),
        model_provider=PROVIDER,
    )
    pictures = options.pop("pictures", ())
    engine = CodexEngine(store, [provider], cwd=tmp_path, idle_timeout=120, **options)
    try:
        return await run_turn(engine, store.conversations.create(), text, "codex", pictures)
    finally:
        await engine.aclose()


def sent(server: CodexResponses) -> list[dict[str, Any]]:
    return server.chat_requests()


def red(tmp_path: Path) -> Path:
    return picture_file(tmp_path / "red.png", "red", (16, 16))


async def test_real_codex_streams_an_answer(store: Store, tmp_path: Path) -> None:
    with CodexResponses() as server:
        server.enqueue(Reply(text="Hello from the loopback"))
        events = await turn(store, tmp_path, server, "hello")
    last = events[-1]
    assert isinstance(last, TurnEnded) and last.error is None, notices(events)
    words = "".join(e.text for e in events if isinstance(e, TextAdded))
    assert words == "Hello from the loopback"


async def test_an_attached_picture_reaches_the_model_as_an_input_image(
    store: Store, tmp_path: Path
) -> None:
    with CodexResponses() as server:
        picture = open_picture(red(tmp_path))
        events = await turn(store, tmp_path, server, "what is it?", pictures=(picture,))
    last = events[-1]
    assert isinstance(last, TurnEnded) and last.error is None, notices(events)
    body = json.dumps(sent(server)[-1]["input"])
    assert '"type": "input_image"' in body and "data:image/png;base64," in body


async def test_a_dynamic_tools_picture_returns_inside_the_function_call_output(
    store: Store, tmp_path: Path
) -> None:
    path = red(tmp_path)
    with CodexResponses() as server:
        call = {"call_id": "c1", "name": "read_file", "arguments": {"path": str(path)}}
        server.enqueue(Reply(tool_calls=[call]), Reply(text="A red square."))
        step = ToolStep(AllowAll())
        events = await turn(
            store, tmp_path, server, "read red.png", tool_step=step, tools=[ReadFile()]
        )
    last = events[-1]
    assert isinstance(last, TurnEnded) and last.error is None, notices(events)
    outputs = [
        item
        for item in sent(server)[-1]["input"]
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]
    assert outputs, "Codex never gave the model the tool's result"
    parts = outputs[-1]["output"]
    assert any(p.get("type") == "input_image" for p in parts), parts
    assert "A red square." in "".join(e.text for e in events if isinstance(e, TextAdded))


async def test_a_command_is_declined_headless_without_allow_tools(
    store: Store, tmp_path: Path
) -> None:
    with CodexResponses() as server:
        command = {"cmd": "touch made-by-codex"}
        call = {"call_id": "c1", "name": "exec_command", "arguments": command}
        server.enqueue(Reply(tool_calls=[call]), Reply(text="It was not allowed."))
        events = await turn(
            store,
            tmp_path,
            server,
            "make a file",
            tool_step=ToolStep(DenyAll()),
            denied_hint=" (hint)",
        )
    last = events[-1]
    assert isinstance(last, TurnEnded) and last.error is None, notices(events)
    assert not (tmp_path / "made-by-codex").exists()
    said = [n.text for n in notices(events)]
    named = [t for t in said if t.startswith("Codex asked to run `")]
    assert named and "touch made-by-codex" in named[0], said
    assert named[0].endswith("`, which was not allowed. (hint)")
    told = json.dumps(sent(server)[-1]["input"])
    assert "rejected by user" in told
