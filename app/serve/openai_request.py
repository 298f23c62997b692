"""An OpenAI Chat Completions request read as Sightline's `Asked`, checked as OpenAI checks
it: each mistake a 400 in OpenAI's words, naming the parameter (`messages[2].content`).

Pure and synchronous (pictures are decoded here), so the route runs it off the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.serve.client_tools import FUNCTIONS_REFUSED, chosen_tools, tool_specs
from app.serve.errors import ClientError, tools_refused
from app.serve.pictures import check_count, from_data_url
from app.serve.served import Asked
from app.serve.tool_messages import Said, ToolAnswer, call_arguments, checked_calls, joined
from routing.chat_settings import SettingsInvalid, checked
from routing.transcript import Message, Part, PicturePart, ResultPart, TextPart, ToolCall

_SYSTEM_ROLES = ("system", "developer")


@dataclass(frozen=True)
class ChatAsk:
    """A chat completion request: the turn, and how to answer it."""

    asked: Asked
    stream: bool
    include_usage: bool


def missing(param: str) -> ClientError:
    """OpenAI's missing-parameter error."""
    return ClientError(
        400,
        f"Missing required parameter: '{param}'.",
        param=param,
        code="missing_required_parameter",
    )


def wrong_type(param: str, expected: str) -> ClientError:
    """OpenAI's wrong-type error."""
    return ClientError(
        400, f"Invalid type for '{param}': expected {expected}.", param=param, code="invalid_type"
    )


def chat_request(body: dict[str, Any], client: str, allow_tools: bool) -> ChatAsk:
    """The request as a turn; `ClientError` for anything OpenAI (or Sightline) would refuse."""
    model = body.get("model")
    if model is None:
        raise ClientError(400, "you must provide a model parameter")
    if not isinstance(model, str) or not model.strip():
        raise wrong_type("model", "a non-empty string")
    if "messages" not in body:
        raise missing("messages")
    messages = body["messages"]
    if not isinstance(messages, list):
        raise wrong_type("messages", "an array")
    if not messages:
        raise ClientError(
            400,
            "Invalid 'messages': empty array. Expected an array with minimum length 1, "
            "but got an empty array instead.",
            param="messages",
            code="empty_array",
        )
    if not allow_tools and _brings_tools(body, messages):
        raise tools_refused()
    if body.get("functions") or body.get("function_call"):
        raise ClientError(400, FUNCTIONS_REFUSED, param="functions", code="unsupported_parameter")
    tools, tool_choice = chosen_tools(tool_specs(body.get("tools")), body.get("tool_choice"))
    n = body.get("n", 1)
    if n not in (None, 1):
        raise ClientError(
            400, "This server gives one choice per request: 'n' must be 1.", param="n"
        )
    stream = body.get("stream") is True
    options = body.get("stream_options")
    include_usage = stream and isinstance(options, dict) and options.get("include_usage") is True
    system: list[str] = []
    said: list[Said] = []
    pictures = 0
    for index, raw in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(raw, dict):
            raise wrong_type(where, "an object")
        role = raw.get("role")
        if role in _SYSTEM_ROLES:
            system.append(_text_only(raw.get("content"), f"{where}.content"))
        elif role in ("user", "tool"):
            parts = _user_parts(raw.get("content"), f"{where}.content")
            pictures += sum(isinstance(p, PicturePart) for p in parts)
            check_count(pictures)
            if role == "user":
                said.append((index, Message(role="user", parts=parts)))
            else:
                call_id = raw.get("tool_call_id")
                if not isinstance(call_id, str) or not call_id:
                    raise missing(f"{where}.tool_call_id")
                results: tuple[ResultPart, ...] = tuple(
                    p for p in parts if isinstance(p, TextPart | PicturePart)
                )
                said.append((index, ToolAnswer(index, call_id, None, results)))
        elif role == "assistant":
            if raw.get("function_call"):
                raise ClientError(400, FUNCTIONS_REFUSED, param=f"{where}.function_call")
            content = raw.get("content")
            text = "" if content is None else _text_only(content, f"{where}.content")
            calls = _calls(raw.get("tool_calls"), f"{where}.tool_calls")
            said.append((index, Message("assistant", ((TextPart(text),) if text else ()) + calls)))
        elif role == "function":
            raise ClientError(400, FUNCTIONS_REFUSED, param=f"{where}.role")
        elif role is None:
            raise missing(f"{where}.role")
        else:
            raise ClientError(
                400,
                f"Invalid value: '{role}'. Supported values are: 'system', 'developer', "
                "'user', 'assistant', 'tool'.",
                param=f"{where}.role",
                code="invalid_value",
            )
    turns = joined(said)
    if not turns or turns[-1].role not in ("user", "tool"):
        raise ClientError(
            400,
            "The last message must be the user's, or tool messages answering the tool calls "
            "before them: Sightline answers it as one turn.",
            param="messages",
        )
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))
    try:
        settings = checked("\n\n".join(system) or None, body.get("temperature"), max_tokens)
    except SettingsInvalid as exc:
        raise ClientError(400, str(exc)) from None
    asked = Asked(model.strip(), turns[-1], tuple(turns[:-1]), settings, client, tools, tool_choice)
    return ChatAsk(asked, stream, include_usage)


