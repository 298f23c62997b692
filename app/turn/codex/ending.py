"""A Codex turn's end: completed as its status says, failed, or interrupted.

Stop, the cap on the turn's output and its overall limit (app/turn/limits.py) all
interrupt it the same way: `turn/interrupt`, then Codex's messages read until
`turn/completed` (its words kept, its questions answered `cancel`), within one budget;
a Codex that doesn't end its turn in time is dropped (the next turn starts it again).
A turn that failed is told by what went wrong: a line Sightline can't read, a refusal,
or the program's end.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from app.turn.agent_problems import AgentProblem, AgentStopped
from app.turn.codex.process import CodexProcess, CodexRefused
from app.turn.codex.record import CodexRecord
from app.turn.codex.session import CodexSession
from app.turn.engine import error_notice
from app.turn.events import ItemAdded, TurnEnded, TurnEvent, UsageAdded
from routing.transcript import MessageStatus, Notice, NoticeKind

log = logging.getLogger(__name__)


def completed(record: CodexRecord, turn: dict[str, Any], events: list[TurnEvent]) -> None:
    """`turn/completed`: the answer ends as its status says (failed: with its error)."""
    status = turn.get("status")
    if record.usage is not None:
        events.append(UsageAdded(record.usage))
    if status == "failed":
        error = turn.get("error") if isinstance(turn.get("error"), dict) else {}
        assert isinstance(error, dict)
        problem = AgentProblem(f"Codex could not answer: {error.get('message') or 'it failed'}")
        record.end_answer(events, MessageStatus.FAILED, record.stats(record.usage))
        record.stop_calls(events)
        if not any(
            isinstance(e, ItemAdded)
            and isinstance(e.item.item, Notice)
            and e.item.item.kind == NoticeKind.ERROR
            for e in events
        ):
            events.append(ItemAdded(error_notice(record.store, record.conversation_id, problem)))
        events.append(TurnEnded(problem, record.ref))
        return
    done = MessageStatus.STOPPED if status == "interrupted" else MessageStatus.COMPLETE
    record.finish(events, done, record.stats(record.usage))
    events.append(TurnEnded(None, record.ref))


async def interrupted(session: CodexSession, record: CodexRecord, timeout: float) -> bool:
    """`turn/interrupt`, then what came until the turn ended; False when Codex did not
    end it within `timeout` (it must be dropped)."""
    process, turn_id = session.process, record.turn_id
    try:
        if turn_id and process.running:
            # One budget for the interrupt's answer and the turn's end.
            async with asyncio.timeout(timeout):
                try:
                    await process.request(
                        "turn/interrupt",
                        {"threadId": session.thread_id, "turnId": turn_id},
                        timeout,
                    )
                except CodexRefused as refused:
                    # The turn ended before the interrupt was read (a `cancel`ed
                    # approval ends it at once): its end is still to be read below.
                    log.info("Codex refused the interrupt: %s", refused)
                await _until_ended(process, record)
    except (Exception, asyncio.CancelledError) as exc:
        log.info("Codex did not end its turn on interrupt: %r", exc)
        return False
    return True


async def _until_ended(process: CodexProcess, record: CodexRecord) -> None:
    """Codex's messages until `turn/completed`: words kept, its questions cancelled."""
    while (incoming := await process.inbox.get()) is not None:
        if "id" in incoming:
            await process.respond(incoming["id"], cancelled(incoming))
        elif incoming.get("method") == "turn/completed":
            return
        elif incoming.get("method") == "item/agentMessage/delta":
            record.words(str((incoming.get("params") or {}).get("delta") or ""), [])
    raise ConnectionError("Codex's output ended")


def cancelled(request: dict[str, Any]) -> dict[str, Any]:
    """The answer to a request of Codex's that came while stopping."""
    method = request.get("method")
    if method in ("execCommandApproval", "applyPatchApproval"):
        return {"decision": "abort"}
    if method == "item/tool/call":
        return {"contentItems": [{"type": "inputText", "text": "Stopped."}], "success": False}
    if method == "item/permissions/requestApproval":
        return {"permissions": {}}
    if method == "item/tool/requestUserInput":
        return {"answers": {}}
    if method == "mcpServer/elicitation/request":
        return {"action": "cancel"}
    return {"decision": "cancel"}


async def why_failed(session: CodexSession, exc: BaseException) -> AgentProblem:
    """A failed turn, in words; AgentStopped when Codex must be started again."""
    process, name = session.process, session.provider.id
    log.info("Codex %s failed its turn: %r", name, exc)
    if process.malformed:
        return AgentStopped(
            f"Codex ({name}) sent {process.malformed}, which Sightline can't "
            "read, so its turn ended; what it said is kept. Your next "
            "message starts it again."
        )
    if isinstance(exc, CodexRefused):
        return AgentProblem(f"Codex ({name}) refused the turn: {exc.message}")
    await process.settle()
    status = process.exit_status()
    how = f" (exit status {status})" if status is not None else ""
    return AgentStopped(
        f"Codex ({name}) stopped mid-turn{how}; what it said is kept. "
        "Your next message starts it again.",
        f"{type(exc).__name__}: {exc}",
    )
