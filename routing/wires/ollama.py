"""The Ollama wire: Ollama's native /api/chat (NDJSON) and /api/tags, /api/show.

What every HTTP wire shares (the client, retries, bounds, transport errors) is
routing/wires/http.py; this module builds the request, reads the stream's lines
and lists the models. Ollama's failures become our errors in
routing/wires/ollama_errors.py.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import replace
from typing import Any

from routing.addresses import ollama_base_url
from routing.errors import CannotConnect, KeyProblem, ProviderError, TimedOut
from routing.models import ModelInfo, ProviderConfig
from routing.presets import Preset, preset_for
from routing.transcript import Message, ToolCall, ToolResult, tool_pictures_text
from routing.wires.base import (
    ChatRequest,
    Done,
    StreamEvent,
    TextDelta,
    ToolCallEvent,
    ToolSpec,
    Usage,
)
from routing.wires.bounded import ndjson_lines
from routing.wires.http import ErrorAnswer, HttpWire, Streamed
from routing.wires.ollama_errors import classify_answer, classify_error, malformed, not_ollama
from routing.wires.payload import (
    ToolPictures,
    duration_seconds,
    function_tools,
    load_json,
    plain_json,
    sent_choice,
    token_count,
    tool_result_text,
    with_tool_pictures,
)
from vision.pictures import Picture

SHOW_CONCURRENCY = 4


def _tool_message(result: ToolResult) -> dict[str, Any]:
    # Words only: a tool message's pictures follow in one user message (SPEC §3).
    text = tool_result_text(result)  # Ollama has no error flag on tool results
    return {"role": "tool", "content": text, "tool_name": result.name}


def _images(pictures: tuple[Picture, ...]) -> list[str]:
    return [base64.b64encode(p.data).decode("ascii") for p in pictures]


def _tool_pictures_message(sources: ToolPictures) -> dict[str, Any]:
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


def offered_under(request: ChatRequest) -> tuple[ToolSpec, ...]:
    """The tools sent under the request's tool choice. Ollama's API has none, so it is
    taken as far as offering goes: "none" offers no tool, a tool named only that one
    (the model can call nothing else, though it may still answer in words), "required"
    every tool, as "auto" does."""
    choice = sent_choice(request)
    if choice is None:
        return request.tools
    if choice.mode == "none":
        return ()
    if choice.name is not None:
        return tuple(t for t in request.tools if t.name == choice.name)
    return request.tools


def build_chat_body(request: ChatRequest) -> dict[str, Any]:
    """The JSON body of POST /api/chat for one request (keys left out when empty)."""
    system = [{"role": "system", "content": request.system}] if request.system else []
    messages = with_tool_pictures(request.messages, _message_body, _tool_pictures_message)
    body: dict[str, Any] = {"model": request.model, "messages": [*system, *messages]}
    if offered := offered_under(request):
        body["tools"] = function_tools(offered)
    # Ollama's names for the chat's parameters; one left unset is the model's own default.
    chosen = {
        "temperature": request.temperature,
        "num_predict": request.max_tokens,
        "num_ctx": request.context_length,
    }
    options = {name: value for name, value in chosen.items() if value is not None}
    if options:
        body["options"] = options
    body["stream"] = True
    return body


def _tool_call(raw: Any, fallback_id: str, provider_id: str) -> ToolCall:
    function = raw.get("function") if isinstance(raw, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    if not isinstance(function, dict) or not isinstance(name, str) or not name:
        raise malformed(provider_id, "a tool call without a name", json.dumps(raw))
    arguments = function.get("arguments") or {}
    if isinstance(arguments, str):  # Ollama sends an object; tolerate a JSON string
        try:
            arguments = load_json(arguments)
        except ValueError:
            raise malformed(provider_id, "tool arguments not JSON", arguments) from None
    if not isinstance(arguments, dict):
        raise malformed(provider_id, "tool arguments not an object", json.dumps(raw))
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
        raise malformed(provider_id, "a line that is not a JSON object", json.dumps(obj))
    if "error" in obj:
        error = obj["error"]
        text = error.get("message", "") if isinstance(error, dict) else str(error)
        raise classify_error(200, str(text), provider_id, model=model)
    message, done = obj.get("message"), obj.get("done")
    if (message is None and done is None) or not isinstance(done, bool | None):
        raise malformed(provider_id, "a line with no message", json.dumps(obj))
    events: list[StreamEvent] = []
    if message is not None:
        if not isinstance(message, dict) or not isinstance(message.get("content"), str | None):
            raise malformed(provider_id, "a message of the wrong shape", json.dumps(obj))
        if content := message.get("content"):
            events.append(TextDelta(content))
        calls = message.get("tool_calls") or []
        if not isinstance(calls, list):
            raise malformed(provider_id, "tool calls not a list", json.dumps(obj))
        for n, raw in enumerate(calls, start=calls_so_far):
            events.append(ToolCallEvent(_tool_call(raw, f"call_{n}", provider_id)))
    if done:
        events.append(
            Usage(
                input_tokens=token_count(obj.get("prompt_eval_count")),
                output_tokens=token_count(obj.get("eval_count")),
                generating_seconds=duration_seconds(obj.get("eval_duration"), 1e-9),
            )
        )
        events.append(Done(str(obj.get("done_reason") or "stop")))
    return events


def _thinking(chunk: Any) -> bool:
    """Whether a line carries a thinking model's thoughts (`message.thinking`)."""
    message = chunk.get("message") if isinstance(chunk, dict) else None
    thinking = message.get("thinking") if isinstance(message, dict) else None
    return isinstance(thinking, str) and bool(thinking)


