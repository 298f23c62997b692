"""What the engines' tests share: reading a turn's events, and an approver that records."""

from __future__ import annotations

from collections.abc import AsyncIterator

from app.turn.events import ItemAdded, TurnEnded, TurnEvent
from app.turn.tool_step import Approval
from routing.transcript import Notice, ToolCall


async def collect(events: AsyncIterator[TurnEvent]) -> list[TurnEvent]:
    """Every event of a turn."""
    return [event async for event in events]


def ended(events: list[TurnEvent]) -> TurnEnded:
    """The turn's last event, which ends it."""
    last = events[-1]
    assert isinstance(last, TurnEnded)
    return last


def notices(events: list[TurnEvent]) -> list[Notice]:
    """The notices the turn stored."""
    return [
        e.item.item for e in events if isinstance(e, ItemAdded) and isinstance(e.item.item, Notice)
    ]


class Recording:
    """An approver that answers every call the same way and keeps what it was asked."""

    def __init__(self, answer: Approval) -> None:
        self.answer = answer
        self.asked: list[ToolCall] = []

    async def approve(self, conversation_id: str, call: ToolCall, others: int = 0) -> Approval:
        self.asked.append(call)
        return self.answer
