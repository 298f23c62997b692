"""The Ollama wire: Ollama's native /api/chat and /api/tags over one httpx client.

Every failure is translated here, once, into the errors of `routing.errors`; what
Ollama said stays in `.detail`.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from dataclasses import replace
from typing import Any

import httpx

from routing.addresses import OLLAMA_DEFAULT_URL as DEFAULT_BASE_URL
from routing.addresses import ollama_base_url
from routing.endpoints import endpoint_name
from routing.errors import (
    BadRequest,
    ContextTooLong,
    KeyProblem,
    MalformedResponse,
    ModelNotFound,
    PicturesRefused,
    ProviderError,
    RateLimited,
    ServerError,
)
from routing.models import ModelInfo, ProviderConfig
from routing.presets import preset_for
from routing.transcript import Message, ToolCall, ToolResult, tool_pictures_text
from routing.wires import bounded
from routing.wires.base import ChatRequest, Done, StreamEvent, TextDelta, ToolCallEvent, Usage
from routing.wires.bounded import (
    LISTING_CAP,
    IdleDeadline,
    fetch,
    ndjson_lines,
    read_error,
)
from routing.wires.client import http_client
from routing.wires.http_errors import cut_off, translate_transport
from routing.wires.payload import load_json, plain_json, token_count, tool_result_text
from vision.pictures import Picture

# A cold model can take minutes to load before its first token arrives.
DEFAULT_TIMEOUT = 300.0
SHOW_CONCURRENCY = 4
NAMES_TIMEOUT = 3.0

# Texts of a picture refusal: older runners, Ollama cloud, llama.cpp passed through.
PICTURE_REFUSALS = (
    "missing data required for image input",
    "does not support image input",
    "image input is not supported",
)
# Never bare "context": Go's "context canceled" would match it.
CONTEXT_MARKERS = (
    "context length",
    "context window",
    "context size",
    "exceeds the context",
    "exceed the context",
    "input length exceeds",
    "prompt is too long",
)


def classify_error(
    status: int, message: str, provider_id: str, *, model: str = ""
) -> ProviderError:
    """Turn one Ollama error (HTTP status, or below 400 for a line inside a stream) into ours."""
    text = message.lower()
    detail = f"HTTP {status}: {message}" if status >= 400 else f"in the stream: {message}"
    this = f"The model {model}" if model else "This model"
    kw: dict[str, Any] = {"provider_id": provider_id, "detail": detail}
    if any(marker in text for marker in PICTURE_REFUSALS):
        return PicturesRefused(
            f"{this} can't take pictures, so Ollama refused the message. Describe the "
            "pictures in words, or switch to a model that sees (such as llava or qwen2.5vl).",
            **kw,
        )
    if any(marker in text for marker in CONTEXT_MARKERS):
        return ContextTooLong(
            f"The conversation no longer fits {model or 'the model'}'s context. Start a new "
            "chat, or remove earlier messages or pictures.",
            **kw,
        )
    if status == 404 and "not found" in text:
        name = model or "NAME"
        return ModelNotFound(
            f"Ollama has no model called {model or 'that'}. Download it with "
            f"`ollama pull {name}`, or pick one Ollama has.",
            **kw,
        )
    if status in (401, 403):
        return KeyProblem(
            "Ollama refused the request as unauthorized. For cloud models, sign in with "
            "`ollama signin`; behind a proxy, check the provider's API key.",
            **kw,
        )
    if status == 429:
        return RateLimited("Ollama is getting too many requests: wait and try again.", **kw)
    if status >= 500 or status < 400:
        return ServerError(
            "Ollama failed while answering. Try again; if it keeps failing, check Ollama's log.",
            **kw,
        )
    if "does not support tools" in text:
        return BadRequest(
            f"{this} can't use tools. Pick a model that can, or turn tools off for this chat.",
            **kw,
        )
    return BadRequest(
        f"Ollama rejected the request ({status}). This is a Sightline bug: please report it "
        "with the details.",
        **kw,
    )


def _tool_message(result: ToolResult) -> dict[str, Any]:
    # Words only: a tool message's pictures follow in one user message (SPEC §3).
    text = tool_result_text(result)  # Ollama has no error flag on tool results
    return {"role": "tool", "content": text, "tool_name": result.name}


def _images(pictures: tuple[Picture, ...]) -> list[str]:
    return [base64.b64encode(p.data).decode("ascii") for p in pictures]


def _tool_pictures_message(sources: list[tuple[ToolResult, Picture]]) -> dict[str, Any]:
    pictures = tuple(picture for _, picture in sources)
    return {"role": "user", "content": tool_pictures_text(sources), "images": _images(pictures)}


def _message_body(message: Message) -> list[dict[str, Any]]:
    results = message.tool_results
    out = [_tool_message(r) for r in results]
    pictures, calls = message.pictures, message.tool_calls
    if message.text or pictures or calls or not results:
        body: dict[str, Any] = {"role": message.role, "content": message.text}
        if pictures:
            body["images"] = _images(pictures)
        if calls:
            body["tool_calls"] = [
                {"function": {"name": c.name, "arguments": plain_json(c.arguments)}} for c in calls
            ]
        out.append(body)
    return out


def build_chat_body(request: ChatRequest) -> dict[str, Any]:
    """The JSON body of POST /api/chat for one request (keys left out when empty)."""
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    pending: list[tuple[ToolResult, Picture]] = []  # this step's tool pictures
    for message in request.messages:
        if message.role != "tool" and pending:
            messages.append(_tool_pictures_message(pending))
            pending = []
        messages.extend(_message_body(message))
        pending.extend((r, p) for r in message.tool_results for p in r.pictures)
    if pending:
        messages.append(_tool_pictures_message(pending))
    body: dict[str, Any] = {"model": request.model, "messages": messages}
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": plain_json(t.parameters),
                },
            }
            for t in request.tools
        ]
    body["stream"] = True
    return body


def _malformed(provider_id: str, what: str, sample: str, *, server: str = "") -> MalformedResponse:
    source = f"The answer from {server}" if server else "The answer"
    return MalformedResponse(
        f"{source} was not in Ollama's format ({what}). Check that the provider's address "
        f"points at Ollama (by default {DEFAULT_BASE_URL}).",
        provider_id=provider_id,
        detail=sample[:500],
    )


def _tool_call(raw: Any, fallback_id: str, provider_id: str) -> ToolCall:
    function = raw.get("function") if isinstance(raw, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    if not isinstance(function, dict) or not isinstance(name, str) or not name:
        raise _malformed(provider_id, "a tool call without a name", json.dumps(raw))
    arguments = function.get("arguments") or {}
    if isinstance(arguments, str):  # Ollama sends an object; tolerate a JSON string
        try:
            arguments = load_json(arguments)
        except ValueError:
            raise _malformed(provider_id, "tool arguments not JSON", arguments) from None
    if not isinstance(arguments, dict):
        raise _malformed(provider_id, "tool arguments not an object", json.dumps(raw))
    call_id = raw.get("id")
    return ToolCall(
        id=call_id if isinstance(call_id, str) and call_id else fallback_id,
        name=name,
        arguments=arguments,
    )


def parse_chunk(
    obj: Any, *, provider_id: str = "", calls_so_far: int = 0, model: str = ""
) -> list[StreamEvent]:
    """The events of one NDJSON line of /api/chat; raises for an error line or a wrong shape."""
    if not isinstance(obj, dict):
        raise _malformed(provider_id, "a line that is not a JSON object", json.dumps(obj))
    if "error" in obj:
        error = obj["error"]
        text = error.get("message", "") if isinstance(error, dict) else str(error)
        raise classify_error(200, str(text), provider_id, model=model)
    message, done = obj.get("message"), obj.get("done")
    if (message is None and done is None) or not isinstance(done, bool | None):
        raise _malformed(provider_id, "a line with no message", json.dumps(obj))
    events: list[StreamEvent] = []
    if message is not None:
        if not isinstance(message, dict) or not isinstance(message.get("content"), str | None):
            raise _malformed(provider_id, "a message of the wrong shape", json.dumps(obj))
        if content := message.get("content"):
            events.append(TextDelta(content))
        calls = message.get("tool_calls") or []
        if not isinstance(calls, list):
            raise _malformed(provider_id, "tool calls not a list", json.dumps(obj))
        for n, raw in enumerate(calls, start=calls_so_far):
            events.append(ToolCallEvent(_tool_call(raw, f"call_{n}", provider_id)))
    if done:
        events.append(
            Usage(
                input_tokens=token_count(obj.get("prompt_eval_count")),
                output_tokens=token_count(obj.get("eval_count")),
            )
        )
        events.append(Done(str(obj.get("done_reason") or "stop")))
    return events


def _thinking(chunk: Any) -> bool:
    """Whether a line carries a thinking model's thoughts (`message.thinking`)."""
    message = chunk.get("message") if isinstance(chunk, dict) else None
    thinking = message.get("thinking") if isinstance(message, dict) else None
    return isinstance(thinking, str) and bool(thinking)


