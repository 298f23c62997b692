"""The Anthropic wire: the Messages API (streamed as SSE) and the Models list over httpx.

Every failure is translated here, once, by `classify_anthropic_error`; Anthropic's
own words stay in `.detail`.
"""

from __future__ import annotations

import asyncio
import base64
import email.utils
import json
import math
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from typing import Any

import httpx

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
from routing.transcript import Message, ToolCall, ToolResult
from routing.wires import bounded
from routing.wires.base import ChatRequest, Done, StreamEvent, TextDelta, ToolCallEvent, Usage
from routing.wires.bounded import (
    ERROR_BODY_CAP,
    LISTING_CAP,
    IdleDeadline,
    fetch,
    read_body,
    read_error,
    sse_events,
)
from routing.wires.client import http_client
from routing.wires.http_errors import cut_off, translate_transport
from routing.wires.payload import load_json, plain_json
from vision.pdf import PdfFile
from vision.pictures import Picture

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
KEY_ENV = "ANTHROPIC_API_KEY"
# The read timeout is the longest gap between bytes; Anthropic pings a slow stream.
DEFAULT_TIMEOUT = 300.0
DEFAULT_MAX_TOKENS = 8192
IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
PDF_TYPE = "application/pdf"
SKIPPED_PICTURE = "[a picture in a format Claude does not take was left out]"
MAX_RETRIES = 2  # for 429/529 before any output
RETRY_CAP = 20.0  # a longer wait is the person's call, not a silent pause
MODELS_PAGE_SIZE = 100
MAX_MODEL_PAGES = 20
NAMES_TIMEOUT = 3.0

# invalid_request_error texts that mean one of the pictures was refused.
PICTURE_MARKERS = (
    "could not process image",
    "image exceeds",
    "image dimensions exceed",
    "image.source",
    "does not match the provided media type",
    "image does not match",
)
CONTEXT_MARKERS = ("prompt is too long", "input length and `max_tokens` exceed context limit")


def anthropic_base_url(configured: str | None) -> str:
    """The API root without a trailing slash or `/v1` (the paths add it)."""
    url = (configured or "").strip().rstrip("/") or DEFAULT_BASE_URL
    return url[: -len("/v1")] if url.endswith("/v1") else url


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
    body: dict[str, Any] = {"model": request.model, "max_tokens": max_tokens}
    if system:
        body["system"] = "\n\n".join(system)
    body["messages"] = messages
    if request.tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": plain_json(t.parameters)}
            for t in request.tools
        ]
    body["stream"] = True
    return body


@dataclass
class _ToolBlock:
    id: str
    name: str
    given: dict[str, Any]  # the start's `input`: `{}` when the deltas will carry it
    parts: list[str] = field(default_factory=list)


@dataclass
class StreamState:
    """What one stream has said so far: open tool blocks, usage, stop reason."""

    provider: ProviderConfig
    model: str = ""
    tools: dict[int, _ToolBlock] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    stop_reason: str = ""
    finished: bool = False
    yielded: bool = False
    taken: int = 0  # tool input fragments and usage taken in, which show no event yet

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


