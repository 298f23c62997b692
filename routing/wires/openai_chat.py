"""The OpenAI chat-completions wire: one module for every provider that speaks that shape.

The request is built in one place and each SSE chunk is read in one place; what
the OpenAI-compatible APIs share (address, key, model list, error words) is
routing/wires/openai_compat.py, and the funnel every wire's requests pass is
routing/wires/http.py. A preset (routing/presets.py) says what differs per
provider: whether to ask for usage, Mistral's bridge, a header, where else its
listing says who sees.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

from routing.errors import ProviderError
from routing.presets import Preset
from routing.transcript import Message, ToolCall, ToolResult, tool_pictures_text
from routing.wires.answer_cap import hold
from routing.wires.base import (
    ChatRequest,
    Done,
    StreamEvent,
    TextDelta,
    ToolCallEvent,
    ToolChoice,
    Usage,
)
from routing.wires.bounded import SseEvent
from routing.wires.http import ErrorAnswer, Streamed
from routing.wires.openai_compat import OpenAICompatWire
from routing.wires.openai_errors import translate_status
from routing.wires.payload import (
    PartialCall,
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
from routing.wires.stream_state import StreamState as BaseState
from vision.pictures import Picture

# Where reasoning models stream their thinking (DeepSeek, vLLM; OpenRouter, Ollama's /v1).
_REASONING_KEYS = ("reasoning_content", "reasoning")


# -- the request -----------------------------------------------------------------


def _tool_message(result: ToolResult) -> dict[str, Any]:
    # A tool message carries text only here: its pictures follow in a user message.
    text = tool_result_text(result)  # the shape has no error flag on tool results
    return {"role": "tool", "tool_call_id": result.call_id, "content": text}


def _picture_part(picture: Picture) -> dict[str, Any]:
    data = base64.b64encode(picture.data).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:{picture.mime};base64,{data}"}}


def _content(text: str, pictures: tuple[Picture, ...]) -> str | list[dict[str, Any]]:
    if not pictures:
        # Never a one-part array: some servers drop array content without a word.
        return text
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    parts.extend(_picture_part(p) for p in pictures)
    return parts


def _tool_pictures_message(sources: ToolPictures) -> dict[str, Any]:
    """One user message with a step's tool pictures, opened by the marking words."""
    pictures = tuple(picture for _, picture in sources)
    return {"role": "user", "content": _content(tool_pictures_text(sources), pictures)}


def _message_bodies(message: Message) -> list[dict[str, Any]]:
    results = message.tool_results
    out = [_tool_message(r) for r in results]
    calls = message.tool_calls
    if message.text or message.pictures or calls or not results:
        body: dict[str, Any] = {
            "role": message.role,
            "content": _content(message.text, message.pictures),
        }
        if calls:
            body["content"] = message.text or None
            body["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps(plain_json(c.arguments))},
                }
                for c in calls
            ]
        out.append(body)
    return out


def chat_tool_choice(choice: ToolChoice) -> str | dict[str, Any]:
    """OpenAI chat's `tool_choice`: "auto", "none", "required", or the function named."""
    if choice.name is not None:
        return {"type": "function", "function": {"name": choice.name}}
    return choice.mode


def build_chat_body(request: ChatRequest, preset: Preset) -> dict[str, Any]:
    """The JSON body of POST /chat/completions for one request, shaped for the preset."""
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    for body in with_tool_pictures(request.messages, _message_bodies, _tool_pictures_message):
        # Mistral refuses a user message straight after a tool's: bridge them, here only.
        after_tool = bool(messages) and messages[-1]["role"] == "tool"
        if preset.bridge_tool_then_user and body["role"] == "user" and after_tool:
            messages.append({"role": "assistant", "content": ""})
        messages.append(body)
    chat: dict[str, Any] = {"model": request.model, "messages": messages, "stream": True}
    if request.temperature is not None:
        chat["temperature"] = request.temperature
    if request.max_tokens is not None:
        chat[preset.answer_length_key] = request.max_tokens
    if request.tools:
        chat["tools"] = function_tools(request.tools)
    if (choice := sent_choice(request)) is not None:
        chat["tool_choice"] = chat_tool_choice(choice)
    if preset.include_usage:
        chat["stream_options"] = {"include_usage": True}
    return chat


def _has_pictures(body: Mapping[str, Any]) -> bool:
    return any(
        isinstance(m.get("content"), list)
        and any(p.get("type") == "image_url" for p in m["content"])
        for m in body.get("messages", ())
    )


# -- the stream ------------------------------------------------------------------


