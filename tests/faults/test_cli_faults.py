"""Faults as `sightline ask` meets them: one clear line, a non-zero exit, everything kept."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from app.store import Store
from tests.conftest import SightlineHome
from tests.faults.cli import ROOT, sightline
from tests.faults.conftest import describe
from tests.servers.ollama import FakeOllama, Reply

MODEL = "ollama:llama3.2:3b"


def transcript(home: SightlineHome) -> list[tuple[str, ...]]:
    with Store.open(home.data) as store:
        [conversation] = store.conversations.list()
        return [describe(item) for item in store.items(conversation.id)]


def test_a_dropped_answer_is_one_line_and_the_next_ask_continues(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(Reply(text="Half an ans", chunk_chars=4, drop_after=2))
    done = sightline(home.env(), "ask", "--model", MODEL, "Tell me everything")
    assert done.returncode == 1
    assert done.stdout == "Half an "  # what streamed before the cut stays on screen
    [line] = done.stderr.splitlines()
    assert line.startswith("sightline: The answer was cut off") and "Try again" in line
    with Store.open(home.data) as store:
        [conversation] = store.conversations.list()
    again = sightline(
        home.env(), "ask", "--conversation", conversation.id, "--model", MODEL, "Again"
    )
    assert again.returncode == 0, again.stderr
    assert again.stdout == "You said: Again\n"
    assert transcript(home) == [
        ("user", "Tell me everything", "complete"),
        ("assistant", "Half an ", "failed"),
        ("notice", "error", line.removeprefix("sightline: ")),
        ("user", "Again", "complete"),
        ("assistant", "You said: Again", "complete"),
    ]


def test_broken_ndjson_ends_json_output_with_an_error_line(
    home: SightlineHome, fake_ollama: FakeOllama
) -> None:
    fake_ollama.enqueue(Reply(text="Fine so far.", raw_lines=["<html>proxy error</html>"]))
    done = sightline(home.env(), "ask", "--json", "--model", MODEL, "hello")
    assert done.returncode == 1
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["type"] for line in lines][-1] == "error"
    assert "".join(line.get("text", "") for line in lines if line["type"] == "text") == (
        "Fine so far."
    )
    message = lines[-1]["message"]
    assert "not in Ollama's format" in message and "<html>" not in message
    assert done.stderr.strip() == f"sightline: {message}"
    assert transcript(home) == [
        ("user", "hello", "complete"),
        ("assistant", "Fine so far.", "failed"),
        ("notice", "error", message),
    ]


def test_an_mcp_server_crashing_mid_call_does_not_end_the_ask(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    mcp = tmp_path / "mcp.json"
    server = {
        "command": sys.executable,
        "args": ["-m", "tests.servers.mcp_server"],
        "cwd": str(ROOT),
    }
    mcp.write_text(json.dumps({"mcpServers": {"test": server}}), encoding="utf-8")
    fake_ollama.enqueue(
        Reply(tool_calls=[{"name": "test__crash", "arguments": {}}]),
        Reply(text="The tool crashed, sorry."),
    )
    done = sightline(
        home.env(), "ask", "--json", "--allow-tools", "--mcp-config", str(mcp),
        "--model", "ollama:qwen2.5vl:3b", "crash the tool",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    [result] = [line for line in lines if line["type"] == "tool_result"]
    assert result["is_error"] and "stopped while running crash" in result["text"]
    assert lines[-1]["type"] == "done"
    rows = transcript(home)
    assert [row[0] for row in rows] == ["user", "assistant", "tool", "assistant"]
    assert rows[-1] == ("assistant", "The tool crashed, sorry.", "complete")
