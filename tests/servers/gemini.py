"""A loopback server that speaks Gemini's own API, for tests and for trying the app.

Run it alone with `python -m tests.servers.gemini --port 8091` and point a `gemini`
provider's base_url at the address it prints (key: `gemini-test-key`). Requests are
checked as the API checks them (unknown fields, roles, bare base64, the parts a
function response may hold per model generation, Gemini 3's thought signatures);
streams are `alt=sse` events each holding a whole GenerateContentResponse; errors
are its `{"error": {code, message, status, details}}` body in its own words.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import re
import secrets
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, NoReturn, Self
from urllib.parse import parse_qs, unquote

from tests.servers import hostile
from tests.servers.key_echo import echoing
from tests.servers.loopback import LoopbackHandler, LoopbackServer, Recorded, ScriptedReply, dumps
from tests.servers.loopback import pieces as split

DEFAULT_KEY = "gemini-test-key"
TOP_LEVEL = frozenset(
    {
        "contents",
        "systemInstruction",
        "tools",
        "toolConfig",
        "generationConfig",
        "safetySettings",
        "cachedContent",
    }
)
GENERATION = frozenset(
    {
        "temperature",
        "maxOutputTokens",
        "topP",
        "topK",
        "candidateCount",
        "stopSequences",
        "thinkingConfig",
        "responseMimeType",
        "responseSchema",
        "seed",
    }
)
DATA_FIELDS = ("text", "inlineData", "fileData", "functionCall", "functionResponse")
PART_FIELDS = frozenset({*DATA_FIELDS, "thought", "thoughtSignature"})
IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/heic", "image/heif")
_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"RIFF")
PAYLOAD_LIMIT = 20 * 1024 * 1024
MISSING_SIGNATURE = (
    "Function call is missing a thought_signature in functionCall parts. This is required for "
    "tools to work correctly, and missing thought_signature may lead to degraded model "
    "performance. Additional data, function call `default_api:{name}` , position {n}. Please "
    "refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
)
NO_MULTIMODAL_RESPONSES = "Multimodal function responses are not supported for this model."
_PATH = re.compile(r"^/v1beta/models/([^/:]+):(streamGenerateContent|generateContent)$")


@dataclass
class GeminiModel:
    """One model as the list gives it; Gemini 3 ones sign their calls and take pictures in
    function responses."""

    name: str
    display_name: str = ""
    input_limit: int = 1_048_576
    methods: tuple[str, ...] = ("generateContent", "countTokens")
    tool_pictures: bool | None = None  # pictures inside function responses; None: Gemini 3 on
    refuses: tuple[str, ...] = ()  # generationConfig fields it doesn't take (an unknown name)

    @property
    def takes_tool_pictures(self) -> bool:
        """Whether its function responses may hold pictures."""
        return self.generation >= 3 if self.tool_pictures is None else self.tool_pictures

    @property
    def generation(self) -> int:
        """Its generation, from its name (3 for gemini-3-pro-preview; 0 when none)."""
        found = re.search(r"gemini-(\d+)", self.name)
        return int(found.group(1)) if found else 0


DEFAULT_MODELS = (
    GeminiModel("gemini-3-pro-preview", "Gemini 3 Pro Preview"),
    GeminiModel("gemini-2.5-flash", "Gemini 2.5 Flash"),
    GeminiModel("gemini-2.0-flash", "Gemini 2.0 Flash"),
    GeminiModel("text-embedding-004", "Text Embedding 004", 2048, ("embedContent",)),
)


@dataclass
class Reply(ScriptedReply):
    """How the next generate request answers (default: an echo). Tool calls: {name, args, id?}."""

    chunk_chars: int = 6
    finish_reason: str = "STOP"
    finish: bool = True  # send the finish reason
    midstream_error: dict[str, Any] | None = None  # {"error": ...} as a chunk after the text
    block_reason: str | None = None  # promptFeedback.blockReason, and no candidates
    raw_events: list[str] = field(default_factory=list)  # verbatim `data:` payloads after text
    thoughts: str = ""  # a thought part first (as includeThoughts would give)
    prompt_tokens: int = 17
    output_tokens: int = 8
    thoughts_tokens: int = 0


def error_body(code: int, status: str, message: str, *details: dict[str, Any]) -> dict[str, Any]:
    """An error body exactly as Gemini sends it."""
    error: dict[str, Any] = {"code": code, "message": message, "status": status}
    if details:
        error["details"] = list(details)
    return {"error": error}


def error_reply(code: int, status: str, message: str, *details: dict[str, Any]) -> Reply:
    """A reply that fails with Gemini's error body."""
    return Reply(status=code, body=error_body(code, status, message, *details))


