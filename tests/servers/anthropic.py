"""A loopback server that speaks Anthropic's Messages API, for tests and for trying the app.

Run it alone with `python -m tests.servers.anthropic --port 8765` and point an
Anthropic provider's base_url at the address it prints (key: `sk-ant-test`).
Shapes and error texts follow Anthropic's streaming and errors docs and the
`anthropic` SDK's types; every request is recorded with its headers.
"""

from __future__ import annotations

import base64
import binascii
import secrets
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from tests.servers import hostile, loopback
from tests.servers.loopback import LoopbackHandler, LoopbackServer, ScriptedReply, dumps, pieces

API_VERSIONS = ("2023-06-01", "2023-01-01")
DEFAULT_KEY = "sk-ant-test"
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
MEDIA_TYPE_ERROR = (
    "messages.{m}.content.{c}.image.source.base64.media_type: Input should be "
    "'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"
)
# Magic bytes of the formats the API takes; anything else "Could not process image".
_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a")
# A base64 document block's media type is the literal "application/pdf" (the
# pydantic wording of a literal mismatch, as for the image media type above).
PDF_MEDIA_TYPE_ERROR = (
    "messages.{m}.content.{c}.document.source.base64.media_type: Input should be 'application/pdf'"
)


# Anthropic's words for a field a model doesn't take: Claude Opus 4.7 on for `temperature`,
# and the request type's validation for a field it lacks.
DEPRECATED = "`{field}` is deprecated for this model."
EXTRA_INPUT = "{field}: Extra inputs are not permitted"


@dataclass(frozen=True)
class FakeModel:
    """One model as GET /v1/models lists it, and the fields it refuses: (field, one of the
    wordings above)."""

    id: str
    display_name: str
    created_at: str = "2025-05-14T00:00:00Z"
    extra: dict = field(default_factory=dict)  # newer fields: capabilities, lifecycle, ...
    refuses: tuple[tuple[str, str], ...] = ()


DEFAULT_MODELS = (
    FakeModel("claude-opus-4-5-20251101", "Claude Opus 4.5", "2025-11-24T00:00:00Z"),
    FakeModel("claude-haiku-4-5-20251001", "Claude Haiku 4.5", "2025-10-15T00:00:00Z"),
    FakeModel("claude-sonnet-4-5-20250929", "Claude Sonnet 4.5", "2025-09-29T00:00:00Z"),
    FakeModel("claude-sonnet-4-20250514", "Claude Sonnet 4", "2025-05-22T00:00:00Z"),
    FakeModel("claude-3-5-haiku-20241022", "Claude Haiku 3.5", "2024-10-22T00:00:00Z"),
)


@dataclass
class Reply(ScriptedReply):
    """How the next POST /v1/messages answers (tool calls: {"id"?, "name", "input"})."""

    chunk_chars: int = 5
    json_chunk_chars: int = 6  # each tool input is split into fragments this long
    midstream_error: dict | None = None  # {"type", "message"}: an `error` event after the text
    stop_reason: str | None = None  # default: tool_use when tool_calls, else end_turn
    omit_stop: bool = False  # end the body cleanly but never send message_stop
    input_tokens: int = 25
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    output_tokens: int = 15


# Anthropic's stream for the hostile answers: message_start, a line of a text delta,
# its keep-alives (ping events, comments, blank lines).
HOSTILE_SHAPE = hostile.sse(
    opening=b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1",'
    b'"type":"message","role":"assistant","content":[],"usage":{"input_tokens":5}}}\n\n',
    line_start=b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
    b'"delta":{"type":"text_delta","text":"',
    keepalive=(b'event: ping\ndata: {"type": "ping"}\n\n', b": keep-alive\n\n", b"\n"),
    line_end=b'"}}\n\n',
)


def error_body(kind: str, message: str) -> dict[str, Any]:
    """An error body exactly as Anthropic sends it."""
    return {
        "type": "error",
        "error": {"type": kind, "message": message},
        "request_id": f"req_011C{secrets.token_hex(10)}",
    }


def error_reply(status: int, kind: str, message: str, **headers: str) -> Reply:
    """A reply that fails with Anthropic's error body (headers: `retry_after="3"` etc.)."""
    named = {k.replace("_", "-"): v for k, v in headers.items()}
    return Reply(status=status, body=error_body(kind, message), headers=named)


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {dumps(data)}\n\n".encode()