def _brings_tools(body: dict[str, Any], messages: list[Any]) -> bool:
    """Whether the request offers tools, or carries tool calls or results."""
    if body.get("tools") or body.get("functions"):
        return True
    return any(
        isinstance(m, dict)
        and (m.get("role") in ("tool", "function") or m.get("tool_calls") or m.get("function_call"))
        for m in messages
    )


def _calls(raw: Any, param: str) -> tuple[ToolCall, ...]:
    """An assistant message's `tool_calls`, as OpenAI sends them back."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise wrong_type(param, "an array")
    calls: list[ToolCall] = []
    for index, call in enumerate(raw):
        where = f"{param}[{index}]"
        if not isinstance(call, dict):
            raise wrong_type(where, "an object")
        call_id, function = call.get("id"), call.get("function")
        if not isinstance(call_id, str) or not call_id:
            raise missing(f"{where}.id")
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise missing(f"{where}.function.name")
        arguments = call_arguments(function.get("arguments"), f"{where}.function.arguments")
        calls.append(ToolCall(call_id, function["name"], arguments))
    return checked_calls(calls, param)


def _text_only(content: Any, param: str) -> str:
    """A system or assistant message's words: a string, or text parts."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise wrong_type(param, "a string or an array of text parts")
    words: list[str] = []
    for index, part in enumerate(content):
        if not isinstance(part, dict) or part.get("type") != "text":
            raise ClientError(
                400,
                f"Invalid '{param}[{index}]': only text parts are taken here.",
                param=f"{param}[{index}]",
                code="invalid_value",
            )
        words.append(_string(part.get("text"), f"{param}[{index}].text"))
    return "".join(words)


def _user_parts(content: Any, param: str) -> tuple[Part, ...]:
    """A user message's words and pictures, in the order sent."""
    if isinstance(content, str):
        return (TextPart(content),) if content else ()
    if not isinstance(content, list):
        raise wrong_type(param, "a string or an array of content parts")
    parts: list[Part] = []
    for index, part in enumerate(content):
        where = f"{param}[{index}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            assert isinstance(part, dict)
            parts.append(TextPart(_string(part.get("text"), f"{where}.text")))
        elif kind == "image_url":
            assert isinstance(part, dict)
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, dict) else image
            if not isinstance(url, str):
                raise missing(f"{where}.image_url.url")
            parts.append(PicturePart(from_data_url(url, f"picture {index + 1}", where)))
        else:
            raise ClientError(
                400,
                f"Invalid content part type at '{where}': this server takes 'text' and "
                "'image_url' parts (pictures as data URLs).",
                param=f"{where}.type",
                code="invalid_value",
            )
    texts = [p for p in parts if isinstance(p, TextPart)]
    others = [p for p in parts if not isinstance(p, TextPart)]
    # Sightline's messages keep their words first, then the pictures (user_message's order).
    joined = "\n".join(p.text for p in texts if p.text)
    return ((TextPart(joined),) if joined else ()) + tuple(others)


def _string(value: Any, param: str) -> str:
    if not isinstance(value, str):
        raise wrong_type(param, "a string")
    return value