@dataclass(kw_only=True)
class StreamState(BaseState):
    """What one stream has said so far: unfinished tool calls, the finish reason, usage."""

    FORMAT = "the OpenAI chat format"
    FIX = "an OpenAI-compatible API"

    calls: dict[int, PartialCall] = field(default_factory=dict)
    emitted: int = 0
    finish_reason: str | None = None
    usage: Usage | None = None


def _usage(raw: Any, timings: Any = None) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    prompt, completion = raw.get("prompt_tokens"), raw.get("completion_tokens")
    if not isinstance(prompt, int) and not isinstance(completion, int):
        return None
    # llama.cpp's server says how long it took beside the counts.
    took = timings.get("predicted_ms") if isinstance(timings, dict) else None
    return Usage(token_count(prompt), token_count(completion), duration_seconds(took, 1e-3))


def _slot(fragment: Mapping[str, Any], state: StreamState) -> int:
    index = fragment.get("index")
    if isinstance(index, int):
        return index
    # Servers that send whole calls (Gemini's compatibility endpoint) may leave out index.
    frag_id, function = fragment.get("id"), fragment.get("function") or {}
    same = [i for i, c in state.calls.items() if frag_id and c.id == frag_id]
    if same:
        return same[0]
    if frag_id or not state.calls or (isinstance(function, dict) and function.get("name")):
        return max(state.calls, default=state.emitted - 1) + 1
    return max(state.calls)  # a continuation of the latest call


def _absorb(fragment: Any, state: StreamState) -> None:
    if not isinstance(fragment, dict):
        raise state.malformed("a tool call that is not an object", json.dumps(fragment))
    call = state.calls.setdefault(_slot(fragment, state), PartialCall())
    state.taken += 1
    if isinstance(fragment.get("id"), str) and fragment["id"] and not call.id:
        call.id = fragment["id"]
    function = fragment.get("function") or {}
    if not isinstance(function, dict):
        raise state.malformed("a tool call without a function", json.dumps(fragment))
    if isinstance(function.get("name"), str) and function["name"] and not call.name:
        call.name = function["name"]
    arguments = function.get("arguments")
    if isinstance(arguments, dict):  # a few servers send an object, not a JSON string
        arguments = json.dumps(arguments)
    if isinstance(arguments, str):
        hold(state, len(arguments))
        call.arguments.append(arguments)


def _flush_calls(state: StreamState) -> list[StreamEvent]:
    events: list[StreamEvent] = []
    for index in sorted(state.calls):
        call = state.calls[index]
        if not call.name:
            raise state.malformed("a tool call without a name", json.dumps(vars(call)))
        call_id = call.id or f"call_{state.emitted}"
        events.append(ToolCallEvent(ToolCall(call_id, call.name, call.decoded())))
        state.emitted += 1
    state.calls.clear()
    return events


def _stream_error(obj: Mapping[str, Any], state: StreamState) -> ProviderError:
    error = obj.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    digits = str(code) if isinstance(code, int | str) else ""
    status = int(digits) if digits.isascii() and digits.isdigit() and len(digits) <= 3 else 200
    status = status if 400 <= status < 600 else 200
    return translate_status(
        state.provider,
        status,
        json.dumps(obj),
        {},
        had_pictures=state.had_pictures,
        preset=state.preset,
        model=state.model,
    )


def parse_chunk(obj: Any, state: StreamState) -> list[StreamEvent]:
    """The events of one SSE chunk; tool calls come out whole when their choice finishes."""
    if not isinstance(obj, dict):
        raise state.malformed("a chunk that is not a JSON object", json.dumps(obj))
    if obj.get("error") is not None:  # OpenRouter reports failures inside a 200 stream
        raise _stream_error(obj, state)
    # Usage: the include_usage chunk, Groq's x_groq, or Moonshot's inside the choice.
    groq = obj.get("x_groq")
    usage = _usage(obj.get("usage"), obj.get("timings")) or _usage(
        groq.get("usage") if isinstance(groq, dict) else None
    )
    choices = obj.get("choices") or []
    if not isinstance(choices, list):
        raise state.malformed("choices that are not a list", json.dumps(obj))
    events: list[StreamEvent] = []
    for choice in choices:
        if not isinstance(choice, dict):
            raise state.malformed("a choice that is not an object", json.dumps(obj))
        if choice.get("index", 0) != 0:
            continue  # we never ask for more than one choice
        usage = usage or _usage(choice.get("usage"))
        delta = choice.get("delta") or choice.get("message") or {}
        if not isinstance(delta, dict):
            raise state.malformed("a delta that is not an object", json.dumps(obj))
        if any(isinstance(delta.get(k), str) and delta[k] for k in _REASONING_KEYS):
            state.taken += 1  # not shown, but the model is at work on the answer
        content = delta.get("content")
        if isinstance(content, list):  # a few servers stream text parts
            content = "".join(
                p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
            )
        if content is not None and not isinstance(content, str):
            raise state.malformed("content that is not text", json.dumps(obj))
        if content:
            events.append(TextDelta(content))
        calls = delta.get("tool_calls") or []
        if not isinstance(calls, list):
            raise state.malformed("tool calls that are not a list", json.dumps(obj))
        for fragment in calls:
            _absorb(fragment, state)
        if reason := choice.get("finish_reason"):
            state.finish_reason = str(reason)
            events.extend(_flush_calls(state))
    if usage is not None and usage != state.usage:  # the same counts again: no progress
        state.usage = usage  # kept for the end: some servers repeat it on every chunk
        state.taken += 1
    return events


