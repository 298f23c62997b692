"""A loopback server that speaks the OpenAI chat-completions shape, for tests and trying the app.

Run it alone with `python -m tests.servers.openai_chat --port 8080 [--flavour groq]` and
point a provider of kind `custom` (or any OpenAI-shape preset) at the address it prints.
Streams, listings and error bodies follow the real servers' (see docs/providers.md):
each `flavour` refuses a picture sent to a blind model in its provider's own words.
"""

from __future__ import annotations

import argparse
import itertools
import time
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler
from typing import Any, Self

from tests.servers import hostile
from tests.servers.loopback import (
    Headers,
    LoopbackHandler,
    LoopbackServer,
    Recorded,
    ScriptedReply,
    dumps,
    pieces,
)
from tests.servers.seeing import looks_at_data_url

PICTURE_MODES = ("refuse", "ignore", "read")
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
    """One model the server offers: whether it sees and uses tools, its context, and the
    request fields it refuses as OpenAI's reasoning models do: `refuses` any value of them,
    `default_only` any but the default (1), each in OpenAI's own words."""

    name: str
    sees: bool = False
    tools: bool = True
    context_length: int = 32768
    refuses: tuple[str, ...] = ()
    default_only: tuple[str, ...] = ()


def unsupported(body: dict[str, Any], model: ChatModel) -> dict[str, Any] | None:
    """OpenAI's 400 body for a field `model` doesn't take, or None when it takes them all."""
    for name in model.refuses:
        if name in body:
            message = f"Unsupported parameter: '{name}' is not supported with this model."
            return _invalid(message, name, "unsupported_parameter")
    for name in model.default_only:
        if name in body and body[name] != 1:
            message = (
                f"Unsupported value: '{name}' does not support {body[name]} with this model. "
                "Only the default (1) value is supported."
            )
            return _invalid(message, name, "unsupported_value")
    return None


def _invalid(message: str, param: str, code: str) -> dict[str, Any]:
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    return {"error": error}


@dataclass
class Reply(ScriptedReply):
    """How the next chat request answers (defaults: an echo of the last user message).
    Tool calls: {id?, name, arguments}; `delay` also comes before the answer starts."""

    args_chunk: int = 7  # characters of arguments per fragment
    interleave: bool = False  # send the calls' fragments alternately, not one call after another
    raw_events: list[str] = field(default_factory=list)  # verbatim `data:` payloads after the text
    midstream_error: dict[str, Any] | None = None  # an OpenRouter-style error chunk, then the end
    finish: bool = True  # send the finish_reason chunk
    done: bool = True  # send data: [DONE]
    prompt_tokens: int = 12
    completion_tokens: int = 7


# The OpenAI shape's stream for the hostile answers: its opening chunk, a line of it,
# its keep-alives (comments, as OpenRouter sends, blank lines, empty data).
HOSTILE_SHAPE = hostile.sse(
    opening=b'data: {"object":"chat.completion.chunk","choices":[{"index":0,'
    b'"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n',
    line_start=b'data: {"choices":[{"index":0,"delta":{"content":"',
    # A chunk repeating the same usage is no progress either (some servers repeat it).
    keepalive=(
        b": ping\n\n",
        b"\n",
        b"data: \n\n",
        b": OPENROUTER PROCESSING\n\n",
        b'data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1}}\n\n',
    ),
    line_end=b'"}}]}\n\n',
)