def retry_info(delay: str) -> dict[str, Any]:
    """The RetryInfo detail of a 429."""
    return {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}


def quota_failure(quota_id: str) -> dict[str, Any]:
    """The QuotaFailure detail of a 429."""
    return {
        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
        "violations": [
            {
                "quotaMetric": "generativelanguage.googleapis.com/generate_content_"
                "free_tier_requests",
                "quotaId": quota_id,
            }
        ],
    }


BAD_KEY = error_body(
    400,
    "INVALID_ARGUMENT",
    "API key not valid. Please pass a valid API key.",
    {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": "API_KEY_INVALID",
        "domain": "googleapis.com",
        "metadata": {"service": "generativelanguage.googleapis.com"},
    },
)
NO_KEY = error_body(
    403,
    "PERMISSION_DENIED",
    "Method doesn't allow unregistered callers (callers without established identity). Please "
    "use API Key or other form of API consumer identity to call this API.",
)

HOSTILE_SHAPE = hostile.sse(
    opening=b'data: {"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},'
    b'"index":0}]}\r\n\r\n',
    line_start=b'data: {"candidates":[{"content":{"parts":[{"text":"',
    keepalive=(
        b"\r\n",
        b": keep-alive\r\n\r\n",
        b'data: {"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1}}\r\n\r\n',
    ),
    line_end=b'"}],"role":"model"},"index":0}]}\r\n\r\n',
)


# -- checking a request ----------------------------------------------------------


class Refused(Exception):
    """The API's answer to a request it rejects."""

    def __init__(self, body: dict[str, Any]) -> None:
        super().__init__(body["error"]["message"])
        self.status, self.body = int(body["error"]["code"]), body


def _refuse(message: str, status: str = "INVALID_ARGUMENT", code: int = 400) -> NoReturn:
    raise Refused(error_body(code, status, message))


def _unknown(name: str, where: str) -> NoReturn:
    at = f" at '{where}'" if where else ""  # a top-level field's words name no place
    message = f'Invalid JSON payload received. Unknown name "{name}"{at}: Cannot find field.'
    # The API says it twice: as the message, and as a BadRequest's field violation.
    violation = {"field": where, "description": message} if where else {"description": message}
    bad_request = {
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        "fieldViolations": [violation],
    }
    raise Refused(error_body(400, "INVALID_ARGUMENT", message, bad_request))


def _check_blob(blob: Any, where: str) -> None:
    if not isinstance(blob, dict) or not blob.get("mimeType"):
        _refuse(f"* GenerateContentRequest.{where}.mime_type: required")
    data = str(blob.get("data", ""))
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        _refuse(
            f"Invalid value at '{where}.data' (TYPE_BYTES), "
            f'Base64 decoding failed for "{data[:40]}"'
        )
    mime = blob["mimeType"]
    if mime.startswith("image/"):
        if mime not in IMAGE_TYPES:
            _refuse(f"Unsupported MIME type: {mime}")
        if not any(raw.startswith(m) for m in _MAGIC):
            _refuse("Provided image is not valid.")
    elif mime == "application/pdf" and not raw.startswith(b"%PDF"):
        _refuse("The document has no pages.")