def finish_stream(state: StreamState) -> list[StreamEvent]:
    """The closing events: calls not yet out, usage, and Done with the provider's reason."""
    events = _flush_calls(state)
    if state.usage is not None:
        events.append(state.usage)
    events.append(Done(state.finish_reason or "stop"))
    return events


# -- the wire --------------------------------------------------------------------


class OpenAIChatWire(OpenAICompatWire):
    """The OpenAI chat-completions shape for one provider, over one httpx.AsyncClient."""

    @property
    def chat_url(self) -> str:
        """Where chat requests go."""
        return f"{self.base_url}/chat/completions"

    def stream_headers(self) -> dict[str, str]:
        """An event stream, never a cached one."""
        return self.headers() | {"Accept": "text/event-stream", "Cache-Control": "no-store"}

    def chat_body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body of POST /chat/completions, shaped for the preset."""
        return build_chat_body(request, self.preset)

    def carries_pictures(self, body: Mapping[str, Any]) -> bool:
        """Whether any message has an image_url part."""
        return _has_pictures(body)

    async def window_refusal(self, request: ChatRequest) -> ProviderError | None:
        """The request once more, not streamed (and for one token of answer, unless it asks
        room for more, which counts against the window too): llama-cpp-python answers a
        stream past its window with an empty 200, this with a 400 that states it."""
        self.require_key()
        room = request.max_tokens or 1
        body = {**self.chat_body(request), "stream": False, self.preset.answer_length_key: room}
        body.pop("stream_options", None)
        answer = await self.read(self.chat_url, method="POST", what="an answer", json=body)
        if answer.status_code == 200:
            return None
        pictures = _has_pictures(body)
        return self.classify(
            ErrorAnswer(answer.status_code, answer.text, answer.headers, request.model, pictures)
        )

    async def read_events(self, answer: Streamed) -> AsyncGenerator[StreamEvent, None]:
        """The chunks of the SSE stream as events (or a whole answer, as one chunk)."""
        state = StreamState.of(answer, self.located, self.preset)
        if not answer.is_sse:
            # A server that ignored "stream" (or a proxy's page): read it whole, as one event.
            for event in self._whole_body(await answer.whole(), state):
                yield event
            return
        done = False

        def parse(sse: SseEvent) -> tuple[list[StreamEvent], bool]:
            nonlocal done
            events, done = _on_data(sse.data, state)
            return events, done

        async with aclosing(answer.events(state, parse)) as events:
            async for event in events:
                yield event
        if done:
            return
        if state.finish_reason is None:
            raise self.cut_off("the stream ended without [DONE] or a finish reason")
        for event in finish_stream(state):  # a server that never sends [DONE]
            yield event

    def _whole_body(self, text: str, state: StreamState) -> list[StreamEvent]:
        if text.lstrip().startswith("data:"):  # SSE sent under another content type
            events: list[StreamEvent] = []
            for line in text.splitlines():
                if line.startswith("data:"):
                    more, done = _on_data(line[5:], state)
                    events += more
                    if done:
                        return events
            if state.finish_reason is None:
                raise self.cut_off("the stream ended without [DONE] or a finish reason")
            return events + finish_stream(state)
        obj = self.whole_json(text, state)
        return parse_chunk(obj, state) + finish_stream(state)


def _on_data(data: str, state: StreamState) -> tuple[list[StreamEvent], bool]:
    """The events of one SSE data field, and whether it was the stream's end."""
    data = data.strip()
    if not data:
        return [], False
    if data == "[DONE]":
        return finish_stream(state), True
    try:
        obj = load_json(data)
    except ValueError:
        raise state.malformed("a chunk that is not JSON", data) from None
    return parse_chunk(obj, state), False
