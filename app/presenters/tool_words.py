"""Tool calls and results in words: one-line calls, pretty arguments, and how a call went.

Qt-free, so the approval card, the conversation rows and their tests share one wording.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from routing.transcript import ToolCall, ToolResult


CALL_VALUE_CHARS = 60  # one value in a one-line call
PRETTY_VALUE_CHARS = 400  # one string value in the pretty arguments
PRETTY_ITEMS = 30  # items of one list or object in the pretty arguments
SHOWN_TEXT_CHARS = 8000  # an expanded result's text; the full text is copied with Ctrl+C
SHOWN_TEXT_LINES = 160


class Outcome(StrEnum):
    """How a tool call went, as its result row says."""

    OK = "ok"
    ERROR = "error"
    DENIED = "not allowed"
    STOPPED = "stopped"


def outcome_of(result: ToolResult) -> Outcome:
    """Whether a call ran, failed, was not allowed, or was cut short by Stop."""
    # Here, not at the top: app.turn.tool_step imports asyncio, which loads after the first paint.
    from app.turn.tool_step import DENIED, STOPPED

    if not result.is_error:
        return Outcome.OK
    # The tool step words these two itself; any other error came from the tool.
    if result.text == DENIED:
        return Outcome.DENIED
    if result.text == STOPPED:
        return Outcome.STOPPED
    return Outcome.ERROR


def elide(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, ending in "…" when anything was cut."""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def _value(value: Any) -> str:
    """One argument as JSON, on one line, elided."""
    return elide(json.dumps(value, ensure_ascii=False), CALL_VALUE_CHARS)


def call_line(call: ToolCall) -> str:
    """A call on one line, as code reads: `read_file(path="/tmp/a.txt")`."""
    arguments = ", ".join(f"{name}={_value(value)}" for name, value in call.arguments.items())
    return f"{call.name}({arguments})"


def _shortened(value: Any) -> Any:
    """A copy of a JSON value whose long strings and long lists are cut, saying so."""
    if isinstance(value, str) and len(value) > PRETTY_VALUE_CHARS:
        more = len(value) - PRETTY_VALUE_CHARS
        return f"{value[:PRETTY_VALUE_CHARS]}… ({more:,} more characters)"
    if isinstance(value, Mapping):
        items = list(value.items())
        shown: dict[str, Any] = {str(k): _shortened(v) for k, v in items[:PRETTY_ITEMS]}
        if len(items) > PRETTY_ITEMS:
            shown["…"] = f"{len(items) - PRETTY_ITEMS} more"
        return shown
    if isinstance(value, list | tuple):
        kept = [_shortened(v) for v in value[:PRETTY_ITEMS]]
        return kept + ([f"… {len(value) - PRETTY_ITEMS} more"] if len(value) > PRETTY_ITEMS else [])
    return value


def pretty_arguments(arguments: Mapping[str, Any]) -> str:
    """The arguments as indented JSON, long values elided; "{}" when there are none."""
    return json.dumps(_shortened(arguments), indent=2, ensure_ascii=False, default=str)


def first_line(text: str) -> str:
    """The first line that has any words (whitespace trimmed), or ""."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def picture_count(result: ToolResult) -> str:
    """ "1 picture", "3 pictures", or "" for none."""
    count = len(result.pictures)
    return f"{count} picture{'s' * (count != 1)}" if count else ""


def result_summary(result: ToolResult) -> str:
    """A result in one line of words: "read_file · ok · first line · 1 picture"."""
    parts = [result.name, str(outcome_of(result)), first_line(result.text), picture_count(result)]
    return " · ".join(part for part in parts if part)


def shown_text(text: str) -> str:
    """A result's text as an expanded row shows it: long text is cut, saying how much."""
    lines = text.splitlines()
    cut = "\n".join(lines[:SHOWN_TEXT_LINES])
    cut = cut[:SHOWN_TEXT_CHARS]
    if len(cut) >= len(text.rstrip("\n")):
        return text.rstrip("\n")
    more = len(text) - len(cut)
    return f"{cut}\n… {more:,} more characters (Ctrl+C copies the whole result)"
