"""The Responses API's request: the whole conversation as input items, every request.

Stateless (`store: false`), so nothing is kept on the server between requests: each
one carries the whole input, and the model's reasoning items come back whole
(`include: ["reasoning.encrypted_content"]`) to be handed back unchanged on later
requests. Shapes follow openai-python's `types/responses/` (docs/providers.md).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from routing.transcript import Message, ToolResult, tool_pictures_text
from routing.wires.base import ChatRequest, ToolChoice, ToolSpec
from routing.wires.payload import ToolPictures, plain_json, sent_choice, tool_result_text
from vision.pdf import PdfFile
from vision.pictures import Picture

SHAPE = "responses"  # the CarriedPart shape this wire makes and reads
ENCRYPTED_REASONING = "reasoning.encrypted_content"
DETAIL = "auto"  # required in message content; the model picks the resolution


@dataclass(frozen=True)
class Form:
    """How one request is shaped where servers differ (learned per model by the wire)."""

    pictures_in_outputs: bool = True  # a tool's pictures inside its function_call_output
    encrypted_reasoning: bool = True  # ask for reasoning items whole, to hand them back


def _image(picture: Picture) -> dict[str, Any]:
    data = base64.b64encode(picture.data).decode("ascii")
    return {
        "type": "input_image",
        "image_url": f"data:{picture.mime};base64,{data}",
        "detail": DETAIL,
    }


def _file(pdf: PdfFile) -> dict[str, Any]:
    data = base64.b64encode(pdf.data).decode("ascii")
    return {
        "type": "input_file",
        "filename": pdf.name or "document.pdf",
        "file_data": f"data:application/pdf;base64,{data}",
    }


def _text(text: str) -> dict[str, Any]:
    return {"type": "input_text", "text": text}


def _content(text: str, pictures: Iterable[Picture], pdfs: Iterable[PdfFile] = ()) -> Any:
    """Plain words as a string; with pictures or PDFs, parts: files, the words, pictures."""
    parts = [_file(pdf) for pdf in pdfs]
    parts += [_text(text)] if text else []
    parts += [_image(picture) for picture in pictures]
    # Never a one-part array of words: some servers drop array content without a word.
    return parts if any(p["type"] != "input_text" for p in parts) else text


def _output(result: ToolResult, form: Form) -> Any:
    """A tool's output: its words as a string, or words then pictures as a list."""
    text = tool_result_text(result)  # the shape has no error flag on outputs
    if not result.pictures or not form.pictures_in_outputs:
        return text
    return ([_text(text)] if text else []) + [_image(p) for p in result.pictures]


def _reasoning(message: Message, source: str) -> list[dict[str, Any]]:
    """The reasoning items this model gave with an answer, exactly as it gave them."""
    items: list[dict[str, Any]] = []
    for part in message.carried(SHAPE, source):
        listed = part.data.get("items")
        items += (
            [dict(i) for i in listed if isinstance(i, Mapping)] if isinstance(listed, list) else []
        )
    return items


def _items(message: Message, form: Form, source: str) -> list[dict[str, Any]]:
    """One message as input items."""
    if message.role == "tool":
        return [
            {"type": "function_call_output", "call_id": r.call_id, "output": _output(r, form)}
            for r in message.tool_results
        ]
    if message.role == "assistant":
        items = _reasoning(message, source)  # before the message and calls that followed it
        if message.text:
            items.append({"type": "message", "role": "assistant", "content": message.text})
        items += [
            {
                "type": "function_call",
                "call_id": call.id,
                "name": call.name,
                "arguments": json.dumps(plain_json(call.arguments)),
            }
            for call in message.tool_calls
        ]
        return items
    content = _content(message.text, message.pictures, message.pdfs)
    if not content:
        return []  # the API refuses an empty message; dropping one keeps the rest valid
    return [{"type": "message", "role": message.role, "content": content}]


def _tool_pictures_message(sources: ToolPictures) -> dict[str, Any]:
    """A step's tool pictures as one user message, for servers whose outputs take words only."""
    pictures = [picture for _, picture in sources]
    return {
        "type": "message",
        "role": "user",
        "content": [_text(tool_pictures_text(sources)), *(_image(p) for p in pictures)],
    }


def input_items(messages: Iterable[Message], form: Form, source: str) -> list[dict[str, Any]]:
    """The conversation as input items; `source` (provider:model) gets its reasoning back."""
    items: list[dict[str, Any]] = []
    pending: ToolPictures = []
    for message in messages:
        if message.role != "tool" and pending:
            items.append(_tool_pictures_message(pending))
            pending = []
        items += _items(message, form, source)
        if not form.pictures_in_outputs:
            pending += [(r, p) for r in message.tool_results for p in r.pictures]
    if pending:
        items.append(_tool_pictures_message(pending))
    return items


def tools(specs: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """Flat function tools. Not strict: under strict mode the API refuses any schema with
    an optional property, and tools' schemas (MCP's above all) have them."""
    return [
        {
            "type": "function",
            "name": t.name,
            "description": t.description,
            "parameters": plain_json(t.parameters),
            "strict": False,
        }
        for t in specs
    ]


def responses_tool_choice(choice: ToolChoice) -> str | dict[str, Any]:
    """The Responses API's `tool_choice`: "auto", "none", "required", or the function named
    (flat, as its tools are: `{"type": "function", "name": N}`)."""
    if choice.name is not None:
        return {"type": "function", "name": choice.name}
    return choice.mode


def build_responses_body(request: ChatRequest, source: str, form: Form = Form()) -> dict[str, Any]:
    """The JSON body of POST /responses for one request (keys left out when empty)."""
    body: dict[str, Any] = {"model": request.model}
    if request.system:
        body["instructions"] = request.system
    body["input"] = input_items(request.messages, form, source)
    if request.tools:
        body["tools"] = tools(request.tools)
    if (choice := sent_choice(request)) is not None:
        body["tool_choice"] = responses_tool_choice(choice)
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.max_tokens is not None:
        body["max_output_tokens"] = request.max_tokens
    body["stream"] = True
    body["store"] = False  # nothing kept on the server: the whole input goes every time
    if form.encrypted_reasoning:
        body["include"] = [ENCRYPTED_REASONING]
    return body


def has_pictures(body: Mapping[str, Any]) -> bool:
    """Whether a body carries a picture: in a message, or inside a tool's output."""
    for item in body.get("input", ()):
        parts = item.get("content") if item.get("type") == "message" else item.get("output")
        if isinstance(parts, list) and any(p.get("type") == "input_image" for p in parts):
            return True
    return False


def has_list_outputs(body: Mapping[str, Any]) -> bool:
    """Whether any tool's output went as a list (pictures inside it)."""
    return any(
        item.get("type") == "function_call_output" and isinstance(item.get("output"), list)
        for item in body.get("input", ())
    )
