"""The OpenAI chat-completions wire: one module for every provider that speaks that shape.

A preset (routing/presets.py) says what differs per provider: its address, whether
to ask for usage, Mistral's bridge, and the sight rule when the model list is mute.
The request is built in one place, each SSE chunk is read in one place, and every
failure is translated once, by routing/wires/http_errors.py.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from contextlib import AsyncExitStack, aclosing
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

import httpx

from routing.endpoints import endpoint_name
from routing.errors import MalformedResponse, ModelNotFound, ProviderError, ServerError
from routing.models import ModelInfo, ProviderConfig
from routing.presets import PRESETS, Preset, sees_for, tools_for
from routing.transcript import Message, ToolCall, ToolResult, tool_pictures_text
from routing.wires import bounded
from routing.wires.base import ChatRequest, Done, StreamEvent, TextDelta, ToolCallEvent, Usage
from routing.wires.bounded import (
    EVENT_CAP,
    LISTING_CAP,
    Fetched,
    IdleDeadline,
    fetch,
    read_body,
    read_error,
    sse_events,
)
from routing.wires.client import http_client
from routing.wires.http_errors import (
    RETRY_BASE,
    cut_off,
    looks_like_html,
    missing_key,
    translate_status,
    translate_transport,
    with_retry,
)
from routing.wires.payload import load_json, plain_json, token_count, tool_result_text
from vision.pictures import Picture

# A local model may load for minutes before its first token.
DEFAULT_TIMEOUT = 300.0
CONNECT_TIMEOUT = 10.0
NAMES_TIMEOUT = 3.0
# Listed by /models but not chat models; the picker would only mislead with them.
_NOT_CHAT = (
    "embed",
    "whisper",
    "tts",
    "dall-e",
    "moderation",
    "transcribe",
    "realtime",
    "sora",
    "gpt-image",
    "imagine",
    "davinci",
    "babbage",
)
# Where reasoning models stream their thinking (DeepSeek, vLLM; OpenRouter, Ollama's /v1).
_REASONING_KEYS = ("reasoning_content", "reasoning")
_CONTEXT_KEYS = ("context_length", "context_window", "max_context_length", "max_model_len")


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


def _tool_pictures_message(sources: list[tuple[ToolResult, Picture]]) -> dict[str, Any]:
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


def build_chat_body(request: ChatRequest, preset: Preset) -> dict[str, Any]:
    """The JSON body of POST /chat/completions for one request, shaped for the preset."""
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    pending: list[tuple[ToolResult, Picture]] = []  # this step's tool pictures

    def add(body: dict[str, Any]) -> None:
        # Mistral refuses a user message straight after a tool's: bridge them, here only.
        if (
            preset.bridge_tool_then_user
            and body["role"] == "user"
            and messages
            and messages[-1]["role"] == "tool"
        ):
            messages.append({"role": "assistant", "content": ""})
        messages.append(body)

    for message in request.messages:
        if message.role != "tool" and pending:
            add(_tool_pictures_message(pending))
            pending = []
        for body in _message_bodies(message):
            add(body)
        pending.extend((r, p) for r in message.tool_results for p in r.pictures)
    if pending:
        add(_tool_pictures_message(pending))
    chat: dict[str, Any] = {"model": request.model, "messages": messages, "stream": True}
    if request.tools:
        chat["tools"] = [
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


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class StreamState:
    """What one stream has said so far: unfinished tool calls, the finish reason, usage."""

    provider: ProviderConfig
    preset: Preset | None = None
    model: str = ""
    had_pictures: bool = False
    calls: dict[int, _PartialCall] = field(default_factory=dict)
    emitted: int = 0
    finish_reason: str | None = None
    usage: Usage | None = None
    taken: int = 0  # tool call fragments and usage taken in, which show no event yet


def _malformed(state: StreamState, what: str, sample: str) -> MalformedResponse:
    return MalformedResponse(
        f"The answer was not in the OpenAI chat format ({what}). Check that the provider's "
        "address points at an OpenAI-compatible API.",
        provider_id=state.provider.id,
        detail=sample[:500],
    )


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    prompt, completion = raw.get("prompt_tokens"), raw.get("completion_tokens")
    if not isinstance(prompt, int) and not isinstance(completion, int):
        return None
    return Usage(input_tokens=token_count(prompt), output_tokens=token_count(completion))


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
        raise _malformed(state, "a tool call that is not an object", json.dumps(fragment))
    call = state.calls.setdefault(_slot(fragment, state), _PartialCall())
    state.taken += 1
    if isinstance(fragment.get("id"), str) and fragment["id"] and not call.id:
        call.id = fragment["id"]
    function = fragment.get("function") or {}
    if not isinstance(function, dict):
        raise _malformed(state, "a tool call without a function", json.dumps(fragment))
    if isinstance(function.get("name"), str) and function["name"] and not call.name:
        call.name = function["name"]
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        call.arguments.append(arguments)
    elif isinstance(arguments, dict):  # a few servers send an object, not a JSON string
        call.arguments.append(json.dumps(arguments))


def _flush_calls(state: StreamState) -> list[StreamEvent]:
    events: list[StreamEvent] = []
    for index in sorted(state.calls):
        call = state.calls[index]
        if not call.name:
            raise _malformed(state, "a tool call without a name", json.dumps(vars(call)))
        raw = "".join(call.arguments).strip()
        try:
            arguments = load_json(raw) if raw else {}
        except ValueError:
            arguments = None
        if not isinstance(arguments, dict):  # keep what the model said rather than crash
            arguments = {"_raw": raw}
        events.append(
            ToolCallEvent(ToolCall(call.id or f"call_{state.emitted}", call.name, arguments))
        )
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
        raise _malformed(state, "a chunk that is not a JSON object", json.dumps(obj))
    if obj.get("error") is not None:  # OpenRouter reports failures inside a 200 stream
        raise _stream_error(obj, state)
    # Usage: the include_usage chunk, Groq's x_groq, or Moonshot's inside the choice.
    groq = obj.get("x_groq")
    usage = _usage(obj.get("usage")) or _usage(
        groq.get("usage") if isinstance(groq, dict) else None
    )
    choices = obj.get("choices") or []
    if not isinstance(choices, list):
        raise _malformed(state, "choices that are not a list", json.dumps(obj))
    events: list[StreamEvent] = []
    for choice in choices:
        if not isinstance(choice, dict):
            raise _malformed(state, "a choice that is not an object", json.dumps(obj))
        if choice.get("index", 0) != 0:
            continue  # we never ask for more than one choice
        usage = usage or _usage(choice.get("usage"))
        delta = choice.get("delta") or choice.get("message") or {}
        if not isinstance(delta, dict):
            raise _malformed(state, "a delta that is not an object", json.dumps(obj))
        if any(isinstance(delta.get(k), str) and delta[k] for k in _REASONING_KEYS):
            state.taken += 1  # not shown, but the model is at work on the answer
        content = delta.get("content")
        if isinstance(content, list):  # a few servers stream text parts
            content = "".join(
                p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
            )
        if content is not None and not isinstance(content, str):
            raise _malformed(state, "content that is not text", json.dumps(obj))
        if content:
            events.append(TextDelta(content))
        calls = delta.get("tool_calls") or []
        if not isinstance(calls, list):
            raise _malformed(state, "tool calls that are not a list", json.dumps(obj))
        for fragment in calls:
            _absorb(fragment, state)
        if reason := choice.get("finish_reason"):
            state.finish_reason = str(reason)
            events.extend(_flush_calls(state))
    if usage is not None:
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


def chat_base_url(preset: Preset, configured: str) -> str:
    """The base URL requests go to: the configured one, else the preset's, without a final /."""
    url = (configured or preset.base_url).strip().rstrip("/")
    # A server of your own given as http://host:port serves the API under /v1.
    if preset.kind == "custom" and urlsplit(url).path in ("", "/"):
        url += "/v1"
    return url


