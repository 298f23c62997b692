"""A client's tool round trips in its conversation: the calls an assistant message made and
the `tool` messages that answer them, read as Sightline's transcript keeps them.

Sightline keeps a step's results as one `tool` message of `ToolResult`s after the
assistant message with its `ToolCall`s; OpenAI sends one `tool` message per call, named by
`tool_call_id`, and Ollama one per call, named by `tool_name` at most. So each answer is
paired here with the call it answers (by id, else by name, else in order) and a run of
them joined into one message. What can't be paired is a client's mistake, refused as
OpenAI refuses it: a result for no call, a call left without one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from app.serve.errors import ClientError
from routing.transcript import Message, ResultPart, ToolCall, ToolResult
from routing.wires.payload import bounded_arguments, load_json

MAX_ARGUMENTS_CHARS = 256 * 1024  # one call's arguments, as JSON text


@dataclass(frozen=True)
class ToolAnswer:
    """A `tool` message as a client sent it, before it is paired with its call."""

    index: int  # its place in the request's messages
    call_id: str | None  # OpenAI's tool_call_id (Ollama sends none)
    name: str | None  # Ollama's tool_name (OpenAI sends none)
    parts: tuple[ResultPart, ...]


Said = tuple[int, Message | ToolAnswer]  # a message and its place in the request


def call_arguments(raw: Any, param: str) -> dict[str, Any]:
    """A call's arguments: OpenAI's JSON text, or Ollama's object; a JSON object either way."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        if len(raw) > MAX_ARGUMENTS_CHARS:
            raise ClientError(
                400,
                f"Invalid '{param}': longer than {MAX_ARGUMENTS_CHARS // 1024} KB.",
                param=param,
                code="invalid_value",
            )
        try:
            raw = load_json(raw)
        except ValueError:
            raise ClientError(
                400,
                f"Invalid '{param}': the arguments are not valid JSON.",
                param=param,
                code="invalid_value",
            ) from None
    elif len(json.dumps(raw)) > MAX_ARGUMENTS_CHARS:
        raise ClientError(400, f"Invalid '{param}': too large.", param=param, code="invalid_value")
    if not isinstance(raw, dict):
        raise ClientError(
            400,
            f"Invalid '{param}': the arguments must be a JSON object.",
            param=param,
            code="invalid_value",
        )
    return dict(bounded_arguments(raw))


def checked_calls(calls: list[ToolCall], param: str) -> tuple[ToolCall, ...]:
    """An assistant message's calls, each id once."""
    ids = [c.id for c in calls]
    for call_id in ids:
        if ids.count(call_id) > 1:
            raise ClientError(
                400,
                f"Invalid '{param}': two tool calls have the id {call_id!r}.",
                param=param,
                code="invalid_value",
            )
    return tuple(calls)


def joined(said: list[Said]) -> list[Message]:
    """The conversation with each run of answers paired with its calls, one message a run."""
    out: list[Message] = []
    open_calls: list[ToolCall] = []  # the latest assistant message's calls still unanswered
    asked_at = -1  # where that assistant message is in the request
    order: list[str] = []  # its calls' ids, in the order it made them
    results: list[ToolResult] = []

    def close_run() -> None:
        if results:
            # In the calls' order, as Sightline keeps a step's results: a model whose wire
            # names no ids (Ollama's) reads each result against its call by place.
            ordered = sorted(results, key=lambda r: order.index(r.call_id))
            out.append(Message("tool", tuple(ordered)))
            results.clear()

    for index, item in said:
        if isinstance(item, ToolAnswer):
            call = _answered(item, open_calls, asked_at)
            open_calls.remove(call)
            results.append(ToolResult(call.id, call.name, item.parts))
            continue
        close_run()
        _all_answered(open_calls, asked_at)
        out.append(item)
        open_calls = list(item.tool_calls) if item.role == "assistant" else []
        order = [c.id for c in open_calls]
        asked_at = index if open_calls else -1
    close_run()
    if out and out[-1].role == "tool":  # the request ends with results: every one of them
        _all_answered(open_calls, asked_at)
    return out


def _answered(answer: ToolAnswer, open_calls: list[ToolCall], asked_at: int) -> ToolCall:
    """The call `answer` answers: by its id, else the first open one of its name, else the
    first open one."""
    where = f"messages[{answer.index}]"
    if asked_at < 0:
        raise ClientError(
            400,
            f"Invalid '{where}': a message with role 'tool' must answer a preceding assistant "
            "message's tool_calls.",
            param=f"{where}.role",
            code="invalid_value",
        )
    if answer.call_id is not None:
        found = next((c for c in open_calls if c.id == answer.call_id), None)
        if found is None:
            raise ClientError(
                400,
                f"Invalid '{where}.tool_call_id': {answer.call_id!r} answers no unanswered "
                f"tool call of messages[{asked_at}].",
                param=f"{where}.tool_call_id",
                code="invalid_value",
            )
        return found
    named = [c for c in open_calls if answer.name is None or c.name == answer.name]
    if not named:
        what = f"a call of {answer.name!r}" if answer.name else "a tool call"
        raise ClientError(
            400,
            f"Invalid '{where}': it answers {what}, and messages[{asked_at}] has no such call "
            "left unanswered.",
            param=where,
            code="invalid_value",
        )
    return named[0]


def _all_answered(open_calls: list[ToolCall], asked_at: int) -> None:
    """OpenAI's rule: an assistant message's calls are each answered before anything else."""
    if open_calls:
        ids = ", ".join(c.id for c in open_calls)
        raise ClientError(
            400,
            "An assistant message with 'tool_calls' must be followed by tool messages "
            "responding to each 'tool_call_id'. The following tool_call_ids did not have "
            f"response messages: {ids}",
            param=f"messages[{asked_at}].tool_calls",
            code="invalid_value",
        )
