"""The transcript: messages made of parts, and notices that stand beside them.

Notices are shown to the person and stored, but they are not messages: no wire
ever turns one into something a model reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from vision.pictures import Picture

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class TextPart:
    """Plain words."""

    text: str


@dataclass(frozen=True)
class PicturePart:
    """A picture inside a message or a tool result."""

    picture: Picture


@dataclass(frozen=True)
class ToolCall:
    """A model's request to run a tool; arguments are already parsed JSON."""

    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolResult:
    """What a tool gave back for one call: words and pictures."""

    call_id: str
    name: str
    parts: tuple[TextPart | PicturePart, ...] = ()
    is_error: bool = False

    @property
    def text(self) -> str:
        """The result's words, joined."""
        return "\n".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def pictures(self) -> tuple[Picture, ...]:
        """The result's pictures, in order."""
        return tuple(p.picture for p in self.parts if isinstance(p, PicturePart))


Part = TextPart | PicturePart | ToolCall | ToolResult


class MessageStatus(StrEnum):
    """How far a message got; anything but COMPLETE was cut short."""

    COMPLETE = "complete"
    STREAMING = "streaming"
    STOPPED = "stopped"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


@dataclass(frozen=True)
class Message:
    """One message of the conversation, as a wire sees it."""

    role: Role
    parts: tuple[Part, ...] = ()
    model: str = ""
    status: MessageStatus = MessageStatus.COMPLETE

    @property
    def text(self) -> str:
        """The message's words, joined."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def pictures(self) -> tuple[Picture, ...]:
        """Pictures attached to the message itself (not those inside tool results)."""
        return tuple(p.picture for p in self.parts if isinstance(p, PicturePart))

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The tool calls this message asks for."""
        return tuple(p for p in self.parts if isinstance(p, ToolCall))

    @property
    def tool_results(self) -> tuple[ToolResult, ...]:
        """The tool results this message carries."""
        return tuple(p for p in self.parts if isinstance(p, ToolResult))


class NoticeKind(StrEnum):
    """What a notice is about; the window styles each kind."""

    ROUTING = "routing"
    DISCLOSURE = "disclosure"
    HEAL = "heal"
    BUDGET = "budget"
    ERROR = "error"
    INFO = "info"


@dataclass(frozen=True)
class Notice:
    """Something Sightline tells the person in the conversation; never sent to a model."""

    kind: NoticeKind
    text: str
    details: str = ""


def user_message(text: str, pictures: tuple[Picture, ...] = ()) -> Message:
    """A person's message: words first, then attached pictures."""
    parts: list[Part] = [TextPart(text)] if text else []
    parts.extend(PicturePart(p) for p in pictures)
    return Message(role="user", parts=tuple(parts))
