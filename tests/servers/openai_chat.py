"""A loopback server that speaks the OpenAI chat-completions shape, for tests and trying the app.

Run it alone with `python -m tests.servers.openai_chat --port 8080 [--flavour groq]` and
point a provider of kind `custom` (or any OpenAI-shape preset) at the address it prints.
Streams, listings and error bodies follow the real servers' (see docs/providers.md):
each `flavour` refuses a picture sent to a blind model in its provider's own words.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.servers import hostile
from tests.servers.loopback import Dropped, LoopbackHandler, LoopbackServer

FLAVOURS = ("openai", "openrouter", "deepseek", "groq", "mistral", "llamacpp", "lmstudio")
LISTINGS = ("plain", "openrouter", "mistral")
CREATED = 1_735_689_600

# Each flavour's refusal of a picture sent to a model that can't see: (status, body).
# "{n}" is the index of the offending message. Mistral's wording is not known, so that
# flavour ignores the pictures, as some servers do (the reference says they exist).
REFUSALS: dict[str, tuple[int, dict[str, Any]]] = {
    "openai": (
        400,
        {
            "error": {
                "message": "Invalid content type. image_url is only supported by certain models.",
                "type": "invalid_request_error",
                "param": "messages.[{n}].content.[1].type",
                "code": None,
            }
        },
    ),
    "openrouter": (
        404,
        {"error": {"message": "No endpoints found that support image input", "code": 404}},
    ),
    "deepseek": (
        400,
        {
            "error": {
                "message": "Failed to deserialize the JSON body into the target type: "
                "messages[{n}]: unknown variant `image_url`, expected `text` at line 1 column 187",
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_request_error",
            }
        },
    ),
    "groq": (
        400,
        {
            "error": {
                "message": "'messages.{n}' : for 'role:user' the following must be satisfied"
                "[('messages.{n}.content' : value must be a string)]",
                "type": "invalid_request_error",
            }
        },
    ),
    "llamacpp": (
        500,
        {
            "error": {
                "code": 500,
                "message": "image input is not supported - hint: if this is unexpected, you may "
                "need to provide the mmproj",
                "type": "server_error",
            }
        },
    ),
    "lmstudio": (400, {"error": "Model does not support images. Please use a model that does."}),
}
ROLE_ORDER = {
    "object": "error",
    "message": "Unexpected role 'user' after role 'tool'",
    "type": "invalid_request_message_order",
    "param": None,
    "code": "3230",
}
BAD_KEY = {
    "error": {
        "message": "Incorrect API key provided: {key}. You can find your API key at "
        "https://platform.openai.com/account/api-keys.",
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_api_key",
    }
}
NO_MODEL = {
    "error": {
        "message": "The model `{name}` does not exist or you do not have access to it.",
        "type": "invalid_request_error",
        "param": None,
        "code": "model_not_found",
    }
}


@dataclass
class ChatModel:
    """One model the server offers: whether it sees and uses tools, and its context."""

    name: str
    sees: bool = False
    tools: bool = True
    context_length: int = 32768


@dataclass
class Reply:
    """How the next chat request answers (defaults: an echo of the last user message)."""

    text: str = ""
    chunk_chars: int = 4
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # {id?, name, arguments}
    args_chunk: int = 7  # characters of arguments per fragment
    interleave: bool = False  # send the calls' fragments alternately, not one call after another
    delay: float = 0.0
    status: int = 200
    body: dict[str, Any] | list[Any] | None = None  # error body for a non-200 status
    headers: dict[str, str] = field(default_factory=dict)
    raw_body: str | None = None  # sent verbatim with `content_type` and `status`
    content_type: str = "text/html; charset=utf-8"
    raw_events: list[str] = field(default_factory=list)  # verbatim `data:` payloads after the text
    midstream_error: dict[str, Any] | None = None  # an OpenRouter-style error chunk, then the end
    drop_after: int | None = None  # cut the connection after this many events
    finish: bool = True  # send the finish_reason chunk
    done: bool = True  # send data: [DONE]
    prompt_tokens: int = 12
    completion_tokens: int = 7
    hostile: str | None = None  # a mode of tests.servers.hostile, sent with `status`


# The OpenAI shape's stream for the hostile answers: its opening chunk, a line of it,
# its keep-alives (comments, as OpenRouter sends, blank lines, empty data).
HOSTILE_SHAPE = hostile.Shape(
    "text/event-stream; charset=utf-8",
    opening=b'data: {"object":"chat.completion.chunk","choices":[{"index":0,'
    b'"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n',
    line_start=b'data: {"choices":[{"index":0,"delta":{"content":"',
    keepalive=(b": ping\n\n", b"\n", b"data: \n\n", b": OPENROUTER PROCESSING\n\n"),
    data_line=b"data: " + b"x" * 16384 + b"\n",
)


DEFAULT_MODELS = (
    ChatModel("gpt-4o-mini", sees=True, context_length=128000),
    ChatModel("text-only-7b", sees=False),
    ChatModel("text-embedding-3-small", sees=False, tools=False, context_length=8191),
)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


def _fill(obj: Any, **values: Any) -> Any:
    """A copy of an error body with {placeholders} filled in its strings."""
    if isinstance(obj, dict):
        return {k: _fill(v, **values) for k, v in obj.items()}
    if isinstance(obj, str):
        return obj.format(**values)
    return obj


def listing_entry(model: ChatModel, shape: str) -> dict[str, Any]:
    """One model as GET /models lists it, in the plain, OpenRouter or Mistral shape."""
    if shape == "openrouter":
        inputs = ["text", "image"] if model.sees else ["text"]
        params = ["max_tokens", "temperature", "top_p", "stop"]
        return {
            "id": model.name,
            "canonical_slug": model.name,
            "name": f"Fake: {model.name}",
            "created": CREATED,
            "description": "A model of the loopback server.",
            "context_length": model.context_length,
            "architecture": {
                "modality": "+".join(inputs) + "->text",
                "input_modalities": inputs,
                "output_modalities": ["text"],
                "tokenizer": "Other",
                "instruct_type": None,
            },
            "pricing": {"prompt": "0.0000001", "completion": "0.0000004", "request": "0"},
            "top_provider": {
                "context_length": model.context_length,
                "max_completion_tokens": 4096,
                "is_moderated": False,
            },
            "per_request_limits": None,
            "supported_parameters": params + (["tools", "tool_choice"] if model.tools else []),
        }
    if shape == "mistral":
        return {
            "id": model.name,
            "object": "model",
            "created": CREATED,
            "owned_by": "mistralai",
            "capabilities": {
                "completion_chat": "embed" not in model.name,
                "completion_fim": False,
                "function_calling": model.tools,
                "fine_tuning": False,
                "vision": model.sees,
            },
            "name": model.name,
            "description": "A model of the loopback server.",
            "max_context_length": model.context_length,
            "aliases": [],
            "deprecation": None,
            "default_model_temperature": 0.3,
            "type": "base",
        }
    return {"id": model.name, "object": "model", "created": CREATED, "owned_by": "system"}


def language_model(model: ChatModel) -> dict[str, Any]:
    """One model as xAI's GET /v1/language-models lists it (with its input modalities)."""
    return {
        "id": model.name,
        "fingerprint": "fp_fake",
        "created": CREATED,
        "object": "model",
        "owned_by": "xai",
        "version": "1.0",
        "input_modalities": ["text", "image"] if model.sees else ["text"],
        "output_modalities": ["text"],
        "prompt_text_token_price": 20000,
        "completion_text_token_price": 100000,
        "aliases": [f"{model.name}-latest"],
    }


