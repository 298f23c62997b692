"""Gemini's own API: `streamGenerateContent?alt=sse` with `x-goog-api-key`, and its model list.

The request is routing/wires/gemini_request.py; this module reads the stream (each
event a whole `GenerateContentResponse`: text parts, whole `functionCall` parts,
usage, a finish reason), keeps the parts the model signed (`thoughtSignature`) to
send them back, and learns, once per model, that it takes a tool's pictures only
after the function response. Errors are routing/wires/gemini_errors.py.
"""

from __future__ import annotations

import copy
import json
import secrets
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from routing.errors import BadRequest, MalformedResponse, ProviderError
from routing.models import ModelInfo, ProviderConfig
from routing.presets import Preset, preset_for
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
from routing.wires.bounded import EVENT_CAP, IdleDeadline, SseEvent, parsed_sse, read_body
from routing.wires.gemini_errors import classify_gemini, refuses_tool_pictures
from routing.wires.gemini_request import (
    INVENTED,
    SHAPE,
    Form,
    build_gemini_body,
    has_pictures,
    pictures_in_responses,
)
from routing.wires.http import ErrorAnswer, HttpWire
from routing.wires.payload import load_json, token_count, too_deep

PAGE_SIZE = 1000  # the most the model list gives a page
MAX_MODEL_PAGES = 20


@dataclass
class StreamState:
    """What one stream has said so far: the parts to carry, the end, the usage."""

    provider: ProviderConfig
    source: str  # provider:model, the signed parts' owner
    preset: Preset | None = None
    model: str = ""
    had_pictures: bool = False
    parts: list[dict[str, Any] | _Run] = field(default_factory=list)  # the answer's, merged
    signed: bool = False  # any part came with a thoughtSignature
    calls: int = 0
    finish_reason: str = ""
    usage: Usage | None = None
    taken: int = 0  # chunks that show nothing yet (thoughts, usage)
    held: int = 0  # characters of the parts held to send back (answer_cap.hold)

    def kept_parts(self) -> list[dict[str, Any]]:
        """The answer's parts as they go back to Gemini, each run of words joined."""
        return [p.part() if isinstance(p, _Run) else p for p in self.parts]


@dataclass
class _Run:
    """Words that join into one part, kept as their pieces and joined once at the end:
    joining them at each chunk copied the answer so far, so a long answer read slower
    and slower (about 225 chunks a second by 20,000)."""

    thought: Any  # the part's `thought`, as it came (None when it had none)
    pieces: list[str]
    signature: Any = None  # its `thoughtSignature` (None when it had none)

    def part(self) -> dict[str, Any]:
        """The run as one of Gemini's parts."""
        part: dict[str, Any] = {"text": "".join(self.pieces)}
        if self.thought is not None:
            part["thought"] = self.thought
        if self.signature is not None:
            part["thoughtSignature"] = self.signature
        return part


def _malformed(state: StreamState, what: str, sample: str) -> MalformedResponse:
    return MalformedResponse(
        f"The answer was not in Gemini's format ({what}). Check that the provider's address "
        'points at the Gemini API, or set api = "chat" for an OpenAI-compatible one.',
        provider_id=state.provider.id,
        detail=sample[:500],
    )


def _keep_text(part: dict[str, Any], state: StreamState) -> None:
    """Words join the part before them, unless a signature or a thought sets them apart."""
    text, signature = str(part["text"]), part.get("thoughtSignature")
    if part.get("thought"):  # the shown words are bounded as they are given out (AnswerCap)
        hold(state, len(text))
    last = state.parts[-1] if state.parts else None
    if (
        isinstance(last, _Run)
        and bool(last.thought) == bool(part.get("thought"))
        and not (last.signature is not None and signature is not None)
    ):
        last.pieces.append(text)
        if signature is not None:
            last.signature = signature
        return
    state.parts.append(_Run(part.get("thought"), [text], signature))


def _call(part: dict[str, Any], state: StreamState) -> ToolCallEvent:
    call = part["functionCall"]
    if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not call["name"]:
        raise _malformed(state, "a function call without a name", json.dumps(part))
    args = call.get("args")
    arguments = args if isinstance(args, dict) else {"_raw": json.dumps(args)}
    given = call.get("id")
    call_id = given if isinstance(given, str) and given else f"{INVENTED}{secrets.token_hex(6)}"
    # Kept without its arguments: they go back as Sightline keeps them (bounded).
    kept: dict[str, Any] = {
        "functionCall": {"name": call["name"], **({"id": given} if given else {})}
    }
    if "thoughtSignature" in part:
        kept["thoughtSignature"] = part["thoughtSignature"]
    state.parts.append(kept)
    state.calls += 1
    return ToolCallEvent(ToolCall(call_id, call["name"], arguments))


def _flat(part: dict[str, Any]) -> bool:
    """Whether a part holds nothing nested (words, a flag, a signature): no depth to check."""
    return all(isinstance(value, str | bool | int | float) for value in part.values())


