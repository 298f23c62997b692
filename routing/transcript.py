"""The transcript: messages made of parts, and notices that stand beside them.

Notices are shown to the person and stored, but they are not messages: no wire
ever turns one into something a model reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from routing.message_status import MessageStatus as MessageStatus
from routing.notice_kind import NoticeKind as NoticeKind

# Only named in annotations (PDF pages are spelt out in `PagesPart.span`): the transcript
# loads without Pillow's neighbours, PDFium's or the answers' stats.
if TYPE_CHECKING:
    from routing.answer_stats import AnswerStats
    from vision.pdf import PdfFile, VisionCandidate
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
class PagesPart:
    """PDF pages rendered as pictures because their text could not serve (a scan, say).

    A model that sees gets the lead-in and the pages; a model that can't gets what
    a seeing model transcribed, or, when nobody could, the original extraction
    error again. It stays one part so that choice can be made per model.
    """

    document: str  # the PDF's name
    first: int  # the page number of the first picture; the rest follow in order
    pictures: tuple[Picture, ...]
    extraction_error: str  # what a model reads when no one could read the pages
    total_pages: int | None = None  # None: unknown

    @classmethod
    def from_candidate(cls, name: str, candidate: VisionCandidate, total: int | None) -> PagesPart:
        """The part for a read's vision candidate."""
        return cls(name, candidate.first, candidate.pictures, candidate.extraction_error, total)

    @property
    def last(self) -> int:
        """The page number of the last picture."""
        return self.first + len(self.pictures) - 1

    @property
    def span(self) -> str:
        """The pages in words, e.g. "pages 4-6"."""
        from vision.pdf import page_span  # the transcript loads without vision.pdf

        return page_span(self.first, self.last)

    @property
    def lead_in(self) -> str:
        """What a model that sees reads before the pages."""
        return (
            f"{self.extraction_error} {self.span[0].upper()}{self.span[1:]} follow as "
            "pictures, each labelled with its page number in the PDF."
        )

    def numbered(self) -> tuple[tuple[int, Picture], ...]:
        """Each picture with its page number."""
        return tuple(enumerate(self.pictures, start=self.first))


@dataclass(frozen=True)
class PdfPart:
    """A PDF the person attached: a model that takes PDFs gets it, others get what is read."""

    pdf: PdfFile


ResultPart = TextPart | PicturePart | PagesPart


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
    parts: tuple[ResultPart, ...] = ()
    is_error: bool = False

    @cached_property
    def text(self) -> str:
        """The result's words, joined (rendered pages count by their lead-in)."""
        return "\n".join(
            p.text if isinstance(p, TextPart) else p.lead_in
            for p in self.parts
            if isinstance(p, TextPart | PagesPart)
        )

    @cached_property
    def pictures(self) -> tuple[Picture, ...]:
        """The result's pictures, in order, rendered pages included."""
        return _pictures(self.parts)


@dataclass(frozen=True)
class CarriedPart:
    """What a wire must send back, as the model gave it, on later requests: OpenAI's
    reasoning items, Gemini's thought signatures. Opaque JSON of one API shape: never
    shown to the person, ignored by every other wire, and sent back only to the model
    that made it (another model can't read it, and some refuse it)."""

    shape: str  # the wire shape that made it and alone reads it ("responses", "gemini")
    source: str  # the `provider:model` that made it
    data: Mapping[str, Any] = field(default_factory=dict)  # JSON, as the wire needs it back


Part = TextPart | PicturePart | PagesPart | PdfPart | ToolCall | ToolResult | CarriedPart


def _pictures(parts: tuple[Part, ...]) -> tuple[Picture, ...]:
    found: list[Picture] = []
    for part in parts:
        if isinstance(part, PicturePart):
            found.append(part.picture)
        elif isinstance(part, PagesPart):
            found.extend(part.pictures)
    return tuple(found)


