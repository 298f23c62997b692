"""An Ollama `/api/chat` request read as Sightline's `Asked`, checked as Ollama checks it: each
mistake a 400 `{"error": "..."}` in Ollama's own words where it has them.

Pure and synchronous (pictures are decoded here), so the route runs it off the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.serve.client_tools import tool_specs
from app.serve.errors import ClientError, tools_refused
from app.serve.pictures import check_count, from_base64
from app.serve.served import Asked
from app.serve.tool_messages import Said, ToolAnswer, call_arguments, checked_calls, joined
from routing.chat_settings import SettingsInvalid, checked
from routing.transcript import Message, PicturePart, TextPart, ToolCall

# Ollama's own words (server/routes.go, Go's JSON decoder), as its client shows them.
CONTENT_NOT_STRING = (
    "json: cannot unmarshal {kind} into Go struct field Message.messages.content of type string"
)
MESSAGES_NOT_LIST = (
    "json: cannot unmarshal {kind} into Go struct field ChatRequest.messages of type []api.Message"
)


@dataclass(frozen=True)
class OllamaAsk:
    """A chat request: the turn, and whether to stream it (Ollama's default: yes)."""

    asked: Asked
    stream: bool


def _go_kind(value: Any) -> str:
    """How Go's JSON decoder names a value of the wrong type."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "string" if isinstance(value, str) else "value"


def chat_request(body: dict[str, Any], client: str, allow_tools: bool) -> OllamaAsk:
    """The request as a turn; `ClientError` for anything Ollama (or Sightline) would refuse."""
    model = body.get("model")
    if not isinstance(model, str) or not model.strip():
        raise ClientError(400, "model is required")
    messages = body.get("messages")
    if messages is None:
        messages = []
    if not isinstance(messages, list):
        raise ClientError(400, MESSAGES_NOT_LIST.format(kind=_go_kind(messages)))
    if not allow_tools and _brings_tools(body, messages):
        raise tools_refused()
    tools = tool_specs(body.get("tools"))
    system: list[str] = []
    said: list[Said] = []
    pictures = 0
    for index, raw in enumerate(messages):
        if not isinstance(raw, dict):
            raise ClientError(400, MESSAGES_NOT_LIST.format(kind=_go_kind(raw)))
        content = raw.get("content", "")
        if content is None:
            content = ""
        if not isinstance(content, str):
            raise ClientError(400, CONTENT_NOT_STRING.format(kind=_go_kind(content)))
        role = raw.get("role")
        if role == "system":
            system.append(content)
        elif role in ("user", "tool"):
            images = raw.get("images") or []
            if not isinstance(images, list):
                raise ClientError(400, f"messages[{index}].images must be a list of base64 strings")
            parts: list[TextPart | PicturePart] = [TextPart(content)] if content else []
            for number, image in enumerate(images, start=1):
                if not isinstance(image, str):
                    raise ClientError(400, "illegal base64 data at input byte 0")
                label = f"picture {number}"
                parts.append(PicturePart(from_base64(image, label, f"messages[{index}]")))
            pictures += len(images)
            check_count(pictures)
            if role == "user":
                said.append((index, Message(role="user", parts=tuple(parts))))
            else:
                call_id, name = raw.get("tool_call_id"), raw.get("tool_name")
                answer = ToolAnswer(index, _named(call_id), _named(name), tuple(parts))
                said.append((index, answer))
        elif role == "assistant":
            calls = _calls(raw.get("tool_calls"), f"messages[{index}].tool_calls")
            text = (TextPart(content),) if content else ()
            said.append((index, Message("assistant", text + calls)))
        else:
            raise ClientError(400, f"invalid role: {role!r}: use system, user, assistant or tool")
    turns = joined(said)
    if not turns or turns[-1].role not in ("user", "tool"):
        raise ClientError(
            400,
            "the last message must be the user's, or tool messages answering the tool calls "
            "before them: Sightline answers it as one turn",
        )
    options = body.get("options") or {}
    if not isinstance(options, dict):
        raise ClientError(400, "options must be an object")
    answer_length = options.get("num_predict")
    if isinstance(answer_length, int) and answer_length < 0:  # Ollama's -1: no limit
        answer_length = None
    try:
        settings = checked(
            "\n\n".join(system) or None,
            options.get("temperature"),
            answer_length,
            options.get("num_ctx"),
        )
    except SettingsInvalid as exc:
        raise ClientError(400, str(exc)) from None
    stream = body.get("stream", True) is not False
    asked = Asked(model.strip(), turns[-1], tuple(turns[:-1]), settings, client, tools)
    return OllamaAsk(asked, stream)


def _brings_tools(body: dict[str, Any], messages: list[Any]) -> bool:
    """Whether the request offers tools, or carries tool calls or results."""
    if body.get("tools"):
        return True
    return any(
        isinstance(m, dict) and (m.get("role") == "tool" or m.get("tool_calls")) for m in messages
    )


def _named(value: Any) -> str | None:
    """An optional name or id: a non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def _calls(raw: Any, param: str) -> tuple[ToolCall, ...]:
    """An assistant message's `tool_calls`, as Ollama sends them back: ids where given,
    else one made from its place (the stored ids are given back on continuing)."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ClientError(400, f"{param} must be a list")
    calls: list[ToolCall] = []
    for index, call in enumerate(raw):
        function = call.get("function") if isinstance(call, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        where = f"{param}[{index}].function"
        if not isinstance(function, dict) or not isinstance(name, str) or not name:
            raise ClientError(400, f"{where}.name is required", param=f"{where}.name")
        arguments = call_arguments(function.get("arguments"), f"{where}.arguments")
        call_id = _named(call.get("id")) if isinstance(call, dict) else None
        calls.append(ToolCall(call_id or f"call_{index}", name, arguments))
    return checked_calls(calls, param)
