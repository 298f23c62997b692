"""Every notice that records a crossing: what of a chat went to whom, where, and why.

One factory for them all, so a crossing reads the same wherever it happens: pictures a
looker was sent to describe, a seeing model taking over the turn, a model that refused
its pictures, earlier pictures and PDFs leaving this computer for the first time, a
model Sightline chose off this computer, and pictures going to an agent (the person's
own, or a tool's: the door's or Codex's). Each carries its crossing as facts
(`Crossed`), which the ledger (app/ledger.py) lists without reading the words. Whether
a crossing is told at all is the sight-and-boundary policy's (app/turn/sight_policy.py,
app/turn/boundary.py); here is only what the notice says.

It lives with the transcript's `Notice` and `Crossed`, below the turn and the tools:
the door tells its crossings through the sight policy it is handed, in these same words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from routing.transcript import WHOLE_MESSAGE, Crossed, Notice, NoticeKind, PagesPart
from vision.pictures import Picture

if TYPE_CHECKING:
    from routing.describing.describer import Description
    from routing.describing.looker import WireLooker
    from routing.models import ModelInfo
    from routing.router import Choice


def counted(count: int, noun: str) -> str:
    """A count with its noun: "1 picture", "3 pictures"."""
    return f"{count} {noun}{'s' if count != 1 else ''}"


def picture_labels(pictures: Sequence[Picture]) -> str:
    """The pictures by label, as a person reads them."""
    return ", ".join(p.label or "a picture" for p in pictures)


def looker_disclosure(
    looker: WireLooker,
    model: ModelInfo,
    sent: list[Picture],
    pages: list[PagesPart],
    reason: str,
    *,
    failed: int,
) -> Notice:
    """What crossed to the looker: who, where, how many pictures, which ones, and why."""
    count = len(sent)
    pictures = f"{counted(count, 'picture')} ({_labels(sent, pages)})"
    if not failed:
        them = "them" if count != 1 else "it"
        text = (
            f"{looker.label} at {looker.host} looked at {pictures} and described "
            f"{them} for {model.ref}, which can't see."
        )
        outcome = ""
    else:
        if count == 1:
            outcome = "it could not be described"
        elif failed == count:
            outcome = "none of them could be described"
        else:
            outcome = f"{failed} of them could not be described"
        text = (
            f"{looker.label} at {looker.host} was sent {pictures} to describe for "
            f"{model.ref}, which can't see; {outcome}."
        )
    remains = _pages_note(pages, failed=failed)
    what = "; ".join(w for w in (pictures, outcome, remains.strip()) if w)
    return Notice(
        NoticeKind.DISCLOSURE,
        text + remains,
        details=f"Why {looker.label}: {reason}.",
        crossed=Crossed(
            looker.label,
            looker.host,
            what,
            f"To describe {'it' if count == 1 else 'them'} in words for {model.ref}, which "
            f"can't see; {reason}",
            looker.local,
        ),
    )


def asked_look_notice(
    looker: WireLooker, picture: Picture, reason: str, *, words: str = "", failed: str = ""
) -> Notice:
    """A picture the person asked to have described ("Describe this picture"): who looked,
    where, and what it said (or why it could not); it crossed whether or not it was said."""
    label = picture.label or "a picture"
    if failed:
        text = (
            f"{looker.label} at {looker.host} was sent {label} to describe, as you asked; "
            f"it could not: {failed}."
        )
    else:
        text = f"{looker.label} at {looker.host} looked at {label}, as you asked: {words}"
    return Notice(
        NoticeKind.DISCLOSURE,
        text,
        details=f"Why {looker.label}: {reason}.",
        crossed=Crossed(
            looker.label,
            looker.host,
            f"1 picture ({label})",
            f"You asked for it to be described; {reason}",
            looker.local,
        ),
    )


def reused_notice(reused: Sequence[tuple[Picture, Description]], model: ModelInfo) -> Notice:
    """This turn's pictures in words a looker gave before (an edit resent, a regenerate):
    told, so every version says how its model saw them, though nothing crossed again."""
    by: dict[str, list[Picture]] = {}
    for picture, description in reused:
        by.setdefault(description.looker, []).append(picture)
    said = "; ".join(
        f"{picture_labels(pictures)} in the words {looker} gave earlier"
        for looker, pictures in by.items()
    )
    return Notice(
        NoticeKind.INFO, f"{model.ref} can't see: it gets {said}. Nothing was sent again."
    )


def takeover_disclosure(choice: Choice, host: str, local: bool, sent: list[Picture]) -> Notice:
    """The pictures of this turn that the model taking it over now gets."""
    count = len(sent)
    labels = picture_labels(sent)
    return Notice(
        NoticeKind.DISCLOSURE,
        f"This turn's {count} picture{'s now go' if count != 1 else ' now goes'} "
        f"({labels}) to {choice.model.ref} at {host} ({choice.where()}).",
        details=choice.reason,
        crossed=Crossed(
            choice.model.ref,
            host,
            f"{counted(count, 'picture')} of this turn ({labels})",
            choice.reason or "It took over the turn to see its pictures",
            local,
        ),
    )


def heal_notice(model_ref: str, host: str, local: bool, sent: list[Picture]) -> Notice:
    """The model refused the pictures it was sent: it is treated as blind from now on."""
    return Notice(
        NoticeKind.HEAL,
        f"{model_ref} refused the pictures, so it is now treated as a model that can't "
        "see: the pictures are put into words for it and the question is asked again.",
        details='Clear this in the model picker ("check again") if the model changes.',
        crossed=Crossed(
            model_ref,
            host,
            f"{counted(len(sent), 'picture')} of this turn ({picture_labels(sent)})"
            if sent
            else "This turn's pictures",
            "It answers this chat and was sent the pictures; it refused them, so they "
            "went as words",
            local,
        ),
    )


def leaving_notice(
    pictures: Sequence[str], pdfs: Sequence[str], model_ref: str, host: str, why: str
) -> Notice:
    """Earlier pictures and PDFs (by name) that now leave this computer for the first time."""
    what = ", ".join(
        w
        for w in (
            f"{counted(len(pictures), 'picture')} ({', '.join(pictures)})" if pictures else "",
            f"{counted(len(pdfs), 'PDF')} ({', '.join(pdfs)})" if pdfs else "",
        )
        if w
    )
    many = len(pictures) + len(pdfs) != 1
    return Notice(
        NoticeKind.DISCLOSURE,
        f"{what} from earlier in this chat now {'go' if many else 'goes'} to "
        f"{model_ref} at {host}, off this computer; until now "
        f"{'they' if many else 'it'} had stayed on it.",
        details=why,
        crossed=Crossed(model_ref, host, f"{what} from earlier turns", why, False),
    )


def routing_notice(choice: Choice, host: str, local: bool, verb: str = "answers") -> Notice:
    """Who Sightline chose, where it runs, and why; a model off this computer gets the whole
    conversation, which is a crossing."""
    text = f"{choice.model.ref} {verb} at {host} ({choice.where()}): {choice.reason}."
    crossed = (
        None
        if local
        else Crossed(
            choice.model.ref, host, WHOLE_MESSAGE, f"Sightline chose it: {choice.reason}", False
        )
    )
    return Notice(NoticeKind.ROUTING, text, crossed=crossed)


def agent_crossing(
    pictures: Sequence[Picture],
    *,
    agent: str,
    host: str,
    model: str,
    local: bool,
    why: str,
    tool: str = "",
) -> Notice:
    """Pictures that went to an agent itself (`agent`: "the agent x", "Codex (x)"; `host`:
    "agent x"): the person's own (an information), or a `tool`'s (a disclosure)."""
    what = f"{counted(len(pictures), 'picture')} ({picture_labels(pictures)})"
    where = "on this computer" if local else "whose model runs off this computer"
    through = f", through Sightline's {tool}" if tool else ""
    return Notice(
        NoticeKind.DISCLOSURE if tool else NoticeKind.INFO,
        f"{what} went to {agent}, {where}{through}.",
        crossed=Crossed(model, host, what, why, local),
    )


def _labels(pictures: list[Picture], pages: list[PagesPart]) -> str:
    """The pictures by label, a PDF's rendered pages as a run: "scan.pdf pages 1-4"."""
    from vision.pdf import page_span

    page_of = {p.sha256: (part.document, n) for part in pages for n, p in part.numbered()}
    words: list[str] = []
    run: tuple[str, int, int] | None = None  # (document, first page, last page)
    for picture in pictures:
        where = page_of.get(picture.sha256)
        if where and run and run[0] == where[0] and run[2] == where[1] - 1:
            run = (run[0], run[1], where[1])
            continue
        if run:
            words.append(f"{run[0]} {page_span(run[1], run[2])}")
            run = None
        if where:
            run = (where[0], where[1], where[1])
        else:
            words.append(picture.label or "a picture")
    if run:
        words.append(f"{run[0]} {page_span(run[1], run[2])}")
    return ", ".join(words)


def _pages_note(pages: list[PagesPart], *, failed: int) -> str:
    """For rendered PDF pages: what remains unread, and what the model got if reading failed."""
    notes = []
    for part in pages:
        if part.total_pages is None:
            notes.append(f" More pages of {part.document} may exist after page {part.last}.")
        elif part.last < part.total_pages:
            notes.append(
                f" Pages {part.last + 1}-{part.total_pages} of {part.document} were not read."
            )
    if pages and failed:
        notes.append(" For pages nobody could read, the model was told no text could be extracted.")
    return "".join(notes)