def _error_text(raw: str) -> str | None:
    """The `error` of an Ollama error body, or None when the body isn't one."""
    try:
        obj = load_json(raw)
    except ValueError:
        return None
    error = obj.get("error") if isinstance(obj, dict) else None
    if isinstance(error, dict):  # OpenAI-style bodies from proxies in front of Ollama
        error = error.get("message")
    return error if isinstance(error, str) else None


def _context_length(show: dict[str, Any]) -> int | None:
    info = show.get("model_info")
    if not isinstance(info, dict):
        return None
    arch = info.get("general.architecture")
    value = info.get(f"{arch}.context_length")
    if not isinstance(value, int):
        value = next((v for k, v in info.items() if k.endswith(".context_length")), None)
    return value if isinstance(value, int) and value > 0 else None


class OllamaWire:
    """Ollama's native API for one provider, over one httpx.AsyncClient."""

    def __init__(
        self,
        provider: ProviderConfig,
        *,
        client: httpx.AsyncClient | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        idle_limit: float | None = None,
    ) -> None:
        self.provider = provider
        self.base_url = ollama_base_url(provider.base_url, os.environ)
        self._local = replace(provider, base_url=self.base_url).is_local
        self._server = endpoint_name(self.base_url)  # in messages: never the address's user-info
        self._timeout = httpx.Timeout(timeout, connect=min(timeout, 10.0))
        self._idle_limit = bounded.IDLE_LIMIT if idle_limit is None else idle_limit
        self._owns_client = client is None
        self._client = client or http_client(
            self.base_url, local=self._local, provider_id=provider.id
        )

    async def aclose(self) -> None:
        """Close the wire's HTTP client (unless it was handed one)."""
        if self._owns_client:
            await self._client.aclose()

    async def list_models(self) -> list[ModelInfo]:
        """Every installed model, with sight, tools and context from /api/show."""
        tags = await self._request_json("GET", "/api/tags", what="the model list")
        entries = tags.get("models") if isinstance(tags, dict) else None
        if not isinstance(entries, list):
            raise _malformed(
                self.provider.id, "no model list", json.dumps(tags), server=self._server
            )
        names: list[str] = []
        for entry in entries:
            name = (entry.get("name") or entry.get("model")) if isinstance(entry, dict) else None
            if not isinstance(name, str) or not name:
                raise _malformed(
                    self.provider.id,
                    "a model without a name",
                    json.dumps(entry),
                    server=self._server,
                )
            names.append(name)
        gate = asyncio.Semaphore(SHOW_CONCURRENCY)

        async def one(name: str) -> ModelInfo:
            async with gate:
                return await self._model_info(name)

        return list(await asyncio.gather(*(one(n) for n in names)))

    async def _model_info(self, name: str) -> ModelInfo:
        unknown = ModelInfo(provider_id=self.provider.id, name=name, local=self._local)
        try:
            show = await self._request_json(
                "POST", "/api/show", {"model": name}, model=name, what="a model's details"
            )
        except ProviderError:
            return unknown  # one unreadable model must not hide the others
        if not isinstance(show, dict):
            return unknown
        caps = show.get("capabilities")
        sees = tools = None
        if isinstance(caps, list):
            # Before ollama PR 10509 llava-style models lacked "vision" but had a projector.
            sees = "vision" in caps or bool(show.get("projector_info"))
            tools = "tools" in caps
        return replace(unknown, sees=sees, tools=tools, context_length=_context_length(show))

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Send the request to /api/chat and yield its events as they arrive."""
        deadline = IdleDeadline(self._idle_limit, server=self._server, provider_id=self.provider.id)
        async with aclosing(deadline.watch(self._stream(request, deadline))) as events:
            async for event in events:
                yield event

    async def _stream(
        self, request: ChatRequest, deadline: IdleDeadline
    ) -> AsyncGenerator[StreamEvent, None]:
        body = build_chat_body(request)
        pid = self.provider.id
        try:
            async with self._client.stream(
                "POST", f"{self.base_url}/api/chat", json=body, timeout=self._timeout
            ) as response:
                if response.status_code != 200:
                    raw = await read_error(response, provider_id=pid)
                    raise await self._status_error(response.status_code, raw, request.model)
                calls = 0
                # aclosing: returning at Done must close the line reader now, not at GC.
                async with aclosing(ndjson_lines(response, provider_id=pid)) as lines:
                    async for line in lines:
                        if not line.strip():
                            continue
                        chunk = self._decode(line)
                        if _thinking(chunk):
                            deadline.progress()  # not shown, but the model is at work
                        for event in parse_chunk(
                            chunk, provider_id=pid, calls_so_far=calls, model=request.model
                        ):
                            calls += isinstance(event, ToolCallEvent)
                            yield event
                            if isinstance(event, Done):
                                return
                raise self._cut_off("the stream ended before Ollama said it was done")
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc

    # -- the edge: every failure becomes one of our errors here ------------------

    def _decode(self, line: str) -> Any:
        try:
            return load_json(line)
        except ValueError:
            what = "a web page" if line.lstrip().startswith("<") else "a line that is not JSON"
            raise _malformed(self.provider.id, what, line, server=self._server) from None

    async def _request_json(
        self, method: str, path: str, body: Any = None, *, what: str, model: str = ""
    ) -> Any:
        try:
            answer = await fetch(
                self._client,
                method,
                f"{self.base_url}{path}",
                cap=LISTING_CAP,
                what=what,
                provider_id=self.provider.id,
                json=body,
                timeout=self._timeout,
            )
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        if answer.status_code != 200:
            # Listing the models again inside a listing would only repeat it.
            raise await self._status_error(
                answer.status_code, answer.text, model, list_available=False
            )
        return self._decode(answer.text)

    async def _status_error(
        self, status: int, text: str, model: str, *, list_available: bool = True
    ) -> ProviderError:
        message = _error_text(text)
        if message is None:
            if text.lstrip().startswith("<") or status < 500:
                return _malformed(
                    self.provider.id, f"HTTP {status} without an error", text, server=self._server
                )
            return ServerError(
                f"Ollama failed on its side (HTTP {status}). Try again later.",
                provider_id=self.provider.id,
                detail=f"HTTP {status}: {text[:500]}",
            )
        error = classify_error(status, message, self.provider.id, model=model)
        if isinstance(error, ModelNotFound) and list_available:
            error.available = await self._names_quietly()
        return error

    async def _names_quietly(self) -> tuple[str, ...]:
        """The installed models' names, or () when they can't be had quickly."""
        try:
            async with asyncio.timeout(NAMES_TIMEOUT):  # a trickle of bytes is no quick answer
                answer = await fetch(
                    self._client,
                    "GET",
                    f"{self.base_url}/api/tags",
                    cap=LISTING_CAP,
                    what="the model list",
                    provider_id=self.provider.id,
                    timeout=NAMES_TIMEOUT,
                )
            models = answer.json().get("models") or []
            return tuple(m["name"] for m in models if isinstance(m.get("name"), str))
        except (
            httpx.HTTPError,
            ProviderError,
            TimeoutError,
            ValueError,
            AttributeError,
            TypeError,
        ):
            return ()

    def _cut_off(self, detail: str) -> ServerError:
        return cut_off(replace(self.provider, base_url=self.base_url), preset_for("ollama"), detail)

    def _transport_error(self, exc: httpx.HTTPError) -> ProviderError:
        return translate_transport(
            replace(self.provider, base_url=self.base_url), exc, preset=preset_for("ollama")
        )