def _entries(listing: Any) -> list[dict[str, Any]]:
    if isinstance(listing, dict):
        listing = listing.get("data", listing.get("models"))
    if not isinstance(listing, list):
        raise MalformedResponse("no model list")
    return [e for e in listing if isinstance(e, dict)]


def _listed_sees(entry: Mapping[str, Any]) -> bool | None:
    arch = entry.get("architecture")
    modalities = arch.get("input_modalities") if isinstance(arch, dict) else None
    modalities = entry.get("input_modalities", modalities)  # xAI language-models
    if isinstance(modalities, list):
        return "image" in modalities
    caps = entry.get("capabilities")
    if isinstance(caps, dict) and isinstance(caps.get("vision"), bool):
        return bool(caps["vision"])  # Mistral
    if isinstance(entry.get("supports_image_in"), bool):
        return bool(entry["supports_image_in"])  # Moonshot
    return None


def _listed_tools(entry: Mapping[str, Any]) -> bool | None:
    params = entry.get("supported_parameters")
    if isinstance(params, list):
        return "tools" in params  # OpenRouter
    caps = entry.get("capabilities")
    if isinstance(caps, dict) and isinstance(caps.get("function_calling"), bool):
        return bool(caps["function_calling"])  # Mistral
    return None


def _context(entry: Mapping[str, Any]) -> int | None:
    top = entry.get("top_provider")
    candidates = [entry.get(k) for k in _CONTEXT_KEYS]
    candidates.append(top.get("context_length") if isinstance(top, dict) else None)
    return next((v for v in candidates if isinstance(v, int) and v > 0), None)


