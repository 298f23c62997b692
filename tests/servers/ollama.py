"""A loopback server that speaks Ollama's native API, for tests and for trying the app.

Run it alone with `python -m tests.servers.ollama --port 11434` and point Sightline
at the address it prints. Shapes and error texts follow Ollama's `server/routes.go`.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import contextlib
import hashlib
import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NoReturn

from tests.servers import hostile
from tests.servers.loopback import Dropped, LoopbackHandler, LoopbackServer

VERSION = "0.12.0"

# Refusals of a picture sent to a model that can't see, as real servers word them.
REFUSAL_OLD_RUNNER = "this model is missing data required for image input"
REFUSAL_CLOUD = "this model does not support image input"
REFUSAL_LLAMA_CPP = (
    "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"
)
# Unknown-model texts: /api/show, and /api/chat via the scheduler (newer builds
# answer /api/chat with SHOW_NOT_FOUND's wording instead).
SHOW_NOT_FOUND = "model '{name}' not found"
CHAT_NOT_FOUND = 'model "{name}" not found, try pulling it first'
NO_TOOLS = "registry.ollama.ai/library/{name} does not support tools"
CONTENT_NOT_STRING = (
    "json: cannot unmarshal {kind} into Go struct field Message.messages.content of type string"
)


@dataclass
class FakeModel:
    """One installed model, with the capabilities /api/show reports (empty: none reported)."""

    name: str
    capabilities: tuple[str, ...]
    context_length: int = 8192
    show_status: int = 200  # non-200: /api/show fails for this model with that status


@dataclass
class Reply:
    """How the next /api/chat call answers."""

    text: str = ""
    chunk_chars: int = 4
    tool_calls: list[dict] = field(default_factory=list)
    delay: float = 0.0
    status: int = 200
    body: dict | None = None
    midstream_error: str | None = None
    drop_after: int | None = None
    prompt_eval_count: int = 12
    eval_count: int = 7
    raw_body: str | None = None  # sent verbatim as text/html with `status` (a proxy's page)
    raw_lines: list[str] = field(default_factory=list)  # verbatim lines after the text chunks
    hostile: str | None = None  # a mode of tests.servers.hostile, sent with `status`


# Ollama's stream for the hostile answers: a line of it, its keep-alives (blank lines,
# and chunks with nothing in them).
HOSTILE_SHAPE = hostile.Shape(
    "application/x-ndjson",
    opening=b"",
    line_start=b'{"model":"m","message":{"role":"assistant","content":"',
    keepalive=(
        b"\n",
        b"\r\n",
        b'{"model":"m","message":{"role":"assistant","content":""},"done":false}\n',
    ),
)


DEFAULT_MODELS = (
    FakeModel("llama3.2:3b", ("completion", "tools"), 131072),
    FakeModel("llava:7b", ("completion", "vision"), 32768),
    FakeModel("qwen2.5vl:3b", ("completion", "vision", "tools"), 128000),
    FakeModel("gemma3:270m", ("completion",), 32768),
)

# base name -> (architecture, families, parameter size) as Ollama reports them
_FAMILIES: dict[str, tuple[str, list[str], str]] = {
    "llama3.2": ("llama", ["llama"], "3.2B"),
    "llava": ("llama", ["llama", "clip"], "7B"),
    "qwen2.5vl": ("qwen25vl", ["qwen25vl"], "3.8B"),
    "gemma3": ("gemma3", ["gemma3"], "268.10M"),
}
_MODIFIED_AT = "2025-09-18T10:12:03.482716529Z"


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))  # compact, as Go's encoder writes


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _family(model: FakeModel) -> tuple[str, list[str], str]:
    base, _, tag = model.name.partition(":")
    default = "".join(c for c in base if c.isalnum()) or "llama"
    return _FAMILIES.get(base, (default, [default], tag.upper()))


def _details(model: FakeModel) -> dict[str, Any]:
    arch, families, size = _family(model)
    return {
        "parent_model": "",
        "format": "gguf",
        "family": arch,
        "families": families,
        "parameter_size": size,
        "quantization_level": "Q4_K_M",
    }


def _digest(model: FakeModel) -> str:
    return hashlib.sha256(model.name.encode()).hexdigest()


def tags_entry(model: FakeModel) -> dict[str, Any]:
    """One model as GET /api/tags lists it."""
    details = _details(model)
    del details["parent_model"]  # /api/tags leaves it out when empty
    return {
        "name": model.name,
        "model": model.name,
        "modified_at": _MODIFIED_AT,
        "size": int(_digest(model)[:8], 16) % 4_000_000_000 + 200_000_000,
        "digest": _digest(model),
        "details": details,
    }


def show_body(model: FakeModel) -> dict[str, Any]:
    """POST /api/show's answer for one model."""
    arch, families, _ = _family(model)
    body: dict[str, Any] = {
        "license": "Fake model for tests.",
        "modelfile": (
            '# Modelfile generated by "ollama show"\n'
            "# To build a new Modelfile based on this, replace FROM with:\n"
            f"# FROM {model.name}\n\nFROM /root/.ollama/models/blobs/sha256-{_digest(model)}\n"
        ),
        "parameters": 'stop                           "<|eot_id|>"',
        "template": "{{ if .System }}{{ .System }}\n{{ end }}{{ .Prompt }}",
        "details": _details(model),
        "model_info": {
            "general.architecture": arch,
            "general.parameter_count": 3_212_749_888,
            "general.quantization_version": 2,
            f"{arch}.context_length": model.context_length,
            f"{arch}.embedding_length": 3072,
        },
        "tensors": [],
        "modified_at": _MODIFIED_AT,
    }
    if model.capabilities:  # Go's omitempty: no key at all when the list is empty
        body["capabilities"] = list(model.capabilities)
    if "clip" in families:  # llava ships a separate vision projector
        body["projector_info"] = {"general.architecture": "clip", "clip.has_vision_encoder": True}
    return body


