"""A loopback server that speaks the OpenAI Responses API, for tests and for trying the app.

Run it alone with `python -m tests.servers.openai_responses --port 8090` and point an
`openai` (or `custom` with `api = "responses"`) provider at the address it prints.
Requests are checked against the shapes of openai-python's `types/responses/` (an
unknown field, a wrong part or a schema strict mode refuses is a 400 in the API's own
words); streams are the API's named SSE events with sequence numbers; a model that
reasons gives an encrypted reasoning item and wants it back whole (store is false).
"""

from __future__ import annotations

import argparse
import base64
import binascii
import itertools
import secrets
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, NoReturn, Self

from tests.servers import hostile
from tests.servers.key_echo import echoing
from tests.servers.loopback import LoopbackHandler, LoopbackServer, Recorded, ScriptedReply, dumps
from tests.servers.loopback import pieces as split

CREATED = 1_735_689_600
INCLUDABLE = (
    "reasoning.encrypted_content",
    "message.output_text.logprobs",
    "file_search_call.results",
    "message.input_image.image_url",
)
TOP_LEVEL = frozenset(
    {
        "model",
        "input",
        "instructions",
        "tools",
        "stream",
        "store",
        "include",
        "temperature",
        "max_output_tokens",
        "previous_response_id",
        "reasoning",
        "parallel_tool_calls",
        "tool_choice",
        "top_p",
        "metadata",
        "text",
        "truncation",
        "user",
        # The API takes these too (Codex sends both): a cache key and the turn's metadata.
        "prompt_cache_key",
        "client_metadata",
    }
)
DETAILS = ("low", "high", "auto", "original")
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
# Servers whose /v1/responses takes a tool's output as a string only refuse a list with
# their validator's words (the Go server's here, as an Ollama before list outputs would).
WORDS_ONLY_REFUSAL = (
    "json: cannot unmarshal array into Go struct field ResponsesFunctionCallOutput"
    ".input.output of type string"
)


@dataclass
class ResponsesModel:
    """One model the server offers: whether it sees and whether it reasons."""

    name: str
    sees: bool = True
    reasons: bool = False  # gives reasoning items (and takes reasoning.encrypted_content)
    refuses: tuple[str, ...] = ()  # fields it doesn't take, as OpenAI's reasoning models


DEFAULT_MODELS = (
    ResponsesModel("gpt-5-mini", reasons=True),
    ResponsesModel("gpt-4.1-mini"),
    ResponsesModel("text-only-7b", sees=False),
    ResponsesModel("text-embedding-3-small", sees=False),
)


@dataclass
class Reply(ScriptedReply):
    """How the next request answers (default: an echo). Tool calls: {call_id?, name,
    arguments}; `reasoning`: a reasoning item first, with a summary of these words."""

    chunk_chars: int = 4
    args_chunk: int = 7
    reasoning: str | None = None
    midstream_error: dict[str, Any] | None = None  # a standalone `error` event after the text
    failed: dict[str, Any] | None = None  # response.failed with this {code, message}
    incomplete: str | None = None  # response.incomplete with this reason
    end: bool = True  # send the final response.completed (or failed, incomplete)
    raw_events: list[str] = field(default_factory=list)  # verbatim `data:` payloads after text
    input_tokens: int = 21
    output_tokens: int = 9


