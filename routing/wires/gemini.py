"""Gemini's own API: `streamGenerateContent?alt=sse` with `x-goog-api-key`, and its model list.

The request is routing/wires/gemini_request.py, the stream's events
routing/wires/gemini_stream.py (each a whole `GenerateContentResponse`; the parts the
model signed, `thoughtSignature`, kept to send back); this module is the wire: its
address, key and model list, and it learns, once per model, that it takes a tool's
pictures only after the function response. Errors are routing/wires/gemini_errors.py.
"""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing
from typing import Any
from urllib.parse import quote, urlsplit

from routing.errors import BadRequest, MalformedResponse, ProviderError
from routing.models import ModelInfo, ProviderConfig
from routing.presets import Preset, preset_for
from routing.wires.base import ChatRequest, StreamEvent
from routing.wires.bounded import SseEvent
from routing.wires.gemini_errors import classify_gemini, refuses_tool_pictures
from routing.wires.gemini_request import (
    Form,
    build_gemini_body,
    has_pictures,
    pictures_in_responses,
)
from routing.wires.gemini_stream import StreamState, finish_stream, parse_chunk
from routing.wires.http import ErrorAnswer, HttpWire, Streamed
from routing.wires.payload import load_json

PAGE_SIZE = 1000  # the most the model list gives a page
MAX_MODEL_PAGES = 20


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

    async def read_events(self, answer: Streamed) -> AsyncGenerator[StreamEvent, None]:
        """The SSE chunks as events, until the stream ends with a finish reason."""
        state = StreamState.of(
            answer, self.located, self.preset, source=self.source(answer.request.model)
        )
        if not answer.is_sse:
            for event in self._whole_body(await answer.whole(), state):
                yield event
            return

        def parse(sse: SseEvent) -> tuple[list[StreamEvent], bool]:
            data = sse.data.strip()
            if not data:
                return [], False
            try:
                chunk = load_json(data)
            except ValueError:
                raise state.malformed("a chunk that is not JSON", data) from None
            return parse_chunk(chunk, state), False  # Gemini's stream ends with its body

        async with aclosing(answer.events(state, parse)) as events:
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
        return self.classified_by(classify_gemini, answer)

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
