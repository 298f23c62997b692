"""Codex's own requests mid-turn, answered through the turn's tool step.

Its approval requests (a command, a file change, and the older `execCommandApproval` /
`applyPatchApproval`) go to the same approver as a model's tool call, as a `ToolCall`
named `codex.command` or `codex.file_change`, so the window shows its approval card,
headless `ask` answers as `--allow-tools` says, and "allow in this chat" holds for the
rest of the chat; the answer goes back as Codex's decision (`accept`, `acceptForSession`,
`decline`) and a refusal is told in the chat with `denied_hint`, naming the command (in
one line, app/turn/asked_words.py) or the files. A dynamic tool's call
(`item/tool/call`: Sightline's `read_file` or `screenshot`) is asked the same way, then
run, stored as a call and a tool message, and answered with its words and pictures (data
URLs); a picture it sends to a model off this computer is disclosed with a `Crossed` fact.
A request for more permissions (the network, writing outside the sandbox) is asked the
same way as `codex.permissions`: allowed, exactly what was asked is granted for the turn
("allow in this chat": for Codex's session), refused, nothing is. What Sightline can't
answer yet (questions for the person, an MCP server's form) is declined, and the chat
says so.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from app.store import Store
from app.tools.base import Tool, error_result
from app.turn.asked_words import command_of, one_line
from app.turn.codex.record import COMMAND, FILE_CHANGE, CodexRecord
from app.turn.events import ItemAdded, TurnEvent
from app.turn.sight_policy import SightPolicy
from app.turn.tool_step import DENIED, Approval, ToolStep
from routing.transcript import Message, Notice, NoticeKind, ToolCall, ToolResult
from routing.wires.payload import bounded_arguments
from vision.pictures import Picture, PictureError, clamp

log = logging.getLogger(__name__)

_NEW = {Approval.ONCE: "accept", Approval.STEP: "accept", Approval.CONVERSATION: "acceptForSession"}
_OLD = {
    Approval.ONCE: "approved",
    Approval.STEP: "approved",
    Approval.CONVERSATION: "approved_for_session",
}
APPROVALS = {
    "item/commandExecution/requestApproval": (COMMAND, _NEW, "decline"),
    "item/fileChange/requestApproval": (FILE_CHANGE, _NEW, "decline"),
    "execCommandApproval": (COMMAND, _OLD, "denied"),
    "applyPatchApproval": (FILE_CHANGE, _OLD, "denied"),
}
PERMISSIONS_ASKED = "item/permissions/requestApproval"
PERMISSIONS = "codex.permissions"  # the tool name such a request is asked as
# What the engine can't ask the person yet, and the answer that declines each.
DECLINED: dict[str, tuple[str, dict[str, Any]]] = {
    "item/tool/requestUserInput": ("to ask you a question", {"answers": {}}),
    "mcpServer/elicitation/request": ("for a form of an MCP server", {"action": "decline"}),
}


def data_url(picture: Picture) -> str:
    """A picture as a `data:` URL, the way Codex takes an image."""
    return f"data:{picture.mime};base64,{base64.b64encode(picture.data).decode('ascii')}"


class CodexAsking:
    """Answers one chat's Codex requests; returns the result to send and the events."""

    def __init__(
        self, store: Store, tool_step: ToolStep, denied_hint: str, sight: SightPolicy
    ) -> None:
        self.store = store
        self.tool_step = tool_step
        self.denied_hint = denied_hint
        self.sight = sight  # a blind model's tool pictures in words, and what is told

    async def answer(
        self,
        record: CodexRecord,
        method: str,
        params: Mapping[str, Any],
        tools: Mapping[str, Tool],
        events: list[TurnEvent],
    ) -> dict[str, Any]:
        """The result for Codex's request `method`, storing what it makes into `events`."""
        chat = record.conversation_id
        if method in APPROVALS:
            name, decisions, refusal = APPROVALS[method]
            call = ToolCall(
                str(params.get("itemId") or params.get("callId") or ""),
                name,
                bounded_arguments(_asked(params)),
            )
            answer = await self.tool_step.decide(chat, call)
            if answer == Approval.DENY:
                self._notice(
                    chat,
                    f"Codex asked to {_declined(name, params)}, which was not allowed."
                    + self.denied_hint,
                    events,
                )
                return {"decision": refusal}
            return {"decision": decisions[answer]}
        if method == PERMISSIONS_ASKED:
            return await self._permissions(chat, params, events)
        if method == "item/tool/call":
            return await self._tool(record, params, tools, events)
        what, declined = DECLINED.get(method, ("something Sightline doesn't know", {}))
        log.info("Codex asked %s (%s); declined", what, method)
        self._notice(
            chat,
            f"Codex asked {what}, which Sightline can't answer yet, so it was declined.",
            events,
        )
        return declined

    async def _permissions(
        self, chat: str, params: Mapping[str, Any], events: list[TurnEvent]
    ) -> dict[str, Any]:
        asked = params.get("permissions") if isinstance(params.get("permissions"), dict) else {}
        assert isinstance(asked, dict)
        shown = _permissions_asked(asked)
        if isinstance(params.get("reason"), str):
            shown["reason"] = params["reason"]
        call = ToolCall(str(params.get("itemId") or ""), PERMISSIONS, bounded_arguments(shown))
        answer = await self.tool_step.decide(chat, call)
        wanted = ", ".join(k for k in ("network", "read", "write") if k in shown) or "unnamed"
        if answer == Approval.DENY:
            self._notice(
                chat,
                f"Codex asked for more permissions ({wanted}), which were not allowed."
                + self.denied_hint,
                events,
            )
            return {"permissions": {}}
        # Exactly what was asked, no more: Codex's profile of a grant is its request's shape.
        scope = "session" if answer == Approval.CONVERSATION else "turn"
        until = "the rest of this chat" if scope == "session" else "this turn"
        self._notice(chat, f"Codex was given more permissions ({wanted}) for {until}.", events)
        return {"permissions": asked, "scope": scope}

    async def _tool(
        self,
        record: CodexRecord,
        params: Mapping[str, Any],
        tools: Mapping[str, Tool],
        events: list[TurnEvent],
    ) -> dict[str, Any]:
        name, call_id = str(params.get("tool") or ""), str(params.get("callId") or "")
        arguments = params.get("arguments")
        call = ToolCall(
            call_id, name, bounded_arguments(arguments if isinstance(arguments, dict) else {})
        )
        record.call(call_id, name, dict(call.arguments), events)
        tool = tools.get(name)
        if tool is None:
            result = error_result(call, f"There is no tool named {name!r}.")
        elif await self.tool_step.decide(record.conversation_id, call) == Approval.DENY:
            self._notice(
                record.conversation_id,
                f"Codex asked to use {name}, which was not allowed." + self.denied_hint,
                events,
            )
            result = error_result(call, DENIED)
        else:
            try:
                result = await tool.run(call)
            except Exception as exc:  # a tool's bug must not end the turn
                log.exception("tool %s failed", name)
                result = error_result(call, f"The tool {name} failed: {type(exc).__name__}: {exc}")
        record.result(call_id, result.parts, result.is_error, events)
        sight = record.sight
        assert sight is not None
        if not sight.sees and result.pictures:
            worded = await self.sight.words(
                (Message("tool", (result,)),), sight.model, local=sight.model.local
            )
            for notice in worded.notices:
                self._told(record.conversation_id, notice, events)
            result = next(
                (p for p in worded.messages[0].parts if isinstance(p, ToolResult)), result
            )
        # Its pictures clamped off the window's thread (a 4K screenshot: ~90 ms).
        items, sent = (
            await asyncio.to_thread(_content, result) if result.pictures else _content(result)
        )
        why = f"Codex called {name}, as you allowed"
        crossing = self.sight.to_agent(sight, sent, why=why, tool=name)
        if crossing is not None:
            self._told(record.conversation_id, crossing, events)
        return {"contentItems": items, "success": not result.is_error}

    def _notice(self, chat: str, text: str, events: list[TurnEvent]) -> None:
        self._told(chat, Notice(NoticeKind.INFO, text), events)

    def _told(self, chat: str, notice: Notice, events: list[TurnEvent]) -> None:
        events.append(ItemAdded(self.store.add_notice(chat, notice)))


