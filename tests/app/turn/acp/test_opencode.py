"""A real agent: OpenCode (`opencode acp`) against the tests' loopback OpenAI server.

`.ci/run` installs it from npm when npm is there and names it in SIGHTLINE_OPENCODE;
a PATH with `opencode` on it works too. It runs offline: a fresh HOME, the models
fetch and auto-update off, its only provider the loopback server (opencode.json in
the working folder).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from PIL import Image

from app.store import Store
from app.turn.acp.engine import AcpEngine
from app.turn.events import ItemAdded, TextAdded, TurnEnded
from app.turn.tool_step import AllowAll, ToolStep
from app.turn.turn_input import TurnInput
from routing.models import ProviderConfig
from routing.transcript import Notice
from tests.conftest import SightlineHome
from tests.servers.openai_chat import ChatModel, FakeOpenAI, Reply
from vision.pictures import open_picture

OPENCODE = os.environ.get("SIGHTLINE_OPENCODE") or shutil.which("opencode") or ""

pytestmark = [
    pytest.mark.real_engine,
    pytest.mark.skipif(
        not OPENCODE,
        reason="OpenCode is not installed: `npm install opencode-ai` (or .ci/run) provides "
        "the `opencode` binary; set SIGHTLINE_OPENCODE to it",
    ),
]


def opencode_in(folder: Path, server: FakeOpenAI) -> ProviderConfig:
    """OpenCode configured for the loopback server, in `folder`, with a HOME of its own.
    Its small model (which names the session) is one the server doesn't have: that request
    fails at once, so it never takes an answer the test scripted for the turn."""
    (folder / "home").mkdir()
    config = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            "local": {
                "npm": "@ai-sdk/openai-compatible",
                "options": {"baseURL": server.url, "apiKey": "x"},
                "models": {
                    "m": {"attachment": True, "modalities": {"input": ["text", "image"]}},
                    "titles": {},
                },
            }
        },
        "model": "local/m",
        "small_model": "local/titles",
    }
    (folder / "opencode.json").write_text(json.dumps(config), encoding="utf-8")
    return ProviderConfig(
        "opencode",
        "acp",
        "",
        local=True,
        command=OPENCODE,
        args=("acp",),
        env=(
            ("HOME", str(folder / "home")),
            ("XDG_CONFIG_HOME", str(folder / "home" / ".config")),
            ("XDG_DATA_HOME", str(folder / "home" / ".local" / "share")),
            ("OPENCODE_DISABLE_MODELS_FETCH", "1"),
            ("OPENCODE_DISABLE_AUTOUPDATE", "1"),
        ),
    )


def _asked_m(server: FakeOpenAI) -> list[dict[str, object]]:
    """The turn's requests to the model `m`, in order. OpenCode names the session with its
    small model at the same time, and that request may come in last: it is not the turn's."""
    return [
        r[2]
        for r in server.requests
        if r[0] == "POST" and "chat" in r[1] and r[2].get("model") == "m"
    ]


async def test_opencode_answers_and_a_picture_reaches_its_model_as_an_image(
    store: Store, tmp_path: Path
) -> None:
    with FakeOpenAI([ChatModel("m", sees=True)], pictures="read") as server:
        agent = opencode_in(tmp_path, server)
        engine = AcpEngine(store, [agent], cwd=tmp_path, idle_timeout=120)
        try:
            chat = store.conversations.create()
            path = tmp_path / "red.png"
            Image.new("RGB", (16, 16), "red").save(path)
            events = [
                e
                async for e in engine.run(
                    TurnInput(chat, "hello", (open_picture(path),), requested_model="opencode")
                )
            ]
        finally:
            await engine.aclose()
        last = events[-1]
        assert isinstance(last, TurnEnded) and last.error is None, last
        # The loopback model really looks ("read"): its answer names what the picture shows.
        assert "red" in "".join(e.text for e in events if isinstance(e, TextAdded))
        sent = _asked_m(server)
        assert sent, "OpenCode never asked the loopback model"
        parts = json.dumps(sent[-1])
        assert "image_url" in parts and "data:image/png;base64," in parts


async def test_opencode_calls_the_door_and_its_picture_reaches_the_loopback_model(
    home: SightlineHome, store: Store, tmp_path: Path
) -> None:
    path = tmp_path / "red.png"
    Image.new("RGB", (16, 16), "red").save(path)
    with FakeOpenAI([ChatModel("m", sees=True)], pictures="read") as server:
        # The model asks for the door's read_file (OpenCode names an MCP tool server_tool),
        # then answers from what came back.
        call = {"id": "c1", "name": "sightline_read_file", "arguments": {"path": str(path)}}
        server.enqueue(Reply(tool_calls=[call]))
        agent = opencode_in(tmp_path, server)
        engine = AcpEngine(
            store, [agent], cwd=tmp_path, idle_timeout=120, tool_step=ToolStep(AllowAll())
        )
        try:
            chat = store.conversations.create()
            events = [
                e
                async for e in engine.run(
                    TurnInput(chat, "read red.png", requested_model="opencode")
                )
            ]
        finally:
            await engine.aclose()
        last = events[-1]
        assert isinstance(last, TurnEnded) and last.error is None, last
        sent = _asked_m(server)
        assert len(sent) >= 2, "OpenCode never gave the model the door's result"
        after = json.dumps(sent[-1])
        assert "data:image/png;base64," in after  # the door's picture reached the model
        assert "red" in "".join(e.text for e in events if isinstance(e, TextAdded))
        # It crossed to an agent whose model runs on this computer: told, as local.
        crossed = [
            e.item.item.crossed
            for e in events
            if isinstance(e, ItemAdded) and isinstance(e.item.item, Notice) and e.item.item.crossed
        ]
        assert crossed and all(c.local for c in crossed)
