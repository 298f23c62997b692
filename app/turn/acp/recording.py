"""`AcpRecord`: an ACP agent's `session/update`s read into the agents' record.

The record itself (answer, thoughts, tool calls and results, stats, the turn's cap)
is every agent's (app/turn/agent_record.py); here are the updates: a run of words is
one write, thoughts, the plan (kept with the answer, shown as a checklist), tool calls
begun and updated (their content kept until the call ends), the context's fullness.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from app.turn.acp.client import PermissionAsked, Update, Words
from app.turn.acp.content import block_text, tool_parts
from app.turn.agent_record import AgentRecord
from app.turn.events import PlanEntry, PlanUpdated, TurnEvent
from routing.transcript import CarriedPart, ResultPart

SESSION = "acp"  # CarriedPart shape: the agent's session id, kept with its answers
PLAN = "acp_plan"  # CarriedPart shape: its last plan


@dataclass
class AcpRecord(AgentRecord):
    """One ACP agent turn in one chat: the agents' record, fed the agent's updates."""

    SESSION_SHAPE: ClassVar[str] = SESSION
    SESSION_KEY: ClassVar[str] = "session"

    plan: tuple[PlanEntry, ...] = ()
    content: dict[str, Any] = field(default_factory=dict)  # a call's latest content
    opened: dict[str, ResultPart] = field(default_factory=dict)  # large pictures, by base64
    asking: PermissionAsked | None = None  # a request the person is deciding (Stop cancels it)

    def updates(self, updates: list[Update | Words]) -> list[TurnEvent]:
        """Updates that came together, stored in order; the runs of words that follow one
        another are one write (an agent may send a word a message: one commit each would
        be most of a turn's cost)."""
        events: list[TurnEvent] = []
        words: list[str] = []
        for update in updates:
            if isinstance(update, Words):
                words += update.parts
                continue
            self.words("".join(words), events)
            words = []
            events += self.update(update.update)
        self.words("".join(words), events)
        return events

    def update(self, update: Any) -> list[TurnEvent]:
        """One `session/update` other than the answer's words (those come as `Words`, from
        the client), stored; the events it makes."""
        kind = getattr(update, "session_update", "")
        events: list[TurnEvent] = []
        if kind == "agent_thought_chunk":
            self.thought(block_text(update.content), events, heard=False)
        elif kind in ("tool_call", "tool_call_update"):
            self._tool(update, events)
        elif kind == "plan":
            answer = self.begin(events)
            self.plan = tuple(
                PlanEntry(str(e.content), str(e.status), str(e.priority)) for e in update.entries
            )
            events.append(PlanUpdated(answer.id, self.plan))
        elif kind == "usage_update":
            used, size = getattr(update, "used", None), getattr(update, "size", None)
            if isinstance(used, int) and isinstance(size, int) and used >= 0 and size > 0:
                self.context = (used, size)
        return events

    def _tool(self, update: Any, events: list[TurnEvent]) -> None:
        """A tool call begun or updated: a call on the answer, then its result message."""
        call_id = str(update.tool_call_id)
        raw = update.raw_input if isinstance(update.raw_input, dict) else {}
        self.call(call_id, str(update.title or update.kind or "tool"), raw, events)
        if update.content is not None:
            self.fit("", _size(update.content))
            self.content[call_id] = (update.content, update.raw_output)
        elif update.raw_output is not None:
            previous = self.content.get(call_id, (None, None))[0]
            self.content[call_id] = (previous, update.raw_output)
        if update.status in ("completed", "failed") and call_id in self.calls:
            content, raw_output = self.content.get(call_id, (None, None))
            parts = tool_parts(content, raw_output, self.opened)
            self.result(call_id, parts, update.status == "failed", events)

    def kept(self) -> list[CarriedPart]:
        """The session and thoughts, and the agent's last plan."""
        parts = super().kept()
        if self.plan:
            entries = [{"content": e.content, "status": e.status} for e in self.plan]
            parts.append(CarriedPart(PLAN, self.agent_id, {"entries": entries}))
        return parts


def _size(content: Any) -> int:
    """About how many characters a tool's content carries: its words, a diff's new text,
    a picture's base64."""
    total = 0
    for item in content if isinstance(content, list) else ():
        block = getattr(item, "content", None)
        if block is not None:
            total += len(str(getattr(block, "data", "") or "")) or len(block_text(block))
        else:
            total += len(str(getattr(item, "new_text", "") or ""))
    return total
