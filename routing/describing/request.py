"""The request for a model that can't see: every picture in words, and what crossed where.

This turn's pictures are described by the looker the router picked (within the
turn's budget); earlier turns' pictures reuse a kept description or become a
plain line. A tool result keeps its name, call id, words and error flag; its
pictures are removed and their words appended. Rendered PDF pages are
transcribed page by page, each labelled with its page number; a page nobody
could read is dropped and the original extraction error is given back instead.
Whatever happens, no picture leaves in a request to a blind model:
`without_pictures` is the last guard.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace

from routing.describing.describer import Describer, Description, Looker, bounded_focus
from routing.describing.framing import (
    TurnBudget,
    Words,
    earlier_picture,
    framed,
    framed_page,
    page_focus,
    words_for,
)
from routing.transcript import (
    Message,
    PagesPart,
    Part,
    PicturePart,
    ResultPart,
    TextPart,
    ToolResult,
    has_pictures,
)
from vision.pdf import page_span
from vision.pictures import Picture


@dataclass
class InWords:
    """The messages as a blind model gets them, and the descriptions made to get there."""

    messages: tuple[Message, ...]
    fresh: list[tuple[Picture, Description]] = field(default_factory=list)
    asked: list[Picture] = field(default_factory=list)  # handed to the looker, described or not
    past_budget: list[Picture] = field(default_factory=list)  # left undescribed: the cap was hit
    pages: list[PagesPart] = field(default_factory=list)  # rendered pages handed to the looker
    # This turn's pictures in words a looker gave before (an edit, a regenerate): not sent.
    reused: list[tuple[Picture, Description]] = field(default_factory=list)

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
    page: bool = False  # a rendered PDF page: transcribed, and framed as one
    words: Words | None = None


# Where a picture sits: (message, part, piece inside a tool result or -1, page or -1).
_Where = tuple[int, int, int, int]


def _jobs_for(
    where: tuple[int, int, int], piece: ResultPart, focus: str, this_turn: bool
) -> dict[_Where, _Job]:
    if isinstance(piece, PicturePart):
        return {(*where, -1): _Job(piece.picture, focus, this_turn)}
    if isinstance(piece, PagesPart):
        return {
            (*where, at): _Job(picture, page_focus(piece.document, number), this_turn, page=True)
            for at, (number, picture) in enumerate(piece.numbered())
        }
    return {}


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
            if isinstance(part, PicturePart | PagesPart):
                jobs |= _jobs_for((index, at, -1), part, bounded_focus(message.text), this_turn)
            elif isinstance(part, ToolResult):
                for inner, piece in enumerate(part.parts):
                    label = piece.picture.label if isinstance(piece, PicturePart) else ""
                    focus = bounded_focus(f"From the tool {part.name}", label, part.text)
                    jobs |= _jobs_for((index, at, inner), piece, focus, this_turn)

    async def settle(job: _Job) -> None:
        frame = framed_page if job.page else framed
        if job.this_turn:
            job.words = await words_for(
                job.picture,
                describer=describer,
                looker=looker,
                budget=budget,
                focus=job.focus,
                frame=frame,
            )
            return
        kept = describer.cached(job.picture.sha256)
        job.words = (
            Words(frame(job.picture, kept), described=True)
            if kept
            else Words(earlier_picture(job.picture))
        )

    await asyncio.gather(*(settle(job) for job in jobs.values()))
    shaped = tuple(_rewrite(index, message, jobs) for index, message in enumerate(messages))
    fresh: dict[str, tuple[Picture, Description]] = {}
    asked: dict[str, Picture] = {}
    past_budget: dict[str, Picture] = {}
    reused: dict[str, tuple[Picture, Description]] = {}
    for job in jobs.values():
        words, sha256 = job.words, job.picture.sha256
        assert words is not None
        kept = describer.cached(sha256) if job.this_turn and not job.page else None
        if words.described and not words.asked and kept is not None:
            reused.setdefault(sha256, (job.picture, kept))
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
        _pages_asked(messages, jobs),
        list(reused.values()),
    )


def _pages_asked(messages: tuple[Message, ...], jobs: dict[_Where, _Job]) -> list[PagesPart]:
    """The rendered pages of which at least one page was handed to the looker."""
    found: list[PagesPart] = []
    for (index, at, inner, page), job in jobs.items():
        if page != 0 or not job.page:
            continue
        part = messages[index].parts[at]
        piece = part.parts[inner] if isinstance(part, ToolResult) else part
        assert isinstance(piece, PagesPart)
        asked = [jobs[index, at, inner, n] for n in range(len(piece.pictures))]
        if any(j.words is not None and j.words.asked for j in asked) and piece not in found:
            found.append(piece)
    return found


def _words(job: _Job) -> str:
    assert job.words is not None
    return job.words.text


def _pages_in_words(pages: PagesPart, jobs: list[_Job]) -> str:
    """The pages as transcriptions; pages nobody read give back the extraction error."""
    read = [_words(job) for job in jobs if job.words is not None and job.words.described]
    unread = [
        number
        for (number, _), job in zip(pages.numbered(), jobs, strict=True)
        if not (job.words and job.words.described)
    ]
    if not unread:
        return "\n".join(read)
    restored = pages.extraction_error
    if read:  # some pages were read: say which were not
        restored += f" ({_spans(unread)} could not be transcribed either.)"
    return "\n".join([*read, restored])


def _spans(numbers: list[int]) -> str:
    runs: list[tuple[int, int]] = []
    for number in numbers:
        if runs and runs[-1][1] == number - 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    text = ", ".join(page_span(a, b) for a, b in runs)
    return text[0].upper() + text[1:]


def _piece_in_words(
    where: tuple[int, int, int], piece: ResultPart, jobs: dict[_Where, _Job]
) -> TextPart:
    if isinstance(piece, PagesPart):
        page_jobs = [jobs[(*where, n)] for n in range(len(piece.pictures))]
        return TextPart(_pages_in_words(piece, page_jobs))
    return TextPart(_words(jobs[(*where, -1)]))


def _rewrite(index: int, message: Message, jobs: dict[_Where, _Job]) -> Message:
    if not any(isinstance(p, PicturePart | PagesPart | ToolResult) for p in message.parts):
        return message
    parts: list[Part] = []
    for at, part in enumerate(message.parts):
        if isinstance(part, PicturePart | PagesPart):
            parts.append(TextPart("\n" + _piece_in_words((index, at, -1), part, jobs).text))
        elif isinstance(part, ToolResult) and part.pictures:
            kept = [p for p in part.parts if isinstance(p, TextPart)]
            added = [
                _piece_in_words((index, at, inner), p, jobs)
                for inner, p in enumerate(part.parts)
                if isinstance(p, PicturePart | PagesPart)
            ]
            parts.append(replace(part, parts=tuple(kept + added)))
        else:
            parts.append(part)
    return replace(message, parts=tuple(parts))


def without_pictures(messages: tuple[Message, ...]) -> tuple[Message, ...]:
    """The last guard: any picture still left becomes a note, so no bytes reach a blind model."""

    def as_note(piece: PicturePart | PagesPart) -> str:
        if isinstance(piece, PagesPart):
            return piece.extraction_error
        return earlier_picture(piece.picture)

    def _clean_piece(piece: ResultPart) -> ResultPart:
        return TextPart(as_note(piece)) if isinstance(piece, PicturePart | PagesPart) else piece

    def clean(part: Part) -> Part:
        if isinstance(part, PicturePart | PagesPart):
            return TextPart("\n" + as_note(part))
        if isinstance(part, ToolResult) and part.pictures:
            return replace(part, parts=tuple(_clean_piece(p) for p in part.parts))
        return part

    return tuple(
        replace(m, parts=tuple(clean(p) for p in m.parts)) if has_pictures(m) else m
        for m in messages
    )
