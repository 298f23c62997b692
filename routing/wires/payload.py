"""Small pieces every wire uses for its JSON: building a request, and a tool call
streamed in pieces."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from routing.transcript import Message, ToolResult
from routing.wires.base import ChatRequest, ToolChoice, ToolSpec
from vision.pictures import Picture


def load_json(text: str | bytes) -> Any:
    """json.loads, with absurd nesting reported as the ValueError every caller handles."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


@dataclass
class PartialCall:
    """A tool call as a stream gives it, in pieces: its id, its name, its arguments' text."""

    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)

    def decoded(self) -> dict[str, Any]:
        """The arguments its pieces make: an object, else what the model said as `_raw`
        (kept for the tool loop to report, never guessed at)."""
        raw = "".join(self.arguments).strip()
        try:
            arguments = load_json(raw) if raw else {}
        except ValueError:
            arguments = None
        return arguments if isinstance(arguments, dict) else {"_raw": raw}


# A tool's arguments are a few levels deep; past this they are a loop or an attack, and
# every later request would trip over them (Python's recursion limit is about 1,000).
MAX_NESTING = 64
TOO_DEEP = (
    f"(the arguments were nested more than {MAX_NESTING} levels deep, so Sightline left them out)"
)


def too_deep(value: Any, limit: int = MAX_NESTING) -> bool:
    """Whether JSON-like data nests mappings and lists more than `limit` levels (no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping | list | tuple):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, Mapping) else item
            stack.extend((child, depth + 1) for child in children)
    return False


def bounded_arguments(arguments: Mapping[str, Any]) -> Mapping[str, Any]:
    """A tool call's arguments as Sightline keeps and sends them: within the nesting bound."""
    return {"_raw": TOO_DEEP} if too_deep(arguments) else arguments


def sent_choice(request: ChatRequest) -> ToolChoice | None:
    """The request's tool choice as it may be sent: only with tools (every API refuses a
    choice among none), and a named tool only when it is offered (a choice of a tool the
    model wasn't given is refused too); None: the API's default, the model chooses."""
    choice = request.tool_choice
    if choice is None or not request.tools:
        return None
    if choice.name is not None and all(t.name != choice.name for t in request.tools):
        return None
    return choice


def plain_json(value: Any) -> Any:
    """A JSON-ready copy: mappings become dicts and sequences lists."""
    if isinstance(value, Mapping):
        return {str(k): plain_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_json(v) for v in value]
    return value


def duration_seconds(value: Any, unit: float) -> float:
    """A duration from a provider's JSON in `unit`s of a second (1e-9 for nanoseconds,
    1e-3 for milliseconds): a finite, positive number, anything else counts 0."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    seconds = float(value) * unit
    return seconds if 0 < seconds < 1e7 else 0.0


def token_count(value: Any) -> int:
    """A token count from a provider's JSON: a non-negative int, anything else counts 0."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return 0
    return value


def tool_result_text(result: ToolResult) -> str:
    """A tool result's words; where the API has no error flag, the words say it failed."""
    text = result.text
    if result.is_error and not text.lower().startswith("error"):
        text = f"Error: {text}" if text else "Error"
    return text


def function_tools(tools: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """Tools as the OpenAI chat shape and Ollama take them: functions with a JSON Schema."""
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": plain_json(t.parameters),
            },
        }
        for t in tools
    ]


ToolPictures = list[tuple[ToolResult, Picture]]


def with_tool_pictures(
    messages: Iterable[Message],
    bodies: Callable[[Message], Iterable[dict[str, Any]]],
    pictures_message: Callable[[ToolPictures], dict[str, Any]],
) -> Iterator[dict[str, Any]]:
    """Each message's bodies in order, a step's tool pictures as one message after its tool
    messages (for shapes whose tool messages carry words only)."""
    pending: ToolPictures = []
    for message in messages:
        if message.role != "tool" and pending:
            yield pictures_message(pending)
            pending = []
        yield from bodies(message)
        pending.extend((r, p) for r in message.tool_results for p in r.pictures)
    if pending:
        yield pictures_message(pending)