def stream_events(model: str, reply: Reply) -> list[bytes]:
    """The SSE events of one streamed answer, in Anthropic's order."""
    usage = {
        "input_tokens": reply.input_tokens,
        "cache_creation_input_tokens": reply.cache_creation_input_tokens,
        "cache_read_input_tokens": reply.cache_read_input_tokens,
        "output_tokens": 1,
    }
    message: dict[str, Any] = {
        "id": f"msg_01{secrets.token_hex(11)}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    events = [_sse("message_start", {"type": "message_start", "message": message})]
    index = 0
    if reply.text:
        start: dict[str, Any] = {"type": "text", "text": ""}
        events.append(_sse("content_block_start", _block_start(index, start)))
        events.append(_sse("ping", {"type": "ping"}))
        for piece in pieces(reply.text, reply.chunk_chars):
            events.append(_sse("content_block_delta", _delta(index, "text_delta", text=piece)))
        events.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    if reply.midstream_error is not None:
        events.append(_sse("error", {"type": "error", "error": reply.midstream_error}))
        return events
    for n, call in enumerate(reply.tool_calls):
        call_id = call.get("id") or f"toolu_01{n:02d}{secrets.token_hex(10)}"
        start = {"type": "tool_use", "id": call_id, "name": call["name"], "input": {}}
        events.append(_sse("content_block_start", _block_start(index, start)))
        fragments = ["", *pieces(dumps(call.get("input", {})), reply.json_chunk_chars)]
        for piece in fragments:  # the API opens every tool input with an empty fragment
            events.append(
                _sse("content_block_delta", _delta(index, "input_json_delta", partial_json=piece))
            )
        events.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    stop = reply.stop_reason or ("tool_use" if reply.tool_calls else "end_turn")
    events.append(
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": reply.output_tokens},
            },
        )
    )
    if not reply.omit_stop:
        events.append(_sse("message_stop", {"type": "message_stop"}))
    return events


def _block_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def _delta(index: int, kind: str, **fields: str) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": {"type": kind, **fields}}


def check_body(
    body: dict[str, Any], known: set[str], refused: tuple[tuple[str, str], ...] = ()
) -> tuple[int, dict[str, Any]] | None:
    """The API's answer to a Messages body it rejects, or None when it would accept it
    (`refused`: the model's fields it doesn't take, with the words it says so in)."""
    if not isinstance(body.get("model"), str) or not body["model"]:
        return 400, error_body("invalid_request_error", "model: Field required")
    if not isinstance(body.get("max_tokens"), int):
        return 400, error_body("invalid_request_error", "max_tokens: Field required")
    messages = body.get("messages")
    if not isinstance(messages, list):
        return 400, error_body("invalid_request_error", "messages: Field required")
    for m, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "system":
            return 400, error_body(
                "invalid_request_error",
                'messages: Unexpected role "system". The Messages API accepts a top-level '
                '`system` parameter, not "system" as an input message role.',
            )
        if role not in ("user", "assistant"):
            return 400, error_body(
                "invalid_request_error", f"messages.{m}.role: Input should be 'user' or 'assistant'"
            )
        content = message.get("content")
        if isinstance(content, str):
            continue
        for c, block in enumerate(content or []):
            if problem := _check_block(block, m, c):
                return 400, error_body("invalid_request_error", problem)
    if body["model"] not in known:
        return 404, error_body("not_found_error", f"model: {body['model']}")
    for name, words in refused:
        if name in body:
            return 400, error_body("invalid_request_error", words.format(field=name))
    return None


def _check_block(block: Any, m: int, c: int) -> str | None:
    kind = block.get("type") if isinstance(block, dict) else None
    if kind == "text" and not block.get("text"):
        return "messages: text content blocks must be non-empty"
    if kind == "tool_result" and isinstance(block.get("content"), list):
        for inner in block["content"]:
            if problem := _check_block(inner, m, c):
                return problem
    if kind == "document":
        source = block.get("source") or {}
        if source.get("type") == "base64" and source.get("media_type") != "application/pdf":
            return PDF_MEDIA_TYPE_ERROR.format(m=m, c=c)
        return None
    if kind != "image":
        return None
    source = block.get("source") or {}
    if source.get("media_type") not in IMAGE_TYPES:
        return MEDIA_TYPE_ERROR.format(m=m, c=c)
    try:
        data = base64.b64decode(source.get("data", ""), validate=True)
    except (binascii.Error, ValueError):
        return "Could not process image"
    webp = data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    if not (webp or any(data.startswith(magic) for magic in _MAGIC)):
        return "Could not process image"
    return None


