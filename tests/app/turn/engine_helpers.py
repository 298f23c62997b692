"""What the engines' tests share: an approver that records (reading a turn's events is
tests/events.py's, re-exported here for the tests that import it from this module)."""

from __future__ import annotations

from app.turn.tool_step import Approval
from routing.transcript import ToolCall
from tests.events import collect, ended, notices

__all__ = ["Recording", "collect", "ended", "notices"]


class Recording:
    """An approver that answers every call the same way and keeps what it was asked."""

    def __init__(self, answer: Approval) -> None:
        self.answer = answer
        self.asked: list[ToolCall] = []

    async def approve(self, conversation_id: str, call: ToolCall, others: int = 0) -> Approval:
        self.asked.append(call)
        return self.answer
