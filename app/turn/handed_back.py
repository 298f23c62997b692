"""Tools a turn offers but never runs: whoever asked runs them, so a call of one ends the turn.

A served request may bring its own tools (OpenAI's and Ollama's `tools`): in both APIs
the client runs them and sends the results in its next request. Offered to the model
like any tool, they are kept apart from Sightline's: the runner's tool step, which asks
the person and runs, never sees a call of one. The turn ends at it and the calls go
back to the asker (`TurnEnded.handed_back`); the results come in a later turn
(`TurnInput.results`). The asker may make the model call one (OpenAI's `tool_choice`
"required", or a function named): that holds for the turn's first request only, as a
model made to call a tool after every result would never answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.tools.base import Tool, error_result
from routing.transcript import Notice, NoticeKind, ToolCall, ToolResult
from routing.wires.base import ToolChoice, ToolSpec

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


def offered_first(offered: Mapping[str, Tool], choice: ToolChoice | None) -> dict[str, Tool]:
    """The tools of a turn's first request under the asker's choice: a call "required" is
    one of the asker's tools (Sightline's, offered beside them by the window's server, are
    left out of that request), as the asker, who offered only its own, expects."""
    if choice is None or not choice.forces or choice.name is not None:
        return dict(offered)
    own: dict[str, Tool] = {n: t for n, t in offered.items() if isinstance(t, HandedBack)}
    return own or dict(offered)


def _wanted(choice: ToolChoice) -> str:
    return choice.name if choice.name is not None else "one of its tools"


def unforced(model_ref: str, choice: ToolChoice) -> Notice:
    """Said when the answering model's API has no tool choice (Ollama's): the request
    asked for a call that can't be made sure of."""
    offered = f"it was offered only {choice.name}" if choice.name else "it was offered the tools"
    return Notice(
        NoticeKind.INFO,
        f"{model_ref} can't be made to call a tool (its API has no tool choice): "
        f"{offered}, and may answer in words.",
    )


def not_called(model_ref: str, choice: ToolChoice) -> Notice:
    """Said when a model asked to call a tool answered in words instead, so the asker isn't
    left to think its tool_choice held."""
    return Notice(
        NoticeKind.INFO,
        f"{model_ref} answered in words: the request's tool_choice asked it to call "
        f"{_wanted(choice)}, and it called none.",
    )