class _Handler(LoopbackHandler):
    """The Messages and Models routes, behind the key and version checks."""

    def extra_headers(self) -> dict[str, str]:
        return {"request-id": f"req_011C{secrets.token_hex(10)}"}

    def internal_error(self) -> Any:
        return error_body("api_error", "Internal server error")

    json_type = "application/json"

    def _auth_problem(self) -> tuple[int, dict[str, Any]] | None:
        key = self.headers.get("x-api-key")
        if not key:
            return 401, error_body("authentication_error", "x-api-key header is required")
        if key != self.owner.api_key:
            return 401, error_body("authentication_error", "invalid x-api-key")
        version = self.headers.get("anthropic-version")
        if not version:
            return 400, error_body("invalid_request_error", "anthropic-version: header is required")
        if version not in API_VERSIONS:
            return 400, error_body(
                "invalid_request_error", f'anthropic-version: "{version}" is not a valid version'
            )
        return None

    def _known(self) -> set[str]:
        return {m.id for m in self.owner.models}

    def _refused(self, body: dict[str, Any]) -> tuple[tuple[str, str], ...]:
        model = next((m for m in self.owner.models if m.id == body.get("model")), None)
        return model.refuses if model is not None else ()

    def route(self) -> None:
        wanted = "/v1/models" if self.command == "GET" else "/v1/messages"
        body = self.body
        if self.route_path != wanted:
            self.json(404, error_body("not_found_error", "Not Found"))
        elif problem := self._auth_problem():
            self.json(*problem)
        elif self.command == "GET":
            self.json(200, self.owner.models_page(parse_qs(self.query)))
        elif not isinstance(body, dict):
            self.json(400, error_body("invalid_request_error", "There was an issue with the JSON"))
        elif problem := check_body(body, self._known(), self._refused(body)):
            self.json(*problem)
        else:
            reply = self.owner.next_reply() or Reply(text=_echo(body["messages"]))
            if not self.answered_otherwise(reply, HOSTILE_SHAPE):
                # Looked up here, so a test can swap the encoder for one that breaks a stream.
                events = stream_events(body["model"], reply)
                headers = {"Cache-Control": "no-cache", **reply.headers}
                self.stream("text/event-stream; charset=utf-8", events, reply, headers)


def _echo(messages: list[dict]) -> str:
    last: dict = next((m for m in reversed(messages) if m.get("role") == "user"), {})
    content = last.get("content", "")
    if isinstance(content, str):
        return f"You said: {content}"
    words = " ".join(b.get("text", "") for b in content if b.get("type") == "text")
    pictures = sum(1 for b in content if b.get("type") == "image")
    documents = [b.get("title", "untitled") for b in content if b.get("type") == "document"]
    return (
        f"You said: {words}"
        + (f" (I see {pictures} pictures)" if pictures else "")
        + (f" (I read {', '.join(documents)})" if documents else "")
    )


class FakeAnthropic(LoopbackServer):
    """Anthropic's Messages and Models API on 127.0.0.1, served from a daemon thread."""

    handler_class = _Handler
    name = "fake-anthropic"
    description = "A fake Anthropic Messages API on 127.0.0.1."

    def __init__(
        self, models: list[FakeModel] | None = None, *, api_key: str = DEFAULT_KEY, port: int = 0
    ) -> None:
        self.models = list(models if models is not None else DEFAULT_MODELS)
        self.api_key = api_key
        super().__init__(port)

    @property
    def requests(self) -> list[loopback.Recorded]:
        """Every request, in order."""
        return self.received()

    def message_requests(self) -> list[loopback.Recorded]:
        """Every POST (to /v1/messages, or where it went instead), in order."""
        return self.received(lambda r: r.method == "POST")

    def is_chat(self, request: loopback.Recorded) -> bool:
        path = request.path.partition("?")[0]
        return (
            request.method == "POST" and path == "/v1/messages" and isinstance(request.body, dict)
        )

    def models_page(self, query: dict[str, list[str]]) -> dict[str, Any]:
        """One page of GET /v1/models: newest first, `limit` 1-1000 (default 20)."""
        limit = max(1, min(int((query.get("limit") or ["20"])[0]), 1000))
        ids = [m.id for m in self.models]
        start, end = 0, len(ids)
        if after := (query.get("after_id") or [""])[0]:
            start = ids.index(after) + 1 if after in ids else len(ids)
        before = (query.get("before_id") or [""])[0]
        if before:
            end = ids.index(before) if before in ids else 0
            start = max(start, end - limit)
        page = self.models[start : min(end, start + limit)]
        # `has_more` looks in the direction asked: backwards when paging with before_id.
        more = start > 0 if before else start + len(page) < end
        data = [
            {
                "type": "model",
                "id": m.id,
                "display_name": m.display_name,
                "created_at": m.created_at,
                **m.extra,
            }
            for m in page
        ]
        return {
            "data": data,
            "has_more": more,
            "first_id": page[0].id if page else None,
            "last_id": page[-1].id if page else None,
        }


if __name__ == "__main__":
    raise SystemExit(FakeAnthropic.main())
