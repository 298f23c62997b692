"""OpenAI's `GET /v1/models` and `POST /v1/chat/completions`, as the official `openai` client
reads them: JSON and SSE in OpenAI's own shapes, errors as `{"error": {message, type,
param, code}}`, and what Sightline did beside the answer as `sightline_notices` (which the
client keeps as an extra field) and, unstreamed, the `X-Sightline-Notices` header.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from app.serve.chat_route import ChatShapes, answer_chat
from app.serve.errors import ClientError
from app.serve.openai_request import ChatAsk, chat_request
from app.serve.served import Finished, Said, Served, Words, notice_json
from app.serve.streaming import WatchedStream
from routing.router import AUTO
from routing.transcript import ToolCall
from routing.wires.payload import plain_json

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

NOTICES_HEADER = "X-Sightline-Notices"


def error_body(error: ClientError) -> dict[str, Any]:
    """OpenAI's error body."""
    return {
        "error": {
            "message": error.message,
            "type": error.type,
            "param": error.param,
            "code": error.code,
        }
    }


def error_response(error: ClientError) -> Response:
    """An error as OpenAI answers it."""
    from starlette.responses import JSONResponse

    return JSONResponse(error_body(error), status_code=error.status)


async def models(served: Served) -> Response:
    """`GET /v1/models`: `auto`, then every ready model by its Sightline ref."""
    from starlette.responses import JSONResponse

    refs = await served.refs()
    data = [_model(AUTO, "sightline")] + [_model(ref, ref.partition(":")[0]) for ref in refs]
    return JSONResponse({"object": "list", "data": data})


def _model(ref: str, owner: str) -> dict[str, Any]:
    return {"id": ref, "object": "model", "created": 0, "owned_by": owner}


async def chat_completions(request: Request, served: Served, allow_tools: bool) -> Response:
    """`POST /v1/chat/completions`: one turn, streamed as SSE or answered whole."""
    return await answer_chat(request, served, allow_tools, _SHAPES)


def _streamed(ask: ChatAsk, said: AsyncGenerator[Said, None]) -> Response:
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return WatchedStream(_sse(ask, said), "text/event-stream; charset=utf-8", headers)  # type: ignore[return-value]


def _answered(ask: ChatAsk, text: str, finished: Finished) -> Response:
    from starlette.responses import JSONResponse

    notices = notice_json(finished.notices)
    header = json.dumps(notices, ensure_ascii=True)
    return JSONResponse(_completion(ask, text, finished, notices), headers={NOTICES_HEADER: header})


_SHAPES = ChatShapes(chat_request, error_response, _streamed, _answered)


def _completion(
    ask: ChatAsk, text: str, finished: Finished, notices: list[dict[str, str]]
) -> dict[str, Any]:
    """The non-streaming answer, as `ChatCompletion`."""
    return {
        "id": _completion_id(),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": finished.model,
        "choices": [
            {
                "index": 0,
                "message": _message(text, finished),
                "logprobs": None,
                "finish_reason": finished.reason,
            }
        ],
        "usage": _usage(finished),
        "system_fingerprint": None,
        "sightline_notices": notices,
    }


def _message(text: str, finished: Finished) -> dict[str, Any]:
    """The answer's message: its words, and the client's tools it calls (content null when
    it only calls them, as OpenAI answers)."""
    message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None}
    if finished.calls:
        message["content"] = text or None
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": _arguments(call)},
            }
            for call in finished.calls
        ]
    return message


def _arguments(call: ToolCall) -> str:
    """A call's arguments as OpenAI sends them: JSON text."""
    return json.dumps(plain_json(call.arguments), ensure_ascii=False)


def _usage(finished: Finished) -> dict[str, int]:
    usage = finished.usage
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
    }


def _completion_id() -> str:
    return "chatcmpl-" + secrets.token_hex(12)


async def _sse(ask: ChatAsk, said: AsyncGenerator[Said, None]) -> AsyncGenerator[bytes, None]:
    """The streamed answer as OpenAI's SSE: a role chunk, content chunks, the finishing chunk
    (with `sightline_notices`), the usage chunk when asked, then `[DONE]`."""
    completion_id, created = _completion_id(), int(time.time())
    model = ask.asked.model
    extra: dict[str, Any] = {"usage": None} if ask.include_usage else {}

    def chunk(delta: dict[str, Any] | None, reason: str | None = None, **more: Any) -> bytes:
        """A chunk with one choice carrying `delta`; None: no choice (the usage chunk)."""
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": reason}
        data = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "system_fingerprint": None,
            "choices": [] if delta is None else [choice],
            **extra,
            **more,
        }
        return _event(data)

    async with aclosing(said):
        yield chunk({"role": "assistant", "content": "", "refusal": None})
        async for item in said:
            if isinstance(item, Words) and item.text:
                yield chunk({"content": item.text})
            elif isinstance(item, Finished):
                model = item.model
                notices = notice_json(item.notices)
                if item.error is not None:  # after words were sent: OpenAI's in-stream error
                    yield _event({**error_body(item.error), "sightline_notices": notices})
                    break
                for index, call in enumerate(item.calls):
                    # As OpenAI streams a call: its id and name first, then its arguments.
                    opening = {"name": call.name, "arguments": ""}
                    yield chunk(_call_delta(index, id=call.id, type="function", function=opening))
                    yield chunk(_call_delta(index, function={"arguments": _arguments(call)}))
                yield chunk({}, item.reason, sightline_notices=notices)
                if ask.include_usage:
                    yield chunk(None, usage=_usage(item))
        yield b"data: [DONE]\n\n"


def _call_delta(index: int, **fields: Any) -> dict[str, Any]:
    """A delta carrying part of the `index`th tool call."""
    return {"tool_calls": [{"index": index, **fields}]}


def _event(data: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"
