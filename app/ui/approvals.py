"""Tool calls waiting for the person's answer, each with the future its turn awaits.

Qt-free: the controller answers for the person (`Approver`) through this, and
tells the window what to show with the two callbacks. A turn stopped while it
waits is cancelled in `ask`, which then forgets the question and says so.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass

from app.tool_step import Approval
from routing.transcript import ToolCall


@dataclass(frozen=True)
class ApprovalRequest:
    """One question: may this call run in this conversation?"""

    serial: int
    conversation_id: str
    call: ToolCall


class Approvals:
    """The questions still open, in the order asked."""

    def __init__(
        self,
        asked: Callable[[ApprovalRequest], None],
        settled: Callable[[ApprovalRequest], None],
    ) -> None:
        """Call `asked` when a question opens and `settled` once it is answered or dropped."""
        self._asked = asked
        self._settled = settled
        self._serials = itertools.count(1)
        self._open: dict[int, tuple[ApprovalRequest, asyncio.Future[Approval]]] = {}

    async def ask(self, conversation_id: str, call: ToolCall) -> Approval:
        """Wait for the person's answer (cancelled with the turn when they press Stop)."""
        future: asyncio.Future[Approval] = asyncio.get_running_loop().create_future()
        request = ApprovalRequest(next(self._serials), conversation_id, call)
        self._open[request.serial] = (request, future)
        self._asked(request)
        try:
            return await future
        finally:
            del self._open[request.serial]
            self._settled(request)

    def answer(self, serial: int, approval: Approval) -> bool:
        """Give the person's answer to an open question; False when it is no longer open."""
        entry = self._open.get(serial)
        if entry is None or entry[1].done():
            return False
        entry[1].set_result(approval)
        return True

    def waiting_in(self, conversation_id: str) -> ApprovalRequest | None:
        """The first open question of a conversation, if any."""
        return next(
            (r for r, _ in self._open.values() if r.conversation_id == conversation_id), None
        )
