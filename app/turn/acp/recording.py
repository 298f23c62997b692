"""`TurnRecord`: what an agent sends in one turn, stored as it comes.

Its words become the answer (begun on the first word), its thoughts and plan are
kept with the answer (shown collapsed and as a checklist), a tool call is a call on
the answer and its result a tool message after it: the shapes the model-API turn
stores, pictures included, so the window, `ask` and exports read both alike. The
agent's next words after a tool's result begin another answer. How long the answer
took and what the agent counted (tokens, its context's fullness) end up in the last
answer's stats. Its words, thoughts and tools' output together are bounded per turn
(routing/wires/answer_cap.py ANSWER_CHARS): what fits is kept and `cut` says the
engine must stop the agent; `clock` is the turn's overall limit (app/turn/limits.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from app.store import Store, StoredItem
from app.turn.acp.client import PermissionAsked
from app.turn.acp.content import block_text, tool_parts, tool_result
from app.turn.events import (
    ItemAdded,
    ItemFinished,
    PartAdded,
    PlanEntry,
    PlanUpdated,
    TextAdded,
    ThoughtAdded,
    TurnEvent,
)
from app.turn.limits import TURN_SECONDS, TurnClock
from app.turn.tool_step import STOPPED
from routing.agent_refs import ref_parts
from routing.answer_stats import AnswerStats
from routing.transcript import CarriedPart, Message, MessageStatus, TextPart, ToolCall
from routing.wires import answer_cap
from routing.wires.payload import bounded_arguments

SESSION = "acp"  # CarriedPart shape: the agent's session id, kept with its answers
THOUGHT = "acp_thought"  # CarriedPart shape: what it thought aloud, shown collapsed
PLAN = "acp_plan"  # CarriedPart shape: its last plan
MAX_THOUGHT_CHARS = 200_000


@dataclass
class TurnRecord:
    """One agent turn in one chat: what it has stored so far, and how it is storing."""

    store: Store
    conversation_id: str
    ref: str  # the answering agent (and model) as the chat names it: "agent[:model]"
    session_id: str = ""
    answer: StoredItem | None = None
    thoughts: list[str] = field(default_factory=list)
    plan: tuple[PlanEntry, ...] = ()
    calls: dict[str, ToolCall] = field(default_factory=dict)  # open: no result yet
    seen: set[str] = field(default_factory=set)  # every call id of the turn
    content: dict[str, Any] = field(default_factory=dict)  # a call's latest content
    sent: float = field(default_factory=time.monotonic)  # the prompt went
    first: float | None = None  # the agent's first word or tool call
    last: float | None = None
    context: tuple[int, int] | None = None  # its `usage_update`: used, size
    asking: PermissionAsked | None = None  # a request the person is deciding (Stop cancels it)
    clock: TurnClock = field(default_factory=lambda: TurnClock(TURN_SECONDS))
    cap: int = field(default_factory=lambda: answer_cap.ANSWER_CHARS)
    taken: int = 0  # characters of its words, thoughts and tools' output this turn
    cut: bool = False  # they reached `cap`: the engine stops the agent

    @property
    def agent_id(self) -> str:
        """The agent's id, without its model."""
        return ref_parts(self.ref)[0]

    def updates(self, updates: list[Any]) -> list[TurnEvent]:
        """Updates that came together, stored in order; a run of words is one write (an
        agent may send a word a message: one commit each would be most of a turn's cost)."""
        events: list[TurnEvent] = []
        words: list[str] = []
        for update in updates:
            if getattr(update, "session_update", "") == "agent_message_chunk":
                words.append(block_text(update.content))
                continue
            self._words("".join(words), events)
            words = []
            events += self.update(update)
        self._words("".join(words), events)
        return events

    def update(self, update: Any) -> list[TurnEvent]:
        """One `session/update`, stored; the events it makes."""
        kind = getattr(update, "session_update", "")
        events: list[TurnEvent] = []
        if kind == "agent_message_chunk":
            self._words(block_text(update.content), events)
        elif kind == "agent_thought_chunk":
            text = self.fit(block_text(update.content))
            if text and sum(map(len, self.thoughts)) < MAX_THOUGHT_CHARS:
                answer = self.begin(events)
                self.thoughts.append(text)
                events.append(ThoughtAdded(answer.id, text))
        elif kind in ("tool_call", "tool_call_update"):
            self._heard()
            events += self._tool(update)
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

    def begin(self, events: list[TurnEvent]) -> StoredItem:
        """The answer being streamed, begun on the agent's first word."""
        if self.answer is None:
            self.answer = self.store.begin_assistant(self.conversation_id, self.ref)
            events.append(ItemAdded(self.answer))
        return self.answer

    def end_answer(
        self, events: list[TurnEvent], status: MessageStatus, stats: AnswerStats | None = None
    ) -> None:
        """The answer so far ends (its thoughts, plan and session kept with it)."""
        if self.answer is None:
            return
        answer_id = self.answer.id
        for part in self._kept():
            self.store.add_part(answer_id, part)
        self.thoughts, self.answer = [], None
        self.store.finish_message(answer_id, status, stats)
        events.append(ItemFinished(answer_id, status, stats))

    def stop_calls(self, events: list[TurnEvent]) -> None:
        """Calls the agent never finished get a 'stopped' result each, after the answer."""
        if not self.calls:
            return
        calls, self.calls = list(self.calls.values()), {}
        self.end_answer(events, MessageStatus.COMPLETE)
        results = tuple(tool_result(c.id, c.name, (TextPart(STOPPED),), failed=True) for c in calls)
        events.append(
            ItemAdded(self.store.add_message(self.conversation_id, Message("tool", results)))
        )

    def stats(self, usage: Any) -> AnswerStats | None:
        """The turn's stats: its time, the tokens the agent counted, its context's fullness."""
        first = None if self.first is None else round(self.first - self.sent, 3)
        streaming = None
        if self.first is not None and self.last is not None:
            streaming = round(self.last - self.first, 3)
        tokens_in = getattr(usage, "input_tokens", None)
        tokens_out = getattr(usage, "output_tokens", None)
        used, size = self.context or (None, None)
        stats = AnswerStats(
            tokens_in if isinstance(tokens_in, int) else None,
            tokens_out if isinstance(tokens_out, int) else None,
            first,
            streaming,
            used,
            size,
        )
        return stats if stats.known else None

    def fit(self, text: str, size: int | None = None) -> str:
        """What of `text` (of `size` characters, when it is not all words) fits under the
        turn's cap; `cut` once something did not."""
        size = len(text) if size is None else size
        room = max(self.cap - self.taken, 0)
        if size > room:
            self.cut = True
            text = text[:room]
        self.taken += min(size, room)
        return text

    def _words(self, text: str, events: list[TurnEvent]) -> None:
        text = self.fit(text)
        if not text:
            return
        answer = self.begin(events)
        self._heard()
        self.store.append_text(answer.id, text)
        events.append(TextAdded(answer.id, text))

    def _heard(self) -> None:
        now = time.monotonic()
        if self.first is None:
            self.first = now
        self.last = now

    def _tool(self, update: Any) -> list[TurnEvent]:
        """A tool call begun or updated: a call on the answer, then its result message."""
        events: list[TurnEvent] = []
        call_id = str(update.tool_call_id)
        if call_id not in self.seen:
            self.seen.add(call_id)
            raw = update.raw_input if isinstance(update.raw_input, dict) else {}
            name = update.title or update.kind or "tool"
            call = ToolCall(call_id, str(name)[:200], bounded_arguments(raw))
            answer = self.begin(events)
            self.store.add_part(answer.id, call)
            self.calls[call_id] = call
            events.append(PartAdded(answer.id, call))
        if update.content is not None:
            self.fit("", _size(update.content))
            self.content[call_id] = (update.content, update.raw_output)
        elif update.raw_output is not None:
            previous = self.content.get(call_id, (None, None))[0]
            self.content[call_id] = (previous, update.raw_output)
        if update.status in ("completed", "failed") and call_id in self.calls:
            call = self.calls.pop(call_id)
            content, raw_output = self.content.get(call_id, (None, None))
            result = tool_result(
                call.id,
                call.name,
                tool_parts(content, raw_output),
                failed=update.status == "failed",
            )
            self.end_answer(events, MessageStatus.COMPLETE)
            stored = self.store.add_message(self.conversation_id, Message("tool", (result,)))
            events.append(ItemAdded(stored))
        return events

    def _kept(self) -> list[CarriedPart]:
        agent_id = self.agent_id
        parts = []
        if self.session_id:
            parts.append(CarriedPart(SESSION, agent_id, {"session": self.session_id}))
        if self.thoughts:
            parts.append(CarriedPart(THOUGHT, agent_id, {"text": "".join(self.thoughts)}))
        if self.plan:
            entries = [{"content": e.content, "status": e.status} for e in self.plan]
            parts.append(CarriedPart(PLAN, agent_id, {"entries": entries}))
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
