"""The request for a model that can't see: every picture in words, and what crossed where.

This turn's pictures are described by the looker the router picked (within the
turn's budget); earlier turns' pictures reuse a kept description or become a
plain line. A tool result keeps its name, call id, words and error flag; its
pictures are removed and their words appended. Whatever happens, no picture
leaves in a request to a blind model: `without_pictures` is the last guard.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace

from routing.transcript import Message, Part, PicturePart, TextPart, ToolResult
from vision.describer import Describer, Description, Looker, bounded_focus
from vision.pictures import Picture
from vision.sight import TurnBudget, Words, earlier_picture, framed, words_for


@dataclass
class InWords:
    """The messages as a blind model gets them, and the descriptions made to get there."""

    messages: tuple[Message, ...]
    fresh: list[tuple[Picture, Description]] = field(default_factory=list)
    asked: list[Picture] = field(default_factory=list)  # handed to the looker, described or not
    past_budget: list[Picture] = field(default_factory=list)  # left undescribed: the cap was hit

    @property
    def input_tokens(self) -> int:
        """Tokens the looker read for the fresh descriptions."""
        return sum(d.input_tokens for _, d in self.fresh)

    @property
    def output_tokens(self) -> int:
        """Tokens the looker wrote for the fresh descriptions."""
        return sum(d.output_tokens for _, d in self.fresh)


@dataclass
class _Job:
    picture: Picture
    focus: str
    this_turn: bool
    words: Words | None = None


# Where a picture sits: (message, part, piece inside a tool result or -1).
_Where = tuple[int, int, int]


async def in_words(
    messages: tuple[Message, ...],
    *,
    turn_from: int,
    describer: Describer,
    looker: Looker | None,
    budget: TurnBudget,
) -> InWords:
    """Every picture in `messages` turned into words for a model that can't see."""
    jobs: dict[_Where, _Job] = {}
    for index, message in enumerate(messages):
        this_turn = index >= turn_from
        for at, part in enumerate(message.parts):
            if isinstance(part, PicturePart):
                jobs[index, at, -1] = _Job(part.picture, bounded_focus(message.text), this_turn)
            elif isinstance(part, ToolResult):
                for inner, piece in enumerate(part.parts):
                    if isinstance(piece, PicturePart):
                        focus = bounded_focus(
                            f"From the tool {part.name}", piece.picture.label, part.text
                        )
                        jobs[index, at, inner] = _Job(piece.picture, focus, this_turn)

    async def settle(job: _Job) -> None:
        if job.this_turn:
            job.words = await words_for(
                job.picture, describer=describer, looker=looker, budget=budget, focus=job.focus
            )
            return
        kept = describer.cached(job.picture.sha256)
        job.words = Words(framed(job.picture, kept) if kept else earlier_picture(job.picture))

    await asyncio.gather(*(settle(job) for job in jobs.values()))
    shaped = tuple(_rewrite(index, message, jobs) for index, message in enumerate(messages))
    fresh: dict[str, tuple[Picture, Description]] = {}
    asked: dict[str, Picture] = {}
    past_budget: dict[str, Picture] = {}
    for job in jobs.values():
        words, sha256 = job.words, job.picture.sha256
        assert words is not None
        if words.fresh is not None:
            fresh.setdefault(sha256, (job.picture, words.fresh))
        if words.asked:
            asked.setdefault(sha256, job.picture)
        if words.past_budget:
            past_budget.setdefault(sha256, job.picture)
    return InWords(
        without_pictures(shaped),
        list(fresh.values()),
        list(asked.values()),
        list(past_budget.values()),
    )


def _words(job: _Job) -> str:
    assert job.words is not None
    return job.words.text


def _rewrite(index: int, message: Message, jobs: dict[_Where, _Job]) -> Message:
    if not any(isinstance(p, PicturePart | ToolResult) for p in message.parts):
        return message
    parts: list[Part] = []
    for at, part in enumerate(message.parts):
        if isinstance(part, PicturePart):
            parts.append(TextPart("\n" + _words(jobs[index, at, -1])))
        elif isinstance(part, ToolResult) and part.pictures:
            kept = [p for p in part.parts if not isinstance(p, PicturePart)]
            added = [
                TextPart(_words(jobs[index, at, inner]))
                for inner, p in enumerate(part.parts)
                if isinstance(p, PicturePart)
            ]
            parts.append(replace(part, parts=tuple(kept + added)))
        else:
            parts.append(part)
    return replace(message, parts=tuple(parts))


def without_pictures(messages: tuple[Message, ...]) -> tuple[Message, ...]:
    """The last guard: any picture still left becomes a note, so no bytes reach a blind model."""

    def _clean_piece(piece: TextPart | PicturePart) -> TextPart | PicturePart:
        return TextPart(earlier_picture(piece.picture)) if isinstance(piece, PicturePart) else piece

    def clean(part: Part) -> Part:
        if isinstance(part, PicturePart):
            return TextPart("\n" + earlier_picture(part.picture))
        if isinstance(part, ToolResult) and part.pictures:
            return replace(part, parts=tuple(_clean_piece(p) for p in part.parts))
        return part

    return tuple(
        replace(m, parts=tuple(clean(p) for p in m.parts)) if has_pictures(m) else m
        for m in messages
    )


def has_pictures(message: Message) -> bool:
    """Whether a message carries a picture, itself or inside a tool result."""
    return bool(message.pictures) or any(r.pictures for r in message.tool_results)
