"""Gemini's request (`models/{model}:streamGenerateContent`): contents of parts, per its API.

Roles are `user` and `model`; pictures and PDFs are `inlineData` (bare base64: a
`data:` prefix is refused); a tool call is a `functionCall` answered by a
`functionResponse {name, id, response: {output | error}}`, its pictures inside
`functionResponse.parts` for Gemini 3 models and as `inlineData` parts right after
it for older ones. The parts a model sent with a `thoughtSignature` go back as it
sent them (kept with its answer as a `CarriedPart`). Shapes follow google-genai's
`types.py` (docs/providers.md).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from routing.transcript import Message, ToolCall, ToolResult
from routing.wires.base import ChatRequest, ToolChoice, ToolSpec
from routing.wires.payload import plain_json, sent_choice
from vision.pdf import PdfFile
from vision.pictures import Picture, PictureError, clamp

SHAPE = "gemini"  # the CarriedPart shape this wire makes and reads
# Ids Sightline gives calls that came without one: never sent back as if Gemini's own.
INVENTED = "sightline-call-"
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"})
PDF_TYPE = "application/pdf"
_GENERATION = re.compile(r"gemini-(\d+)", re.IGNORECASE)


def pictures_in_responses(model: str) -> bool:
    """Whether a model takes a tool's pictures inside its functionResponse (Gemini 3 on)."""
    found = _GENERATION.search(model)
    return found is not None and int(found.group(1)) >= 3


@dataclass(frozen=True)
class Form:
    """How one request is shaped where models differ (learned per model by the wire)."""

    pictures_in_responses: bool = True  # else as inlineData parts after each response


def _blob(data: bytes, mime: str) -> dict[str, Any]:
    return {"mimeType": mime, "data": base64.b64encode(data).decode("ascii")}


def _picture(picture: Picture) -> dict[str, Any]:
    """A picture as an inlineData part, made PNG or JPEG first if Gemini doesn't take its
    format (GIF); a note in words if it can't be."""
    if picture.mime not in IMAGE_TYPES:
        try:
            side = max(picture.width, picture.height, 1)
            picture = clamp(picture, max_side=side, sendable=IMAGE_TYPES)
        except PictureError as exc:
            return {"text": f"[{picture.label or 'A picture'} could not be sent: {exc}]"}
    return {"inlineData": _blob(picture.data, picture.mime)}


def _pdf(pdf: PdfFile) -> dict[str, Any]:
    return {"inlineData": _blob(pdf.data, PDF_TYPE)}


def _call_id(call_id: str) -> dict[str, str]:
    """The id field of a call or its response: Gemini's own ids only."""
    return {} if call_id.startswith(INVENTED) or not call_id else {"id": call_id}


def _function_call(call: ToolCall) -> dict[str, Any]:
    return {"name": call.name, **_call_id(call.id), "args": plain_json(call.arguments)}


def _model_parts(message: Message, source: str) -> list[dict[str, Any]]:
    """An answer's parts: as the model sent them when it signed any, else rebuilt."""
    calls = list(message.tool_calls)
    for carried in message.carried(SHAPE, source):
        kept = [dict(p) for p in carried.data.get("parts") or [] if isinstance(p, Mapping)]
        if sum("functionCall" in p for p in kept) != len(calls):
            continue  # not this answer's parts (never expected): rebuilt below
        parts, pending = [], iter(calls)
        for part in kept:
            if "functionCall" in part:  # its arguments as Sightline keeps them (bounded)
                call = next(pending)
                name_and_id = dict(part["functionCall"])
                part["functionCall"] = {**name_and_id, "args": plain_json(call.arguments)}
            parts.append(part)
        return parts
    parts = [{"text": message.text}] if message.text else []
    return parts + [{"functionCall": _function_call(call)} for call in calls]


def _tool_parts(result: ToolResult, form: Form) -> list[dict[str, Any]]:
    """A tool's answer: its functionResponse, then (for older models) its pictures."""
    words = result.text
    response: dict[str, Any] = {
        "name": result.name,
        **_call_id(result.call_id),
        "response": {"error": words} if result.is_error else {"output": words},
    }
    pictures = [_picture(p) for p in result.pictures]
    if pictures and form.pictures_in_responses:
        response["parts"] = pictures
        pictures = []
    return [{"functionResponse": response}, *pictures]


def _contents(message: Message, form: Form, source: str) -> dict[str, Any] | None:
    """One message as a content, or None when it has nothing to say."""
    if message.role == "assistant":
        role, parts = "model", _model_parts(message, source)
    elif message.role == "tool":
        role = "user"
        parts = [p for result in message.tool_results for p in _tool_parts(result, form)]
    else:  # the person's words: PDFs first, as Gemini advises, then the words, the pictures
        role = "user"
        parts = [_pdf(pdf) for pdf in message.pdfs]
        parts += [{"text": message.text}] if message.text else []
        parts += [_picture(p) for p in message.pictures]
    return {"role": role, "parts": parts} if parts else None


def tools(specs: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """Function declarations, their schemas as JSON Schema (`parametersJsonSchema`): the
    OpenAPI subset `parameters` takes refuses what tools' schemas often hold."""
    declarations = [
        {
            "name": t.name,
            "description": t.description,
            "parametersJsonSchema": plain_json(t.parameters),
        }
        for t in specs
    ]
    return [{"functionDeclarations": declarations}]


def calling_config(choice: ToolChoice) -> dict[str, Any]:
    """Gemini's `toolConfig.functionCallingConfig` (camelCase, as the rest of the body):
    mode AUTO or NONE, or ANY for a call, narrowed by `allowedFunctionNames` to the one
    named."""
    if choice.name is not None:
        return {"mode": "ANY", "allowedFunctionNames": [choice.name]}
    return {"mode": {"auto": "AUTO", "none": "NONE", "required": "ANY"}[choice.mode]}


def build_gemini_body(request: ChatRequest, source: str, form: Form = Form()) -> dict[str, Any]:
    """The JSON body of one streamGenerateContent request (keys left out when empty)."""
    system = [request.system] if request.system else []
    contents: list[dict[str, Any]] = []
    for message in request.messages:
        if message.role == "system":  # no system role: it joins the instruction
            system += [message.text] if message.text else []
        elif (content := _contents(message, form, source)) is not None:
            contents.append(content)
    body: dict[str, Any] = {"contents": contents}
    if system:
        body["systemInstruction"] = {"parts": [{"text": "\n\n".join(system)}]}
    if request.tools:
        body["tools"] = tools(request.tools)
    if (choice := sent_choice(request)) is not None:
        body["toolConfig"] = {"functionCallingConfig": calling_config(choice)}
    config: dict[str, Any] = {}
    if request.temperature is not None:
        config["temperature"] = request.temperature
    if request.max_tokens is not None:
        config["maxOutputTokens"] = request.max_tokens
    if config:
        body["generationConfig"] = config
    return body


def has_pictures(body: Mapping[str, Any]) -> bool:
    """Whether a body carries a picture anywhere (a PDF is not one)."""

    def picture(part: Mapping[str, Any]) -> bool:
        blob = part.get("inlineData")
        return isinstance(blob, dict) and str(blob.get("mimeType", "")).startswith("image/")

    for content in body.get("contents", ()):
        for part in content.get("parts", ()):
            inner = (part.get("functionResponse") or {}).get("parts") or []
            if picture(part) or any(picture(p) for p in inner):
                return True
    return False
