"""`CodexRecord`: what Codex sends in one turn, stored as the ACP engine stores an agent's.

It is the agents' record (app/turn/agent_record.py) with Codex's items read into it: the
words of `item/agentMessage/delta` are the answer, reasoning deltas its thoughts, a
`commandExecution` or `fileChange` item a tool call on the answer (`codex.command`,
`codex.file_change`) whose result (the command's output, the change's diff) is a tool
message after it, and a dynamic tool's call and result likewise. The thread id and the
thoughts are kept with each answer (the thread under Codex's own shape, so a later turn
or another engine can resume it; the thoughts as an agent's, shown collapsed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from app.turn.agent_record import AgentRecord
from app.turn.events import TurnEvent
from app.turn.sight_policy import AgentSight
from routing.transcript import TextPart
from routing.wires.base import Usage

THREAD = "codex"  # CarriedPart shape: Codex's thread id, kept with its answers
COMMAND = "codex.command"  # the tool name of a command Codex runs (its approval asks this)
FILE_CHANGE = "codex.file_change"  # the tool name of a change Codex makes to files
MAX_OUTPUT_CHARS = 100_000  # of a command's output, kept as its result


@dataclass
class CodexRecord(AgentRecord):
    """One Codex turn in one chat: the agents' record, fed Codex's items."""

    SESSION_SHAPE: ClassVar[str] = THREAD
    SESSION_KEY: ClassVar[str] = "thread"

    output: dict[str, list[str]] = field(default_factory=dict)  # a command's streamed output
    usage: Usage | None = None  # the last `thread/tokenUsage/updated`
    sight: AgentSight | None = None  # Codex as the sight policy sees it (set as the turn begins)
    turn_id: str = ""  # Codex's id of the running turn, for `turn/interrupt`

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
        self.heard()

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


def _command_arguments(item: dict[str, Any]) -> dict[str, Any]:
    arguments: dict[str, Any] = {"command": str(item.get("command") or "")[:10_000]}
    if isinstance(item.get("cwd"), str):
        arguments["cwd"] = item["cwd"]
    return arguments