def _bad_base64_at(image: object) -> int | None:
    """Where a Go base64 decode would fail, or None when the string decodes."""
    if not isinstance(image, str):
        return 0
    try:
        base64.b64decode(image, validate=True)
        return None
    except (binascii.Error, ValueError):
        alphabet = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
        return next((i for i, c in enumerate(image) if c not in alphabet), len(image))


class _Handler(LoopbackHandler):
    # -- plumbing --------------------------------------------------------------

    def _record(self, body: dict | None) -> None:
        with self.server.owner.lock:
            self.server.owner.requests.append((self.command, self.path, body))

    def _read_json(self) -> tuple[Any, str | None]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None, "missing request body"
        try:
            return json.loads(raw), None
        except ValueError as exc:
            return None, f"invalid character in request body: {exc}"

    def _send(self, status: int, payload: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, _dumps(obj).encode(), "application/json; charset=utf-8")

    def _text(self, status: int, text: str) -> None:
        self._send(status, text.encode(), "text/plain; charset=utf-8")

    def _chunk(self, obj: Any) -> None:
        line = (obj if isinstance(obj, str) else _dumps(obj)) + "\n"
        data = line.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _drop(self) -> NoReturn:
        # Half-close both ways mid-body: the client sees an incomplete chunked read.
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
        raise Dropped

    # -- routes ----------------------------------------------------------------

    def do_HEAD(self) -> None:
        self._record(None)
        self._send(200, b"", "text/plain; charset=utf-8")

    def do_GET(self) -> None:
        self._record(None)
        owner = self.server.owner
        if self.served_hostile():
            return
        if self.path == "/":
            self._text(200, "Ollama is running")
        elif self.path == "/api/version":
            self._json(200, {"version": VERSION})
        elif self.path == "/api/tags":
            self._json(200, {"models": [tags_entry(m) for m in owner.models]})
        elif self.path in ("/api/show", "/api/chat"):
            self._text(405, "405 method not allowed")
        else:
            self._text(404, "404 page not found")

    def do_POST(self) -> None:
        body, problem = self._read_json()
        self._record(body if isinstance(body, dict) else None)
        if self.served_hostile():
            return
        if self.path not in ("/api/show", "/api/chat"):
            self._text(404, "404 page not found")
        elif problem or not isinstance(body, dict):
            self._json(400, {"error": problem or "invalid request body"})
        elif self.path == "/api/show":
            self._show(body)
        else:
            try:
                self._chat(body)
            except (Dropped, OSError):
                self.close_connection = True

    def _show(self, body: dict) -> None:
        name = body.get("model") or body.get("name")
        if not name:
            self._json(400, {"error": "model is required"})
            return
        model = self.server.owner.find(str(name))
        if model is None:
            self._json(404, {"error": SHOW_NOT_FOUND.format(name=name)})
        elif model.show_status != 200:
            self._json(model.show_status, {"error": "failed to read model metadata"})
        else:
            self._json(200, show_body(model))

    def _chat(self, body: dict) -> None:
        messages = body.get("messages") or []
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            self._json(400, {"error": "json: cannot unmarshal messages into []api.Message"})
            return
        for message in messages:
            content = message.get("content", "")
            if not isinstance(content, str):
                kind = "array" if isinstance(content, list) else "object"
                self._json(400, {"error": CONTENT_NOT_STRING.format(kind=kind)})
                return
            for image in message.get("images") or []:
                if (at := _bad_base64_at(image)) is not None:
                    self._json(400, {"error": f"illegal base64 data at input byte {at}"})
                    return
        name = str(body.get("model") or "")
        if not name:
            self._json(400, {"error": "model is required"})
            return
        owner = self.server.owner
        model = owner.find(name)
        if model is None:
            self._json(404, {"error": CHAT_NOT_FOUND.format(name=name)})
            return
        reply = owner.next_reply()
        if reply is None:
            if body.get("tools") and "tools" not in model.capabilities:
                self._json(400, {"error": NO_TOOLS.format(name=model.name)})
                return
            if any(m.get("images") for m in messages) and "vision" not in model.capabilities:
                self._json(500, {"error": REFUSAL_OLD_RUNNER})
                return
            reply = Reply(text=_echo(messages))
        self._answer(name, reply, stream=body.get("stream", True) is not False)

    def _answer(self, name: str, reply: Reply, *, stream: bool) -> None:
        if reply.hostile is not None:
            shape = HOSTILE_SHAPE if reply.status == 200 else hostile.JSON_BODY
            hostile.serve(self, reply.hostile, shape, reply.status)
            return
        if reply.raw_body is not None:
            self._send(reply.status, reply.raw_body.encode(), "text/html; charset=utf-8")
            return
        if reply.status != 200:
            error = reply.body if reply.body is not None else {"error": "internal error"}
            self._json(reply.status, error)
            return
        text_chunks = [
            reply.text[i : i + max(reply.chunk_chars, 1)]
            for i in range(0, len(reply.text), max(reply.chunk_chars, 1))
        ]
        calls = [_wire_call(c) for c in reply.tool_calls]
        if not stream:
            if reply.drop_after is not None:
                self._drop()
            time.sleep(reply.delay)
            if reply.midstream_error is not None:
                self._json(500, {"error": reply.midstream_error})
                return
            final = _final_chunk(name, reply)
            final["message"] = _message(reply.text, calls)
            self._json(200, final)
            return
        lines: list[Any] = [_chunk(name, _message(t)) for t in text_chunks]
        if calls:
            lines.append(_chunk(name, _message("", calls)))
        lines += reply.raw_lines
        lines.append({"error": reply.midstream_error} if reply.midstream_error else None)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        for sent, line in enumerate(lines):
            if reply.drop_after is not None and sent >= reply.drop_after:
                self._drop()
            time.sleep(reply.delay)
            self._chunk(line if line is not None else _final_chunk(name, reply))
        self.wfile.write(b"0\r\n\r\n")


