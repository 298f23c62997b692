"""The door: Sightline's own tools (`read_file`, `screenshot`) offered to an agent over MCP.

An agent started by Sightline gets this server in `session/new` and starts it
itself (`sightline mcp-serve`). The door keeps Sightline's promises for what goes
through it:

- every call needs the person's approval: the running Sightline is asked over the
  door's line (app/tools/door_line.py), so the window shows its approval card and
  headless `ask` answers as `--allow-tools` says; a door started by hand, with no
  line, runs calls only with `--allow-tools` and refuses them otherwise;
- a picture result goes as MCP image content after the text to an agent that takes
  pictures (`--sees`), else in words, and every picture that goes through the door is
  disclosed: the door is handed the turn's sight policy (`sight`, app/turn/sight_policy.py
  `DoorSight`: the tools don't import the turn), which decides and tells it; what is
  told is stored in the conversation when one is named (else logged), and so is a
  refused call.
"""

from __future__ import annotations

import base64
import itertools
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from mcp import types

from app.tools.base import Tool
from routing.transcript import (
    Notice,
    NoticeKind,
    PagesPart,
    PicturePart,
    TextPart,
    ToolCall,
    ToolResult,
)
from routing.wires.payload import bounded_arguments
from vision.pictures import Picture

log = logging.getLogger(__name__)

# A result with pictures as the agent gets it (its pictures in words for an agent that
# doesn't take them), and whether they go as pictures; the crossing told by whoever
# handed it over (the turn's sight policy, which the tools don't import).
ResultSight = Callable[[ToolResult, str], Awaitable[tuple[ToolResult, bool]]]

NOT_ALLOWED = "The person didn't allow {name} through Sightline's door, so it was not run."


class Door:
    """What the door's MCP server does with a listing and a call; no transport here."""

    def __init__(
        self,
        tools: Sequence[Tool],
        *,
        allowed: bool = False,
        approve: Callable[[ToolCall], Awaitable[bool]] | None = None,
        sight: ResultSight,
        agent: str = "",
        tell: Callable[[Notice], None] | None = None,
    ) -> None:
        self.tools = {tool.spec.name: tool for tool in tools}
        self.allowed = allowed
        # Asks the person (through the running Sightline) for each call; it says itself
        # when one is refused. None: `allowed` decides for the whole run.
        self.approve = approve
        self.sight = sight  # a result's pictures as the agent gets them, the crossing told
        self.agent = agent or "the agent"
        self.tell = tell or (lambda notice: log.info("door: %s", notice.text))
        self._ids = itertools.count(1)
        self._refused_told: set[str] = set()

    def listed(self) -> list[types.Tool]:
        """The tools as MCP lists them, in Sightline's order."""
        return [
            types.Tool(
                name=tool.spec.name,
                description=tool.spec.description,
                input_schema=dict(tool.spec.parameters),
            )
            for tool in self.tools.values()
        ]

    async def call(self, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        """Run one call, as approved; a failure is an error result, never an exception."""
        tool = self.tools.get(name)
        if tool is None:
            shown = name[:80]  # the agent's words, bounded
            return error_content(
                f"Sightline's door has no tool {shown!r}; it has {', '.join(self.tools)}."
            )
        call = ToolCall(f"door-{next(self._ids)}", name, bounded_arguments(arguments or {}))
        if not await self._allows(call):
            alone = (
                "" if self.approve else " A door started on its own runs only with --allow-tools."
            )
            return error_content(NOT_ALLOWED.format(name=name) + alone)
        try:
            result = await tool.run(call)
        except Exception:  # a bug of ours: logged, and the agent gets words, not a traceback
            log.exception("door: %s failed", name)
            return error_content(f"{name} failed inside Sightline; its log says why.")
        if not result.pictures:
            return _content(result, with_pictures=False)
        given, with_pictures = await self.sight(result, name)
        return _content(given, with_pictures=with_pictures)

    async def _allows(self, call: ToolCall) -> bool:
        if self.approve is not None:
            return await self.approve(call)
        if not self.allowed and call.name not in self._refused_told:
            self._refused_told.add(call.name)  # told once a run: an agent may retry in a loop
            self.tell(
                Notice(
                    NoticeKind.INFO,
                    f"The agent {self.agent} asked to use {call.name} through Sightline's door, "
                    "which was not allowed: a door started on its own runs its tools only "
                    "with --allow-tools.",
                )
            )
        return self.allowed


def error_content(message: str) -> types.CallToolResult:
    """A call that did not run, as MCP says so: an error result with the reason."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


def _content(result: ToolResult, *, with_pictures: bool) -> types.CallToolResult:
    """A Sightline result as MCP content: its words first, then its pictures as images."""
    texts: list[types.TextContent | types.ImageContent] = []
    images: list[types.TextContent | types.ImageContent] = []
    for part in result.parts:
        if isinstance(part, TextPart):
            texts.append(types.TextContent(type="text", text=part.text))
        elif isinstance(part, PicturePart) and with_pictures:
            images.append(_image(part.picture))
        elif isinstance(part, PagesPart) and with_pictures:
            texts.append(
                types.TextContent(
                    type="text",
                    text=f"{part.document}: pages {part.first}-{part.last}, as pictures.",
                )
            )
            images.extend(_image(p) for p in part.pictures)
    return types.CallToolResult(content=[*texts, *images], is_error=result.is_error)


def _image(picture: Picture) -> types.ImageContent:
    data = base64.b64encode(picture.data).decode("ascii")
    return types.ImageContent(type="image", data=data, mime_type=picture.mime)
