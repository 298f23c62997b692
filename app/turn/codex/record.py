"""`CodexRecord`: what Codex sends in one turn, stored as the ACP engine stores an agent's.

It is `TurnRecord` (app/turn/acp/recording.py) with Codex's items read into it: the
words of `item/agentMessage/delta` are the answer, reasoning deltas its thoughts, a
`commandExecution` or `fileChange` item a tool call on the answer (`codex.command`,
`codex.file_change`) whose result (the command's output, the change's diff) is a tool
message after it, and a dynamic tool's call and result likewise. The thread id and the
thoughts are kept with each answer (the thread under Codex's own shape, so a later turn
or another engine can resume it; the thoughts as an agent's, shown collapsed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.turn.acp.content import tool_result

# Its reasoning is kept as an agent's thoughts are, so the window shows it the same way.
from app.turn.acp.recording import MAX_THOUGHT_CHARS, THOUGHT, TurnRecord
from app.turn.events import ItemAdded, PartAdded, ThoughtAdded, TurnEvent
from routing.models import ModelInfo
from routing.transcript import (
    CarriedPart,
    Message,
    MessageStatus,
    ResultPart,
    TextPart,
    ToolCall,
)
from routing.wires.base import Usage
from routing.wires.payload import bounded_arguments

THREAD = "codex"  # CarriedPart shape: Codex's thread id, kept with its answers
COMMAND = "codex.command"  # the tool name of a command Codex runs (its approval asks this)
FILE_CHANGE = "codex.file_change"  # the tool name of a change Codex makes to files
MAX_OUTPUT_CHARS = 100_000  # of a command's output, kept as its result


@dataclass
class CodexRecord(TurnRecord):
    """One Codex turn in one chat: the ACP record, fed Codex's items."""

    output: dict[str, list[str]] = field(default_factory=dict)  # a command's streamed output
    usage: Usage | None = None  # the last `thread/tokenUsage/updated`
    blind: ModelInfo | None = None  # the model Codex runs, when Sightline knows it is blind

    def words(self, text: str, events: list[TurnEvent]) -> None:
        """More of the answer."""
        self._words(text, events)

    def thought(self, text: str, events: list[TurnEvent]) -> None:
        """More of what Codex reasons (bounded), kept with the answer."""
        text = self.fit(text)  # within the turn's cap, as its words and commands' output
        if text and sum(map(len, self.thoughts)) < MAX_THOUGHT_CHARS:
            answer = self.begin(events)
            self._heard()
            self.thoughts.append(text)
            events.append(ThoughtAdded(answer.id, text))

    def call(
        self, call_id: str, name: str, arguments: dict[str, Any], events: list[TurnEvent]
    ) -> None:
        """A tool call begun: a call on the answer (once per id)."""
        self._heard()
        if call_id in self.seen:
            return
        self.seen.add(call_id)
        call = ToolCall(call_id, name[:200], bounded_arguments(arguments))
        answer = self.begin(events)
        self.store.add_part(answer.id, call)
        self.calls[call_id] = call
        events.append(PartAdded(answer.id, call))

    def result(
        self,
        call_id: str,
        parts: tuple[ResultPart, ...],
        failed: bool,
        events: list[TurnEvent],
    ) -> None:
        """A call's result: the answer so far ends, the result is a tool message after it."""
        call = self.calls.pop(call_id, None)
        if call is None:
            return
        self.end_answer(events, MessageStatus.COMPLETE)
        result = tool_result(call.id, call.name, parts, failed=failed)
        stored = self.store.add_message(self.conversation_id, Message("tool", (result,)))
        events.append(ItemAdded(stored))

    def item(self, item: dict[str, Any], completed: bool, events: list[TurnEvent]) -> None:
        """An `item/started` or `item/completed` of a command or a file change."""
        kind, item_id = item.get("type"), str(item.get("id") or "")
        if kind == "commandExecution" and item_id:
            self.call(item_id, COMMAND, _command_arguments(item), events)
            if completed:
                status = item.get("status")
                text = item.get("aggregatedOutput")
                if not isinstance(text, str):
                    text = "".join(self.output.pop(item_id, []))
                text = text[-MAX_OUTPUT_CHARS:]
                if status == "declined":
                    text = "The command was not run (declined)."
                elif isinstance(item.get("exitCode"), int):
                    text = f"{text}\n(exit code {item['exitCode']})".lstrip("\n")
                self.result(item_id, (TextPart(text),), status != "completed", events)
        elif kind == "fileChange" and item_id:
            listed = item.get("changes")
            changes = [c for c in listed if isinstance(c, dict)] if isinstance(listed, list) else []
            self.call(
                item_id, FILE_CHANGE, {"paths": [str(c.get("path")) for c in changes]}, events
            )
            if completed:
                status = item.get("status")
                diff = "\n".join(
                    f"{c.get('path')}\n{c.get('diff') or ''}".rstrip("\n") for c in changes
                )
                if status == "declined":
                    diff = "The change was not made (declined).\n" + diff
                self.result(
                    item_id, (TextPart(diff[:MAX_OUTPUT_CHARS]),), status != "completed", events
                )

    def command_output(self, item_id: str, delta: str) -> None:
        """More of a running command's output (bounded)."""
        self.fit("", len(delta))
        kept = self.output.setdefault(item_id, [])
        if sum(map(len, kept)) < MAX_OUTPUT_CHARS:
            kept.append(delta)
        self._heard()

    def token_usage(self, usage: dict[str, Any]) -> None:
        """`thread/tokenUsage/updated`: the last request's tokens, the context's fullness."""
        last = usage.get("last") if isinstance(usage.get("last"), dict) else {}
        assert isinstance(last, dict)
        tokens_in, tokens_out = last.get("inputTokens"), last.get("outputTokens")
        if isinstance(tokens_in, int) and isinstance(tokens_out, int):
            self.usage = Usage(tokens_in, tokens_out)
        used, size = last.get("totalTokens"), usage.get("modelContextWindow")
        if isinstance(used, int) and isinstance(size, int) and used >= 0 and size > 0:
            self.context = (used, size)

    def _kept(self) -> list[CarriedPart]:
        parts = []
        if self.session_id:
            parts.append(CarriedPart(THREAD, self.agent_id, {"thread": self.session_id}))
        if self.thoughts:
            parts.append(CarriedPart(THOUGHT, self.agent_id, {"text": "".join(self.thoughts)}))
        return parts


def _command_arguments(item: dict[str, Any]) -> dict[str, Any]:
    arguments: dict[str, Any] = {"command": str(item.get("command") or "")[:10_000]}
    if isinstance(item.get("cwd"), str):
        arguments["cwd"] = item["cwd"]
    return arguments