class ChatHandler(LoopbackHandler):
    """Routes of the OpenAI shape; the LM Studio server adds its own on top."""

    @property
    def owner(self) -> FakeOpenAI:
        return self.server.owner

    # -- plumbing --------------------------------------------------------------

    def _record(self, body: Any) -> None:
        with self.owner.lock:
            self.owner.requests.append((self.command, self.path, body))
            self.owner.headers.append(dict(self.headers.items()))

    def _send(self, status: int, payload: bytes, content_type: str, headers: Any = ()) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in dict(headers).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def json_reply(self, status: int, obj: Any, headers: Any = ()) -> None:
        """Answer with a JSON body."""
        self._send(status, _dumps(obj).encode(), "application/json; charset=utf-8", headers)

    def _event(self, payload: str) -> None:
        data = f"data: {payload}\n\n".encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _drop(self) -> None:
        # Cut the connection mid-body: the client sees an incomplete chunked read.
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
        raise Dropped

    def not_found(self) -> None:
        """The flavour's answer to a path it doesn't serve."""
        if self.owner.flavour == "llamacpp":
            error = {"code": 404, "message": "File Not Found", "type": "not_found_error"}
            self.json_reply(404, {"error": error})
        else:
            message = f"Invalid URL ({self.command} {self.path})"
            self.json_reply(404, {"error": {"message": message, "type": "invalid_request_error"}})

    def route(self) -> str | None:
        """The path under the API's prefix (/v1, OpenRouter's /api/v1), or None outside it."""
        path = self.path.split("?")[0]
        prefix = "/api/v1" if self.owner.flavour == "openrouter" else "/v1"
        if path.startswith(prefix + "/"):
            return path.removeprefix(prefix)
        # llama-server answers at the root too.
        return path if self.owner.flavour == "llamacpp" else None

    def _authorized(self) -> bool:
        key = self.owner.api_key
        if key is None:
            return True
        given = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        if given == key:
            return True
        self.json_reply(401, _fill(BAD_KEY, key=given or "(none)"))
        return False

    # -- routes ----------------------------------------------------------------

    def do_GET(self) -> None:
        self._record(None)
        if not self._authorized() or self.served_hostile():
            return
        path = self.path.split("?")[0]
        owner = self.owner
        route = self.route()
        if route == "/language-models" and owner.language_models:
            self.json_reply(200, {"models": [language_model(m) for m in owner.models]})
        elif route == "/models":
            shape = owner.listing
            data = [listing_entry(m, shape) for m in owner.models]
            self.json_reply(
                200, {"data": data} if shape == "openrouter" else {"object": "list", "data": data}
            )
        elif path == "/props" and owner.flavour == "llamacpp":
            self.json_reply(200, owner.props())
        else:
            self.not_found()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        self._record(body)
        if not self._authorized():
            return
        if self.route() != "/chat/completions":
            self.not_found()
        elif not isinstance(body, dict):
            self.json_reply(
                400,
                {
                    "error": {
                        "message": "We could not parse the JSON body of your request.",
                        "type": "invalid_request_error",
                    }
                },
            )
        else:
            try:
                self._chat(body)
            except (Dropped, OSError):
                self.close_connection = True

    def _chat(self, body: dict[str, Any]) -> None:
        owner = self.owner
        messages = body.get("messages") or []
        name = str(body.get("model") or "")
        model = owner.find(name)
        if model is None:
            self.json_reply(404, _fill(NO_MODEL, name=name))
            return
        reply = owner.next_reply()
        if reply is None:
            if refusal := self._refusal(messages, model):
                self.json_reply(*refusal)
                return
            reply = Reply(text=_echo(messages, model))
        self.answer(name, reply, body)

    def _refusal(self, messages: list[Any], model: ChatModel) -> tuple[int, Any] | None:
        flavour = self.owner.flavour
        roles = [m.get("role") for m in messages if isinstance(m, dict)]
        if flavour == "mistral" and any(
            a == "tool" and b == "user" for a, b in itertools.pairwise(roles)
        ):
            return 400, ROLE_ORDER
        at = next((i for i, m in enumerate(messages) if _pictures(m)), None)
        if at is None or model.sees or flavour not in REFUSALS:
            return None
        status, error = REFUSALS[flavour]
        return status, _fill(error, n=at)

    def answer(self, name: str, reply: Reply, body: dict[str, Any]) -> None:
        """Answer one chat request as `reply` says: an error, a whole body, or a stream."""
        if reply.hostile is not None:
            shape = HOSTILE_SHAPE if reply.status == 200 else hostile.JSON_BODY
            hostile.serve(self, reply.hostile, shape, reply.status)
            return
        if reply.raw_body is not None:
            self._send(reply.status, reply.raw_body.encode(), reply.content_type, reply.headers)
            return
        if reply.status != 200:
            error = (
                reply.body if reply.body is not None else {"error": {"message": "internal error"}}
            )
            self.json_reply(reply.status, error, reply.headers)
            return
        time.sleep(reply.delay)
        chunk = _Chunks(name)
        if body.get("stream") is not True:
            self.json_reply(200, chunk.whole(reply), reply.headers)
            return
        usage = bool((body.get("stream_options") or {}).get("include_usage"))
        events = chunk.stream(reply, usage)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Transfer-Encoding", "chunked")
        for header, value in reply.headers.items():
            self.send_header(header, value)
        self.end_headers()
        self.wfile.flush()
        for sent, payload in enumerate(events):
            if reply.drop_after is not None and sent >= reply.drop_after:
                self._drop()
            time.sleep(reply.delay)
            self._event(payload)
        self.wfile.write(b"0\r\n\r\n")