def _is_chat(entry: Mapping[str, Any], name: str) -> bool:
    caps = entry.get("capabilities")
    if isinstance(caps, dict) and caps.get("completion_chat") is False:
        return False  # Mistral's embedding and OCR models
    return not any(word in name.lower() for word in _NOT_CHAT)


class OpenAIChatWire:
    """The OpenAI chat-completions shape for one provider, over one httpx.AsyncClient."""

    def __init__(
        self,
        provider: ProviderConfig,
        *,
        preset: Preset | None = None,
        client: httpx.AsyncClient | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry_base_delay: float = RETRY_BASE,
        idle_limit: float | None = None,
    ) -> None:
        self.provider = provider
        # Kinds without a preset of their own (vllm, llamacpp, ...) are servers of your own.
        self.preset = preset or PRESETS.get(provider.kind, PRESETS["custom"])
        self.base_url = chat_base_url(self.preset, provider.base_url)
        self._local = replace(provider, base_url=self.base_url).is_local
        self._timeout = httpx.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT))
        self._retry_base = retry_base_delay
        self._idle_limit = bounded.IDLE_LIMIT if idle_limit is None else idle_limit
        self._owns_client = client is None
        self._client = client or http_client(
            self.base_url, local=self._local, provider_id=provider.id
        )

    async def aclose(self) -> None:
        """Close the wire's HTTP client (unless it was handed one)."""
        if self._owns_client:
            await self._client.aclose()

    @property
    def chat_url(self) -> str:
        """Where chat requests go."""
        return f"{self.base_url}/chat/completions"

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self.provider.api_key:
            headers["Authorization"] = f"Bearer {self.provider.api_key}"
        if self.preset.kind == "openrouter":
            headers["X-Title"] = "Sightline"  # OpenRouter's app attribution, optional
        return headers

    def _require_key(self) -> None:
        if self.preset.needs_key and not self.provider.api_key:
            raise missing_key(self.provider, self.preset)

    # -- models ---------------------------------------------------------------------

    async def list_models(self) -> list[ModelInfo]:
        """Every chat model the provider lists, with sight and tools where known."""
        self._require_key()
        entries = self._entry_list(await self._get_json(f"{self.base_url}/models"))
        extra: dict[str, bool] = {}
        server_sees: bool | None = None
        if self.preset.kind == "custom":
            server_sees = await self._llamacpp_vision()
        elif self.preset.kind == "xai":
            extra = await self._xai_modalities()
        return self._infos(entries, lambda name: extra.get(name, server_sees))

    def _entry_list(self, listing: Any) -> list[dict[str, Any]]:
        try:
            return _entries(listing)
        except MalformedResponse:
            raise MalformedResponse(
                f"The model list from {endpoint_name(self.base_url)} was not in the OpenAI "
                "format. Check that the provider's base URL points at an OpenAI-compatible API.",
                provider_id=self.provider.id,
                detail=json.dumps(listing)[:500],
            ) from None

    def _infos(
        self, entries: list[dict[str, Any]], fallback: Callable[[str], bool | None]
    ) -> list[ModelInfo]:
        infos: dict[str, ModelInfo] = {}
        for entry in entries:
            name = entry.get("id") or entry.get("name")
            if not isinstance(name, str) or not name or name in infos:
                continue
            if not _is_chat(entry, name):
                continue
            listed = _listed_sees(entry)
            label = entry.get("name") if entry.get("name") != name else ""
            infos[name] = ModelInfo(
                provider_id=self.provider.id,
                name=name,
                sees=sees_for(self.preset, name, listed if listed is not None else fallback(name)),
                tools=tools_for(self.preset, name, _listed_tools(entry)),
                local=self._local,
                context_length=_context(entry),
                label=label if isinstance(label, str) else "",
            )
        return list(infos.values())

    async def _llamacpp_vision(self) -> bool | None:
        """llama.cpp's /props says whether its model sees (a projector is loaded)."""
        root = self.base_url.removesuffix("/v1")
        props = await self._get_json_quietly(f"{root}/props", "the server's properties")
        modalities = props.get("modalities") if isinstance(props, dict) else None
        vision = modalities.get("vision") if isinstance(modalities, dict) else None
        return vision if isinstance(vision, bool) else None

    async def _xai_modalities(self) -> dict[str, bool]:
        """xAI's /language-models lists input_modalities per model (and its aliases)."""
        listing = await self._get_json_quietly(f"{self.base_url}/language-models", "the model list")
        out: dict[str, bool] = {}
        for entry in listing.get("models", []) if isinstance(listing, dict) else []:
            sees = _listed_sees(entry) if isinstance(entry, dict) else None
            if sees is None:
                continue
            for name in [entry.get("id"), *(entry.get("aliases") or [])]:
                if isinstance(name, str):
                    out[name] = sees
        return out

    async def _get(
        self, url: str, what: str = "the model list", timeout: float | None = None
    ) -> Fetched:
        try:
            return await fetch(
                self._client,
                "GET",
                url,
                cap=LISTING_CAP,
                what=what,
                provider_id=self.provider.id,
                headers=self._headers(),
                timeout=timeout or self._timeout,
            )
        except httpx.HTTPError as exc:
            raise translate_transport(self.provider, exc, preset=self.preset) from exc

    async def _get_json(self, url: str) -> Any:
        return self._json_of(await self._get(url))

    def _json_of(self, response: Fetched) -> Any:
        """The JSON of a listing answer, or its failure translated."""
        if response.status_code != 200:
            raise translate_status(
                self.provider,
                response.status_code,
                response.text,
                response.headers,
                had_pictures=False,
                preset=self.preset,
            )
        try:
            return response.json()
        except ValueError:
            pass
        if looks_like_html(response.text):  # a captive portal's page, say
            raise translate_status(
                self.provider, 200, response.text, {}, had_pictures=False, preset=self.preset
            )
        raise MalformedResponse(
            f"The answer from {endpoint_name(self.base_url)} was not JSON. Check that the "
            "provider's base URL points at an OpenAI-compatible API.",
            provider_id=self.provider.id,
            detail=response.text[:500],
        )

    async def _get_json_quietly(self, url: str, what: str) -> Any:
        """A JSON answer, or None when there is none to have quickly (extras never fail a list)."""
        try:
            async with asyncio.timeout(NAMES_TIMEOUT):  # a trickle of bytes is no quick answer
                response = await self._get(url, what, timeout=NAMES_TIMEOUT)
            return response.json() if response.status_code == 200 else None
        except (ProviderError, TimeoutError, ValueError):
            return None

    async def _names_quietly(self) -> tuple[str, ...]:
        listing = await self._get_json_quietly(f"{self.base_url}/models", "the model list")
        try:
            return tuple(str(e.get("id")) for e in _entries(listing) if e.get("id"))
        except MalformedResponse:
            return ()

    # -- chat -----------------------------------------------------------------------

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Send the request and yield its events as they arrive."""
        self._require_key()
        deadline = IdleDeadline(
            self._idle_limit, server=endpoint_name(self.base_url), provider_id=self.provider.id
        )
        async with aclosing(deadline.watch(self._stream(request, deadline))) as events:
            async for event in events:
                yield event

    async def _stream(
        self, request: ChatRequest, deadline: IdleDeadline
    ) -> AsyncGenerator[StreamEvent, None]:
        body = build_chat_body(request, self.preset)
        state = StreamState(
            self.provider, self.preset, model=request.model, had_pictures=_has_pictures(body)
        )
        response, stack = await with_retry(
            lambda: self._open(body, state), base_delay=self._retry_base
        )
        async with stack:
            try:
                async for event in self._events(response, state, deadline):
                    yield event
            except httpx.HTTPError as exc:
                raise translate_transport(self.provider, exc, preset=self.preset) from exc

    async def _open(
        self, body: dict[str, Any], state: StreamState
    ) -> tuple[httpx.Response, AsyncExitStack]:
        """Send the request; the open response, or the translated error before any output."""
        stack = AsyncExitStack()
        headers = self._headers() | {"Accept": "text/event-stream", "Cache-Control": "no-store"}
        try:
            try:
                response = await stack.enter_async_context(
                    self._client.stream(
                        "POST", self.chat_url, json=body, headers=headers, timeout=self._timeout
                    )
                )
                if response.status_code == 200:
                    return response, stack
                raw = await read_error(response, provider_id=self.provider.id)
            except httpx.HTTPError as exc:
                raise translate_transport(self.provider, exc, preset=self.preset) from exc
        except BaseException:  # a cap passed, a cancel: the response closes either way
            await stack.aclose()
            raise
        await stack.aclose()
        error = translate_status(
            self.provider,
            response.status_code,
            raw,
            response.headers,
            had_pictures=state.had_pictures,
            preset=self.preset,
            model=state.model,
        )
        if isinstance(error, ModelNotFound) and "data policy" not in error.detail.lower():
            error.available = await self._names_quietly()
        raise error

    async def _events(
        self, response: httpx.Response, state: StreamState, deadline: IdleDeadline
    ) -> AsyncIterator[StreamEvent]:
        pid = self.provider.id
        if "text/event-stream" not in response.headers.get("content-type", ""):
            # A server that ignored "stream" (or a proxy's page): read it whole, as one event.
            text = await read_body(response, EVENT_CAP, "an answer", provider_id=pid)
            for event in self._whole_body(text, state):
                yield event
            return
        # aclosing: returning at [DONE] must close the SSE reader now, not at GC.
        async with aclosing(sse_events(response, provider_id=pid)) as messages:
            async for sse in messages:
                taken = state.taken
                events, done = self._on_data(sse.data, state)
                if state.taken != taken:
                    deadline.progress()
                for event in events:
                    yield event
                if done:
                    return
        if state.finish_reason is None:
            raise self._cut_off("the stream ended without [DONE] or a finish reason")
        for event in finish_stream(state):  # a server that never sends [DONE]
            yield event

    def _on_data(self, data: str, state: StreamState) -> tuple[list[StreamEvent], bool]:
        data = data.strip()
        if not data:
            return [], False
        if data == "[DONE]":
            return finish_stream(state), True
        try:
            obj = load_json(data)
        except ValueError:
            raise _malformed(state, "a chunk that is not JSON", data) from None
        return parse_chunk(obj, state), False

    def _whole_body(self, text: str, state: StreamState) -> list[StreamEvent]:
        if text.lstrip().startswith("data:"):  # SSE sent under another content type
            events: list[StreamEvent] = []
            for line in text.splitlines():
                if line.startswith("data:"):
                    more, done = self._on_data(line[5:], state)
                    events += more
                    if done:
                        return events
            if state.finish_reason is None:
                raise self._cut_off("the stream ended without [DONE] or a finish reason")
            return events + finish_stream(state)
        try:
            obj = load_json(text)
        except ValueError:
            if looks_like_html(text):
                raise translate_status(
                    self.provider, 200, text, {}, had_pictures=False, preset=self.preset
                ) from None
            raise _malformed(state, "an answer that is neither SSE nor JSON", text) from None
        return parse_chunk(obj, state) + finish_stream(state)

    def _cut_off(self, detail: str) -> ServerError:
        return cut_off(self.provider, self.preset, detail)
