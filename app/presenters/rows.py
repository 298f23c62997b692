"""The open conversation's rows, with no Qt: what each shows, says to a screen reader,
and where its version switch goes.

`ConversationModel` (app/ui/conversation/conversation_model.py) keeps a list of these
for Qt's view; the row painters read them directly. A row is mutable: streamed words,
tool calls and the final status land in place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.presenters.tool_words import pretty_arguments, result_summary, shown_text
from app.presenters.when import today_or_full_when
from routing.message_status import MessageStatus

# The transcript's classes load with the first row, not at the first paint (an empty chat
# has none): the functions that test or make them import them.
if TYPE_CHECKING:
    from app.store import PictureWords, StoredItem
    from routing.transcript import Message, Notice, ToolCall
    from vision.pictures import Picture

# An agent's thinking and plan: rows of their own before its answer (app/ui/agents/agent_rows.py).
THOUGHT_ROW, PLAN_ROW = "thought", "plan"
# How the agent engine keeps them on its answers (app/turn/acp/recording.py THOUGHT and PLAN,
# repeated so opening a chat needn't load the agent protocol's SDK).
THOUGHT_SHAPE, PLAN_SHAPE = "acp_thought", "acp_plan"
_TICKS = {"completed": "\u2611", "in_progress": "\u25b8"}  # ☑ done, ▸ under way
_TO_DO = "\u2610"  # ☐
_NAMED_PICTURES = 5  # a message with more is read as the first five "and N more"


def plan_text(entries: object) -> str:
    """A plan as a checklist, a step a line: PlanEntry objects or the stored dicts."""
    lines = []
    for entry in entries if isinstance(entries, list | tuple) else ():
        if isinstance(entry, dict):
            content, status = str(entry.get("content", "")), str(entry.get("status", ""))
        else:
            content, status = str(getattr(entry, "content", "")), str(getattr(entry, "status", ""))
        lines.append(f"{_TICKS.get(status, _TO_DO)} {content}")
    return "\n".join(lines)


def agent_row_id(answer_id: int, kind: str) -> int:
    """The id of an answer's thinking or plan row: negative, so no stored item has it."""
    return -2 * answer_id - (1 if kind == PLAN_ROW else 0)


def author_of(message: Message) -> str:
    """Who wrote a message, as its author line says."""
    if message.role == "user":
        return "You"
    if message.role == "assistant":
        return message.model or "Assistant"
    return message.role.capitalize()


def _words(item: Message | Notice) -> str:
    """A row's words: a tool message has none of its own, so its results' words stand in."""
    from routing.transcript import Message

    if isinstance(item, Message) and item.role == "tool":
        return "\n\n".join(result.text for result in item.tool_results)
    return item.text


