"""Tool calls waiting for the person's answer, each with the future its turn awaits.

Qt-free: the controller answers for the person (`Approver`) through this, and
tells the window what to show with the two callbacks. A turn stopped while it
waits is cancelled in `ask`, which then forgets the question and says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.presenters.questions import Questions
from routing.transcript import ToolCall

if TYPE_CHECKING:  # app.turn.tool_step imports asyncio, which loads after the first paint
    from app.turn.tool_step import Approval


@dataclass(frozen=True)
class ApprovalRequest:
    """One question: may this call run in this conversation?"""

    serial: int
    conversation_id: str
    call: ToolCall
    others: int = 0  # more calls of the same step still to ask about after this one


class Approvals(Questions[ApprovalRequest, "Approval"]):
    """Tool calls waiting for the person's answer, in the order asked."""

    async def ask(self, conversation_id: str, call: ToolCall, others: int = 0) -> Approval:
        """Wait for the person's answer (cancelled with the turn when they press Stop)."""
        request = ApprovalRequest(self.next_serial(), conversation_id, call, others)
        return await self.put(request)

    def waiting_in(self, conversation_id: str) -> ApprovalRequest | None:
        """The first open question of a conversation, if any."""
        return next((r for r in self.waiting() if r.conversation_id == conversation_id), None)
