"""`AgentRecord`: what an agent (ACP or Codex) sends in one turn, stored as it comes.

Its words become the answer (begun on the first word), its thoughts are kept with the
answer (shown collapsed), a tool call is a call on the answer and its result a tool
message after it: the shapes the model-API turn stores, so the window, `ask` and
exports read every engine alike. The agent's next words after a tool's result begin
another answer. How long the answer took and what the agent counted (tokens, its
context's fullness) end up in the last answer's stats. Its words, thoughts and tools'
output together are bounded per turn (routing/wires/answer_cap.py ANSWER_CHARS): what
fits is kept and `cut` says the engine must stop the agent; `clock` is the turn's
overall limit (app/turn/limits.py). The session (ACP) or thread (Codex) is kept with
each answer under the protocol's own shape, so a later turn can resume it.

Each protocol's record reads its own messages into these (app/turn/acp/recording.py,
app/turn/codex/record.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

from app.store import Store, StoredItem
from app.turn.agent_problems import AgentProblem
from app.turn.engine import error_notice
from app.turn.events import (
    ItemAdded,
    ItemFinished,
    PartAdded,
    TextAdded,
    ThoughtAdded,
    TurnEnded,
    TurnEvent,
)
from app.turn.held_words import SaveOnPause
from app.turn.limits import TURN_SECONDS, TurnClock
from app.turn.tool_step import STOPPED
from routing.agent_refs import ref_parts
from routing.answer_stats import AnswerStats
from routing.transcript import (
    CarriedPart,
    Message,
    MessageStatus,
    ResultPart,
    TextPart,
    ToolCall,
    ToolResult,
)
from routing.wires import answer_cap
from routing.wires.payload import bounded_arguments

THOUGHT = "acp_thought"  # CarriedPart shape: what an agent thought aloud, shown collapsed
MAX_THOUGHT_CHARS = 200_000


def tool_result(
    call_id: str, name: str, parts: tuple[ResultPart, ...], *, failed: bool
) -> ToolResult:
    """What a tool call of the agent's gave, as the transcript keeps results."""
    return ToolResult(call_id, name, parts or (TextPart("(no output)"),), is_error=failed)