def error_body(message: str, code: str | None = None, param: str | None = None) -> dict[str, Any]:
    """An error body exactly as OpenAI sends it."""
    return {
        "error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    }


def error_reply(status: int, message: str, code: str | None = None, **headers: str) -> Reply:
    """A reply that fails with OpenAI's error body (headers: `retry_after="3"` etc.)."""
    named = {k.replace("_", "-"): v for k, v in headers.items()}
    return Reply(status=status, body=error_body(message, code), headers=named)


# The stream for the hostile answers: response.created, a line of a text delta, keep-alives.
HOSTILE_SHAPE = hostile.sse(
    opening=b'event: response.created\ndata: {"type":"response.created","sequence_number":0,'
    b'"response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}}\n\n',
    line_start=b'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",'
    b'"item_id":"msg_1","output_index":0,"content_index":0,"delta":"',
    # OpenAI's own heartbeat is an event of its own (`keepalive`), besides comments.
    keepalive=(
        b": keep-alive\n\n",
        b"\n",
        b'event: keepalive\ndata: {"type":"keepalive","sequence_number":1}\n\n',
    ),
    line_end=b'"}\n\n',
)


# -- checking a request ----------------------------------------------------------


class Refused(Exception):
    """The API's answer to a body it rejects."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        error = body["error"]
        super().__init__(error["message"] if isinstance(error, dict) else error)
        self.status, self.body = status, body


def _refuse(
    message: str, param: str | None = None, code: str | None = None, status: int = 400
) -> NoReturn:
    raise Refused(status, error_body(message, code, param))


def _check_image(part: dict[str, Any], where: str, *, detail_required: bool) -> None:
    # `detail` is required in message content; a tool output's picture may leave it out.
    if part.get("detail") not in DETAILS and (detail_required or "detail" in part):
        _refuse(f"Missing required parameter: '{where}.detail'.", f"{where}.detail")
    url = part.get("image_url")
    if not isinstance(url, str) or not url:
        _refuse(f"Missing required parameter: '{where}.image_url'.", f"{where}.image_url")
    head, _, data = url.partition(",")
    if not head.startswith("data:") or not head.endswith(";base64"):
        message = "Invalid 'image_url': expected a base64-encoded data URL."
        _refuse(message, where, "invalid_image_url")
    if head[5:-7] not in IMAGE_TYPES:
        _refuse(
            "You uploaded an unsupported image. Please make sure your image has of one the "
            "following formats: ['png', 'jpeg', 'gif', 'webp'].",
            where,
            "unsupported_image_media_type",
        )
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        _refuse("Invalid base64 image_url.", where, "invalid_base64_image")


def _check_parts(parts: Any, where: str, allowed: tuple[str, ...]) -> None:
    if isinstance(parts, str):
        return
    if not isinstance(parts, list) or not parts:
        _refuse(f"Invalid type for '{where}': expected a string or an array.", where)
    for n, part in enumerate(parts):
        at = f"{where}[{n}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if kind not in allowed:
            _refuse(f"Invalid value: '{kind}'. Supported values are: {allowed}.", f"{at}.type")
        if kind == "input_text" and not isinstance(part.get("text"), str):
            _refuse(f"Missing required parameter: '{at}.text'.", f"{at}.text")
        if kind == "input_image":
            _check_image(part, at, detail_required=not where.endswith("output"))
        if kind == "input_file" and not (part.get("filename") and part.get("file_data")):
            _refuse(f"Missing required parameter: '{at}.filename'.", f"{at}.filename")


def _check_tool(tool: Any, n: int) -> None:
    where = f"tools[{n}]"
    if not isinstance(tool, dict) or tool.get("type") != "function" or "function" in tool:
        _refuse(f"Missing required parameter: '{where}.name'.", f"{where}.name")
    if not isinstance(tool.get("name"), str):
        _refuse(f"Missing required parameter: '{where}.name'.", f"{where}.name")
    schema = tool.get("parameters") or {}
    if tool.get("strict", True) is not False:  # strict unless told otherwise
        missing = sorted(set(schema.get("properties", {})) - set(schema.get("required", [])))
        if missing or schema.get("additionalProperties") is not False:
            _refuse(
                f"Invalid schema for function '{tool['name']}': In context=(), 'required' is "
                "required to be supplied and to be an array including every key in properties. "
                f"Missing '{(missing or ['additionalProperties'])[0]}'.",
                f"{where}.parameters",
                "invalid_function_parameters",
            )


def check_body(body: dict[str, Any], lists_in_outputs: bool) -> None:
    """Raise `Refused` as the API would for a body it rejects."""
    unknown = sorted(set(body) - TOP_LEVEL)
    if unknown:
        _refuse(f"Unknown parameter: '{unknown[0]}'.", unknown[0], "unknown_parameter")
    if not isinstance(body.get("model"), str):
        _refuse("Missing required parameter: 'model'.", "model", "missing_required_parameter")
    for value in body.get("include") or []:
        if value not in INCLUDABLE:
            _refuse(f"Invalid value: '{value}'. Supported values are: {INCLUDABLE}.", "include")
    for n, tool in enumerate(body.get("tools") or []):
        _check_tool(tool, n)
    items = body.get("input")
    if isinstance(items, str):
        return
    if not isinstance(items, list):
        _refuse("Missing required parameter: 'input'.", "input")
    calls: set[str] = set()
    for n, item in enumerate(items):
        _check_item(item, f"input[{n}]", calls, body, lists_in_outputs)


def _check_item(
    item: Any, at: str, calls: set[str], body: dict[str, Any], lists_in_outputs: bool
) -> None:
    kind = item.get("type", "message") if isinstance(item, dict) else None
    if kind == "message":
        role = item.get("role")
        if role not in ("user", "assistant", "system", "developer"):
            supported = "'user', 'assistant', 'system', and 'developer'"
            _refuse(f"Invalid value: '{role}'. Supported values are: {supported}.", f"{at}.role")
        if role == "assistant":
            allowed: tuple[str, ...] = ("output_text", "refusal")
        else:
            allowed = ("input_text", "input_image", "input_file")
        _check_parts(item.get("content"), f"{at}.content", allowed)
    elif kind == "function_call":
        for key in ("call_id", "name", "arguments"):
            if not isinstance(item.get(key), str):
                _refuse(f"Missing required parameter: '{at}.{key}'.", f"{at}.{key}")
        calls.add(item["call_id"])
    elif kind == "function_call_output":
        if item.get("call_id") not in calls:
            call_id = item.get("call_id")
            _refuse(f"No tool call found for function call output with call_id {call_id}.", "input")
        output = item.get("output")
        if isinstance(output, list) and not lists_in_outputs:
            raise Refused(400, {"error": WORDS_ONLY_REFUSAL})
        _check_parts(output, f"{at}.output", ("input_text", "input_image", "input_file"))
    elif kind == "reasoning":
        if not item.get("encrypted_content") and body.get("store") is False:
            _refuse(
                f"Item with id '{item.get('id')}' not found. Items are not persisted when "
                "`store` is set to false. Try again with `store` set to true, or remove this "
                "item from your input.",
                "input",
                status=404,
            )
    else:
        _refuse(f"Invalid value: '{kind}'.", f"{at}.type")


# -- answering -------------------------------------------------------------------


def _pictures_in(items: Any) -> int:
    count = 0
    for item in items if isinstance(items, list) else []:
        kind = item.get("type", "message")
        parts = item.get("content") if kind == "message" else item.get("output")
        if isinstance(parts, list):
            count += sum(1 for p in parts if p.get("type") == "input_image")
    return count


def _echo(items: Any) -> str:
    """What the default reply says: the last user words, or what the tools gave back."""
    if isinstance(items, str):
        return f"You said: {items}"
    last = items[-1] if items else {}
    if last.get("type") == "function_call_output":
        outputs = [i for i in reversed(items) if i.get("type") == "function_call_output"]
        return f"Tools answered {len(outputs)} calls"
    content = last.get("content", "")
    if isinstance(content, str):
        return f"You said: {content}"
    words = " ".join(p.get("text", "") for p in content if p.get("type") == "input_text")
    files = [p["filename"] for p in content if p.get("type") == "input_file"]
    return f"You said: {words}" + (f" (I read {', '.join(files)})" if files else "")


class _Events:
    """The SSE events of one answer, numbered as the API numbers them."""

    def __init__(self, model: str, body: dict[str, Any]) -> None:
        self.model, self.body = model, body
        self.id = f"resp_{secrets.token_hex(12)}"
        self.numbers = itertools.count()
        self.out: list[bytes] = []
        self.output: list[dict[str, Any]] = []
        self.final: dict[str, Any] = {}  # the response as its last event says it

    def add(self, kind: str, **data: Any) -> None:
        """One named event with the next sequence number."""
        payload = {"type": kind, "sequence_number": next(self.numbers), **data}
        self.out.append(f"event: {kind}\ndata: {dumps(payload)}\n\n".encode())

    def response(self, status: str, **extra: Any) -> dict[str, Any]:
        """The Response object as it stands."""
        return {
            "id": self.id,
            "object": "response",
            "created_at": CREATED,
            "status": status,
            "model": self.model,
            "output": list(self.output),
            "store": bool(self.body.get("store", True)),
            **extra,
        }

    def item(
        self, item: dict[str, Any], between: list[tuple[str, dict[str, Any]]] | None = None
    ) -> None:
        """One output item: added, the events `between`, done."""
        index = len(self.output)
        added = {**item, "status": "in_progress"}
        if item["type"] == "message":
            added["content"] = []
        if item["type"] == "function_call":
            added["arguments"] = ""
        self.add("response.output_item.added", output_index=index, item=added)
        for kind, data in between or []:
            self.add(kind, output_index=index, item_id=item["id"], **data)
        self.output.append(item)
        self.add("response.output_item.done", output_index=index, item=item)


def _reasoning_item(body: dict[str, Any], summary: str) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": f"rs_{secrets.token_hex(8)}",
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": summary}],
    }
    if "reasoning.encrypted_content" in (body.get("include") or []):
        item["encrypted_content"] = "gAAAA" + base64.b64encode(summary.encode()).decode()
    return item


def _message_item(reply: Reply) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    text = {"type": "output_text", "text": reply.text, "annotations": [], "logprobs": []}
    item = {
        "id": f"msg_{secrets.token_hex(8)}",
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [text],
    }
    delta = "response.output_text.delta"
    empty = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
    between = [("response.content_part.added", {"content_index": 0, "part": empty})]
    between += [
        (delta, {"content_index": 0, "delta": piece, "logprobs": []})
        for piece in split(reply.text, reply.chunk_chars)
    ]
    between.append(
        ("response.output_text.done", {"content_index": 0, "text": reply.text, "logprobs": []})
    )
    between.append(("response.content_part.done", {"content_index": 0, "part": text}))
    return item, between


def _call_item(
    n: int, call: dict[str, Any], reply: Reply
) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    arguments = call.get("arguments", {})
    arguments = arguments if isinstance(arguments, str) else dumps(arguments)
    item = {
        "id": f"fc_{secrets.token_hex(8)}",
        "type": "function_call",
        "status": "completed",
        "call_id": call.get("call_id", f"call_{n}{secrets.token_hex(4)}"),
        "name": call["name"],
        "arguments": arguments,
    }
    between = [
        ("response.function_call_arguments.delta", {"delta": piece})
        for piece in split(arguments, reply.args_chunk)
    ]
    between.append(("response.function_call_arguments.done", {"arguments": arguments}))
    return item, between


def stream_events(model: ResponsesModel, body: dict[str, Any], reply: Reply) -> _Events:
    """Every SSE event of one answer in the API's order (`out`), and its last `final` state."""
    events = _Events(model.name, body)
    events.add("response.created", response=events.response("in_progress"))
    events.add("response.in_progress", response=events.response("in_progress"))
    if reply.reasoning is not None:
        delta = {"summary_index": 0, "delta": reply.reasoning}
        item = _reasoning_item(body, reply.reasoning)
        events.item(item, [("response.reasoning_summary_text.delta", delta)])
    if reply.text:
        events.item(*_message_item(reply))
    events.out += [f"data: {raw}\n\n".encode() for raw in reply.raw_events]
    if reply.midstream_error is not None:
        events.add("error", **reply.midstream_error)
        return events
    for n, call in enumerate(reply.tool_calls):
        events.item(*_call_item(n, call, reply))
    usage = {
        "input_tokens": reply.input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": reply.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 4 if reply.reasoning else 0},
        "total_tokens": reply.input_tokens + reply.output_tokens,
    }
    if reply.failed is not None:
        events.final = events.response("failed", error=reply.failed, usage=None)
        kind = "response.failed"
    elif reply.incomplete is not None:
        details = {"reason": reply.incomplete}
        events.final = events.response("incomplete", incomplete_details=details, usage=usage)
        kind = "response.incomplete"
    else:
        events.final = events.response("completed", usage=usage)
        kind = "response.completed"
    if reply.end:
        events.add(kind, response=events.final)
    return events


class ResponsesHandler(LoopbackHandler):
    """POST /v1/responses and GET /v1/models, behind the key check."""

    @property
    def owner(self) -> FakeResponses:
        return self.server.owner

    def internal_error(self) -> Any:
        message = "The server had an error while processing your request."
        return {"error": {"message": message, "type": "server_error", "param": None, "code": None}}

    def route(self) -> None:
        owner = self.owner
        given = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        if owner.api_key is not None and given != owner.api_key:
            message = f"Incorrect API key provided: {given or '(none)'}."
            self.json(401, error_body(message, "invalid_api_key"))
        elif self.command == "GET" and self.route_path == "/v1/models":
            data = [
                {"id": m.name, "object": "model", "created": CREATED, "owned_by": "system"}
                for m in owner.models
            ]
            self.json(200, {"object": "list", "data": data})
        elif self.command != "POST" or self.route_path != "/v1/responses":
            self.json(404, error_body(f"Invalid URL ({self.command} {self.route_path})"))
        elif not isinstance(self.body, dict):
            self.json(400, error_body("We could not parse the JSON body of your request."))
        else:
            self._respond(self.body)

    def _respond(self, body: dict[str, Any]) -> None:
        owner = self.owner
        model = owner.find(str(body.get("model")))
        try:
            check_body(body, owner.lists_in_outputs)
            if model is None:
                name = body.get("model")
                message = f"The model `{name}` does not exist or you do not have access to it."
                _refuse(message, "model", "model_not_found", status=404)
            for name in model.refuses:
                if name in body:
                    message = f"Unsupported parameter: '{name}' is not supported with this model."
                    _refuse(message, name, "unsupported_parameter")
            included = body.get("include") or []
            if not model.reasons and "reasoning.encrypted_content" in included:
                message = "Encrypted content is not supported with this model."
                _refuse(message, "include", "unsupported_parameter")
            if not model.sees and _pictures_in(body.get("input")):
                message = "Invalid content type. image_url is only supported by certain models."
                _refuse(message, "input")
        except Refused as refused:
            self.json(refused.status, refused.body)
            return
        reply = owner.next_reply() or Reply(text=_echo(body.get("input")))
        sent = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        reply = echoing(reply, sent)  # a reply that says back the key, in some form
        if self.answered_otherwise(reply, HOSTILE_SHAPE):
            return
        time.sleep(reply.delay)
        answer = stream_events(model, body, reply)
        if body.get("stream") is not True:  # the whole Response object, as the API sends it
            self.json(200, answer.final, reply.headers)
            return
        self.stream("text/event-stream; charset=utf-8", answer.out, reply, reply.headers)


class FakeResponses(LoopbackServer):
    """The Responses API (and a model list) on 127.0.0.1, served from a daemon thread."""

    handler_class: type[BaseHTTPRequestHandler] = ResponsesHandler
    name = "fake-responses"
    description = "A fake OpenAI Responses API on 127.0.0.1."
    chat_path = "/v1/responses"

    def __init__(
        self,
        models: list[ResponsesModel] | None = None,
        *,
        api_key: str | None = None,
        lists_in_outputs: bool = True,
        port: int = 0,
    ) -> None:
        defaults = [ResponsesModel(**vars(m)) for m in DEFAULT_MODELS]
        self.models = list(models) if models is not None else defaults
        self.api_key = api_key
        # Whether a tool's output may be a list (OpenAI's may; some servers' take words only).
        self.lists_in_outputs = lists_in_outputs
        super().__init__(port)

    @property
    def url(self) -> str:
        """The API's base URL: the server root plus /v1."""
        return self.base_url + "/v1"

    @property
    def address(self) -> str:
        return self.url

    def is_chat(self, request: Recorded) -> bool:
        return request.path == self.chat_path and isinstance(request.body, dict)

    def find(self, name: str) -> ResponsesModel | None:
        """The model by name."""
        return next((m for m in self.models if m.name == name), None)

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--words-only-outputs",
            action="store_true",
            help="refuse a tool's output given as a list, as some servers do",
        )

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> Self:
        return cls(lists_in_outputs=not args.words_only_outputs, port=args.port)


if __name__ == "__main__":
    raise SystemExit(FakeResponses.main())