DEFAULT_MODELS = (
    ChatModel("gpt-4o-mini", sees=True, context_length=128000),
    ChatModel("text-only-7b", sees=False),
    ChatModel("text-embedding-3-small", sees=False, tools=False, context_length=8191),
)


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

    def internal_error(self) -> Any:
        return {"error": {"message": "internal error"}}

    def not_found(self) -> None:
        """The flavour's answer to a path it doesn't serve."""
        if self.owner.flavour == "llamacpp":
            error = {"code": 404, "message": "File Not Found", "type": "not_found_error"}
            self.json(404, {"error": error})
        else:
            message = f"Invalid URL ({self.command} {self.path})"
            self.json(404, {"error": {"message": message, "type": "invalid_request_error"}})

    def api_path(self) -> str | None:
        """The path under the API's prefix (/v1, OpenRouter's /api/v1), or None outside it."""
        path = self.route_path
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
        self.json(401, _fill(BAD_KEY, key=given or "(none)"))
        return False

    # -- routes ----------------------------------------------------------------

    def route(self) -> None:
        if not self._authorized():
            return
        if self.command == "GET":
            self.get()
        elif (counted := self._count()) is not None:
            self.json(200, counted)
        elif self.api_path() != "/chat/completions":
            self.not_found()
        elif not isinstance(self.body, dict):
            message = "We could not parse the JSON body of your request."
            self.json(400, {"error": {"message": message, "type": "invalid_request_error"}})
        else:
            self._chat(self.body)

    def get(self) -> None:
        """GET's routes: the model lists (and llama.cpp's /props)."""
        owner = self.owner
        route = self.api_path()
        if route == "/language-models" and owner.language_models:
            self.json(200, {"models": [language_model(m) for m in owner.models]})
        elif route == "/models":
            shape = owner.listing
            data = [listing_entry(m, shape) for m in owner.models]
            self.json(
                200, {"data": data} if shape == "openrouter" else {"object": "list", "data": data}
            )
        elif self.route_path == "/props" and owner.flavour == "llamacpp" and owner.has_props:
            self.json(200, owner.props())
        else:
            self.not_found()

    def _count(self) -> dict[str, Any] | None:
        """llama.cpp's POST /tokenize or llama-cpp-python's /extras/tokenize/count, as the
        server that enforces a window counts (upstream's has /props, the other not)."""
        owner, body = self.owner, self.body if isinstance(self.body, dict) else {}
        if owner.window is None:
            return None
        if self.route_path == "/tokenize" and owner.has_props:
            owner.counted += 1
            return {"tokens": list(range(len(str(body.get("content", ""))) // 4))}
        if self.route_path == "/extras/tokenize/count" and not owner.has_props:
            owner.counted += 1
            return {"count": len(str(body.get("input", ""))) // 4}
        return None

    def _chat(self, body: dict[str, Any]) -> None:
        owner = self.owner
        messages = body.get("messages") or []
        name = str(body.get("model") or "")
        model = owner.find(name)
        if model is None:
            self.json(404, _fill(NO_MODEL, name=name))
            return
        if (refused := unsupported(body, model)) is not None:  # before any scripted reply
            self.json(400, refused)
            return
        if (past := owner.past_window(body)) is not None:
            if body.get("stream") is True and owner.window_shape == "llama-cpp-python":
                # Its empty 200, after which it closes the connection without saying so:
                # the client's next request on it finds it gone.
                self.stream("text/event-stream", iter(()), Reply())
                self.close_connection = True
            else:
                self.json(400, past)
            return
        reply = owner.next_reply()
        if reply is None and owner.pictures == "read" and (seen := _looked_at(messages)):
            reply = Reply(text=seen)
        if reply is None:
            if owner.pictures == "refuse" and (refusal := self._refusal(messages, model)):
                self.json(*refusal)
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
        if self.answered_otherwise(reply, HOSTILE_SHAPE):
            return
        time.sleep(reply.delay)
        if self.owner.window is not None:  # a server that counts says what it counted
            reply = replace(reply, prompt_tokens=self.owner.prompt_tokens(body))
        chunk = _Chunks(name)
        if body.get("stream") is not True:
            self.json(200, chunk.whole(reply), reply.headers)
            return
        usage = bool((body.get("stream_options") or {}).get("include_usage"))
        events = (f"data: {payload}\n\n".encode() for payload in chunk.stream(reply, usage))
        self.stream("text/event-stream; charset=utf-8", events, reply, reply.headers)


def _pictures(message: Any) -> int:
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return 0
    return sum(1 for p in content if isinstance(p, dict) and p.get("type") == "image_url")


def _looked_at(messages: list[Any]) -> str:
    """What a model that really looks sees in the last user message's first picture."""
    last = next(
        (m for m in reversed(messages) if isinstance(m, dict) and m.get("role") == "user"), {}
    )
    content = last.get("content")
    for part in content if isinstance(content, list) else ():
        if isinstance(part, dict) and part.get("type") == "image_url":
            return looks_at_data_url(str(part.get("image_url", {}).get("url", "")))
    return ""


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
        return args if isinstance(args, str) else dumps(args)

    def _call_fragments(self, reply: Reply) -> list[dict[str, Any]]:
        per_call: list[list[dict[str, Any]]] = []
        for index, call in enumerate(reply.tool_calls):
            first = {
                "index": index,
                "id": call.get("id", f"call_fake{index}"),
                "type": "function",
                "function": {"name": call["name"], "arguments": ""},
            }
            rest = [
                {"index": index, "function": {"arguments": piece}}
                for piece in pieces(self._arguments(call), reply.args_chunk)
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
        chunks = [self._chunk({"role": "assistant", "content": ""}, **extra)]
        chunks += [
            self._chunk({"content": piece}, **extra)
            for piece in pieces(reply.text, reply.chunk_chars)
        ]
        chunks += [self._chunk({"tool_calls": [f]}, **extra) for f in self._call_fragments(reply)]
        payloads = [dumps(c) for c in chunks] + list(reply.raw_events)
        if reply.midstream_error is not None:
            error_chunk = self._chunk({"content": ""}, "error", error=reply.midstream_error)
            return [*payloads, dumps(error_chunk)]
        if reply.finish:
            reason = "tool_calls" if reply.tool_calls else "stop"
            payloads.append(dumps(self._chunk({}, reason, **extra)))
        if usage:
            payloads.append(dumps(self._chunk(None, usage=self._usage(reply))))
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
    description = "A fake OpenAI-shape API on 127.0.0.1."

    def __init__(
        self,
        models: list[ChatModel] | None = None,
        *,
        flavour: str = "openai",
        listing: str | None = None,
        api_key: str | None = None,
        language_models: bool = False,
        pictures: str = "refuse",
        window: int | None = None,
        window_shape: str = "llama-cpp-python",
        port: int = 0,
    ) -> None:
        if pictures not in PICTURE_MODES:
            raise ValueError(f"pictures must be one of {PICTURE_MODES}")
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
        # What a blind model's server does with pictures: refuse them (as each flavour
        # words it), take them with a 200 and ignore them, or really look ("read").
        self.pictures = pictures
        # A window the server enforces, as llama-cpp-python does (an empty 200 to a stream
        # past it, a 400 that states it otherwise) or upstream llama.cpp (a 400 with n_ctx).
        self.window = window
        self.window_shape = window_shape
        self.refused_past_window = 0
        self.counted = 0  # requests to its count endpoint
        # llama-cpp-python has no /props (upstream llama.cpp's server has).
        self.has_props = not (window is not None and window_shape == "llama-cpp-python")
        super().__init__(port)

    @property
    def url(self) -> str:
        """The API's base URL: the server root plus /v1 (OpenRouter's is /api/v1)."""
        return self.base_url + ("/api/v1" if self.flavour == "openrouter" else "/v1")

    @property
    def address(self) -> str:
        return self.url

    @property
    def requests(self) -> list[tuple[str, str, Any]]:
        """(method, path, parsed body) of every request, in order."""
        return [(r.method, r.path, r.body) for r in self.received()]

    @property
    def headers(self) -> list[Headers]:
        """The headers of every request, in order."""
        return [r.headers for r in self.received()]

    def is_chat(self, request: Recorded) -> bool:
        return request.path.endswith("/chat/completions") and isinstance(request.body, dict)

    def find(self, name: str) -> ChatModel | None:
        """The model by name."""
        return next((m for m in self.models if m.name == name), None)

    def prompt_tokens(self, body: dict[str, Any]) -> int:
        """The prompt's tokens as this server counts them: four characters a token of each
        message's words, and four a message for its template."""
        total = 0
        for message in body.get("messages") or []:
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, list):
                content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            total += 4 + len(str(content or "")) // 4
        return total

    def past_window(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The error body for a request past `window`, as its server words it, or None."""
        if self.window is None:
            return None
        prompt = self.prompt_tokens(body)
        answer = body.get("max_tokens") or body.get("max_completion_tokens") or 0
        if prompt + answer <= self.window:
            return None
        self.refused_past_window += 1
        if self.window_shape == "llama.cpp":  # upstream llama-server
            return {
                "error": {
                    "code": 400,
                    "message": "the request exceeds the available context size, try increasing it",
                    "type": "exceed_context_size_error",
                    "n_prompt_tokens": prompt,
                    "n_ctx": self.window,
                }
            }
        return {  # llama-cpp-python's words (docs/providers.md)
            "error": {
                "message": f"This model's maximum context length is {self.window} tokens. "
                f"However, you requested {prompt + answer} tokens ({prompt} in the messages, "
                f"{answer} in the completion). Please reduce the length of the messages or "
                "completion.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        }

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

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--flavour", choices=FLAVOURS, default="openai")
        parser.add_argument("--listing", choices=LISTINGS, default=None)

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> Self:
        return cls(flavour=args.flavour, listing=args.listing, port=args.port)


if __name__ == "__main__":
    raise SystemExit(FakeOpenAI.main())
