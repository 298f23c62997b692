"""A loopback server that speaks Ollama's native API, for tests and for trying the app.

Run it alone with `python -m tests.servers.ollama --port 11434` and point Sightline
at the address it prints. Shapes and error texts follow Ollama's `server/routes.go`.
It pulls models from a small library (tests/servers/ollama_library.py), streaming
Ollama's progress lines, and deletes them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tests.servers import hostile
from tests.servers.loopback import (
    Dropped,
    LoopbackHandler,
    LoopbackServer,
    ScriptedReply,
    dumps,
    pieces,
)
from tests.servers.ollama_library import (
    DELETE_INVALID,
    INVALID_NAME,
    LIBRARY,
    LibraryModel,
    PullReply,
    PullRun,
    pull_lines,
    scripted,
    valid_name,
)

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
class Reply(ScriptedReply):
    """How the next /api/chat call answers (tool calls: {id?, name, arguments})."""

    midstream_error: str | None = None  # an error line after the text
    prompt_eval_count: int = 12
    eval_count: int = 7
    raw_lines: list[str] = field(default_factory=list)  # verbatim lines after the text chunks
    done_reason: str = "stop"  # "length": stopped at num_predict, its longest answer
    eval_duration: int | None = 654_321_000  # None: not said (a server that doesn't time it)


# Ollama's stream for the hostile answers: a line of it, its keep-alives (blank lines,
# and chunks with nothing in them).
HOSTILE_SHAPE = hostile.Shape(
    "application/x-ndjson",
    opening=b"",
    line_start=b'{"model":"m","message":{"role":"assistant","content":"',
    line_end=b'"},"done":false}\n',
    keepalive=(
        b"\n",
        b"\r\n",
        b'{"model":"m","message":{"role":"assistant","content":""},"done":false}\n',
    ),
)

# A pull's stream for the hostile answers: progress lines, and blank lines to keep alive.
PULL_SHAPE = hostile.Shape(
    "application/x-ndjson",
    opening=b'{"status":"pulling manifest"}\n',
    line_start=b'{"status":"',
    keepalive=(b"\n", b"\r\n"),
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
    """Ollama's routes (matched on the whole path, as Go's mux does)."""

    def do_HEAD(self) -> None:
        self.serve()

    def do_DELETE(self) -> None:
        self.serve()

    def route(self) -> None:
        if self.command == "HEAD":
            self.send(200, b"", "text/plain; charset=utf-8")
        elif self.command == "GET":
            self._get()
        elif self.command == "DELETE":
            self._delete_route()
        elif self.path not in _POST_ROUTES:
            self._no_route()
        elif not isinstance(self.body, dict):
            self.json(400, {"error": self._body_problem()})
        elif self.path == "/api/show":
            self._show(self.body)
        elif self.path == "/api/pull":
            self._pull(self.body)
        else:
            self._chat(self.body)

    def _no_route(self) -> None:
        """A path Ollama serves for another method (405), or not at all (404)."""
        if self.path in (*_POST_ROUTES, "/api/delete", "/api/tags", "/api/version"):
            self.text(405, "405 method not allowed")
        else:
            self.text(404, "404 page not found")

    def _body_problem(self) -> str:
        if not self.raw:
            return "missing request body"
        if self.body_problem:
            return f"invalid character in request body: {self.body_problem}"
        return "invalid request body"

    def _get(self) -> None:
        if self.path == "/":
            self.text(200, "Ollama is running")
        elif self.path == "/api/version":
            self.json(200, {"version": VERSION})
        elif self.path == "/api/tags":
            self.json(200, {"models": [tags_entry(m) for m in self.owner.models]})
        elif self.path in (*_POST_ROUTES, "/api/delete"):
            self.text(405, "405 method not allowed")
        else:
            self.text(404, "404 page not found")

    def _show(self, body: dict) -> None:
        name = body.get("model") or body.get("name")
        if not name:
            self.json(400, {"error": "model is required"})
            return
        model = self.owner.find(str(name))
        if model is None:
            self.json(404, {"error": SHOW_NOT_FOUND.format(name=name)})
        elif model.show_status != 200:
            self.json(model.show_status, {"error": "failed to read model metadata"})
        else:
            self.json(200, show_body(model))

    def _pull(self, body: dict) -> None:
        name = str(body.get("model") or body.get("name") or "").strip()
        if not valid_name(name):
            self.json(400, {"error": INVALID_NAME})
            return
        owner = self.owner
        reply = owner.next_pull()
        if self.answered_otherwise(reply, PULL_SHAPE):
            return
        model = owner.in_library(name)
        run = owner.start_pull(name)
        finished = False

        def lines() -> Iterator[bytes]:
            nonlocal finished
            for line in scripted(pull_lines(model, reply), reply, name):
                run.lines_sent += 1
                finished = line.get("status") == "success"
                if finished and model is not None:
                    # Ollama writes the model's manifest, which its listing reads, before it
                    # says "success" ("writing manifest", then "success"): a client that
                    # lists at once finds it.
                    owner.install(model)
                yield _line(line)

        try:  # streamed whatever `stream` says: Sightline always asks for the progress
            self.stream("application/x-ndjson", lines(), reply)
        except Dropped:
            run.end("dropped")
            raise
        except OSError:  # the client hung up: Ollama cancels the pull's context then
            run.end("client gone")
            raise
        run.end("success" if finished else "error")

    def _delete_route(self) -> None:
        if self.path != "/api/delete":
            self._no_route()
            return
        if not isinstance(self.body, dict):
            self.json(400, {"error": self._body_problem()})
            return
        name = str(self.body.get("model") or self.body.get("name") or "")
        if not valid_name(name):
            self.json(400, {"error": DELETE_INVALID.format(name=name)})
        elif not self.owner.uninstall(name):
            self.json(404, {"error": SHOW_NOT_FOUND.format(name=name)})
        else:
            self.send(200, b"", "text/plain; charset=utf-8")  # Go writes nothing: a bare 200

    def _chat(self, body: dict) -> None:
        messages = body.get("messages") or []
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            self.json(400, {"error": "json: cannot unmarshal messages into []api.Message"})
            return
        for message in messages:
            content = message.get("content", "")
            if not isinstance(content, str):
                kind = "array" if isinstance(content, list) else "object"
                self.json(400, {"error": CONTENT_NOT_STRING.format(kind=kind)})
                return
            for image in message.get("images") or []:
                if (at := _bad_base64_at(image)) is not None:
                    self.json(400, {"error": f"illegal base64 data at input byte {at}"})
                    return
        name = str(body.get("model") or "")
        if not name:
            self.json(400, {"error": "model is required"})
            return
        owner = self.owner
        model = owner.find(name)
        if model is None:
            self.json(404, {"error": CHAT_NOT_FOUND.format(name=name)})
            return
        # Past its window (options.num_ctx, else its own small default) Ollama drops the
        # prompt's beginning, the system prompt first, and answers anyway: silently.
        options = body.get("options")
        options = options if isinstance(options, dict) else {}
        kept = _within(messages, options.get("num_ctx") or OLLAMA_DEFAULT_CTX)
        if len(kept) < len(messages):
            owner.truncated += 1
            messages = kept
        reply = owner.next_reply()
        if reply is None:
            if body.get("tools") and "tools" not in model.capabilities:
                self.json(400, {"error": NO_TOOLS.format(name=model.name)})
                return
            if any(m.get("images") for m in messages) and "vision" not in model.capabilities:
                self.json(500, {"error": REFUSAL_OLD_RUNNER})
                return
            reply = Reply(text=_echo(messages))
        self._answer(name, reply, stream=body.get("stream", True) is not False)

    def _answer(self, name: str, reply: Reply, *, stream: bool) -> None:
        if self.answered_otherwise(reply, HOSTILE_SHAPE):
            return
        calls = [_wire_call(c) for c in reply.tool_calls]
        if not stream:
            if reply.drop_after is not None:
                self.drop()
            time.sleep(reply.delay)
            if reply.midstream_error is not None:
                self.json(500, {"error": reply.midstream_error})
                return
            final = _final_chunk(name, reply)
            final["message"] = _message(reply.text, calls)
            self.json(200, final)
            return
        lines: list[Any] = [
            _chunk(name, _message(t)) for t in pieces(reply.text, reply.chunk_chars)
        ]
        if calls:
            lines.append(_chunk(name, _message("", calls)))
        lines += reply.raw_lines
        lines.append({"error": reply.midstream_error} if reply.midstream_error else None)
        ndjson = (_line(line if line is not None else _final_chunk(name, reply)) for line in lines)
        try:
            self.stream("application/x-ndjson", ndjson, reply)
        except OSError:  # the client hung up mid-answer (Ollama cancels the request then)
            with self.owner.lock:
                self.owner.chats_abandoned += 1
            raise


_POST_ROUTES = ("/api/show", "/api/chat", "/api/pull")


def _line(obj: Any) -> bytes:
    """One NDJSON line: a chunk, or a verbatim line."""
    return ((obj if isinstance(obj, str) else dumps(obj)) + "\n").encode()


OLLAMA_DEFAULT_CTX = 4096  # recent Ollama's num_ctx when a request sets none


def _within(messages: list[dict], window: int) -> list[dict]:
    """The newest messages that fit `window` tokens as this double counts (four characters
    a token, four a message): what Ollama keeps of a prompt that is too long."""
    kept: list[dict] = []
    used = 0
    for message in reversed(messages):
        used += 4 + len(str(message.get("content", ""))) // 4
        if used > window and kept:  # the newest stays, as Ollama keeps the prompt's end
            break
        kept.append(message)
    return list(reversed(kept))


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
    timed = {} if reply.eval_duration is None else {"eval_duration": reply.eval_duration}
    return {
        "model": name,
        "created_at": _now(),
        "message": {"role": "assistant", "content": ""},
        "done": True,
        "done_reason": reply.done_reason,
        "total_duration": 812_345_678,
        "load_duration": 21_345_678,
        "prompt_eval_count": reply.prompt_eval_count,
        "prompt_eval_duration": 123_456_789,
        "eval_count": reply.eval_count,
        **timed,
    }


class FakeOllama(LoopbackServer):
    """Ollama's native API on 127.0.0.1, served from a daemon thread."""

    handler_class = _Handler
    name = "fake-ollama"
    description = "A fake Ollama on 127.0.0.1."
    chat_path = "/api/chat"

    def __init__(self, models: list[FakeModel] | None = None, port: int = 0) -> None:
        self.models: list[FakeModel] = (
            list(models) if models is not None else [FakeModel(**vars(m)) for m in DEFAULT_MODELS]
        )
        self.truncated = 0  # chat requests whose beginning it dropped, past their window
        self.chats_abandoned = 0  # chat streams whose client hung up before their end
        super().__init__(port)
        # What it can pull, by name; a test may add to it or take from it.
        self.library: dict[str, LibraryModel] = {m.name: m for m in LIBRARY}
        self.pulls: list[PullRun] = []
        self._pull_replies: deque[PullReply] = deque()

    @property
    def requests(self) -> list[tuple[str, str, dict | None]]:
        """(method, path, JSON object sent or None) of every request, in order."""
        return [
            (r.method, r.path, r.body if isinstance(r.body, dict) else None)
            for r in self.received()
        ]

    def find(self, name: str) -> FakeModel | None:
        """The installed model by name; a bare name means its `latest` tag, as in Ollama."""
        wanted = name if ":" in name else f"{name}:latest"
        with self.lock:
            return next((m for m in self.models if m.name in (name, wanted)), None)

    # -- pulling and deleting -------------------------------------------------------

    def enqueue_pull(self, *replies: PullReply) -> None:
        """Make the next pulls answer with these replies, in order (else a quick success)."""
        with self.lock:
            self._pull_replies.extend(replies)

    def next_pull(self) -> PullReply:
        """The next queued pull reply, or the default one."""
        with self.lock:
            return self._pull_replies.popleft() if self._pull_replies else PullReply()

    def in_library(self, name: str) -> LibraryModel | None:
        """The library's model by name (a bare name means its `latest` tag)."""
        wanted = name if ":" in name.rpartition("/")[2] else f"{name}:latest"
        return self.library.get(wanted)

    def start_pull(self, name: str) -> PullRun:
        """Record a pull that is starting."""
        run = PullRun(name)
        with self.lock:
            self.pulls.append(run)
        return run

    def install(self, model: LibraryModel) -> None:
        """A pulled model joins the installed ones (once), under its library name."""
        with self.lock:
            if not any(m.name == model.name for m in self.models):
                self.models.append(FakeModel(model.name, model.capabilities, model.context_length))

    def uninstall(self, name: str) -> bool:
        """Remove an installed model; False when there is none by that name."""
        wanted = name if ":" in name else f"{name}:latest"
        with self.lock:
            found = [m for m in self.models if m.name in (name, wanted)]
            for model in found:
                self.models.remove(model)
        return bool(found)


if __name__ == "__main__":
    raise SystemExit(FakeOllama.main())
