"""An MCP server that crashes mid-call: the model hears why, the turn goes on, nothing is lost.

The server is the real stdio test server (tests/servers/mcp_server.py); its `crash`
tool ends the process in the middle of the call.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.store import Store
from app.tools.mcp.hub import McpHub
from app.turn.events import TurnEvent
from app.turn.runner import TurnRunner
from app.turn.tool_step import AllowAll, ToolStep
from app.turn.turn_input import TurnInput
from routing.catalogue import Catalogue
from tests.events import collect, ended
from tests.faults.conftest import describe
from tests.servers.mcp_server import settings
from tests.servers.ollama import FakeOllama, Reply

MODEL = "ollama:qwen2.5vl:3b"  # uses tools
CRASHED = "The MCP server test stopped while running crash"


def calls(*pairs: tuple[str, dict[str, object]]) -> Reply:
    return Reply(tool_calls=[{"name": name, "arguments": args} for name, args in pairs])


@pytest.fixture
async def hub() -> AsyncIterator[McpHub]:
    made = McpHub([settings()], timeout=20)
    try:
        yield made
    finally:
        await made.aclose()


async def run_turn(runner: TurnRunner, cid: str, text: str, hub: McpHub) -> list[TurnEvent]:
    tools = await hub.tools()
    return await collect(runner.run(TurnInput(cid, text, requested_model=MODEL, tools=tools)))


async def test_a_crash_mid_call_is_a_tool_error_and_the_next_call_restarts_the_server(
    hub: McpHub, fake_ollama: FakeOllama, catalogue: Catalogue, tmp_path: Path
) -> None:
    folder = tmp_path / "data"
    store = Store.open(folder)
    runner = TurnRunner(store, catalogue, ToolStep(AllowAll()))
    cid = store.conversations.create()
    try:
        fake_ollama.enqueue(calls(("test__crash", {})), Reply(text="The tool crashed."))
        assert ended(await run_turn(runner, cid, "crash it", hub)).error is None
        # The model was told, in words, what happened to its call.
        told = fake_ollama.chat_requests()[-1]["messages"][-1]
        assert told["role"] == "tool" and CRASHED in told["content"]

        fake_ollama.enqueue(calls(("test__echo", {"text": "still here"})), Reply(text="Fine."))
        assert ended(await run_turn(runner, cid, "echo", hub)).error is None
    finally:
        store.close()

    with Store.open(folder) as reopened:
        items = reopened.items(cid)
        results = [r for m in reopened.messages(cid) for r in m.tool_results]
    assert [describe(i)[:1] + describe(i)[2:] for i in items] == [
        ("user", "complete"),
        ("assistant", "complete"),  # the crash call
        ("tool", "complete"),
        ("assistant", "complete"),
        ("user", "complete"),
        ("assistant", "complete"),  # the echo call
        ("tool", "complete"),
        ("assistant", "complete"),
    ]
    crashed, echoed = results
    assert crashed.is_error and CRASHED in crashed.text
    assert "started again on the next call" in crashed.text
    assert not echoed.is_error and echoed.text == "still here"
