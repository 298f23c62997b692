"""One step of tool calls: ask the person, run what they allowed, concurrently.

No tool runs before the person allows it — once, for the whole conversation, or
not at all. "For the whole conversation" is kept with the conversation (`Grants`,
the store), so it still holds after a restart. A denied call still gets a
result: the model is told it was denied, so it can carry on without it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Protocol

from app.tools.base import Tool, error_result
from routing.transcript import ToolCall, ToolResult

log = logging.getLogger(__name__)

DENIED = "The person did not allow this tool call, so it was not run."
NOT_ALLOWED = "The person did not allow {name} (nor any tool) in this run, so it was not run."
STOPPED = "Stopped by the person before this tool call finished."


class Approval(StrEnum):
    """The person's answer to "may this tool run?"."""

    ONCE = "once"
    STEP = "step"  # this call and the step's other calls waiting to be asked about
    CONVERSATION = "conversation"
    DENY = "deny"


class Approver(Protocol):
    """Whoever answers for the person: the window's approval card, or `ask`'s flag."""

    async def approve(self, conversation_id: str, call: ToolCall, others: int = 0) -> Approval:
        """Allow this call once, with the step's `others` still to ask about, for the
        conversation, or not at all."""
        ...


class AllowAll:
    """`sightline ask --allow-tools`: every call of this run is allowed."""

    async def approve(self, conversation_id: str, call: ToolCall, others: int = 0) -> Approval:
        """Always allow, once."""
        return Approval.ONCE


class DenyAll:
    """`sightline ask` without `--allow-tools`: nothing runs, and the model is told why."""

    async def approve(self, conversation_id: str, call: ToolCall, others: int = 0) -> Approval:
        """Always deny."""
        return Approval.DENY


class Grants(Protocol):
    """Where "allow in this chat" is kept (the store), so it outlives the session."""

    def granted(self, conversation_id: str) -> set[str]:
        """The tools the person allowed for this whole conversation."""
        ...

    def grant(self, conversation_id: str, tool: str) -> None:
        """Remember that the person allowed this tool for the whole conversation."""
        ...


class ToolStep:
    """Runs the tool calls of one model step, remembering per-conversation permissions."""

    def __init__(
        self,
        approver: Approver,
        always_allowed: frozenset[str] = frozenset(),
        grants: Grants | None = None,
        withheld: Callable[[str], bool] = lambda name: False,
    ) -> None:
        self.approver = approver
        self.always_allowed = always_allowed  # the person's standing permission (Settings)
        self.grants = grants  # None: permissions last as long as this object
        # Tools the chat has but the person did not allow in this run (`ask` without
        # --allow-tools): a call of one is refused as not allowed, not as unknown.
        self.withheld = withheld
        self._allowed: dict[str, set[str]] = {}  # conversation id -> tool names

    def allowed_in(self, conversation_id: str) -> frozenset[str]:
        """Tools the person allowed for this whole conversation."""
        return frozenset(self._granted(conversation_id))

    def _granted(self, conversation_id: str) -> set[str]:
        if conversation_id not in self._allowed:
            kept = self.grants.granted(conversation_id) if self.grants else set()
            self._allowed[conversation_id] = set(kept)
        return self._allowed[conversation_id]

    async def run(
        self, conversation_id: str, calls: Sequence[ToolCall], tools: Mapping[str, Tool]
    ) -> tuple[ToolResult, ...]:
        """Results for every call, in the calls' order; runs the allowed ones concurrently."""
        allowed: list[ToolCall] = []
        results: dict[str, ToolResult] = {}
        step_allowed = False  # the person allowed the rest of this step at once
        for index, call in enumerate(calls):  # asked one at a time: one question at once
            if call.name not in tools and self.withheld(call.name):
                results[call.id] = error_result(call, NOT_ALLOWED.format(name=call.name))
                continue
            if call.name not in tools:
                results[call.id] = error_result(
                    call, f"There is no tool named {call.name!r}. Tools: {', '.join(tools)}."
                )
                continue
            if step_allowed or self._allowed_already(conversation_id, call):
                allowed.append(call)
                continue
            others = sum(
                1
                for later in calls[index + 1 :]
                if later.name in tools and not self._allowed_already(conversation_id, later)
            )
            answer = await self._ask(conversation_id, call, others)
            step_allowed = answer == Approval.STEP
            if answer == Approval.DENY:
                results[call.id] = error_result(call, DENIED)
            else:
                allowed.append(call)
        ran = await asyncio.gather(*(self._run_one(tools[c.name], c) for c in allowed))
        results.update((r.call_id, r) for r in ran)
        return tuple(results[c.id] for c in calls)

    async def decide(self, conversation_id: str, call: ToolCall) -> Approval:
        """Whether one call may run (an engine's own tool loop asks this): allowed already,
        else the person's answer, "allow in this chat" remembered."""
        if self._allowed_already(conversation_id, call):
            return Approval.ONCE
        return await self._ask(conversation_id, call, 0)

    def _allowed_already(self, conversation_id: str, call: ToolCall) -> bool:
        return call.name in self.always_allowed or call.name in self._granted(conversation_id)

    async def _ask(self, conversation_id: str, call: ToolCall, others: int) -> Approval:
        answer = await self.approver.approve(conversation_id, call, others)
        if answer == Approval.CONVERSATION:
            self._granted(conversation_id).add(call.name)
            if self.grants is not None:
                self.grants.grant(conversation_id, call.name)
        return answer

    async def _run_one(self, tool: Tool, call: ToolCall) -> ToolResult:
        try:
            return await tool.run(call)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a tool's bug must not end the turn
            log.exception("tool %s failed", call.name)
            return error_result(call, f"The tool {call.name} failed: {type(exc).__name__}: {exc}")


def stopped_results(calls: Iterable[ToolCall]) -> tuple[ToolResult, ...]:
    """Results for calls cut short by Stop, so every call in the transcript has its answer."""
    return tuple(error_result(call, STOPPED) for call in calls)
