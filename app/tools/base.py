"""What every tool is to the turn loop: a spec to offer, and a way to run one call.

A tool never raises for a failure the model should hear about: it returns a
ToolResult with `is_error` set and words that say what went wrong. Exceptions are
left for cancellation and for bugs.
"""

from __future__ import annotations

from typing import Protocol

from routing.transcript import TextPart, ToolCall, ToolResult
from routing.wires.base import ToolSpec


class Tool(Protocol):
    """One tool: what the model is told about it, and how to run a call of it."""

    @property
    def spec(self) -> ToolSpec:
        """Name, description and JSON Schema of the arguments, as offered to models."""
        ...

    async def run(self, call: ToolCall) -> ToolResult:
        """Run one call; failures come back as an error result, not an exception."""
        ...


def error_result(call: ToolCall, message: str) -> ToolResult:
    """A failed call, in words the model can act on."""
    return ToolResult(call.id, call.name, (TextPart(message),), is_error=True)


def text_result(call: ToolCall, text: str) -> ToolResult:
    """A successful call that returned words only."""
    return ToolResult(call.id, call.name, (TextPart(text),))