@dataclass(frozen=True)
class Message:
    """One message of the conversation, as a wire sees it.

    What it derives from its parts (its words, pictures, calls, results) is worked out
    once and kept with it: a turn reads each of a long chat's messages in several passes
    (sight, shaping, fitting), and the store hands back the same objects turn after turn.
    """

    role: Role
    parts: tuple[Part, ...] = ()
    model: str = ""
    status: MessageStatus = MessageStatus.COMPLETE
    # How an answer came (tokens, time to its first word, speed), when measured. Not
    # part of what the message says, so two messages saying the same are equal
    # however fast each came; no wire sends it.
    stats: AnswerStats | None = field(default=None, compare=False)

    @cached_property
    def text(self) -> str:
        """The message's words, joined."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @cached_property
    def pictures(self) -> tuple[Picture, ...]:
        """Pictures of the message itself (not those inside tool results), pages included."""
        return _pictures(self.parts)

    @cached_property
    def pdfs(self) -> tuple[PdfFile, ...]:
        """PDFs attached to the message."""
        return tuple(p.pdf for p in self.parts if isinstance(p, PdfPart))

    @cached_property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The tool calls this message asks for."""
        return tuple(p for p in self.parts if isinstance(p, ToolCall))

    @cached_property
    def tool_results(self) -> tuple[ToolResult, ...]:
        """The tool results this message carries."""
        return tuple(p for p in self.parts if isinstance(p, ToolResult))

    @cached_property
    def carries_pictures(self) -> bool:
        """Whether it carries a picture, itself or inside a tool result."""
        return bool(self.pictures) or any(r.pictures for r in self.tool_results)

    def carried(self, shape: str, source: str) -> tuple[CarriedPart, ...]:
        """What a wire of `shape` carries on this message for `source` (provider:model)."""
        return tuple(
            p
            for p in self.parts
            if isinstance(p, CarriedPart) and p.shape == shape and p.source == source
        )


# Each notice kind as a person reads it: the window's label on the row, an export's heading.
NOTICE_LABELS: dict[str, str] = {
    NoticeKind.ROUTING: "Routing",
    NoticeKind.DISCLOSURE: "Disclosure",
    NoticeKind.HEAL: "Retried",
    NoticeKind.BUDGET: "Budget",
    NoticeKind.ERROR: "Error",
    NoticeKind.INFO: "Note",
    NoticeKind.SIGHT: "Sight check",
    NoticeKind.NOBODY_SEES: "No sight",
}

# What a crossing sent when a model off this computer answers: everything so far.
WHOLE_MESSAGE = "This message and the conversation before it"


@dataclass(frozen=True)
class Crossed:
    """What a notice says crossed to a model, as facts the ledger lists without reading words."""

    model: str  # provider:model
    host: str  # host[:port]
    what: str  # what was sent, e.g. "2 pictures (a.png, b.png)"
    why: str
    local: bool | None = None  # the host is this computer; None: not known


@dataclass(frozen=True)
class Notice:
    """Something Sightline tells the person in the conversation; never sent to a model."""

    kind: NoticeKind
    text: str
    details: str = ""
    crossed: Crossed | None = None  # set when data went to a model other than the chat's own


def has_pictures(message: Message) -> bool:
    """Whether a message carries a picture, itself or inside a tool result."""
    return message.carries_pictures


def user_message(
    text: str, pictures: tuple[Picture, ...] = (), pdfs: tuple[PdfFile, ...] = ()
) -> Message:
    """A person's message: words first, then attached pictures, then PDFs."""
    parts: list[Part] = [TextPart(text)] if text else []
    parts.extend(PicturePart(p) for p in pictures)
    parts.extend(PdfPart(p) for p in pdfs)
    return Message(role="user", parts=tuple(parts))


# Chat APIs of the OpenAI shape (and Ollama's) take pictures only in user messages,
# so a step's tool pictures travel in one user message after its tool messages.
# These fixed words open that message: they, not an extra field (which some
# providers refuse), mark it as tool output in the middle of a turn.
TOOL_PICTURES_OPENING = (
    "[Tool output, not a message from the person: pictures returned by the tool calls above.]"
)


def tool_pictures_text(sources: list[tuple[ToolResult, Picture]]) -> str:
    """The words that open the user message carrying a step's tool pictures."""
    lines = [TOOL_PICTURES_OPENING]
    for number, (result, picture) in enumerate(sources, start=1):
        label = f" ({picture.label})" if picture.label else ""
        lines.append(f"Picture {number}: from {result.name}, call {result.call_id}{label}.")
    return "\n".join(lines)


def is_tool_pictures_text(text: str) -> bool:
    """Whether a user message's words mark it as carrying tool pictures (mid-turn)."""
    return text.startswith(TOOL_PICTURES_OPENING)


def starts_turn(message: Message) -> bool:
    """Whether a message is the person speaking, which starts a turn."""
    return message.role == "user" and not is_tool_pictures_text(message.text)


def turn_start(messages: tuple[Message, ...] | list[Message]) -> int:
    """The index of the message that started the latest turn (0 when none did)."""
    for index in range(len(messages) - 1, -1, -1):
        if starts_turn(messages[index]):
            return index
    return 0