def _pictures(message: Any) -> int:
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return 0
    return sum(1 for p in content if isinstance(p, dict) and p.get("type") == "image_url")


def _echo(messages: list[Any], model: ChatModel) -> str:
    last = next(
        (m for m in reversed(messages) if isinstance(m, dict) and m.get("role") == "user"), {}
    )
    content = last.get("content", "")
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    text = f"You said: {content}"
    if (count := _pictures(last)) and model.sees:
        text += f" (I see {count} pictures)"
    return text


class _Chunks:
    """The chunks of one answer, shaped like OpenAI's."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.id = f"chatcmpl-{abs(hash((model, time.time()))) % 10**12:012d}"

    def _chunk(
        self, delta: dict[str, Any] | None, finish: str | None = None, **extra: Any
    ) -> dict[str, Any]:
        choices = (
            []
            if delta is None
            else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
        )
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": self.model,
            "system_fingerprint": "fp_fake",
            "choices": choices,
            **extra,
        }

    @staticmethod
    def _arguments(call: dict[str, Any]) -> str:
        args = call.get("arguments", {})
        return args if isinstance(args, str) else _dumps(args)

    def _call_fragments(self, reply: Reply) -> list[dict[str, Any]]:
        per_call: list[list[dict[str, Any]]] = []
        for index, call in enumerate(reply.tool_calls):
            args, step = self._arguments(call), max(reply.args_chunk, 1)
            first = {
                "index": index,
                "id": call.get("id", f"call_fake{index}"),
                "type": "function",
                "function": {"name": call["name"], "arguments": ""},
            }
            rest = [
                {"index": index, "function": {"arguments": args[i : i + step]}}
                for i in range(0, len(args), step)
            ]
            per_call.append([first, *rest])
        if not reply.interleave:
            return [f for frags in per_call for f in frags]
        out: list[dict[str, Any]] = []
        for round_ in range(max((len(f) for f in per_call), default=0)):
            out += [frags[round_] for frags in per_call if round_ < len(frags)]
        return out

    def stream(self, reply: Reply, usage: bool) -> list[str]:
        """Every `data:` payload of the stream, in order."""
        extra = {"usage": None} if usage else {}
        step = max(reply.chunk_chars, 1)
        chunks = [self._chunk({"role": "assistant", "content": ""}, **extra)]
        chunks += [
            self._chunk({"content": reply.text[i : i + step]}, **extra)
            for i in range(0, len(reply.text), step)
        ]
        chunks += [self._chunk({"tool_calls": [f]}, **extra) for f in self._call_fragments(reply)]
        payloads = [_dumps(c) for c in chunks] + list(reply.raw_events)
        if reply.midstream_error is not None:
            error_chunk = self._chunk({"content": ""}, "error", error=reply.midstream_error)
            return [*payloads, _dumps(error_chunk)]
        if reply.finish:
            reason = "tool_calls" if reply.tool_calls else "stop"
            payloads.append(_dumps(self._chunk({}, reason, **extra)))
        if usage:
            payloads.append(_dumps(self._chunk(None, usage=self._usage(reply))))
        if reply.done:
            payloads.append("[DONE]")
        return payloads

    @staticmethod
    def _usage(reply: Reply) -> dict[str, int]:
        total = reply.prompt_tokens + reply.completion_tokens
        return {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": total,
        }

    def whole(self, reply: Reply) -> dict[str, Any]:
        """The non-streaming answer."""
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": c.get("id", f"call_fake{i}"),
                    "type": "function",
                    "function": {"name": c["name"], "arguments": self._arguments(c)},
                }
                for i, c in enumerate(reply.tool_calls)
            ]
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": CREATED,
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                }
            ],
            "usage": self._usage(reply),
        }


class FakeOpenAI(LoopbackServer):
    """An OpenAI-shape API on 127.0.0.1, served from a daemon thread."""

    handler_class: type[BaseHTTPRequestHandler] = ChatHandler
    name = "fake-openai"

    def __init__(
        self,
        models: list[ChatModel] | None = None,
        *,
        flavour: str = "openai",
        listing: str | None = None,
        api_key: str | None = None,
        language_models: bool = False,
        port: int = 0,
    ) -> None:
        if flavour not in FLAVOURS:
            raise ValueError(f"flavour must be one of {FLAVOURS}")
        self.models = (
            list(models) if models is not None else [ChatModel(**vars(m)) for m in DEFAULT_MODELS]
        )
        self.flavour = flavour
        default_listing = flavour if flavour in ("openrouter", "mistral") else "plain"
        self.listing = listing or default_listing
        if self.listing not in LISTINGS:
            raise ValueError(f"listing must be one of {LISTINGS}")
        self.api_key = api_key
        self.language_models = language_models  # serve xAI's /language-models
        super().__init__(port)
        self.requests: list[tuple[str, str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.verbose = False
        self.lock = threading.Lock()
        self._replies: deque[Reply] = deque()

    @property
    def url(self) -> str:
        """The API's base URL: the server root plus /v1 (OpenRouter's is /api/v1)."""
        return self.base_url + ("/api/v1" if self.flavour == "openrouter" else "/v1")

    def chat_requests(self) -> list[dict[str, Any]]:
        """The parsed bodies of every chat request, in order."""
        with self.lock:
            return [
                b
                for _, p, b in self.requests
                if p.endswith("/chat/completions") and isinstance(b, dict)
            ]

    def paths(self) -> list[str]:
        """`METHOD path` of every request, in order."""
        with self.lock:
            return [f"{m} {p}" for m, p, _ in self.requests]

    def enqueue(self, *replies: Reply) -> None:
        """Make the next chat requests answer with these replies, in order."""
        with self.lock:
            self._replies.extend(replies)

    def next_reply(self) -> Reply | None:
        """Take the next queued reply, if any."""
        with self.lock:
            return self._replies.popleft() if self._replies else None

    def find(self, name: str) -> ChatModel | None:
        """The model by name."""
        return next((m for m in self.models if m.name == name), None)

    def props(self) -> dict[str, Any]:
        """llama.cpp's GET /props: one model, with or without a projector."""
        model = self.models[0] if self.models else ChatModel("none")
        return {
            "default_generation_settings": {
                "n_ctx": model.context_length,
                "params": {"temperature": 0.8},
            },
            "total_slots": 1,
            "model_alias": model.name,
            "model_path": f"/models/{model.name}.gguf",
            "chat_template": "{% for message in messages %}{{ message.content }}{% endfor %}",
            "modalities": {"vision": any(m.sees for m in self.models), "audio": False},
            "build_info": "b6000-fake",
        }


def main(argv: list[str] | None = None) -> int:
    """Serve until Ctrl+C, printing the API's base URL first."""
    parser = argparse.ArgumentParser(description="A fake OpenAI-shape API on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=0, help="port (0: any free port)")
    parser.add_argument("--flavour", choices=FLAVOURS, default="openai")
    parser.add_argument("--listing", choices=LISTINGS, default=None)
    parser.add_argument("--verbose", action="store_true", help="log each request")
    args = parser.parse_args(argv)
    server = FakeOpenAI(flavour=args.flavour, listing=args.listing, port=args.port)
    server.verbose = args.verbose
    server.start()
    print(server.url, flush=True)
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