@dataclass
class AgentRecord:
    """One agent turn in one chat: what it has stored so far, and how it is storing."""

    # The CarriedPart shape and key the session id is kept under, with each answer.
    SESSION_SHAPE: ClassVar[str] = ""
    SESSION_KEY: ClassVar[str] = ""

    store: Store
    conversation_id: str
    ref: str  # the answering agent (and model) as the chat names it: "agent[:model]"
    session_id: str = ""  # the session (ACP) or thread (Codex) the agent answers in
    answer: StoredItem | None = None
    thoughts: list[str] = field(default_factory=list)
    calls: dict[str, ToolCall] = field(default_factory=dict)  # open: no result yet
    seen: set[str] = field(default_factory=set)  # every call id of the turn
    sent: float = field(default_factory=time.monotonic)  # the prompt went
    first: float | None = None  # the agent's first word or tool call
    last: float | None = None
    context: tuple[int, int] | None = None  # its context's fullness: used, size
    clock: TurnClock = field(default_factory=lambda: TurnClock(TURN_SECONDS))
    cap: int = field(default_factory=lambda: answer_cap.ANSWER_CHARS)
    taken: int = 0  # characters of its words, thoughts and tools' output this turn
    cut: bool = False  # they reached `cap`: the engine stops the agent
    pause: SaveOnPause = field(init=False)  # writes its held words when the agent pauses

    def __post_init__(self) -> None:
        """Watch the store's held words for this turn."""
        self.pause = SaveOnPause(self.store)

    @property
    def agent_id(self) -> str:
        """The agent's id, without its model."""
        return ref_parts(self.ref)[0]

    def begin(self, events: list[TurnEvent], words: str = "") -> StoredItem:
        """The answer being streamed, begun on the agent's first word (`words`, written with
        it; a thought or a tool call begins it with none)."""
        if self.answer is None:
            self.answer = self.store.begin_assistant(self.conversation_id, self.ref, words)
            events.append(ItemAdded(self.answer))
        return self.answer

    def words(self, text: str, events: list[TurnEvent]) -> None:
        """More of the answer (within the turn's cap)."""
        text = self.fit(text)
        if not text:
            return
        if self.answer is None:
            answer = self.begin(events, text)  # its first words written with it: one commit
        else:
            answer = self.answer
            self.store.append_text(answer.id, text)
            self.pause.appended()
        self.heard()
        events.append(TextAdded(answer.id, text))

    def thought(self, text: str, events: list[TurnEvent], *, heard: bool = True) -> None:
        """More of what the agent thinks aloud (bounded), kept with the answer; `heard`:
        it counts as the agent's first sign of an answer for the stats."""
        text = self.fit(text)  # within the turn's cap, as its words and tools' output
        if text and sum(map(len, self.thoughts)) < MAX_THOUGHT_CHARS:
            answer = self.begin(events)
            if heard:
                self.heard()
            self.thoughts.append(text)
            events.append(ThoughtAdded(answer.id, text))

    def call(
        self, call_id: str, name: str, arguments: dict[str, Any], events: list[TurnEvent]
    ) -> None:
        """A tool call begun: a call on the answer (once per id)."""
        self.heard()
        if call_id in self.seen:
            return
        self.seen.add(call_id)
        call = ToolCall(call_id, name[:200], bounded_arguments(arguments))
        answer = self.begin(events)
        self.store.add_part(answer.id, call)
        self.pause.appended()  # held with the words: written with its result, or soon
        self.calls[call_id] = call
        events.append(PartAdded(answer.id, call))

    def result(
        self, call_id: str, parts: tuple[ResultPart, ...], failed: bool, events: list[TurnEvent]
    ) -> None:
        """A call's result: the answer so far ends, the result is a tool message after it."""
        call = self.calls.pop(call_id, None)
        if call is None:
            return
        result = tool_result(call.id, call.name, parts, failed=failed)
        with self.store.together():  # the answer's end and the result: one commit
            self.end_answer(events, MessageStatus.COMPLETE)
            stored = self.store.add_message(self.conversation_id, Message("tool", (result,)))
        events.append(ItemAdded(stored))

    def end_answer(
        self, events: list[TurnEvent], status: MessageStatus, stats: AnswerStats | None = None
    ) -> None:
        """The answer so far ends (what is carried with it kept: thoughts, session)."""
        if self.answer is None:
            return
        answer_id, kept = self.answer.id, tuple(self.kept())
        self.thoughts, self.answer = [], None
        self.store.finish_message(answer_id, status, stats, parts=kept)
        self.pause.cancel()  # its held words are written: no write left for the timer
        events.append(ItemFinished(answer_id, status, stats))

    def stop_calls(self, events: list[TurnEvent]) -> None:
        """Calls the agent never finished get a 'stopped' result each, after the answer."""
        if not self.calls:
            return
        calls, self.calls = list(self.calls.values()), {}
        results = tuple(tool_result(c.id, c.name, (TextPart(STOPPED),), failed=True) for c in calls)
        with self.store.together():  # the answer's end and the results: one commit
            self.end_answer(events, MessageStatus.COMPLETE)
            stored = self.store.add_message(self.conversation_id, Message("tool", results))
        events.append(ItemAdded(stored))

    def finish(
        self, events: list[TurnEvent], status: MessageStatus, stats: AnswerStats | None
    ) -> None:
        """The agent answered: open calls stopped, and the last answer ends as `status`
        (an empty one when a tool's result ended the turn, so the session is kept)."""
        self.begin(events)
        self.stop_calls(events)
        if self.answer is None:
            self.begin(events)
        self.end_answer(events, status, stats)

    def failed(self, problem: AgentProblem) -> list[TurnEvent]:
        """The turn failed: the answer so far kept as failed, the problem told."""
        events: list[TurnEvent] = []
        self.end_answer(events, MessageStatus.FAILED)
        self.stop_calls(events)
        events.append(ItemAdded(error_notice(self.store, self.conversation_id, problem)))
        events.append(TurnEnded(problem, self.ref))
        return events

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

    def heard(self) -> None:
        """The agent sent something of its answer now (for the answer's timing)."""
        now = time.monotonic()
        if self.first is None:
            self.first = now
        self.last = now

    def kept(self) -> list[CarriedPart]:
        """What is carried with each answer: the session it answered in, its thoughts."""
        parts = []
        if self.session_id:
            parts.append(
                CarriedPart(self.SESSION_SHAPE, self.agent_id, {self.SESSION_KEY: self.session_id})
            )
        if self.thoughts:
            parts.append(CarriedPart(THOUGHT, self.agent_id, {"text": "".join(self.thoughts)}))
        return parts