def _check_part(part: Any, where: str, model: GeminiModel) -> None:
    if not isinstance(part, dict):
        _refuse(
            f"Invalid value at '{where}' "
            "(type.googleapis.com/google.ai.generativelanguage.v1beta.Part)"
        )
    for name in part:
        if name not in PART_FIELDS:
            _unknown(name, where)
    if sum(name in part for name in DATA_FIELDS) != 1:
        _refuse(
            f"* GenerateContentRequest.{where}.data: required oneof field 'data' must have one "
            "initialized field"
        )
    if "inlineData" in part:
        _check_blob(part["inlineData"], f"{where}.inline_data")
    response = part.get("functionResponse")
    if isinstance(response, dict):
        if not response.get("name"):
            _refuse(
                f"* GenerateContentRequest.{where}.function_response.name: Name cannot be empty."
            )
        for name in response:
            if name not in ("id", "name", "response", "parts", "willContinue", "scheduling"):
                _unknown(name, f"{where}.function_response")
        if response.get("parts"):
            if not model.takes_tool_pictures:
                _refuse(NO_MULTIMODAL_RESPONSES)
            for n, inner in enumerate(response["parts"]):
                _check_blob(
                    (inner or {}).get("inlineData"),
                    f"{where}.function_response.parts[{n}].inline_data",
                )


def _check_tools(tools: Any) -> None:
    for t, tool in enumerate(tools or []):
        for d, declaration in enumerate(tool.get("functionDeclarations") or []):
            where = f"tools[{t}].function_declarations[{d}]"
            if "parameters" in declaration and "parametersJsonSchema" in declaration:
                _refuse(
                    f"* GenerateContentRequest.{where}: parameters and parameters_json_schema "
                    "are mutually exclusive"
                )
            schema = declaration.get("parameters") or {}
            for name in schema:
                if name not in (
                    "type",
                    "properties",
                    "required",
                    "description",
                    "items",
                    "enum",
                    "nullable",
                    "format",
                ):
                    _unknown(name, f"{where}.parameters")


def check_body(body: dict[str, Any], model: GeminiModel, signatures: set[str]) -> None:
    """Raise `Refused` as the API would for a body it rejects."""
    for name in body:
        if name not in TOP_LEVEL:
            _unknown(name, "")
    for name in body.get("generationConfig") or {}:
        if name not in GENERATION or name in model.refuses:
            _unknown(name, "generation_config")
    _check_tools(body.get("tools"))
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        _refuse("* GenerateContentRequest.contents: contents is not specified")
    for c, content in enumerate(contents):
        if content.get("role") not in ("user", "model"):
            _refuse("Please use a valid role: user, model.")
        if not content.get("parts"):
            _refuse(
                f"* GenerateContentRequest.contents[{c}].parts: contents.parts must not be empty."
            )
        for p, part in enumerate(content["parts"]):
            _check_part(part, f"contents[{c}].parts[{p}]", model)
    if model.generation >= 3:
        _check_signatures(contents, signatures)


def _check_signatures(contents: list[dict[str, Any]], signatures: set[str]) -> None:
    """Gemini 3: in the current turn (since the person last wrote words), each model
    content's first function call carries the signature it was given."""
    start = max(
        (
            i
            for i, c in enumerate(contents)
            if c["role"] == "user" and any("text" in p for p in c["parts"])
        ),
        default=0,
    )
    position = 0
    for content in contents[start:]:
        first = True
        for part in content["parts"]:
            position += 1
            if content["role"] != "model" or "functionCall" not in part:
                continue
            signature = part.get("thoughtSignature")
            if first and signature is None:
                _refuse(MISSING_SIGNATURE.format(name=part["functionCall"].get("name"), n=position))
            if signature is not None and signature not in signatures:
                _refuse("Corrupted thought signature.")
            first = False


# -- answering -------------------------------------------------------------------


