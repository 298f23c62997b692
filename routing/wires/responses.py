"""The OpenAI Responses wire (`POST /responses`): OpenAI's own, and every server that copies it.

The request is routing/wires/responses_request.py; this module reads the stream's
events (text deltas, function-call arguments joined per `item_id` into the call of
their `call_id`, reasoning items kept whole to hand back, usage from
`response.completed`) and learns, once per model, what a server refuses: pictures
inside a tool's output (they then go in a user message after the outputs) and the
encrypted reasoning a model without reasoning has none of. What the OpenAI-compatible
APIs share (address, key, model list, error words) is routing/wires/openai_compat.py;
errors are routing/wires/responses_errors.py.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

from routing.errors import BadRequest, MalformedResponse, PicturesRefused, ProviderError
from routing.models import ModelInfo, ProviderConfig
from routing.transcript import CarriedPart, ToolCall
from routing.wires.answer_cap import hold
from routing.wires.base import (
    Carried,
    ChatRequest,
    Done,
    StreamEvent,
    TextDelta,
    ToolCallEvent,
    Usage,
)
from routing.wires.bounded import SseEvent
from routing.wires.http import DEFAULT_TIMEOUT, ErrorAnswer, Streamed
from routing.wires.openai_chat import OpenAIChatWire
from routing.wires.openai_compat import OpenAICompatWire
from routing.wires.payload import PartialCall, load_json, token_count, too_deep
from routing.wires.responses_errors import (
    classify_responses,
    refuses_encrypted_reasoning,
    refuses_tool_pictures,
    stream_failure,
)
from routing.wires.responses_request import SHAPE, Form, build_responses_body, has_pictures
from routing.wires.stream_state import StreamState as BaseState

# Events that end a response; anything after them is not read.
_ENDS = ("response.completed", "response.incomplete")
_INCOMPLETE = {"max_output_tokens": "length", "content_filter": "content_filter"}
# Heartbeats a long response sends (OpenAI's `keepalive`): no progress of the answer.
_KEEPALIVES = ("keepalive", "response.keep_alive")


@dataclass(kw_only=True)
class StreamState(BaseState):
    """What one stream has said so far: open calls, reasoning items, the end and its usage."""

    FORMAT = "the OpenAI Responses format"
    FIX = 'an API that serves /responses, or set api = "chat"'

    source: str  # provider:model, the reasoning items' owner
    calls: dict[str, PartialCall] = field(default_factory=dict)  # by item_id
    texts: set[str] = field(default_factory=set)  # items whose words streamed as deltas
    reasoning: list[dict[str, Any]] = field(default_factory=list)
    emitted: int = 0  # tool calls given out
    seen_output: bool = False  # any output item or delta, so a whole `output` is not repeated
    finished: bool = False


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _tool_call(call: PartialCall, state: StreamState) -> ToolCallEvent:
    if not call.name:
        raise state.malformed("a function call without a name", json.dumps(vars(call)))
    state.emitted += 1
    return ToolCallEvent(ToolCall(call.id or f"call_{state.emitted}", call.name, call.decoded()))


def _item_done(item: dict[str, Any], state: StreamState) -> list[StreamEvent]:
    """A whole output item: a call to give out, a reasoning item to keep, words not streamed."""
    kind, item_id = item.get("type"), str(item.get("id") or "")
    state.seen_output = True
    if kind == "function_call":
        call = state.calls.pop(item_id, None) or PartialCall()
        call.id = str(item.get("call_id") or call.id)
        call.name = str(item.get("name") or call.name)
        if isinstance(item.get("arguments"), str):  # the done item holds them whole
            call.arguments = [item["arguments"]]
        return [_tool_call(call, state)]
    if kind == "reasoning":
        # Handed back exactly as given; one nested past reason is dropped, never stored.
        if not too_deep(item):
            hold(state, len(json.dumps(item)))
            state.reasoning.append(item)
        state.taken += 1
        return []
    streamed = item_id in state.texts or "" in state.texts  # "": deltas without an item_id
    if kind == "message" and not streamed:  # a server that sent its words whole
        words = [
            str(part.get("text") or part.get("refusal") or "")
            for part in item.get("content") or []
            if isinstance(part, dict)
        ]
        return [TextDelta(text)] if (text := "".join(words)) else []
    return []


def _finish(response: dict[str, Any], reason: str, state: StreamState) -> list[StreamEvent]:
    """The closing events: calls not yet out, what to carry, usage, Done."""
    events: list[StreamEvent] = []
    if not state.seen_output:  # a server that streams nothing but the end
        for item in response.get("output") or []:
            events += _item_done(_obj(item), state)
    for call in list(state.calls.values()):
        events.append(_tool_call(call, state))
    state.calls.clear()
    if state.reasoning:
        part = CarriedPart(SHAPE, state.source, {"items": state.reasoning})
        events.append(Carried(part))
    usage = _obj(response.get("usage"))
    if usage:
        inputs, outputs = usage.get("input_tokens"), usage.get("output_tokens")
        events.append(Usage(token_count(inputs), token_count(outputs)))
    state.finished = True
    events.append(Done("tool_calls" if state.emitted else reason))
    return events


def parse_event(payload: Any, state: StreamState) -> list[StreamEvent]:
    """The events of one SSE event of a Responses stream; raises for a failed response."""
    if not isinstance(payload, dict):
        raise state.malformed("an event that is not a JSON object", json.dumps(payload))
    kind = str(payload.get("type") or "")
    item_id = str(payload.get("item_id") or "")
    if kind in ("response.output_text.delta", "response.refusal.delta"):
        state.seen_output = True
        state.texts.add(item_id)
        delta = payload.get("delta")
        return [TextDelta(delta)] if isinstance(delta, str) and delta else []
    if kind == "response.output_item.added":
        item = _obj(payload.get("item"))
        if item.get("type") == "function_call":
            call_id, name = str(item.get("call_id") or ""), str(item.get("name") or "")
            state.calls[str(item.get("id") or "")] = PartialCall(call_id, name)
        state.taken += 1
        return []
    if kind == "response.function_call_arguments.delta":
        delta = str(payload.get("delta") or "")
        hold(state, len(delta))
        state.calls.setdefault(item_id, PartialCall()).arguments.append(delta)
        state.taken += 1
        return []
    if kind == "response.function_call_arguments.done":
        if isinstance(payload.get("arguments"), str):
            state.calls.setdefault(item_id, PartialCall()).arguments = [payload["arguments"]]
        state.taken += 1
        return []
    if kind == "response.output_item.done":
        return _item_done(_obj(payload.get("item")), state)
    if kind in _ENDS:
        response = _obj(payload.get("response"))
        details = _obj(response.get("incomplete_details"))
        reason = _INCOMPLETE.get(str(details.get("reason")), "stop")
        return _finish(response, "stop" if kind == "response.completed" else reason, state)
    if kind in ("response.failed", "error"):
        raise classify_responses(
            state.provider,
            state.preset,
            200,
            stream_failure(payload),
            {},
            had_pictures=state.had_pictures,
            model=state.model,
        )
    if kind not in _KEEPALIVES:
        state.taken += 1  # created, in_progress, reasoning summaries, and types newer than this
    return []


class ResponsesWire(OpenAICompatWire):
    """The Responses API for one provider, over one httpx.AsyncClient.

    What a model's server refused is learned for the life of the wire (the catalogue
    keeps one per provider), as a picture refusal teaches blindness: asked again once
    in the other form, then always so.
    """

    def __init__(self, provider: ProviderConfig, **options: Any) -> None:
        super().__init__(provider, **options)
        self.words_only_outputs: set[str] = set()  # models whose server refused list outputs
        self.no_encrypted_reasoning: set[str] = set()  # models that refused the include
        # A server under a preset whose default this is, without /responses (an
        # OpenAI-compatible proxy given as `openai`): asked through chat completions.
        self.chat: OpenAIChatWire | None = None

    @property
    def chat_url(self) -> str:
        """Where requests go."""
        return f"{self.base_url}/responses"

    def stream_headers(self) -> dict[str, str]:
        """An event stream, never a cached one."""
        return self.headers() | {"Accept": "text/event-stream", "Cache-Control": "no-store"}

    def form(self, model: str) -> Form:
        """How a request to `model` is shaped, after what its server refused."""
        return Form(
            pictures_in_outputs=model not in self.words_only_outputs,
            encrypted_reasoning=model not in self.no_encrypted_reasoning,
        )

    def source(self, model: str) -> str:
        """Whose reasoning items a request hands back: this provider's model."""
        return f"{self.provider.id}:{model}"

    def chat_body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body of POST /responses."""
        form = self.form(request.model)
        return build_responses_body(request, self.source(request.model), form)

    def carries_pictures(self, body: Mapping[str, Any]) -> bool:
        """Whether any message or tool output has an input_image part."""
        return has_pictures(body)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """The funnel's stream, asked once more in the other form when a refusal teaches one."""
        while self.chat is None:
            started = False
            try:
                async for event in super().stream(request):
                    started = True
                    yield event
                return
            except (BadRequest, PicturesRefused) as error:
                if started or not self._learn(error, request):
                    raise
            except MalformedResponse as error:
                if started or not self._no_responses_here(error):
                    raise
        async for event in self.chat.stream(request):
            yield event

    def _no_responses_here(self, error: MalformedResponse) -> bool:
        """Whether the server has no /responses and chat completions may stand in: only
        when the person chose no `api` (one who chose "responses" is told it is missing)."""
        if self.provider.api or not error.detail.startswith("HTTP 404"):
            return False
        self.chat = OpenAIChatWire(
            self.provider,
            preset=self.preset,
            client=self._client,
            timeout=self._timeout.read or DEFAULT_TIMEOUT,
            retry_base_delay=self._retry_base,
            idle_limit=self._idle_limit,
        )
        return True

    def _learn(self, error: ProviderError, request: ChatRequest) -> bool:
        """Whether the refusal taught a form this model's server takes (asked once more)."""
        model = request.model
        if refuses_encrypted_reasoning(error) and model not in self.no_encrypted_reasoning:
            self.no_encrypted_reasoning.add(model)
            return True
        sent_lists = model not in self.words_only_outputs and any(
            r.pictures for m in request.messages for r in m.tool_results
        )
        if sent_lists and refuses_tool_pictures(error):
            self.words_only_outputs.add(model)
            return True
        return False

    def classify(self, answer: ErrorAnswer) -> ProviderError:
        """Image error codes first, then the OpenAI words (routing/wires/responses_errors.py)."""
        return self.classified_by(classify_responses, answer)

    def info(self, name: str, sees: bool | None, tools: bool | None, **extra: Any) -> ModelInfo:
        """One listed model; it reads PDFs where the preset's Responses API does."""
        return super().info(name, sees, tools, reads_pdfs=self.preset.pdfs_as_files, **extra)

    async def read_events(self, answer: Streamed) -> AsyncGenerator[StreamEvent, None]:
        """The SSE events as ours, up to the response's end (or a whole answer, as one)."""
        state = StreamState.of(
            answer, self.located, self.preset, source=self.source(answer.request.model)
        )
        if not answer.is_sse:
            # A server that ignored "stream" (or a proxy's page): read it whole.
            for event in self._whole_body(await answer.whole(), state):
                yield event
            return

        def parse(sse: SseEvent) -> tuple[list[StreamEvent], bool]:
            data = sse.data.strip()
            if not data or data == "[DONE]":
                return [], False  # a keep-alive, or a chat-completions habit some servers keep
            try:
                payload = load_json(data)
            except ValueError:
                raise state.malformed("an event that is not JSON", data) from None
            return parse_event(payload, state), state.finished

        async with aclosing(answer.events(state, parse)) as events:
            async for event in events:
                yield event
        if not state.finished:
            raise self.cut_off("the stream ended without response.completed")

    def _whole_body(self, text: str, state: StreamState) -> list[StreamEvent]:
        """A whole Response object (stream ignored) as the events it holds."""
        obj = self.whole_json(text, state)
        response = _obj(obj)
        if response.get("error") and response.get("status") != "completed":
            failed = {"type": "response.failed", "response": response}
            return parse_event(failed, state)
        if response.get("object") != "response":
            raise state.malformed("an answer that is not a response", text)
        kind = "response.incomplete" if response.get("status") == "incomplete" else ""
        return parse_event({"type": kind or "response.completed", "response": response}, state)
