"""What a turn reports as it goes; the window and `sightline ask` both consume these."""

from __future__ import annotations

from dataclasses import dataclass

from app.store import StoredItem
from routing.answer_stats import AnswerStats
from routing.errors import ProviderError
from routing.transcript import MessageStatus, Part, ToolCall
from routing.wires.base import Usage


@dataclass(frozen=True)
class ItemAdded:
    """A message or notice joined the conversation."""

    item: StoredItem


@dataclass(frozen=True)
class TextAdded:
    """More words of a streaming answer."""

    item_id: int
    text: str


@dataclass(frozen=True)
class PartAdded:
    """A part (such as a tool call) joined a streaming answer."""

    item_id: int
    part: Part


@dataclass(frozen=True)
class ThoughtAdded:
    """More of what an agent thinks aloud as it answers (shown collapsed, never an answer)."""

    item_id: int
    text: str


@dataclass(frozen=True)
class PlanEntry:
    """One step of an agent's plan."""

    content: str
    status: str = "pending"  # "pending", "in_progress" or "completed"
    priority: str = "medium"  # "high", "medium" or "low"


@dataclass(frozen=True)
class PlanUpdated:
    """An agent's plan, whole each time (it replaces the one before)."""

    item_id: int
    entries: tuple[PlanEntry, ...]


@dataclass(frozen=True)
class ItemFinished:
    """A streaming answer ended (complete, stopped or failed)."""

    item_id: int
    status: MessageStatus
    stats: AnswerStats | None = None  # what it cost and how fast it came, as stored
    # Why the model stopped, in its provider's own word ("stop", "length", "max_tokens"):
    # a served answer tells a client that was cut at its longest. "": it didn't say.
    reason: str = ""


@dataclass(frozen=True)
class UsageAdded:
    """Tokens the turn cost so far: the answer's, or the describer's (`source`)."""

    usage: Usage
    source: str = "answer"  # "answer", or "describer" for what describing pictures cost
    window: int | None = None  # the answering model's context window, in tokens


class TurnProblem(Exception):
    """A turn that ended for a reason of Sightline's own, not the provider's."""

    kind = "turn"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.detail = ""


class NotSaved(TurnProblem):
    """The turn could not be written to the store (a full disk, say): it ended there."""

    kind = "storage"


class NothingToAnswer(TurnProblem):
    """Asked to answer again where the person has said nothing yet."""

    kind = "nothing_to_answer"


@dataclass(frozen=True)
class TurnEnded:
    """The turn is over; `error` is set when it failed. `handed_back`: the model called
    tools the asker runs itself (app/turn/handed_back.py), and the turn ended there."""

    error: ProviderError | TurnProblem | None = None
    model_ref: str = ""
    handed_back: tuple[ToolCall, ...] = ()


TurnEvent = (
    ItemAdded
    | TextAdded
    | PartAdded
    | ItemFinished
    | UsageAdded
    | TurnEnded
    | ThoughtAdded
    | PlanUpdated
)
