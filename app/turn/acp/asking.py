"""What an agent asks mid-turn, answered through the turn's tool step.

Two kinds of asking reach the turn: the agent's own `session/request_permission`
(answered with the option of the agent's that matches the person's answer) and a
call of Sightline's door (its line asks whether the person allows `read_file` or
`screenshot`). Both go to the same approver as a model's tool call, so the window
shows its approval card and headless `ask` answers as `--allow-tools` says; a
refusal is told in the chat, naming what was refused in one line (the command the
agent would run, else its tool's title), with how to allow it.
"""

from __future__ import annotations

from collections.abc import Callable

from app.store import Store, StoredItem
from app.turn.acp.client import DoorAsked, PermissionAsked
from app.turn.acp.session import AgentSession
from app.turn.asked_words import command_of, one_line
from app.turn.tool_step import Approval, ToolStep
from routing.transcript import Notice, NoticeKind, ToolCall
from routing.wires.payload import bounded_arguments

# The agent's option kinds for each answer of the person's, the best match first.
_OPTION_KINDS = {
    Approval.ONCE: ("allow_once", "allow_always"),
    Approval.STEP: ("allow_once", "allow_always"),
    Approval.CONVERSATION: ("allow_always", "allow_once"),
    Approval.DENY: ("reject_once", "reject_always"),
}


class Asking:
    """Answers a turn's permission requests and door calls."""

    def __init__(self, store: Store, tool_step: ToolStep, denied_hint: str) -> None:
        self.store = store
        self.tool_step = tool_step
        self.denied_hint = denied_hint  # how to allow what was refused (`ask`: --allow-tools)

    async def permission(
        self,
        session: AgentSession,
        conversation_id: str,
        asked: PermissionAsked,
        asking: Callable[[PermissionAsked | None], None],
    ) -> StoredItem | None:
        """The agent asks to run a tool: the person's answer as the agent's option; the
        notice of a refusal, stored, when there is one. `asking` keeps the request while
        it waits, so Stop can answer it `cancelled`."""
        tool_call = asked.tool_call
        title = tool_call.title or tool_call.kind or "run a tool"
        raw = tool_call.raw_input if isinstance(tool_call.raw_input, dict) else {}
        name = f"{session.agent.id}.{tool_call.kind or 'tool'}"
        call = ToolCall(
            str(tool_call.tool_call_id), name, bounded_arguments({"title": title, **raw})
        )
        asking(asked)
        try:
            answer = await self.tool_step.decide(conversation_id, call)
        finally:
            session.process.heard()  # the person's time
        asking(None)
        kinds = _OPTION_KINDS[answer]
        option = next((o.option_id for k in kinds for o in asked.options if o.kind == k), None)
        if not asked.answer.done():
            asked.answer.set_result(option)
        if answer != Approval.DENY:
            return None
        # Named in one line: the command it would run, else the tool's title.
        command = command_of(raw)
        what = f"run `{command}`" if command else one_line(title)
        return self._refused(conversation_id, f"The agent {session.agent.id} asked to {what}")

    async def door(
        self, session: AgentSession, conversation_id: str, asked: DoorAsked
    ) -> StoredItem | None:
        """The door asks whether one of its calls may run; the refusal's notice, if refused."""
        answer = Approval.DENY
        try:
            answer = await self.tool_step.decide(conversation_id, asked.call)
        finally:  # Stop while the person decides refuses the call
            session.process.heard()
            if not asked.answer.done():
                asked.answer.set_result(answer != Approval.DENY)
        if answer != Approval.DENY:
            return None
        return self._refused(
            conversation_id,
            f"The agent {session.agent.id} asked to use {asked.call.name} through Sightline's door",
        )

    def _refused(self, conversation_id: str, what: str) -> StoredItem:
        notice = Notice(NoticeKind.INFO, f"{what}, which was not allowed." + self.denied_hint)
        return self.store.add_notice(conversation_id, notice)