def _malformed(provider: ProviderConfig, what: str, sample: str) -> MalformedResponse:
    server = endpoint_name(anthropic_base_url(provider.base_url))
    return MalformedResponse(
        f"The answer from {server} was not in Anthropic's format ({what}). Check that the "
        f"provider's address points at the Anthropic API (normally {DEFAULT_BASE_URL}).",
        provider_id=provider.id,
        detail=sample[:500],
    )


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
        raise _malformed(state.provider, what, data) from None
    if not isinstance(payload, dict):
        raise _malformed(state.provider, "an event that is not an object", data)
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
            state.tools[index].parts.append(str(delta.get("partial_json", "")))
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


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from `retry-after-ms` or `retry-after` (seconds or a date), if said."""
    lowered = {k.lower(): v for k, v in headers.items()}
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            seconds = float(lowered[name]) / scale
        except (KeyError, ValueError):
            continue
        if math.isfinite(seconds):
            return max(seconds, 0.0)
    try:
        parsed = email.utils.parsedate_tz(lowered.get("retry-after", ""))
        return max(email.utils.mktime_tz(parsed) - time.time(), 0.0) if parsed else None
    except (ValueError, OverflowError):
        return None  # a date no calendar has: as if none was given


def _error_fields(body_text: str) -> tuple[str, str]:
    """(error.type, error.message) of an Anthropic error body, or ("", "")."""
    try:
        obj = load_json(body_text)
    except ValueError:
        return "", ""
    error = obj.get("error") if isinstance(obj, dict) else None
    if not isinstance(error, dict):
        return "", ""
    return str(error.get("type") or ""), str(error.get("message") or "")


def classify_anthropic_error(
    status: int,
    body_text: str,
    headers: Mapping[str, str],
    provider: ProviderConfig,
    *,
    model: str = "",
) -> ProviderError:
    """Turn one Anthropic failure (an HTTP error, or status 200 for an `error` event) into ours."""
    kind, said = _error_fields(body_text)
    text = said.lower()
    where = "in the stream" if status == 200 else f"HTTP {status}"
    kw: dict[str, Any] = {"provider_id": provider.id, "detail": f"{where}: {body_text[:500]}"}
    name = model or "that model"
    if status == 413 or kind == "request_too_large":
        return BadRequest(
            "The request was too large for Anthropic (over 32 MB, mostly pictures and files). "
            "Send fewer or smaller pictures, or start a new chat.",
            **kw,
        )
    if status == 529 or kind == "overloaded_error":
        return RateLimited(
            "Anthropic is overloaded right now: try again in a few seconds.",
            retry_after=parse_retry_after(headers),
            **kw,
        )
    if status == 429 or kind == "rate_limit_error":
        wait = parse_retry_after(headers)
        when = f"in {wait:.0f} seconds" if wait is not None else "in a minute"
        return RateLimited(
            f"Anthropic's rate limit for this API key was reached: try again {when}.",
            retry_after=wait,
            **kw,
        )
    if not kind and body_text.lstrip().startswith("<") and status < 500:
        return _malformed(provider, "the address answered with a web page", body_text)
    if status == 401 or kind == "authentication_error":
        return KeyProblem(
            f"Anthropic refused the API key. Check {KEY_ENV}, or replace the key in "
            "Settings → Providers.",
            **kw,
        )
    if status == 403 or kind == "permission_error":
        return KeyProblem(
            f"This Anthropic API key is not allowed to use {name}. Check the key's workspace in "
            f"the Anthropic Console, or set another key ({KEY_ENV}, or Settings → Providers).",
            **kw,
        )
    if status == 402 or kind == "billing_error" or "credit balance" in text:
        return KeyProblem(
            "Anthropic refused the request for billing reasons (the credit balance may be too "
            "low). Add credits in the Anthropic Console, or use another key.",
            **kw,
        )
    if status == 404 or kind == "not_found_error":
        if text.startswith("model:") or (model and model in said):
            return ModelNotFound(
                f"Anthropic has no model called {name}, or this key can't use it. Pick one "
                "from the model list.",
                **kw,
            )
        return _malformed(provider, "the address has no Messages API", body_text)
    if any(marker in text for marker in CONTEXT_MARKERS):
        return ContextTooLong(
            f"The conversation no longer fits {name}'s context. Start a new chat, or remove "
            "earlier messages or pictures.",
            **kw,
        )
    if any(marker in text for marker in PICTURE_MARKERS):
        return PicturesRefused(
            "Anthropic could not use a picture in this message (it may be damaged, too large, "
            "or in a format Claude does not take). Describe it in words, or attach it again "
            "as PNG or JPEG.",
            **kw,
        )
    if status >= 500 or kind == "api_error" or (status == 200 and kind):
        return ServerError(
            f"Anthropic failed on its side ({where}). Try again in a moment.",
            **kw,
        )
    if not kind:
        return _malformed(provider, f"{where} without an Anthropic error", body_text)
    return BadRequest(
        f"Anthropic rejected the request ({where}, {kind}). This is a Sightline bug: please "
        "report it with the details.",
        **kw,
    )


class AnthropicWire:
    """Anthropic's Messages API for one provider, over one httpx.AsyncClient."""

    def __init__(
        self,
        provider: ProviderConfig,
        *,
        client: httpx.AsyncClient | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        retry_cap: float = RETRY_CAP,
        backoff: float = 1.0,
        idle_limit: float | None = None,
    ) -> None:
        self.provider = provider
        self.base_url = anthropic_base_url(provider.base_url)
        self.max_tokens = max_tokens
        self.retry_cap = retry_cap
        self.backoff = backoff
        self.page_size = MODELS_PAGE_SIZE
        self._timeout = httpx.Timeout(timeout, connect=min(timeout, 10.0))
        self._idle_limit = bounded.IDLE_LIMIT if idle_limit is None else idle_limit
        self._owns_client = client is None
        self._client = client or http_client(
            self.base_url,
            local=replace(provider, base_url=self.base_url).is_local,
            provider_id=provider.id,
        )

    async def aclose(self) -> None:
        """Close the wire's HTTP client (unless it was handed one)."""
        if self._owns_client:
            await self._client.aclose()

    async def list_models(self) -> list[ModelInfo]:
        """Every model the key may use (all pages), seeing unless the listing says otherwise."""
        self._require_key()
        models: list[ModelInfo] = []
        after = ""
        for _ in range(MAX_MODEL_PAGES):
            params = {"limit": str(self.page_size)} | ({"after_id": after} if after else {})
            page = await self._get_json("/v1/models", params)
            data = page.get("data") if isinstance(page, dict) else None
            if not isinstance(data, list):
                raise _malformed(self.provider, "no model list", json.dumps(page)[:500])
            models += [m for m in (self._model_info(entry) for entry in data) if m is not None]
            after = str(page.get("last_id") or "")
            if not page.get("has_more") or not after:
                break
        return models

    def _model_info(self, entry: Any) -> ModelInfo | None:
        name = entry.get("id") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name:
            raise _malformed(self.provider, "a model without an id", json.dumps(entry)[:500])
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

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Send the request to /v1/messages and yield its events as they arrive."""
        self._require_key()
        server = endpoint_name(self.base_url)
        deadline = IdleDeadline(self._idle_limit, server=server, provider_id=self.provider.id)
        async with aclosing(deadline.watch(self._attempts(request, deadline))) as events:
            async for event in events:
                yield event

    async def _attempts(
        self, request: ChatRequest, deadline: IdleDeadline
    ) -> AsyncGenerator[StreamEvent, None]:
        """The request, tried again after a rate limit or overload before any output."""
        body = build_messages_body(request, self.max_tokens)
        attempt = 0
        while True:
            state = StreamState(self.provider, model=request.model)
            try:
                async with aclosing(self._stream_once(body, state, deadline)) as events:
                    async for event in events:
                        state.yielded = True
                        yield event
                return
            except RateLimited as exc:
                delay = self._retry_delay(exc, attempt)
                if state.yielded or delay is None:
                    raise
                await asyncio.sleep(delay)
            attempt += 1

    def _retry_delay(self, exc: RateLimited, attempt: int) -> float | None:
        """How long to wait before trying again, or None when it shouldn't be retried."""
        if attempt >= MAX_RETRIES:
            return None
        wait = exc.retry_after if exc.retry_after is not None else self.backoff * 2**attempt
        return wait if wait <= self.retry_cap else None

    async def _stream_once(
        self, body: dict[str, Any], state: StreamState, deadline: IdleDeadline
    ) -> AsyncGenerator[StreamEvent, None]:
        url = f"{self.base_url}/v1/messages"
        headers = self._headers() | {"accept": "text/event-stream"}
        pid = self.provider.id
        try:
            async with self._client.stream(
                "POST", url, json=body, headers=headers, timeout=self._timeout
            ) as response:
                if response.status_code != 200:
                    raw = await read_error(response, provider_id=pid)
                    raise await self._status_error(
                        response.status_code, response.headers, raw, state.model
                    )
                if "text/event-stream" not in response.headers.get("content-type", ""):
                    what = "an answer that is not an event stream"
                    # Read for its words only: an error body or a web page, never an answer.
                    raw = await read_body(response, ERROR_BODY_CAP, what, provider_id=pid)
                    raise self._not_the_api(raw, what)
                async with aclosing(sse_events(response, provider_id=pid)) as events:
                    async for sse in events:
                        taken = state.taken
                        parsed = parse_event(sse.event, sse.data, state)
                        if state.taken != taken:
                            deadline.progress()
                        for event in parsed:
                            yield event
                        if state.finished:
                            return
                raise self._cut_off("the stream ended without message_stop")
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc

    # -- the edge: every failure becomes one of our errors here ------------------

    def _require_key(self) -> None:
        if not self.provider.api_key:
            raise KeyProblem(
                f"Anthropic needs an API key: set {KEY_ENV}, or add it in Settings → Providers",
                provider_id=self.provider.id,
            )

    def _headers(self) -> dict[str, str]:
        return {
            "x-api-key": self.provider.api_key,
            "anthropic-version": API_VERSION,
            "content-type": "application/json",
        }

    async def _get_json(
        self, path: str, params: dict[str, str], timeout: float | None = None
    ) -> Any:
        try:
            response = await fetch(
                self._client,
                "GET",
                f"{self.base_url}{path}",
                cap=LISTING_CAP,
                what="the model list",
                provider_id=self.provider.id,
                params=params,
                headers=self._headers(),
                timeout=timeout or self._timeout,
            )
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        if response.status_code != 200:
            raise await self._status_error(
                response.status_code, response.headers, response.text, ""
            )
        try:
            return response.json()
        except ValueError:
            raise self._not_the_api(response.text, "an answer that is not JSON") from None

    def _not_the_api(self, raw: str, what: str) -> ProviderError:
        """A 200 that isn't what the API sends: an error body, a web page, or something else."""
        if _error_fields(raw)[0]:
            return classify_anthropic_error(200, raw, {}, self.provider)
        if raw.lstrip().startswith("<"):
            what = "the address answered with a web page"
        return _malformed(self.provider, what, raw)

    async def _status_error(
        self, status: int, headers: Mapping[str, str], raw: str, model: str
    ) -> ProviderError:
        error = classify_anthropic_error(status, raw, headers, self.provider, model=model)
        if isinstance(error, ModelNotFound):
            error.available = await self._names_quietly()
        return error

    async def _names_quietly(self) -> tuple[str, ...]:
        """The first page of model names, or () when it can't be had quickly."""
        try:
            async with asyncio.timeout(NAMES_TIMEOUT):  # a trickle of bytes is no quick answer
                page = await self._get_json("/v1/models", {"limit": "1000"}, NAMES_TIMEOUT)
            return tuple(m["id"] for m in page["data"] if isinstance(m.get("id"), str))
        except (ProviderError, TimeoutError, KeyError, TypeError, AttributeError):
            return ()

    def _cut_off(self, detail: str) -> ServerError:
        return cut_off(
            replace(self.provider, base_url=self.base_url), preset_for("anthropic"), detail
        )

    def _transport_error(self, exc: httpx.HTTPError) -> ProviderError:
        return translate_transport(
            replace(self.provider, base_url=self.base_url), exc, preset=preset_for("anthropic")
        )
