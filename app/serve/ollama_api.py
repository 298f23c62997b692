"""Ollama's `POST /api/chat`, `GET /api/tags`, `POST /api/show` and `GET /api/version`, as
the official `ollama` client reads them: NDJSON or one object, errors as `{"error": "..."}`,
and what Sightline did as `sightline_notices` on the last object (a field the client
drops, so the unstreamed answer also carries the `X-Sightline-Notices` header).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncGenerator
from contextlib import aclosing
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from app.serve.bodies import json_object
from app.serve.chat_route import ChatShapes, answer_chat
from app.serve.errors import ClientError
from app.serve.ollama_request import OllamaAsk, chat_request
from app.serve.openai_api import NOTICES_HEADER
from app.serve.served import Finished, Said, Served, Words, notice_json
from app.serve.streaming import WatchedStream
from routing.router import AUTO, is_auto
from routing.wires.payload import plain_json

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

# The version of Ollama's API whose shapes are served (clients check it before using a
# feature); Sightline's own version is beside it.
API_VERSION = "0.12.0"
NOT_FOUND = 'model "{name}" not found, try pulling it first'


def error_response(error: ClientError) -> Response:
    """An error as Ollama answers it."""
    from starlette.responses import JSONResponse

    return JSONResponse({"error": error.message}, status_code=error.status)


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


async def version() -> Response:
    """`GET /api/version`."""
    from starlette.responses import JSONResponse

    from app.version import installed_version

    return JSONResponse({"version": API_VERSION, "sightline": installed_version()})


def _entry(ref: str) -> dict[str, Any]:
    """One model as `/api/tags` lists it, named by its Sightline ref."""
    provider = "sightline" if is_auto(ref) else ref.partition(":")[0]
    return {
        "name": ref,
        "model": ref,
        "modified_at": _now(),
        "size": 0,
        "digest": hashlib.sha256(ref.encode()).hexdigest(),
        "details": {
            "parent_model": "",
            "format": "",
            "family": provider,
            "families": [provider],
            "parameter_size": "",
            "quantization_level": "",
        },
    }


async def tags(served: Served) -> Response:
    """`GET /api/tags`: `auto`, then every ready model by its Sightline ref."""
    from starlette.responses import JSONResponse

    refs = await served.refs()
    return JSONResponse({"models": [_entry(ref) for ref in [AUTO, *refs]]})


async def show(request: Request, served: Served, allow_tools: bool) -> Response:
    """`POST /api/show`: what a model does through Sightline. Every model takes pictures here
    (a blind one has them described), so `vision` is always among its capabilities: a
    client that checks for it before sending a picture sends it. The model's own sight,
    as Sightline judges it, is in `sightline`: whether it sees (None: nobody says, or
    `auto`), who says so (its listing, its provider's rule, a refusal learned, a sight
    check, the person's mark), and whether it runs on this computer."""
    from starlette.responses import JSONResponse

    try:
        body = await json_object(request)
        name = body.get("model") or body.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ClientError(400, "model is required")
        name = name.strip()
        await served.check_model(name)
    except ClientError as error:
        if error.status == 404:
            return JSONResponse({"error": f"model '{name}' not found"}, status_code=404)
        return error_response(error)
    info = None if is_auto(name) else served.catalogue.find(name)
    capabilities = ["completion", "vision"]
    if allow_tools and info is not None and info.tools:
        capabilities.append("tools")
    entry = _entry(name)
    model_info: dict[str, Any] = {"general.architecture": entry["details"]["family"]}
    if info is not None and info.context_length:
        model_info[f"{entry['details']['family']}.context_length"] = info.context_length
    sightline = {
        "sees": None if info is None else info.sees,
        "from": None if info is None else str(info.sight_from),
        "local": None if info is None else info.local,
    }
    return JSONResponse(
        {
            "modelfile": "",
            "parameters": "",
            "template": "",
            "details": entry["details"],
            "model_info": model_info,
            "capabilities": capabilities,
            "modified_at": entry["modified_at"],
            "sightline": sightline,
        }
    )


async def chat(request: Request, served: Served, allow_tools: bool) -> Response:
    """`POST /api/chat`: one turn, streamed as NDJSON or answered whole."""
    return await answer_chat(request, served, allow_tools, _SHAPES)


def _not_found(name: str) -> ClientError:
    """A model nobody has, in Ollama's words."""
    return ClientError(404, NOT_FOUND.format(name=name), code="model_not_found")


def _streamed(ask: OllamaAsk, said: AsyncGenerator[Said, None]) -> Response:
    return WatchedStream(_ndjson(ask, said), "application/x-ndjson", {})  # type: ignore[return-value]


def _answered(ask: OllamaAsk, text: str, finished: Finished) -> Response:
    from starlette.responses import JSONResponse

    notices = notice_json(finished.notices)
    last = _final(finished, notices)
    last["message"] = _message(text, finished)
    header = json.dumps(notices, ensure_ascii=True)
    return JSONResponse(last, headers={NOTICES_HEADER: header})


_SHAPES = ChatShapes(chat_request, error_response, _streamed, _answered, _not_found)


def _final(finished: Finished, notices: list[dict[str, str]]) -> dict[str, Any]:
    """The last object: done, why, what it cost and how long it took, in nanoseconds as
    Ollama counts them. Measured here: prompt_eval_duration is the time to the first words
    (any pictures described included), eval_duration the answering model's server's own
    time where it said one, else the time from the first words to the end; the total is
    never less than those two. Nothing is loaded here, so load_duration is 0."""
    timing = finished.timing
    reading, answering = _ns(timing.to_first_word), _ns(timing.answering)
    return {
        "model": finished.model,
        "created_at": _now(),
        "message": {"role": "assistant", "content": ""},
        "done": True,
        # Ollama says "stop" for an answer that calls tools, as for any other.
        "done_reason": "length" if finished.reason == "length" else "stop",
        "total_duration": max(_ns(timing.total), reading + answering),
        "load_duration": 0,
        "prompt_eval_count": finished.usage.input_tokens,
        "prompt_eval_duration": reading,
        "eval_count": finished.usage.output_tokens,
        "eval_duration": answering,
        "sightline_notices": notices,
    }


def _message(text: str, finished: Finished) -> dict[str, Any]:
    """The answer's message: its words, and the client's tools it calls, their arguments
    an object (Ollama's shape, which its client reads)."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if finished.calls:
        message["tool_calls"] = [
            {"function": {"name": call.name, "arguments": plain_json(call.arguments)}}
            for call in finished.calls
        ]
    return message


def _ns(seconds: float) -> int:
    return round(seconds * 1e9)


async def _ndjson(ask: OllamaAsk, said: AsyncGenerator[Said, None]) -> AsyncGenerator[bytes, None]:
    """The streamed answer as Ollama's NDJSON: a line per piece, then the final line."""
    model = ask.asked.model
    async with aclosing(said):
        async for item in said:
            if isinstance(item, Words) and item.text:
                message = {"role": "assistant", "content": item.text}
                yield _line(
                    {"model": model, "created_at": _now(), "message": message, "done": False}
                )
            elif isinstance(item, Finished):
                notices = notice_json(item.notices)
                if item.error is not None:  # after words were sent: Ollama's in-stream error
                    yield _line({"error": item.error.message, "sightline_notices": notices})
                    continue
                if item.calls:  # as Ollama streams them: a line of their own, before the last
                    yield _line(
                        {
                            "model": model,
                            "created_at": _now(),
                            "message": _message("", item),
                            "done": False,
                        }
                    )
                yield _line(_final(item, notices))


def _line(data: dict[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode() + b"\n"