def _echo(contents: list[dict[str, Any]]) -> str:
    """The default answer: the person's last words, or how many calls the tools answered."""
    last = contents[-1]["parts"]
    responses = [p["functionResponse"] for p in last if "functionResponse" in p]
    pictures = sum(
        1 for p in last if "inlineData" in p and p["inlineData"]["mimeType"].startswith("image/")
    )
    if responses:
        inside = sum(len(r.get("parts") or []) for r in responses)
        return f"Tools answered {len(responses)} calls ({inside} pictures inside, {pictures} after)"
    words = " ".join(p["text"] for p in last if "text" in p)
    documents = sum(1 for p in last if p.get("inlineData", {}).get("mimeType") == "application/pdf")
    return (
        f"You said: {words}"
        + (f" (I see {pictures} pictures)" if pictures else "")
        + (f" (I read {documents} PDFs)" if documents else "")
    )


def stream_chunks(model: GeminiModel, reply: Reply, signatures: set[str]) -> list[dict[str, Any]]:
    """Every GenerateContentResponse of one streamed answer, in Gemini's order."""
    response_id = secrets.token_urlsafe(12)

    def chunk(parts: list[dict[str, Any]] | None, **candidate: Any) -> dict[str, Any]:
        content = {"content": {"parts": parts, "role": "model"}} if parts is not None else {}
        usage = {
            "promptTokenCount": reply.prompt_tokens,
            "candidatesTokenCount": reply.output_tokens,
            "totalTokenCount": reply.prompt_tokens + reply.output_tokens + reply.thoughts_tokens,
        }
        if reply.thoughts_tokens:
            usage["thoughtsTokenCount"] = reply.thoughts_tokens
        return {
            "candidates": [{**content, **candidate, "index": 0}],
            "usageMetadata": usage,
            "modelVersion": model.name,
            "responseId": response_id,
        }

    def signature() -> str:
        issued = base64.b64encode(secrets.token_bytes(24)).decode()
        signatures.add(issued)
        return issued

    if reply.block_reason:
        return [{"promptFeedback": {"blockReason": reply.block_reason}, "responseId": response_id}]
    signs = model.generation >= 3
    chunks: list[dict[str, Any]] = []
    if reply.thoughts:
        chunks.append(chunk([{"text": reply.thoughts, "thought": True}]))
    for piece in split(reply.text, reply.chunk_chars) if reply.text else []:
        chunks.append(chunk([{"text": piece}]))
    for n, call in enumerate(reply.tool_calls):
        function: dict[str, Any] = {"name": call["name"], "args": call.get("args", {})}
        if "id" in call or signs:  # Gemini 3 gives each call an id
            function = {"id": call.get("id", secrets.token_hex(4)), **function}
        part: dict[str, Any] = {"functionCall": function}
        if signs and n == 0:  # parallel calls: only the first is signed
            part["thoughtSignature"] = signature()
        chunks.append(chunk([part]))
    if reply.midstream_error is not None:
        return [*chunks, reply.midstream_error]
    if reply.finish:
        # Without calls a Gemini 3 answer's signature comes on a last, empty text part.
        ending = (
            [{"text": "", "thoughtSignature": signature()}]
            if signs and not reply.tool_calls
            else None
        )
        chunks.append(chunk(ending, finishReason=reply.finish_reason))
    return chunks


