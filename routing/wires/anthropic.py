"""The Anthropic wire: the Messages API (streamed as SSE) and the Models list.

What every HTTP wire shares (the client, retries, bounds, transport errors) is
routing/wires/http.py; this module builds the request, reads the stream's events
and lists the models. Anthropic's failures become our errors in
routing/wires/anthropic_errors.py.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

from routing.errors import KeyProblem, MalformedResponse, ProviderError
from routing.models import ModelInfo, ProviderConfig
from routing.presets import Preset, preset_for
from routing.transcript import Message, ToolCall, ToolResult
from routing.wires.answer_cap import hold
from routing.wires.anthropic_errors import (
    anthropic_base_url,
    classify_anthropic_error,
    error_fields,
    malformed,
    missing_key,
)
from routing.wires.base import (
    ChatRequest,
    Done,
    StreamEvent,
    TextDelta,
    ToolCallEvent,
    ToolChoice,
    Usage,
)
from routing.wires.bounded import ERROR_BODY_CAP, SseEvent
from routing.wires.http import ErrorAnswer, HttpWire, Streamed
from routing.wires.payload import load_json, plain_json, sent_choice
from routing.wires.stream_state import StreamState as BaseState
from vision.pdf import PdfFile
from vision.pictures import Picture

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 8192
IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
PDF_TYPE = "application/pdf"
SKIPPED_PICTURE = "[a picture in a format Claude does not take was left out]"
MODELS_PAGE_SIZE = 100
MAX_MODEL_PAGES = 20


def _document_block(pdf: PdfFile) -> dict[str, Any]:
    """A PDF as Claude takes it: it reads the text and looks at every page itself."""
    data = base64.b64encode(pdf.data).decode("ascii")
    block: dict[str, Any] = {
        "type": "document",
        "source": {"type": "base64", "media_type": PDF_TYPE, "data": data},
    }
    if pdf.name:
        block["title"] = pdf.name
    return block


def _picture_block(picture: Picture) -> dict[str, Any]:
    data = base64.b64encode(picture.data).decode("ascii")
    if picture.mime not in IMAGE_TYPES:  # issue 4 converts these; until then a note
        return {"type": "text", "text": SKIPPED_PICTURE}
    return {"type": "image", "source": {"type": "base64", "media_type": picture.mime, "data": data}}


def _tool_result_block(result: ToolResult) -> dict[str, Any]:
    pictures = [_picture_block(p) for p in result.pictures]
    text = result.text
    content: Any = text  # a text-only result goes exactly as a string
    if pictures:  # the words first, then the pictures, as Claude's tool results expect
        content = ([{"type": "text", "text": text}] if text else []) + pictures
    block = {"type": "tool_result", "tool_use_id": result.call_id, "content": content}
    if result.is_error:
        block["is_error"] = True
    return block


def _blocks(message: Message) -> list[dict[str, Any]]:
    results = [_tool_result_block(r) for r in message.tool_results]
    # Documents lead, before the words that ask about them, as Anthropic advises.
    blocks = [_document_block(pdf) for pdf in message.pdfs]
    blocks += [{"type": "text", "text": message.text}] if message.text else []
    if message.role == "assistant":
        blocks += [
            {"type": "tool_use", "id": c.id, "name": c.name, "input": plain_json(c.arguments)}
            for c in message.tool_calls
        ]
    else:
        blocks += [_picture_block(p) for p in message.pictures]
    return results + blocks


ANTHROPIC_MAX_TEMPERATURE = 1.0


def anthropic_tool_choice(choice: ToolChoice) -> dict[str, str]:
    """Anthropic's `tool_choice`: {"type": "auto" | "none"}, "any" for a call of any tool,
    or {"type": "tool", "name": N} for the one named."""
    if choice.name is not None:
        return {"type": "tool", "name": choice.name}
    return {"type": "any" if choice.mode == "required" else choice.mode}


def build_messages_body(
    request: ChatRequest, max_tokens: int = DEFAULT_MAX_TOKENS
) -> dict[str, Any]:
    """The JSON body of POST /v1/messages for one request (keys left out when empty)."""
    system = [request.system] if request.system else []
    turns: list[tuple[str, list[dict[str, Any]]]] = []
    for message in request.messages:
        if message.role == "system":  # the API has no system role: it joins the top level
            system += [message.text] if message.text else []
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message)
        if not blocks:  # the API refuses empty messages; dropping one keeps the rest valid
            continue
        if turns and turns[-1][0] == role:  # the roles must alternate: merge neighbours
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, blocks))
    messages = []
    for role, blocks in turns:
        # tool_result blocks must lead the user message that answers the tool_use.
        blocks.sort(key=lambda b: b["type"] != "tool_result")
        single_text = len(blocks) == 1 and blocks[0]["type"] == "text"
        messages.append({"role": role, "content": blocks[0]["text"] if single_text else blocks})
    # max_tokens is required here: the chat's own, else Sightline's default.
    answer_length = request.max_tokens if request.max_tokens is not None else max_tokens
    body: dict[str, Any] = {"model": request.model, "max_tokens": answer_length}
    if system:
        body["system"] = "\n\n".join(system)
    if request.temperature is not None:
        # Anthropic's scale ends at 1 (it refuses more); its 1 is as varied as it goes.
        body["temperature"] = min(request.temperature, ANTHROPIC_MAX_TEMPERATURE)
    body["messages"] = messages
    if request.tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": plain_json(t.parameters)}
            for t in request.tools
        ]
    if (choice := sent_choice(request)) is not None:
        body["tool_choice"] = anthropic_tool_choice(choice)
    body["stream"] = True
    return body


@dataclass
class _ToolBlock:
    id: str
    name: str
    given: dict[str, Any]  # the start's `input`: `{}` when the deltas will carry it
    parts: list[str] = field(default_factory=list)


@dataclass(kw_only=True)
class StreamState(BaseState):
    """What one stream has said so far: open tool blocks, usage, stop reason."""

    tools: dict[int, _ToolBlock] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    stop_reason: str = ""
    finished: bool = False

    def malformed(self, what: str, sample: str) -> MalformedResponse:
        """An event not in Anthropic's format (its words name the API's own address)."""
        return malformed(self.provider, what, sample)

    def take_usage(self, usage: Any) -> None:
        """Keep the newest counts (message_delta's are cumulative)."""
        if isinstance(usage, dict):
            self.taken += 1
            self.usage.update({k: v for k, v in usage.items() if isinstance(v, int)})

    @property
    def input_tokens(self) -> int:
        """Every input token, cached or not."""
        keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        return sum(self.usage.get(k, 0) for k in keys)


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _tool_input(tool: _ToolBlock) -> dict[str, Any]:
    raw = "".join(tool.parts)
    if not raw.strip():  # some proxies send the whole input in content_block_start
        return tool.given
    try:
        value = load_json(raw)
    except ValueError:
        return {"_raw": raw}  # kept for the tool loop to report, never guessed at
    return value if isinstance(value, dict) else {"_raw": raw}


def parse_event(event_name: str, data: str, state: StreamState) -> list[StreamEvent]:
    """The events of one SSE event of a Messages stream; raises for an `error` event."""
    try:
        payload = load_json(data) if data else {}
    except ValueError:
        what = f"a {event_name or 'stream'} event that is not JSON"
        raise state.malformed(what, data) from None
    if not isinstance(payload, dict):
        raise state.malformed("an event that is not an object", data)
    # The data repeats the event name as `type`; an unnamed SSE event is called "message".
    kind = str(payload.get("type") or event_name)
    index = payload.get("index")
    if kind == "error":
        raise classify_anthropic_error(200, data, {}, state.provider, model=state.model)
    if kind == "message_start":
        state.take_usage(_obj(payload.get("message")).get("usage"))
    elif kind == "content_block_start":
        block = _obj(payload.get("content_block"))
        if block.get("type") == "tool_use" and isinstance(index, int):
            ids = str(block.get("id", "")), str(block.get("name", ""))
            state.tools[index] = _ToolBlock(*ids, given=_obj(block.get("input")))
            state.taken += 1
        elif block.get("type") == "text" and block.get("text"):
            return [TextDelta(str(block["text"]))]
    elif kind == "content_block_delta":
        delta = _obj(payload.get("delta"))
        if delta.get("type") == "text_delta" and delta.get("text"):
            return [TextDelta(str(delta["text"]))]
        if (
            delta.get("type") == "input_json_delta"
            and isinstance(index, int)
            and index in state.tools
        ):
            fragment = str(delta.get("partial_json", ""))
            hold(state, len(fragment))
            state.tools[index].parts.append(fragment)
            state.taken += 1
        elif delta.get("type") in ("thinking_delta", "signature_delta"):
            state.taken += 1  # not shown yet, but the model is at work on the answer
    elif kind == "content_block_stop":
        tool = state.tools.pop(index, None) if isinstance(index, int) else None
        if tool is not None:
            call = ToolCall(id=tool.id, name=tool.name, arguments=_tool_input(tool))
            return [ToolCallEvent(call)]
    elif kind == "message_delta":
        delta = _obj(payload.get("delta"))
        state.stop_reason = str(delta.get("stop_reason") or state.stop_reason)
        state.take_usage(payload.get("usage"))
    elif kind == "message_stop":
        state.finished = True
        output = state.usage.get("output_tokens", 0)
        return [Usage(state.input_tokens, output), Done(state.stop_reason or "end_turn")]
    return []  # ping, and event types newer than this code


class AnthropicWire(HttpWire):
    """Anthropic's Messages API for one provider, over one httpx.AsyncClient."""

    max_tokens = DEFAULT_MAX_TOKENS
    page_size = MODELS_PAGE_SIZE  # models asked for a page of the listing

    @classmethod
    def preset_of(cls, provider: ProviderConfig) -> Preset:
        """Anthropic's preset, whatever the provider's kind."""
        return preset_for("anthropic")

    def locate(self, configured: str) -> str:
        """The API root, without `/v1` (the paths add it)."""
        return anthropic_base_url(configured)

    def headers(self) -> dict[str, str]:
        """The key, the API version, JSON."""
        return {
            "x-api-key": self.provider.api_key,
            "anthropic-version": API_VERSION,
            "content-type": "application/json",
        }

    def stream_headers(self) -> dict[str, str]:
        """An event stream."""
        return self.headers() | {"accept": "text/event-stream"}

    def missing_key(self) -> KeyProblem:
        """Anthropic's words for no key."""
        return missing_key(self.provider)

    @property
    def chat_url(self) -> str:
        """Where chat requests go."""
        return f"{self.base_url}/v1/messages"

    def chat_body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body of POST /v1/messages."""
        return build_messages_body(request, self.max_tokens)

    async def read_events(self, answer: Streamed) -> AsyncGenerator[StreamEvent, None]:
        """The stream's events, up to message_stop."""
        if not answer.is_sse:
            what = "an answer that is not an event stream"
            # Read for its words only: an error body or a web page, never an answer.
            raw = await answer.whole(ERROR_BODY_CAP, what)
            raise self._not_the_api(raw, what)
        state = StreamState(provider=self.located, model=answer.request.model)

        def parse(sse: SseEvent) -> tuple[list[StreamEvent], bool]:
            return parse_event(sse.event, sse.data, state), state.finished

        async with aclosing(answer.events(state, parse)) as events:
            async for event in events:
                yield event
        if not state.finished:
            raise self.cut_off("the stream ended without message_stop")

    def classify(self, answer: ErrorAnswer) -> ProviderError:
        """Anthropic's error type first, then the status and its words."""
        return classify_anthropic_error(
            answer.status, answer.text, answer.headers, self.provider, model=answer.model
        )

    def not_json(self, text: str) -> ProviderError:
        """A 200 listing answer that is not JSON."""
        return self._not_the_api(text, "an answer that is not JSON")

    def _not_the_api(self, raw: str, what: str) -> ProviderError:
        """A 200 that isn't what the API sends: an error body, a web page, or something else."""
        if error_fields(raw)[0]:
            return classify_anthropic_error(200, raw, {}, self.provider)
        if raw.lstrip().startswith("<"):
            what = "the address answered with a web page"
        return malformed(self.provider, what, raw)

    async def model_names(self) -> tuple[str, ...]:
        """The first page of model names, or () when it can't be had quickly."""
        page = await self.quietly(f"{self.base_url}/v1/models", params={"limit": "1000"})
        try:
            return tuple(m["id"] for m in page["data"] if isinstance(m.get("id"), str))
        except (KeyError, TypeError, AttributeError):
            return ()

    async def read_models(self) -> list[ModelInfo]:
        """Every model the key may use (all pages), seeing unless the listing says otherwise."""
        models: list[ModelInfo] = []
        after = ""
        for _ in range(MAX_MODEL_PAGES):
            params = {"limit": str(self.page_size)} | ({"after_id": after} if after else {})
            page = await self.read_json(f"{self.base_url}/v1/models", params=params)
            data = page.get("data") if isinstance(page, dict) else None
            if not isinstance(data, list):
                raise malformed(self.provider, "no model list", json.dumps(page)[:500])
            models += [m for m in (self._model_info(entry) for entry in data) if m is not None]
            after = str(page.get("last_id") or "")
            if not page.get("has_more") or not after:
                break
        return models

    def _model_info(self, entry: Any) -> ModelInfo | None:
        name = entry.get("id") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name:
            raise malformed(self.provider, "a model without an id", json.dumps(entry)[:500])
        if entry.get("lifecycle") == "retired":  # listed for the record, no longer callable
            return None
        caps = entry.get("capabilities")
        image = caps.get("image_input") if isinstance(caps, dict) else None
        # Every Claude model sees; a listing that says otherwise wins (SPEC §2).
        sees = image.get("supported") is not False if isinstance(image, dict) else True
        context = entry.get("max_input_tokens")
        return ModelInfo(
            provider_id=self.provider.id,
            name=name,
            sees=sees,
            tools=True,
            local=self.provider.is_local,
            context_length=context if isinstance(context, int) and context > 0 else None,
            label=str(entry.get("display_name") or ""),
        )