@dataclass
class Row:
    """One row; mutable so streamed words, tool calls and the final status land in place."""

    stored: StoredItem
    text: str
    status: MessageStatus | None
    streamed_calls: list[ToolCall] = field(default_factory=list)  # before the message ends
    # A tool row's calls, one per result (None when not found), for its arguments.
    result_calls: tuple[ToolCall | None, ...] = ()
    expanded: bool = False
    # The versions this row switches between ("‹ 2 / 3 ›"), and which is shown: an
    # answer's, or the person's message's own. () when there is one version.
    switch: tuple[int, ...] = ()
    switch_at: int = 0
    agent: str = ""  # THOUGHT_ROW or PLAN_ROW: an agent's thinking or plan, not an item

    @classmethod
    def agent_row(cls, answer: StoredItem, kind: str, text: str) -> Row:
        """An answer's thinking or plan row (a quiet note to the rest of the window)."""
        from app.store import StoredItem
        from routing.transcript import Notice, NoticeKind

        label = "Thinking" if kind == THOUGHT_ROW else "Plan"
        notice = Notice(NoticeKind.INFO, label)
        stored = StoredItem(
            agent_row_id(answer.id, kind),
            answer.conversation_id,
            answer.seq,
            answer.created_at,
            notice,
        )
        return cls(stored, text, None, agent=kind)

    @classmethod
    def of(cls, stored: StoredItem) -> Row:
        """A row showing a stored item."""
        from routing.transcript import Notice

        item = stored.item
        return cls(stored, _words(item), None if isinstance(item, Notice) else item.status)

    @property
    def item_id(self) -> int:
        """The stored item's id."""
        return self.stored.id

    @property
    def notice(self) -> Notice | None:
        """The notice shown, if this row is one."""
        from routing.transcript import Notice

        item = self.stored.item
        return item if isinstance(item, Notice) else None

    @property
    def message(self) -> Message | None:
        """The message shown, if this row is one."""
        from routing.transcript import Message

        item = self.stored.item
        return item if isinstance(item, Message) else None

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The calls an answer made: stored ones, and those streamed since."""
        message = self.message
        stored = message.tool_calls if message else ()
        have = {call.id for call in stored}
        return stored + tuple(c for c in self.streamed_calls if c.id not in have)

    @property
    def is_tool(self) -> bool:
        """Whether this row shows tool results (a collapsible row)."""
        message = self.message
        return message is not None and message.role == "tool"

    @property
    def expandable(self) -> bool:
        """Whether the row opens to show more: tool results, a notice with details, or an
        agent's thinking (its plan is always shown whole)."""
        if self.agent:
            return self.agent == THOUGHT_ROW
        notice = self.notice
        return self.is_tool or (notice is not None and bool(notice.details))

    @property
    def shape(self) -> int:
        """A hash of everything that changes the row's height."""
        return hash((self.text, self.status, len(self.tool_calls), self.expanded, self.switch))

    @property
    def version_words(self) -> str:
        """ " (version 2 of 3)" for a row with versions, else ""."""
        if not self.switch:
            return ""
        return f" (version {self.switch_at + 1} of {len(self.switch)})"

    def version_beside(self, step: int) -> int | None:
        """The version `step` away (-1 the one before, +1 the one after), if there is one."""
        at = self.switch_at + step
        return self.switch[at] if self.switch and 0 <= at < len(self.switch) else None

    @property
    def accessible_text(self) -> str:
        """What a screen reader says for the row."""
        message, notice = self.message, self.notice
        if self.agent == THOUGHT_ROW:
            if self.expanded:
                return f"The agent's thinking (expanded): {self.text}"
            return (
                f"The agent's thinking, {len(self.text.split())} words (collapsed, Enter shows it)"
            )
        if self.agent == PLAN_ROW:
            return f"The agent's plan:\n{self.text}"
        if notice is not None:
            said = f"{self.author} notice, {self.when_words}{self.version_words}: {notice.text}"
            if not notice.details:
                return said
            if self.expanded:
                return f"{said}\nDetails: {notice.details}"
            return f"{said} (collapsed, Enter shows details)"
        if message is not None and message.role == "tool":
            if not self.expanded:
                results = "; ".join(result_summary(r) for r in message.tool_results)
                return f"Tool result (collapsed, Enter shows all): {results}"
            # Open, it says all the row shows, as a sighted person reads it.
            parts = []
            for result, call in zip(message.tool_results, self.result_calls, strict=False):
                arguments = f" with {pretty_arguments(call.arguments)}" if call else ""
                parts.append(f"{result_summary(result)}{arguments}. {shown_text(result.text)}")
            return "Tool result (expanded): " + "\n".join(parts)
        said = f"{self.author}, {self.when_words}{self.version_words}: {self.text}"
        said += self.picture_words
        # Its stats, as the quiet line under the card shows them, on a line of their own.
        spoken = self.stats_words(spoken=True)
        return f"{said}\n({spoken})" if spoken else said

    @property
    def when_words(self) -> str:
        """When it was written: the time of day for today, the date too for another day."""
        return today_or_full_when(self.stored.created_at)

    def stats_words(self, *, spoken: bool = False) -> str:
        """A finished answer's stats ("12 tokens in · 148 out · …", or in words for a screen
        reader); "" for the person's messages, an answer still streaming, or one nothing was
        measured for."""
        message = self.message
        if message is None or message.role != "assistant" or message.stats is None:
            return ""
        if self.status == MessageStatus.STREAMING:
            return ""
        from routing.answer_stats import stats_words

        return stats_words(message.stats, spoken=spoken)

    @property
    def author(self) -> str:
        """The author line: "You", the answering model, or the notice's kind."""
        from routing.transcript import Message, Notice

        item = self.stored.item
        if self.agent:
            return item.text if isinstance(item, Notice) else self.agent
        return author_of(item) if isinstance(item, Message) else str(item.kind).capitalize()

    @property
    def pictures(self) -> list[Picture]:
        """The pictures the row shows: the person's, then its tool results'."""
        message = self.message
        if message is None:
            return []
        return [*message.pictures, *(p for r in message.tool_results for p in r.pictures)]

    def pictures_described(self, words: Mapping[str, PictureWords]) -> str:
        """What each picture shows, for a screen reader's description of the row: the words
        a seeing model said (`words`, by SHA-256), else that its menu can ask for them."""
        said = []
        pictures = self.pictures
        for picture in pictures[:_NAMED_PICTURES]:
            name = picture.label or "A picture"
            kept = words.get(picture.sha256)
            if kept is not None:
                said.append(f"{name}, as {kept.looker} described it: {kept.words}")
            else:
                said.append(f"{name}: no description yet (Shift+F10 offers to describe it)")
        if len(pictures) > _NAMED_PICTURES:
            said.append(f"And {len(pictures) - _NAMED_PICTURES} more pictures.")
        return "\n".join(said)

    @property
    def picture_words(self) -> str:
        """What a row shows beside its words, for a screen reader, each picture by name and
        size: " (2 pictures: red.png, 64×48 · 1 KB; a picture, 8×8 · 90 bytes)" or "".

        PDFs are named with their pages: " (1 picture: …; PDF report.pdf, 12 pages · 1.2 MB)".
        """
        message = self.message
        if message is None:
            return ""
        # Words about files load with the first row that has any, not at the first paint.
        from app.presenters.pdf_notes import pages_words
        from app.presenters.pending import size_words

        pictures = self.pictures
        said = []
        if pictures:
            count = len(pictures)
            named = "; ".join(
                f"{p.label or 'a picture'}, {size_words(p)}" for p in pictures[:_NAMED_PICTURES]
            )
            more = f"; and {count - _NAMED_PICTURES} more" if count > _NAMED_PICTURES else ""
            said.append(f"{count} picture{'s' * (count != 1)}: {named}{more}")
        said += [f"PDF {pdf.name}, {pages_words(pdf)}" for pdf in message.pdfs]
        return f" ({'; '.join(said)})" if said else ""


