"""The fake Codex app server speaks as the committed schema says (it checks both ways), and
the real `codex app-server` (SIGHTLINE_CODEX) answers offline through codex_config.py."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from tests.servers.codex_app_server import INDEX, problem
from tests.servers.codex_config import CodexResponses, prepare
from tests.servers.openai_responses import Reply

ROOT = Path(__file__).resolve().parents[2]
# A real picture: Codex decodes every image, and one it can't is sent as words instead.
ICON = (ROOT / "resources" / "icons" / "sightline.png").read_bytes()
PNG = "data:image/png;base64," + base64.b64encode(ICON).decode()
CLIENT = {"name": "sightline", "title": "Sightline", "version": "0.1"}
WAIT_SECONDS = 60.0  # for one server's whole conversation with a test


class Peer:
    """One app server on the other end of JSON lines; every message checked as it comes."""

    def __init__(self, args: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT):
        self.process = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, cwd=cwd, text=True,
        )  # fmt: skip
        self.pending: dict[int, str] = {}
        self.number = 0
        # A server that never says what a test waits for is killed, so the read ends and
        # the test fails instead of holding the suite.
        self._watchdog = threading.Timer(WAIT_SECONDS, self.process.kill)
        self._watchdog.daemon = True
        self._watchdog.start()

    def send(self, message: dict[str, Any]) -> None:
        stdin: IO[str] | None = self.process.stdin
        assert stdin is not None
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> int:
        self.number += 1
        assert problem(INDEX["clientRequests"][method]["params"], params) is None
        self.pending[self.number] = method
        self.send({"id": self.number, "method": method, "params": params})
        return self.number

    def messages(self) -> Iterator[dict[str, Any]]:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            message = json.loads(line)
            method = message.get("method")
            if method in INDEX["serverNotifications"]:
                assert problem(INDEX["serverNotifications"][method], message["params"]) is None
            elif method in INDEX["serverRequests"]:
                assert problem(INDEX["serverRequests"][method]["params"], message["params"]) is None
            elif "result" in message and message["id"] in self.pending:
                files = INDEX["clientRequests"][self.pending[message["id"]]]
                assert problem(files["result"], message["result"]) is None, message
            yield message

    def until(self, wanted: Callable[[dict[str, Any]], bool], answer: Any = None) -> list[Any]:
        seen = []
        for message in self.messages():
            seen.append(message)
            if "method" in message and "id" in message:
                self.send({"id": message["id"], "result": answer(message)})
            if wanted(message):
                return seen
        raise AssertionError(f"the server ended: {self.stderr()}")

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        number = self.request(method, params)
        reply: dict[str, Any] = self.until(lambda m: m.get("id") == number and "method" not in m)[
            -1
        ]
        return reply

    def handshake(self) -> dict[str, Any]:
        reply = self.call(
            "initialize", {"clientInfo": CLIENT, "capabilities": {"experimentalApi": True}}
        )
        self.send({"method": "initialized"})
        return reply

    def stderr(self) -> str:
        self.close()
        assert self.process.stderr is not None
        return self.process.stderr.read()

    def close(self) -> int:
        self._watchdog.cancel()
        if self.process.stdin and not self.process.stdin.closed:
            self.process.stdin.close()
        return self.process.wait(timeout=20)


def fake(behaviours: str = "", state: Path | None = None) -> Peer:
    args = [sys.executable, "-m", "tests.servers.codex_app_server", "--behaviours", behaviours]
    return Peer(args + (["--state", str(state)] if state else []))


def turn_input(text: str = "look", image: bool = False) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = [{"type": "text", "text": text, "text_elements": []}]
    return parts + ([{"type": "image", "url": PNG}] if image else [])


def answers(message: dict[str, Any]) -> Any:
    if message["method"] == "item/tool/call":
        items = [{"type": "inputText", "text": "a screen"}, {"type": "inputImage", "imageUrl": PNG}]
        return {"contentItems": items, "success": True}
    return {"decision": "decline"}


SCREENSHOT = {
    "type": "function",
    "name": "screenshot",
    "description": "The screen",
    "inputSchema": {"type": "object"},
}


WANTED = (
    "turn/started",
    "item/reasoning/summaryTextDelta",
    "item/commandExecution/requestApproval",
    "item/tool/call",
    "item/agentMessage/delta",
    "thread/tokenUsage/updated",
)


def test_the_handshake_and_a_turn_are_as_the_schema_says(tmp_path: Path) -> None:
    peer = fake("reason,command,tool,usage")
    assert "0.169.0" in peer.handshake()["result"]["userAgent"]
    started = peer.call(
        "thread/start",
        {"cwd": str(tmp_path), "approvalPolicy": "on-request", "dynamicTools": [SCREENSHOT]},
    )
    tid = started["result"]["thread"]["id"]
    peer.request("turn/start", {"threadId": tid, "input": turn_input("hi", image=True)})
    seen = peer.until(lambda m: m.get("method") == "turn/completed", answers)
    methods = [m.get("method") for m in seen]
    assert set(WANTED) <= set(methods)
    text = "".join(
        m["params"]["delta"] for m in seen if m.get("method") == "item/agentMessage/delta"
    )
    assert text.startswith("You said: hi (1 images: data:image/png;base64)")
    assert (
        "Approval: decline." in text and f"Tool gave 1 text, 1 images ({len(ICON)} bytes)." in text
    )
    assert seen[-1]["params"]["turn"]["status"] == "completed"
    assert peer.close() == 0


def test_a_request_that_does_not_validate_is_refused_in_the_real_words() -> None:
    peer = fake()
    assert peer.call("thread/start", {})["error"]["message"] == "Not initialized"
    peer.handshake()
    peer.send({"id": 99, "method": "thread/start", "params": {"approvalPolicy": "sometimes"}})
    refused = peer.until(lambda m: m.get("id") == 99)[-1]["error"]
    assert refused["code"] == -32600 and refused["message"].startswith(
        "Invalid request: approvalPolicy"
    )
    assert "refused request" in peer.stderr()


def test_resume_needs_a_thread_that_had_a_turn_and_interrupt_ends_it(tmp_path: Path) -> None:
    state = tmp_path / "threads.json"
    peer = fake("slow", state)
    peer.handshake()
    kept = peer.call("thread/start", {})["result"]["thread"]["id"]
    never = peer.call("thread/start", {})["result"]["thread"]["id"]
    turn = peer.call("turn/start", {"threadId": kept, "input": turn_input()})["result"]["turn"][
        "id"
    ]
    # The interrupt's answer and the turn's end may come in either order: read until both.
    asked = peer.request("turn/interrupt", {"threadId": kept, "turnId": turn})
    seen: list[dict[str, Any]] = []

    def both(message: dict[str, Any]) -> bool:
        seen.append(message)
        ids = {m.get("id") for m in seen if "method" not in m}
        return asked in ids and any(m.get("method") == "turn/completed" for m in seen)

    peer.until(both)
    [answer] = [m for m in seen if m.get("id") == asked and "method" not in m]
    assert answer["result"] == {}
    [ended] = [m for m in seen if m.get("method") == "turn/completed"]
    assert ended["params"]["turn"]["status"] == "interrupted"
    peer.close()
    again = fake("", state)
    again.handshake()
    assert again.call("thread/resume", {"threadId": kept})["result"]["thread"]["id"] == kept
    error = again.call("thread/resume", {"threadId": never})["error"]
    assert error == {"code": -32600, "message": f"no rollout found for thread id {never}"}


def test_a_crash_mid_turn_exits_1() -> None:
    peer = fake("crash")
    peer.handshake()
    tid = peer.call("thread/start", {})["result"]["thread"]["id"]
    peer.request("turn/start", {"threadId": tid, "input": turn_input()})
    with pytest.raises(AssertionError, match="the server ended"):
        peer.until(lambda m: False)
    assert peer.process.returncode == 1


CODEX = os.environ.get("SIGHTLINE_CODEX")


@pytest.mark.real_engine
@pytest.mark.skipif(
    not CODEX, reason="SIGHTLINE_CODEX names no codex launcher (.ci/run installs it)"
)
def test_the_real_codex_streams_an_answer_from_the_loopback_model(tmp_path: Path) -> None:
    assert CODEX is not None
    work = tmp_path / "work"
    work.mkdir()
    with CodexResponses() as server:
        server.enqueue(Reply(text="Hello from the loopback", reasoning="Thinking"))
        peer = Peer([CODEX, "app-server"], prepare(tmp_path / "home", server.url), cwd=work)
        peer.handshake()
        started = peer.call("thread/start", {"cwd": str(work), "dynamicTools": [SCREENSHOT]})
        tid = started["result"]["thread"]["id"]
        peer.request("turn/start", {"threadId": tid, "input": turn_input("hi", image=True)})
        seen = peer.until(lambda m: m.get("method") == "turn/completed", answers)
        assert peer.close() == 0
        body = server.chat_requests()[0]
    assert seen[-1]["params"]["turn"]["status"] == "completed", seen[-1]
    deltas = [m["params"]["delta"] for m in seen if m.get("method") == "item/agentMessage/delta"]
    assert len(deltas) > 1 and "".join(deltas) == "Hello from the loopback"
    assert any(m.get("method") == "item/reasoning/summaryTextDelta" for m in seen)
    asked = body["input"][-1]["content"]
    assert asked[1]["type"] == "input_image" and asked[1]["detail"] == "high"
    assert asked[1]["image_url"].startswith("data:image/png;base64,")
    assert "screenshot" in [tool["name"] for tool in body["tools"]]
