"""Tools a turn offers but never runs: whoever asked runs them, so a call of one ends the turn.

A served request may bring its own tools (OpenAI's and Ollama's `tools`): in both APIs
the client runs them and sends the results in its next request. Offered to the model
like any tool, they are kept apart from Sightline's: the runner's tool step, which asks
the person and runs, never sees a call of one. The turn ends at it and the calls go
back to the asker (`TurnEnded.handed_back`); the results come in a later turn
(`TurnInput.results`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.tools.base import Tool, error_result
from routing.transcript import ToolCall, ToolResult
from routing.wires.base import ToolSpec

# Said to the model of a call of Sightline's own made in the same step as the asker's:
# the turn ends at the asker's calls, so Sightline's are not run (nor asked about).
NOT_RUN_BESIDE = (
    "Not run: this step also called tools of the app that asked, so the turn ended there "
    "and their calls went back to it. Call {name} again if it is still needed."
)


@dataclass(frozen=True)
class HandedBack:
    """A tool of the asker's: its spec is offered; a call of it is handed back, not run."""

    spec: ToolSpec

    async def run(self, call: ToolCall) -> ToolResult:
        """Never reached (the runner hands such calls back); says so should it be."""
        return error_result(call, f"{call.name} is run by the app that asked, not here.")


def handed_back(calls: Sequence[ToolCall], offered: Mapping[str, Tool]) -> tuple[ToolCall, ...]:
    """The calls of a step that are the asker's to run, in the step's order."""
    return tuple(c for c in calls if isinstance(offered.get(c.name), HandedBack))


def not_run_beside(calls: Sequence[ToolCall], handed: Sequence[ToolCall]) -> tuple[ToolResult, ...]:
    """Results for the step's other calls (Sightline's), which the turn's end leaves unrun."""
    return tuple(
        error_result(c, NOT_RUN_BESIDE.format(name=c.name)) for c in calls if c not in handed
    )