def parse_chunk(obj: Any, state: StreamState) -> list[StreamEvent]:
    """The events of one streamed GenerateContentResponse."""
    if not isinstance(obj, dict):
        raise _malformed(state, "a chunk that is not a JSON object", json.dumps(obj))
    if obj.get("error") is not None:
        raise classify_gemini(
            state.provider,
            state.preset,
            200,
            json.dumps(obj),
            {},
            had_pictures=state.had_pictures,
            model=state.model,
        )
    usage = obj.get("usageMetadata")
    if isinstance(usage, dict):  # cumulative: the last one counts
        output = token_count(usage.get("candidatesTokenCount")) + token_count(
            usage.get("thoughtsTokenCount")
        )
        counted = Usage(token_count(usage.get("promptTokenCount")), output)
        if counted != state.usage:  # the same counts again are no progress
            state.usage = counted
            state.taken += 1
    candidates = obj.get("candidates") or []
    feedback = obj.get("promptFeedback")
    if not candidates and isinstance(feedback, dict) and feedback.get("blockReason"):
        raise ProviderError(
            f"Gemini would not answer this message (blocked: {feedback['blockReason']}). "
            "Say it differently, or pick another model.",
            provider_id=state.provider.id,
            detail=json.dumps(obj)[:2000],
        )
    if not isinstance(candidates, list):
        raise _malformed(state, "candidates that are not a list", json.dumps(obj))
    events: list[StreamEvent] = []
    for candidate in candidates:
        if not isinstance(candidate, dict) or candidate.get("index", 0) != 0:
            continue  # one candidate is all that is asked for
        content = candidate.get("content") or {}
        for part in content.get("parts") or [] if isinstance(content, dict) else []:
            if not isinstance(part, dict) or (not _flat(part) and too_deep(part)):
                continue
            state.signed = state.signed or "thoughtSignature" in part
            if "functionCall" in part:
                events.append(_call(part, state))
            elif isinstance(part.get("text"), str):
                _keep_text(part, state)
                if part.get("thought"):
                    state.taken += 1  # thoughts are not shown, but the model is at work
                elif part["text"]:
                    events.append(TextDelta(part["text"]))
        if reason := candidate.get("finishReason"):
            state.finish_reason = str(reason)
    return events


def finish_stream(state: StreamState) -> list[StreamEvent]:
    """The closing events: the signed parts to carry, usage, Done."""
    events: list[StreamEvent] = []
    if state.signed:
        events.append(Carried(CarriedPart(SHAPE, state.source, {"parts": state.kept_parts()})))
    if state.usage is not None:
        events.append(state.usage)
    events.append(Done("tool_calls" if state.calls else state.finish_reason.lower()))
    return events