def _context_length(show: dict[str, Any]) -> int | None:
    info = show.get("model_info")
    if not isinstance(info, dict):
        return None
    arch = info.get("general.architecture")
    value = info.get(f"{arch}.context_length")
    if not isinstance(value, int):
        value = next((v for k, v in info.items() if k.endswith(".context_length")), None)
    return value if isinstance(value, int) and value > 0 else None


class OllamaWire(HttpWire):
    """Ollama's native API for one provider, over one httpx.AsyncClient."""

    @classmethod
    def preset_of(cls, provider: ProviderConfig) -> Preset:
        """Ollama's preset, whatever the provider's kind."""
        return preset_for("ollama")

    def locate(self, configured: str) -> str:
        """The configured address, else OLLAMA_HOST as Ollama's own client reads it."""
        return ollama_base_url(configured, os.environ)

    @property
    def chat_url(self) -> str:
        """Where chat requests go."""
        return f"{self.base_url}/api/chat"

    def offered_under(self, request: ChatRequest) -> tuple[ToolSpec, ...]:
        """The tools this request offers Ollama's model (it has no tool choice)."""
        return offered_under(request)

    def chat_body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body of POST /api/chat."""
        return build_chat_body(request)

    async def read_events(self, answer: Streamed) -> AsyncGenerator[StreamEvent, None]:
        """The stream's lines as events, up to the one that says it is done."""
        pid = self.provider.id
        calls = 0
        # aclosing: returning at Done must close the line reader now, not at GC.
        async with aclosing(ndjson_lines(answer.response, provider_id=pid)) as lines:
            async for line in lines:
                if not line.strip():
                    continue
                chunk = self._decode(line)
                if _thinking(chunk):
                    answer.deadline.progress()  # not shown, but the model is at work
                for event in parse_chunk(
                    chunk, provider_id=pid, calls_so_far=calls, model=answer.request.model
                ):
                    calls += isinstance(event, ToolCallEvent)
                    yield event
                    if isinstance(event, Done):
                        return
        raise self.cut_off("the stream ended before Ollama said it was done")

    def classify(self, answer: ErrorAnswer) -> ProviderError:
        """Ollama's `error` words, or what the status says when the body has none."""
        return classify_answer(
            answer.status,
            answer.text,
            answer.headers,
            self.provider.id,
            model=answer.model,
            server=self.server,
        )

    def not_json(self, text: str) -> ProviderError:
        """A web page, or a line that is not JSON, where Ollama's JSON should be."""
        return not_ollama(text, self.provider.id, server=self.server)

    def _decode(self, line: str) -> Any:
        try:
            return load_json(line)
        except ValueError:
            raise self.not_json(line) from None

    async def model_names(self) -> tuple[str, ...]:
        """The installed models' names, or () when they can't be had quickly."""
        tags = await self.quietly(f"{self.base_url}/api/tags")
        try:
            return tuple(
                m["name"] for m in tags.get("models") or [] if isinstance(m.get("name"), str)
            )
        except (AttributeError, TypeError, KeyError):
            return ()

    async def read_models(self) -> list[ModelInfo]:
        """Every installed model, with sight, tools and context from /api/show."""
        tags = await self.read_json(f"{self.base_url}/api/tags")
        entries = tags.get("models") if isinstance(tags, dict) else None
        if not isinstance(entries, list):
            raise malformed(self.provider.id, "no model list", json.dumps(tags), server=self.server)
        names: list[str] = []
        sizes: dict[str, int] = {}  # bytes on disk, where the listing says
        for entry in entries:
            name = (entry.get("name") or entry.get("model")) if isinstance(entry, dict) else None
            if not isinstance(name, str) or not name:
                raise malformed(
                    self.provider.id,
                    "a model without a name",
                    json.dumps(entry),
                    server=self.server,
                )
            names.append(name)
            size = entry.get("size")
            if isinstance(size, int) and not isinstance(size, bool) and size > 0:
                sizes[name] = size
        gate = asyncio.Semaphore(SHOW_CONCURRENCY)

        async def one(name: str) -> ModelInfo:
            async with gate:
                return replace(await self._model_info(name), size=sizes.get(name))

        return list(await asyncio.gather(*(one(n) for n in names)))

    async def one_model(self, name: str) -> ModelInfo | None:
        """One installed model from its /api/show alone; None when there is none so named
        or it can't be read (a server that can't be reached says so)."""
        try:
            show = await self._show(name)
        except (CannotConnect, TimedOut, KeyProblem):
            raise  # the listing would fail alike: said once
        except ProviderError:
            return None
        return self._from_show(name, show) if isinstance(show, dict) else None

    async def _model_info(self, name: str) -> ModelInfo:
        try:
            show = await self._show(name)
        except ProviderError:
            show = None  # one unreadable model must not hide the others
        if not isinstance(show, dict):
            return ModelInfo(provider_id=self.provider.id, name=name, local=self._local)
        return self._from_show(name, show)

    async def _show(self, name: str) -> Any:
        return await self.read_json(
            f"{self.base_url}/api/show",
            method="POST",
            json={"model": name},
            model=name,
            what="a model's details",
        )

    def _from_show(self, name: str, show: dict[str, Any]) -> ModelInfo:
        unknown = ModelInfo(provider_id=self.provider.id, name=name, local=self._local)
        caps = show.get("capabilities")
        sees = tools = None
        if isinstance(caps, list):
            # Before ollama PR 10509 llava-style models lacked "vision" but had a projector.
            sees = "vision" in caps or bool(show.get("projector_info"))
            tools = "tools" in caps
        return replace(unknown, sees=sees, tools=tools, context_length=_context_length(show))