def _declined(name: str, params: Mapping[str, Any]) -> str:
    """What Codex asked, as a notice names it: the command in one line, or the files."""
    if name == COMMAND:
        command = command_of(params)
        return f"run `{command}`" if command else "run a command"
    changes = params.get("fileChanges")
    paths = [one_line(str(p)) for p in changes] if isinstance(changes, dict) else []
    if not paths:
        return "change files"
    more = f" and {len(paths) - 3} more" if len(paths) > 3 else ""
    return f"change {', '.join(paths[:3])}{more}"


def _asked(params: Mapping[str, Any]) -> dict[str, Any]:
    """What the person is shown about an approval: the command or files, and why."""
    shown: dict[str, Any] = {}
    for key in ("command", "cwd", "reason", "grantRoot"):
        if params.get(key) is not None:
            value = params[key]
            shown[key] = " ".join(map(str, value)) if isinstance(value, list) else value
    if isinstance(params.get("fileChanges"), dict):
        shown["paths"] = list(params["fileChanges"])
    return shown


def _permissions_asked(asked: Mapping[str, Any]) -> dict[str, Any]:
    """What more permissions Codex asks for, in the words the approval card shows."""
    shown: dict[str, Any] = {}
    network = asked.get("network")
    if isinstance(network, dict) and network.get("enabled"):
        shown["network"] = "on"
    files = asked.get("fileSystem") if isinstance(asked.get("fileSystem"), dict) else {}
    assert isinstance(files, dict)
    entries = files.get("entries") if isinstance(files.get("entries"), list) else []
    assert isinstance(entries, list)
    for access in ("read", "write"):
        listed = files.get(access) if isinstance(files.get(access), list) else []
        assert isinstance(listed, list)
        paths = [p for p in listed if isinstance(p, str)]
        for entry in entries:
            path = entry.get("path") if isinstance(entry, dict) else None
            if isinstance(path, dict) and entry.get("access") == access:
                paths.append(str(path.get("path") or path.get("pattern") or path.get("value")))
        if paths:
            shown[access] = paths
    return shown


def _content(result: ToolResult) -> tuple[list[dict[str, Any]], list[Picture]]:
    """A result as Codex's content items (words first, then pictures), and the pictures."""
    items: list[dict[str, Any]] = []
    text, pictures = clamped(result.text, result.pictures)
    if text or not pictures:
        items.append({"type": "inputText", "text": text or "(no output)"})
    items.extend({"type": "inputImage", "imageUrl": data_url(p)} for p in pictures)
    return items, pictures


def clamped(text: str, pictures: Sequence[Picture]) -> tuple[str, list[Picture]]:
    """The pictures as Codex gets them (clamped), and the words with a line for each one
    that can't be."""
    sent: list[Picture] = []
    for picture in pictures:
        try:
            sent.append(clamp(picture))
        except PictureError as exc:
            text = f"{text}\n{exc}".strip()
    return text, sent


__all__ = ["CodexAsking", "clamped", "data_url"]