class GeminiWire(HttpWire):
    """Gemini's own API for one provider, over one httpx.AsyncClient.

    The model is part of the address, so each request goes through a copy of the wire
    bound to it (sharing the client and what was learned). A model that refused its
    tool's pictures inside a function response gets them after it from then on.
    """

    def __init__(self, provider: ProviderConfig, **options: Any) -> None:
        super().__init__(provider, **options)
        self.pictures_after: set[str] = set()  # models that refused them inside responses
        self._model = ""  # the model of the request a bound copy sends

    @classmethod
    def preset_of(cls, provider: ProviderConfig) -> Preset:
        """Gemini's preset, whatever the provider's kind."""
        return preset_for("gemini")

    def locate(self, configured: str) -> str:
        """The API root with its version: /v1beta added to a bare address, and the OpenAI
        compatibility path of an older config taken off."""
        url = (configured or self.preset.base_url).strip().rstrip("/").removesuffix("/openai")
        if urlsplit(url).path in ("", "/"):
            url += "/v1beta"
        return url

    def headers(self) -> dict[str, str]:
        """The key in Gemini's header, JSON answers, and the preset's own headers."""
        headers = {"Accept": "application/json"}
        if self.provider.api_key:
            headers["x-goog-api-key"] = self.provider.api_key
        return headers | dict(self.preset.headers)

    def stream_headers(self) -> dict[str, str]:
        """An event stream."""
        return self.headers() | {"Accept": "text/event-stream"}

    @property
    def chat_url(self) -> str:
        """Where the bound model's requests go."""
        model = quote(self._model.removeprefix("models/"), safe="")
        return f"{self.base_url}/models/{model}:streamGenerateContent?alt=sse"

    def form(self, model: str) -> Form:
        """How a request to `model` is shaped: Gemini 3 takes pictures in its responses."""
        return Form(
            pictures_in_responses=pictures_in_responses(model) and model not in self.pictures_after
        )

    def source(self, model: str) -> str:
        """Whose signed parts a request sends back: this provider's model."""
        return f"{self.provider.id}:{model}"

    def chat_body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body of one streamGenerateContent request."""
        return build_gemini_body(request, self.source(request.model), self.form(request.model))

    def carries_pictures(self, body: Mapping[str, Any]) -> bool:
        """Whether any part is a picture."""
        return has_pictures(body)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """The funnel's stream through a copy bound to the model, asked once more with the
        pictures after the responses when the model refuses them inside."""
        bound = copy.copy(self)
        bound._model = request.model
        while True:
            started = False
            try:
                async for event in HttpWire.stream(bound, request):
                    started = True
                    yield event
                return
            except BadRequest as error:
                inside = self.form(request.model).pictures_in_responses
                sent = inside and any(r.pictures for m in request.messages for r in m.tool_results)
                if started or not sent or not refuses_tool_pictures(error):
                    raise
                self.pictures_after.add(request.model)

    async def read_events(
        self,
        response: httpx.Response,
        body: Mapping[str, Any],
        request: ChatRequest,
        deadline: IdleDeadline,
    ) -> AsyncGenerator[StreamEvent, None]:
        """The SSE chunks as events, until the stream ends with a finish reason."""
        state = StreamState(
            self.located, self.source(request.model), self.preset, request.model, has_pictures(body)
        )
        pid = self.provider.id
        if "text/event-stream" not in response.headers.get("content-type", ""):
            text = await read_body(response, EVENT_CAP, "an answer", provider_id=pid)
            for event in self._whole_body(text, state):
                yield event
            return

        def parse(sse: SseEvent) -> tuple[list[StreamEvent], bool]:
            data = sse.data.strip()
            if not data:
                return [], False
            try:
                chunk = load_json(data)
            except ValueError:
                raise _malformed(state, "a chunk that is not JSON", data) from None
            return parse_chunk(chunk, state), False  # Gemini's stream ends with its body

        stream = parsed_sse(response, provider_id=pid, deadline=deadline, state=state, parse=parse)
        async with aclosing(stream) as events:
            async for event in events:
                yield event
        if not state.finish_reason:
            raise self.cut_off("the stream ended without a finish reason")
        for event in finish_stream(state):
            yield event

    def _whole_body(self, text: str, state: StreamState) -> list[StreamEvent]:
        """A whole answer (a chunk, or the JSON array streamGenerateContent sends without SSE)."""
        try:
            obj = load_json(text)
        except ValueError:
            raise self.not_json(text) from None
        events: list[StreamEvent] = []
        for chunk in obj if isinstance(obj, list) else [obj]:
            events += parse_chunk(chunk, state)
        if not state.finish_reason:
            raise self.cut_off("the answer ended without a finish reason")
        return events + finish_stream(state)

    def classify(self, answer: ErrorAnswer) -> ProviderError:
        """Gemini's error body as our error (routing/wires/gemini_errors.py)."""
        return classify_gemini(
            self.located,
            self.preset,
            answer.status,
            answer.text,
            answer.headers,
            had_pictures=answer.had_pictures,
            model=answer.model,
        )

    def not_json(self, text: str) -> ProviderError:
        """A 200 that is not JSON: a web page, or not the Gemini API."""
        return classify_gemini(self.located, self.preset, 200, text, {})

    async def model_names(self) -> tuple[str, ...]:
        """The first page of model names, or () when it can't be had quickly."""
        page = await self.quietly(f"{self.base_url}/models", params={"pageSize": str(PAGE_SIZE)})
        models = page.get("models") if isinstance(page, dict) else None
        return tuple(info.name for info in self._infos(models))

    async def read_models(self) -> list[ModelInfo]:
        """Every model that generates content (all pages), its input limit as its context."""
        found: list[ModelInfo] = []
        token = ""
        for _ in range(MAX_MODEL_PAGES):
            params = {"pageSize": str(PAGE_SIZE)} | ({"pageToken": token} if token else {})
            page = await self.read_json(f"{self.base_url}/models", params=params)
            models = page.get("models") if isinstance(page, dict) else None
            if not isinstance(models, list):
                raise MalformedResponse(
                    f"The model list from {self.server} was not Gemini's. Check the provider's "
                    "base URL.",
                    provider_id=self.provider.id,
                    detail=json.dumps(page)[:500],
                )
            found += self._infos(models)
            token = str(page.get("nextPageToken") or "")
            if not token:
                break
        return found

    def _infos(self, models: Any) -> list[ModelInfo]:
        out: list[ModelInfo] = []
        for entry in models if isinstance(models, list) else []:
            if not isinstance(entry, dict) or "generateContent" not in (
                entry.get("supportedGenerationMethods") or []
            ):
                continue  # embeddings, and models that only count tokens
            name = str(entry.get("name") or "").removeprefix("models/")
            if not name:
                continue
            limit = entry.get("inputTokenLimit")
            out.append(
                ModelInfo(
                    provider_id=self.provider.id,
                    name=name,
                    local=self._local,
                    context_length=limit if isinstance(limit, int) and limit > 0 else None,
                    label=str(entry.get("displayName") or ""),
                    reads_pdfs=True,  # every Gemini model reads PDFs itself
                )
            )
        return out
