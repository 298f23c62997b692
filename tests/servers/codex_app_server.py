"""A fake `codex app-server`: JSON lines on stdio, as codex-cli 0.169.0 speaks them.

Run as `python -m tests.servers.codex_app_server [--behaviours a,b] [--state FILE]` (or
by its path). Behaviours come from `--behaviours` or `FAKE_CODEX` (comma-separated), the
state file from `--state` or `FAKE_CODEX_STATE`:

- (always) the answer streams in `item/agentMessage/delta`s and says what came in:
  `You said: TEXT (N images: PREFIX, ...)`, each image's data URL up to its first comma
- `reason`: a reasoning item (`item/reasoning/summaryTextDelta`) before the answer
- `command`: a commandExecution item that asks `item/commandExecution/requestApproval`
  first; the answer says `Approval: DECISION.`; `cancel` ends the turn interrupted
- `file`: a fileChange item that asks `item/fileChange/requestApproval`, then
  `turn/diff/updated`; the answer says `File approval: DECISION.`
- `permissions`: `item/permissions/requestApproval` for the network and writing to the
  working folder; the answer says `Permissions: network, write; scope SCOPE.` (or `none`)
- `tool`: `item/tool/call` to the thread's first dynamic tool; the answer says
  `Tool gave N text, M images (B1, B2 bytes).`
- `usage`: `thread/tokenUsage/updated` before the end
- `slow`: 0.2 s between deltas; `crash`: exit 1 after the first delta; `hang`: nothing
  more after the first delta (a `turn/interrupt` still ends it); `malformed`: a line
  that is not JSON before the answer; `late-interrupt`: a `turn/interrupt` is read 0.5 s
  late, so a turn that ended meanwhile (a `cancel`ed approval) refuses it
- `long-line`: one line of `FAKE_CODEX_LINE_BYTES` bytes (100 MB unless set) before the
  answer; `flood`: deltas of 1,000 characters (words, reasoning and a command's output)
  until interrupted; `trickle`: a one-character delta every `FAKE_CODEX_EVERY` seconds
  (2 unless set) until interrupted
- `signed-out`: `account/read` says `requiresOpenaiAuth: true` with no account, and a
  turn never reaches a model: `error` notifications with `willRetry: true`, then
  nothing until `turn/interrupt` (codex 0.169.0 neither refuses the thread nor fails
  the turn when nobody signed in: it waits for the network)

A thread is kept in the state file once a turn started in it (never an ephemeral one);
`thread/resume` of another fails as the real server does (`no rollout found for thread
id ID`). Every message received and sent is checked against `tests/servers/codex_schema`:
a request that does not validate gets `{code: -32600, message: "Invalid request: ..."}`
(the real server's code and prefix) and a line on stderr; a message of its own that does
not validate, or an answer to its request that does not, is logged and ends the process
with exit code 3 (or fails the turn), so a test can't pass on a wrong shape.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import threading
import time
import uuid
from pathlib import Path
from queue import Queue
from typing import Any

from jsonschema import Draft7Validator

SCHEMA = Path(__file__).with_name("codex_schema")
INDEX: dict[str, Any] = json.loads((SCHEMA / "methods.json").read_text(encoding="utf-8"))
VERSION = "0.169.0"
MODEL, PROVIDER = "gpt-5-mini", "loopback"
INVALID = -32600  # the real server's code for every refused request
_validators: dict[str, Draft7Validator] = {}
THREAD: dict[str, Any] = {
    "preview": "",
    "modelProvider": PROVIDER,
    "status": {"type": "idle"},
    "cliVersion": VERSION,
    "source": "vscode",
    "projectId": None,
    "turns": [],
}
SESSION: dict[str, Any] = {
    "modelProvider": PROVIDER,
    "approvalsReviewer": "user",
    "sandbox": {"type": "readOnly", "networkAccess": False},
    "reasoningEffort": None,
}
MODEL_ENTRY: dict[str, Any] = {
    "id": MODEL,
    "model": MODEL,
    "displayName": MODEL,
    "description": "A fake",
    "hidden": False,
    "isDefault": True,
    "defaultReasoningEffort": "low",
    "supportedReasoningEfforts": [{"reasoningEffort": "low", "description": "Fast"}],
    "inputModalities": ["text", "image"],
}
USAGE = {
    "totalTokens": 30,
    "inputTokens": 21,
    "cachedInputTokens": 0,
    "outputTokens": 9,
    "reasoningOutputTokens": 4,
}
REASONING = "item/reasoning/summaryTextDelta"
COMMAND = {
    "type": "commandExecution",
    "command": "/bin/bash -lc 'touch made.txt && echo made'",
    "commandActions": [{"type": "unknown", "command": "touch made.txt && echo made"}],
}
AMENDMENT = {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["touch", "made.txt"]}}
NO_NETWORK = (
    "stream disconnected before completion: failed to lookup address information: "
    "Name does not resolve"
)
DIFF = (
    "diff --git a/hello.txt b/hello.txt\nnew file mode 100644\n--- /dev/null\n"
    "+++ b/hello.txt\n@@ -0,0 +1 @@\n+hi there\n"
)


def problem(schema_file: str, instance: Any) -> str | None:
    """Why `instance` does not match the committed schema file (None when it does)."""
    if schema_file not in _validators:
        text = (SCHEMA / schema_file).read_text(encoding="utf-8")
        _validators[schema_file] = Draft7Validator(json.loads(text))
    error = next(iter(_validators[schema_file].iter_errors(instance)), None)
    if error is None:
        return None
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return f"{where.lstrip('.') or '(top)'}: {error.message}"


def now_ms() -> int:
    return int(time.time() * 1000)


def log(text: str) -> None:
    print(f"fake codex: {text}", file=sys.stderr, flush=True)


class Turn:
    """One running turn: its ids, and whether it was interrupted."""

    def __init__(self, thread: dict[str, Any]) -> None:
        self.thread, self.id = thread, str(uuid.uuid4())
        self.interrupted = threading.Event()


class FakeCodex:
    """The server: reads requests, answers them, runs turns in their own thread."""

    def __init__(self, behaviours: set[str], state: Path | None) -> None:
        self.behaviours, self.state = behaviours, state
        self.lock = threading.Lock()
        self.initialized = False
        self.experimental = False
        self.threads: dict[str, dict[str, Any]] = {}
        self.turns: dict[str, Turn] = {}  # thread id -> its running turn
        self.next_id = 0
        self.waiting: dict[int, Queue[dict[str, Any]]] = {}  # our request id -> its answer

    # -- writing ------------------------------------------------------------------

    def write(self, message: dict[str, Any], schema_file: str | None = None) -> None:
        if schema_file is not None:
            instance = message.get("params", message.get("result"))
            if (wrong := problem(schema_file, instance)) is not None:
                log(f"own message does not validate ({schema_file}): {wrong}")
                os._exit(3)
        with self.lock:
            sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
            sys.stdout.flush()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        schema = INDEX["serverNotifications"][method]
        self.write({"method": method, "params": params, "emittedAtMs": now_ms()}, schema)

    def ask(self, turn: Turn, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
        """Send a server request and wait for its result (None: the answer was wrong)."""
        params = {"threadId": turn.thread["id"], "turnId": turn.id, **params}
        if method.endswith("requestApproval"):
            self._status(turn, {"type": "active", "activeFlags": ["waitingOnApproval"]})
        files = INDEX["serverRequests"][method]
        with self.lock:
            number, self.next_id = self.next_id, self.next_id + 1
            answer: Queue[dict[str, Any]] = Queue()
            self.waiting[number] = answer
        self.write({"method": method, "id": number, "params": params}, files["params"])
        reply = answer.get()
        if method.endswith("requestApproval"):
            self._status(turn, {"type": "active", "activeFlags": []})
        self.notify("serverRequest/resolved", {"threadId": params["threadId"], "requestId": number})
        wrong = problem(files["result"], reply.get("result")) if "result" in reply else "no result"
        if wrong is not None:
            log(f"answer to {method} does not validate: {wrong}")
            return None
        result: dict[str, Any] = reply["result"]
        return result

    def refuse(self, number: Any, message: str) -> None:
        log(f"refused request {number}: {message}")
        self.write({"error": {"code": INVALID, "message": message}, "id": number})

    # -- reading ------------------------------------------------------------------

    def serve(self) -> int:
        for line in sys.stdin:
            try:
                message = json.loads(line)
            except ValueError as exc:  # the real server logs it and reads on
                log(f"Failed to deserialize JSONRPCMessage: {exc}")
                continue
            if not isinstance(message, dict):
                log("Failed to deserialize JSONRPCMessage: not an object")
            elif "method" in message and "id" in message:
                self.request(message)
            elif "method" in message:
                wrong = problem(INDEX["clientNotifications"].get(message["method"], ""), message)
                if message["method"] != "initialized" or wrong:
                    log(f"unknown or invalid notification: {message['method']} {wrong or ''}")
            elif (box := self.waiting.pop(message.get("id", -1), None)) is not None:
                box.put(message)
            else:
                log(f"an answer to no request: {line.strip()[:200]}")
        return 0

    def request(self, message: dict[str, Any]) -> None:
        number, method = message["id"], message["method"]
        params = message.get("params") or {}
        if (wrong := problem("JSONRPCRequest.json", message)) is not None:
            return self.refuse(number, f"Invalid request: {wrong}")
        files = INDEX["clientRequests"].get(method)
        if files is None:
            known = ", ".join(f"`{m}`" for m in INDEX["clientRequests"])
            return self.refuse(
                number, f"Invalid request: unknown variant `{method}`, expected one of {known}"
            )
        if (wrong := problem(files["params"], params)) is not None:
            return self.refuse(number, f"Invalid request: {wrong}")
        if method != "initialize" and not self.initialized:
            return self.refuse(number, "Not initialized")
        handler = getattr(self, "on_" + method.replace("/", "_"))
        result = handler(params)
        if isinstance(result, str):
            return self.refuse(number, result)
        self.write({"id": number, "result": result}, files["result"])
        if method == "turn/start":
            turn = self.turns[params["threadId"]]
            threading.Thread(target=self.run_turn, args=(turn, params), daemon=True).start()
        return None

    # -- the methods --------------------------------------------------------------

    def on_initialize(self, params: dict[str, Any]) -> dict[str, Any] | str:
        if self.initialized:
            return "Already initialized"
        self.initialized = True
        self.experimental = bool((params.get("capabilities") or {}).get("experimentalApi"))
        name, version = params["clientInfo"]["name"], params["clientInfo"]["version"]
        agent = f"{name}/{VERSION} (fake; x86_64) ({name}; {version})"
        home = os.environ.get("CODEX_HOME", "/nonexistent")
        return {
            "userAgent": agent,
            "codexHome": home,
            "platformFamily": "unix",
            "platformOs": "linux",
        }

    def on_account_read(self, params: dict[str, Any]) -> dict[str, Any]:
        signed_out = "signed-out" in self.behaviours
        return {"account": None, "userId": None, "requiresOpenaiAuth": signed_out}

    def on_model_list(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"data": [MODEL_ENTRY], "nextCursor": None}

    def _session(self, tid: str, params: dict[str, Any], tools: list[Any]) -> dict[str, Any]:
        when, cwd = int(time.time()), params.get("cwd") or os.getcwd()
        model, ephemeral = params.get("model") or MODEL, bool(params.get("ephemeral"))
        thread = {**THREAD, "id": tid, "sessionId": tid, "ephemeral": ephemeral, "model": model}
        thread.update(createdAt=when, updatedAt=when, cwd=cwd)
        self.threads[tid] = {**thread, "tools": tools}
        policy = params.get("approvalPolicy") or "on-request"
        return {**SESSION, "thread": thread, "model": model, "cwd": cwd, "approvalPolicy": policy}

    def on_thread_start(self, params: dict[str, Any]) -> dict[str, Any] | str:
        if params.get("dynamicTools") and not self.experimental:
            return "thread/start.dynamicTools requires experimentalApi capability"
        session = self._session(str(uuid.uuid4()), params, params.get("dynamicTools") or [])
        self.notify("thread/started", {"thread": session["thread"]})
        return session

    def _kept(self) -> list[str]:
        if self.state is None or not self.state.exists():
            return []
        kept: list[str] = json.loads(self.state.read_text(encoding="utf-8"))
        return kept

    def on_thread_resume(self, params: dict[str, Any]) -> dict[str, Any] | str:
        tid = params["threadId"]
        try:
            uuid.UUID(tid)
        except ValueError:
            return f"invalid session id: not a UUID: {tid}"
        if tid not in self._kept():
            return f"no rollout found for thread id {tid}"
        stored = self.threads.get(tid)  # a dynamic tool is the thread's, as the real one keeps it
        return self._session(tid, params, stored["tools"] if stored else [])

    def on_turn_start(self, params: dict[str, Any]) -> dict[str, Any] | str:
        thread = self.threads.get(params["threadId"])
        if thread is None:
            return f"thread not found: {params['threadId']}"
        if self.state is not None and not thread["ephemeral"] and thread["id"] not in self._kept():
            self.state.write_text(json.dumps([*self._kept(), thread["id"]]), encoding="utf-8")
        turn = self.turns[thread["id"]] = Turn(thread)
        return {"turn": self._turn(turn, "inProgress")}

    def on_turn_interrupt(self, params: dict[str, Any]) -> dict[str, Any] | str:
        if "late-interrupt" in self.behaviours:
            time.sleep(0.5)
        turn = self.turns.get(params["threadId"])
        if turn is None or turn.id != params["turnId"] or turn.interrupted.is_set():
            return "no active turn to interrupt"
        turn.interrupted.set()
        return {}

    # -- a turn -------------------------------------------------------------------

    def _turn(self, turn: Turn, status: str, items: list[Any] | None = None) -> dict[str, Any]:
        return {"id": turn.id, "items": items or [], "status": status, "error": None}

    def _tell(self, turn: Turn, method: str, **params: Any) -> None:
        self.notify(method, {"threadId": turn.thread["id"], "turnId": turn.id, **params})

    def _item(self, turn: Turn, started: bool, item: dict[str, Any]) -> None:
        if started:
            self._tell(turn, "item/started", item=item, startedAtMs=now_ms())
        else:
            self._tell(turn, "item/completed", item=item, completedAtMs=now_ms())

    def _status(self, turn: Turn, status: dict[str, Any]) -> None:
        self.notify("thread/status/changed", {"threadId": turn.thread["id"], "status": status})

    def _end(self, turn: Turn, status: str, items: list[Any] | None = None) -> None:
        self.turns.pop(turn.thread["id"], None)
        self._status(turn, {"type": "idle"})
        ended = {"threadId": turn.thread["id"], "turn": self._turn(turn, status, items)}
        self.notify("turn/completed", ended)

    def run_turn(self, turn: Turn, params: dict[str, Any]) -> None:
        self._status(turn, {"type": "active", "activeFlags": []})
        started = {"threadId": turn.thread["id"], "turn": self._turn(turn, "inProgress")}
        self.notify("turn/started", started)
        inputs = params["input"]
        asked = {"type": "userMessage", "id": str(uuid.uuid4()), "content": inputs}
        self._item(turn, True, asked)
        self._item(turn, False, asked)
        if "signed-out" in self.behaviours:
            for n in range(1, 6):
                error: dict[str, Any] = {"message": f"Reconnecting... {n}/5"}
                error["additionalDetails"] = NO_NETWORK
                error["codexErrorInfo"] = {"responseStreamDisconnected": {"httpStatusCode": None}}
                self._tell(turn, "error", error=error, willRetry=True)
            turn.interrupted.wait()
            return self._end(turn, "interrupted")
        notes: list[str] = []
        if "reason" in self.behaviours:
            rid, words = "rs_" + uuid.uuid4().hex[:16], "Thinking it over"
            self._item(turn, True, {"type": "reasoning", "id": rid, "summary": [], "content": []})
            self._tell(turn, REASONING, itemId=rid, delta=words, summaryIndex=0)
            self._item(turn, False, {"type": "reasoning", "id": rid, "summary": [words]})
        if "command" in self.behaviours and not self._command(turn, notes):
            return self._end(turn, "interrupted")
        if "file" in self.behaviours and not self._file(turn, notes):
            return self._end(turn, "interrupted")
        if "permissions" in self.behaviours:
            self._permissions(turn, notes)
        if "tool" in self.behaviours and not self._tool(turn, notes):
            return self._end(turn, "failed")
        if "long-line" in self.behaviours:
            size = int(os.environ.get("FAKE_CODEX_LINE_BYTES", "100000000"))
            head = '{"method": "item/agentMessage/delta", "x": "'
            with self.lock:
                sys.stdout.write(head + "a" * size + '"}\n')
                sys.stdout.flush()
        if ("flood" in self.behaviours or "trickle" in self.behaviours) and not self._endless(turn):
            return self._end(turn, "interrupted")
        if "malformed" in self.behaviours:
            with self.lock:
                sys.stdout.write('{"method": "item/agentMessage/delta", "params": \n')
                sys.stdout.flush()
        text = next((i["text"] for i in inputs if i["type"] == "text"), "")
        images = [i["url"].split(",", 1)[0] for i in inputs if i["type"] == "image"]
        listed = f": {', '.join(images)}" if images else ""
        answer = " ".join([f"You said: {text} ({len(images)} images{listed})", *notes])
        mid = "msg_" + uuid.uuid4().hex[:16]
        self._item(turn, True, {"type": "agentMessage", "id": mid, "text": ""})
        for n, start in enumerate(range(0, len(answer), 8)):
            if turn.interrupted.is_set():
                return self._end(turn, "interrupted")
            self._tell(turn, "item/agentMessage/delta", itemId=mid, delta=answer[start : start + 8])
            if n == 0 and "crash" in self.behaviours:
                os._exit(1)
            if n == 0 and "hang" in self.behaviours:
                turn.interrupted.wait()
            time.sleep(0.2 if "slow" in self.behaviours else 0)
        item = {"type": "agentMessage", "id": mid, "text": answer}
        self._item(turn, False, item)
        if "usage" in self.behaviours:
            usage = {"total": USAGE, "last": USAGE, "modelContextWindow": 258400}
            self._tell(turn, "thread/tokenUsage/updated", tokenUsage=usage)
        return self._end(turn, "completed", [item])

    def _endless(self, turn: Turn) -> bool:
        """Deltas until interrupted (False); a flood's are 1,000 characters of each kind."""
        mid, rid, cid = (kind + uuid.uuid4().hex[:16] for kind in ("msg_", "rs_", "call_"))
        self._item(turn, True, {"type": "agentMessage", "id": mid, "text": ""})
        every = float(os.environ.get("FAKE_CODEX_EVERY", "2"))
        piece = "x" * 1000
        while not turn.interrupted.is_set():
            if "trickle" in self.behaviours:
                self._tell(turn, "item/agentMessage/delta", itemId=mid, delta=".")
                turn.interrupted.wait(every)
                continue
            self._tell(turn, "item/agentMessage/delta", itemId=mid, delta=piece)
            self._tell(turn, REASONING, itemId=rid, delta=piece, summaryIndex=0)
            self._tell(turn, "item/commandExecution/outputDelta", itemId=cid, delta=piece)
        return False

    def _command(self, turn: Turn, notes: list[str]) -> bool:
        """The approval-first command; False when the turn ends here (cancel)."""
        cid, cwd = "call_" + uuid.uuid4().hex[:8], turn.thread["cwd"]
        item = {**COMMAND, "id": cid, "cwd": cwd, "status": "inProgress", "source": "agent"}
        self._item(turn, True, item)
        ask = {k: item[k] for k in ("command", "cwd", "commandActions")}
        ask.update(kind="command", itemId=cid, startedAtMs=now_ms(), reason="Make a file?")
        ask.update(availableDecisions=["accept", AMENDMENT, "cancel"], environmentId="local")
        got = self.ask(turn, "item/commandExecution/requestApproval", ask)
        decision = (got or {}).get("decision", "decline")
        notes.append(
            f"Approval: {decision if isinstance(decision, str) else next(iter(decision))}."
        )
        if decision in ("decline", "cancel"):
            self._item(turn, False, {**item, "status": "declined"})
            return decision == "decline"
        self._tell(turn, "item/commandExecution/outputDelta", itemId=cid, delta="made\n")
        done = {**item, "status": "completed", "aggregatedOutput": "made\n", "exitCode": 0}
        self._item(turn, False, done)
        return True

    def _file(self, turn: Turn, notes: list[str]) -> bool:
        fid, path = "call_" + uuid.uuid4().hex[:8], os.path.join(turn.thread["cwd"], "hello.txt")
        change = {"path": path, "kind": {"type": "add"}, "diff": "hi there\n"}
        item = {"type": "fileChange", "id": fid, "changes": [change], "status": "inProgress"}
        self._item(turn, True, item)
        ask = {"itemId": fid, "startedAtMs": now_ms(), "reason": None, "grantRoot": None}
        got = self.ask(turn, "item/fileChange/requestApproval", ask)
        decision = (got or {}).get("decision", "decline")
        notes.append(f"File approval: {decision}.")
        accepted = decision in ("accept", "acceptForSession")
        self._item(turn, False, {**item, "status": "completed" if accepted else "declined"})
        if accepted:
            self._tell(turn, "turn/diff/updated", diff=DIFF)
        return decision != "cancel"

    def _permissions(self, turn: Turn, notes: list[str]) -> None:
        asked = {"network": {"enabled": True}, "fileSystem": {"write": [turn.thread["cwd"]]}}
        ask = {"cwd": turn.thread["cwd"], "itemId": "perm_" + uuid.uuid4().hex[:8]}
        ask.update(permissions=asked, reason="Fetch the page and save it", startedAtMs=now_ms())
        got = self.ask(turn, "item/permissions/requestApproval", ask) or {}
        granted = got.get("permissions") or {}
        kinds = [k for k in ("network", "fileSystem") if granted.get(k)]
        words = ", ".join("write" if k == "fileSystem" else k for k in kinds) or "none"
        notes.append(f"Permissions: {words}; scope {got.get('scope', 'turn')}.")

    def _tool(self, turn: Turn, notes: list[str]) -> bool:
        if not turn.thread["tools"]:
            notes.append("No tool to call.")
            return True
        cid, name = "call_" + uuid.uuid4().hex[:8], turn.thread["tools"][0]["name"]
        item = {"type": "dynamicToolCall", "id": cid, "tool": name, "arguments": {}}
        self._item(turn, True, {**item, "status": "inProgress"})
        got = self.ask(turn, "item/tool/call", {"callId": cid, "tool": name, "arguments": {}})
        if got is None:
            self._item(turn, False, {**item, "status": "failed"})
            return False
        items, success = got["contentItems"], got["success"]
        texts = sum(1 for i in items if i["type"] == "inputText")
        pictures = [i["imageUrl"].split(",", 1)[-1] for i in items if i["type"] == "inputImage"]
        sizes = ", ".join(str(len(base64.b64decode(p))) for p in pictures)
        notes.append(f"Tool gave {texts} text, {len(pictures)} images ({sizes} bytes).")
        status = "completed" if success else "failed"
        self._item(
            turn, False, {**item, "status": status, "contentItems": items, "success": success}
        )
        return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A fake codex app-server (JSON lines on stdio).")
    parser.add_argument("--behaviours", default=os.environ.get("FAKE_CODEX", ""))
    parser.add_argument("--state", default=os.environ.get("FAKE_CODEX_STATE"))
    parser.add_argument("rest", nargs="*", help="ignored (`app-server`, as the real one is run)")
    args = parser.parse_args(argv)
    behaviours = {b.strip() for b in args.behaviours.split(",") if b.strip()}
    return FakeCodex(behaviours, Path(args.state) if args.state else None).serve()


if __name__ == "__main__":
    raise SystemExit(main())