def thought_and_plan_rows(stored: StoredItem, message: Message, plan: str) -> tuple[list[Row], str]:
    """A stored answer's thinking and plan rows, to show before it (a plan its turn showed
    already, once); and the turn's plan now."""
    from routing.transcript import CarriedPart

    rows: list[Row] = []
    for part in message.parts:
        if not isinstance(part, CarriedPart):
            continue
        if part.shape == THOUGHT_SHAPE and str(part.data.get("text", "")).strip():
            rows.append(Row.agent_row(stored, THOUGHT_ROW, str(part.data["text"])))
        elif part.shape == PLAN_SHAPE:
            text = plan_text(part.data.get("entries"))
            if text and text != plan:
                rows.append(Row.agent_row(stored, PLAN_ROW, text))
                plan = text
    return rows, plan


def _starts_turn(row: Row) -> bool:
    from routing.transcript import starts_turn

    message = row.message
    return message is not None and starts_turn(message)


def latest_turn(rows: list[Row]) -> int:
    """The position of the latest message of the person (0 when there is none)."""
    return next((i for i in range(len(rows) - 1, -1, -1) if _starts_turn(rows[i])), 0)


def place_switches(rows: list[Row], start: int) -> list[int]:
    """Put each version switch from `start` on where people look for it; the rows changed.

    A person's edited message switches on itself. An answer given again switches on
    its first answer, even when a notice (routing, say) came first in the response.
    """
    changed = []
    holder: Row | None = None  # the row of the response's first item, while versions wait
    for position in range(start, len(rows)):
        row = rows[position]
        wanted = row.stored.versions
        at = wanted.index(row.stored.id) if wanted else 0
        if _starts_turn(row):
            holder = None
        elif row.notice is not None and wanted:
            holder = row  # the notice keeps them unless an answer follows
        elif holder is not None and row.message is not None and row.message.role == "assistant":
            wanted, at = holder.switch or holder.stored.versions, holder.switch_at
            if not holder.switch:
                at = holder.stored.versions.index(holder.stored.id)
            if holder.switch:
                holder.switch, holder.switch_at = (), 0
                changed.append(rows.index(holder))
            holder = None
        if (row.switch, row.switch_at) != (wanted, at):
            row.switch, row.switch_at = wanted, at
            changed.append(position)
    return changed