class GeminiHandler(LoopbackHandler):
    """The models list and the generate routes, behind the key check."""

    json_type = "application/json; charset=UTF-8"

    @property
    def owner(self) -> FakeGemini:
        return self.server.owner

    def internal_error(self) -> Any:
        return error_body(
            500,
            "INTERNAL",
            "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
        )

    def route(self) -> None:
        owner = self.owner
        query = parse_qs(self.query)
        key = self.headers.get("x-goog-api-key") or (query.get("key") or [""])[0]
        if not key:
            self.json(403, NO_KEY)
        elif key != owner.api_key:
            self.json(400, BAD_KEY)
        elif self.command == "GET" and self.route_path == "/v1beta/models":
            self.json(200, owner.page(query))
        elif self.command == "POST" and (found := _PATH.match(self.route_path)):
            self._generate(unquote(found.group(1)), found.group(2), query)
        else:
            self.json(
                404,
                error_body(404, "NOT_FOUND", f"Requested entity was not found. {self.route_path}"),
            )

    def _generate(self, name: str, method: str, query: dict[str, list[str]]) -> None:
        owner = self.owner
        model = owner.find(name)
        try:
            if len(self.raw) > owner.payload_limit:
                _refuse(f"Request payload size exceeds the limit: {owner.payload_limit} bytes.")
            if not isinstance(self.body, dict):
                _refuse(f"Invalid JSON payload received. {self.body_problem}")
            if model is None or "generateContent" not in model.methods:
                _refuse(
                    f"models/{name} is not found for API version v1beta, or is not supported "
                    "for generateContent. Call ListModels to see the list of available models "
                    "and their supported methods.",
                    "NOT_FOUND",
                    404,
                )
            check_body(self.body, model, owner.signatures)
        except Refused as refused:
            self.json(refused.status, refused.body)
            return
        reply = owner.next_reply() or Reply(text=_echo(self.body["contents"]))
        sent = self.headers.get("x-goog-api-key") or (query.get("key") or [""])[0]
        reply = echoing(reply, sent)  # a reply that says back the key, in some form
        if self.answered_otherwise(reply, HOSTILE_SHAPE):
            return
        time.sleep(reply.delay)
        chunks = stream_chunks(model, reply, owner.signatures)
        if method == "generateContent" or query.get("alt") != ["sse"]:
            self.json(200, chunks if method == "streamGenerateContent" else chunks[-1])
            return
        events = [f"data: {dumps(c)}\r\n\r\n".encode() for c in chunks]
        events[len(events) - 1 : len(events) - 1] = [
            f"data: {raw}\r\n\r\n".encode() for raw in reply.raw_events
        ]
        self.stream("text/event-stream", events, reply, reply.headers)


class FakeGemini(LoopbackServer):
    """Gemini's own API on 127.0.0.1, served from a daemon thread."""

    handler_class: type[BaseHTTPRequestHandler] = GeminiHandler
    name = "fake-gemini"
    description = "A fake Gemini API on 127.0.0.1."

    def __init__(
        self,
        models: list[GeminiModel] | None = None,
        *,
        api_key: str = DEFAULT_KEY,
        page_size: int = 50,
        payload_limit: int = PAYLOAD_LIMIT,
        port: int = 0,
    ) -> None:
        self.models = (
            list(models) if models is not None else [GeminiModel(**vars(m)) for m in DEFAULT_MODELS]
        )
        self.api_key = api_key
        self.page_size = page_size  # the most a page holds, whatever is asked
        self.payload_limit = payload_limit
        self.signatures: set[str] = set()  # every thought signature given out
        super().__init__(port)

    @property
    def url(self) -> str:
        """The API's base URL, with its version."""
        return self.base_url + "/v1beta"

    @property
    def address(self) -> str:
        return self.url

    def is_chat(self, request: Recorded) -> bool:
        return (
            request.method == "POST"
            and "Content" in request.path
            and isinstance(request.body, dict)
        )

    def find(self, name: str) -> GeminiModel | None:
        """The model by name."""
        return next((m for m in self.models if m.name == name), None)

    def page(self, query: dict[str, list[str]]) -> dict[str, Any]:
        """One page of GET /v1beta/models."""
        size = min(int((query.get("pageSize") or ["50"])[0]), self.page_size)
        start = int((query.get("pageToken") or ["0"])[0] or 0)
        page = self.models[start : start + size]
        listed = [
            {
                "name": f"models/{m.name}",
                "version": "001",
                "displayName": m.display_name or m.name,
                "description": "A model of the loopback server.",
                "inputTokenLimit": m.input_limit,
                "outputTokenLimit": 65536,
                "supportedGenerationMethods": list(m.methods),
                "temperature": 1,
                "maxTemperature": 2,
                "topP": 0.95,
                "topK": 64,
                "thinking": m.generation >= 3,
            }
            for m in page
        ]
        more = start + size < len(self.models)
        return {"models": listed, **({"nextPageToken": str(start + size)} if more else {})}

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--key", default=DEFAULT_KEY, help="the API key it takes")

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> Self:
        return cls(api_key=args.key, port=args.port)


if __name__ == "__main__":
    raise SystemExit(FakeGemini.main())