def _echo(messages: list[dict]) -> str:
    last: dict = next((m for m in reversed(messages) if m.get("role") == "user"), {})
    text = f"You said: {last.get('content', '')}"
    if count := len(last.get("images") or []):
        text += f" (I see {count} pictures)"
    return text


def _wire_call(call: dict) -> dict[str, Any]:
    wire: dict[str, Any] = {"function": {"name": call["name"], "arguments": call["arguments"]}}
    if "id" in call:
        wire["id"] = call["id"]
    return wire


def _message(content: str, calls: list[dict] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = calls
    return message


def _chunk(name: str, message: dict[str, Any]) -> dict[str, Any]:
    return {"model": name, "created_at": _now(), "message": message, "done": False}


def _final_chunk(name: str, reply: Reply) -> dict[str, Any]:
    return {
        "model": name,
        "created_at": _now(),
        "message": {"role": "assistant", "content": ""},
        "done": True,
        "done_reason": "stop",
        "total_duration": 812_345_678,
        "load_duration": 21_345_678,
        "prompt_eval_count": reply.prompt_eval_count,
        "prompt_eval_duration": 123_456_789,
        "eval_count": reply.eval_count,
        "eval_duration": 654_321_000,
    }


class FakeOllama(LoopbackServer):
    """Ollama's native API on 127.0.0.1, served from a daemon thread."""

    handler_class = _Handler
    name = "fake-ollama"

    def __init__(self, models: list[FakeModel] | None = None, port: int = 0) -> None:
        self.models: list[FakeModel] = (
            list(models) if models is not None else [FakeModel(**vars(m)) for m in DEFAULT_MODELS]
        )
        super().__init__(port)
        self.requests: list[tuple[str, str, dict | None]] = []
        self.verbose = False
        self.lock = threading.Lock()
        self._replies: deque[Reply] = deque()

    def chat_requests(self) -> list[dict]:
        """The parsed bodies of every /api/chat request, in order."""
        with self.lock:
            return [b for m, p, b in self.requests if p == "/api/chat" and b is not None]

    def enqueue(self, *replies: Reply) -> None:
        """Make the next /api/chat calls answer with these replies, in order."""
        with self.lock:
            self._replies.extend(replies)

    def next_reply(self) -> Reply | None:
        """Take the next queued reply, if any."""
        with self.lock:
            return self._replies.popleft() if self._replies else None

    def find(self, name: str) -> FakeModel | None:
        """The installed model by name; a bare name means its `latest` tag, as in Ollama."""
        wanted = name if ":" in name else f"{name}:latest"
        return next((m for m in self.models if m.name in (name, wanted)), None)


def main(argv: list[str] | None = None) -> int:
    """Serve until Ctrl+C, printing the base URL first."""
    parser = argparse.ArgumentParser(description="A fake Ollama on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=0, help="port (0: any free port)")
    parser.add_argument("--verbose", action="store_true", help="log each request")
    args = parser.parse_args(argv)
    server = FakeOllama(port=args.port)
    server.verbose = args.verbose
    print(server.start(), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
