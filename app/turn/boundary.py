"""A chat's pictures and PDFs that have so far stayed on this computer, and their first crossing.

A picture or PDF stays on this computer until a request to an endpoint off it
carries it; the store keeps which ones have left, per chat (`sent_away`). Before
a request leaves this computer, the earlier turns' pictures and PDFs that never
left are found here. They either go, and a disclosure notice names them (and so
the ledger lists them; the notice is routing/crossing_notices.py's), or — when the
person chose so for this chat — they stay, each replaced in the request by a line
saying it was there. With the sight policy (app/turn/sight_policy.py) this is what
decides what of a chat crosses, and what is told.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING

from routing.crossing_notices import leaving_notice
from routing.refs import ref_halves
from routing.transcript import (
    Message,
    Notice,
    PagesPart,
    Part,
    PdfPart,
    PicturePart,
    TextPart,
    ToolResult,
    turn_start,
)
from vision.labels import shown_name

if TYPE_CHECKING:
    from app.store import Store
    from routing.catalogue import Catalogue


class EarlierPictures(StrEnum):
    """What the person chose for a chat's earlier pictures before they first leave."""

    UNDECIDED = ""  # the window asks before the first such request; `ask` sends and tells
    SEND = "send"
    WITHHOLD = "withhold"


@dataclass(frozen=True)
class Kept:
    """One picture or PDF of an earlier turn that has not left this computer."""

    sha256: str
    label: str
    is_pdf: bool = False


def kept_here(earlier: tuple[Message, ...], sent_away: set[str]) -> list[Kept]:
    """The pictures and PDFs of these earlier messages that never left, in order."""
    found: dict[str, Kept] = {}
    for message in earlier:
        for pdf in message.pdfs:
            found.setdefault(pdf.sha256, Kept(pdf.sha256, shown_name(pdf.name) or "a PDF", True))
        pictures = (*message.pictures, *(p for r in message.tool_results for p in r.pictures))
        for picture in pictures:
            label = shown_name(picture.label) or "a picture"
            found.setdefault(picture.sha256, Kept(picture.sha256, label))
    return [k for k in found.values() if k.sha256 not in sent_away]


@dataclass(frozen=True)
class Leaving:
    """Earlier pictures and PDFs that the next request to a model off this computer takes."""

    kept: tuple[Kept, ...]
    model_ref: str
    host: str

    @property
    def labels(self) -> str:
        """The pictures and PDFs by name, as a person reads them."""
        return ", ".join(k.label for k in self.kept)


def would_leave(
    store: Store, catalogue: Catalogue, conversation_id: str, model_ref: str
) -> Leaving | None:
    """What of this chat would first leave this computer if `model_ref` answered next.

    None when nothing would, or the person already chose for this chat; Auto counts
    as nothing here (it goes to the cloud only where the person allowed it, and says so).
    """
    from routing.endpoints import endpoint_name
    from routing.router import is_auto

    if not conversation_id or is_auto(model_ref):
        return None
    if store.crossings.earlier_pictures(conversation_id) != EarlierPictures.UNDECIDED:
        return None
    provider_id, _ = ref_halves(model_ref)
    if provider_id not in {p.id for p in catalogue.providers}:
        return None
    provider = catalogue.provider(provider_id)
    if provider.is_local:
        return None
    # Only the messages with pictures or PDFs are read: a long chat's words are not needed.
    kept = kept_here(
        tuple(store.with_media(conversation_id)), store.crossings.sent_away(conversation_id)
    )
    model = catalogue.find(model_ref)
    if model is None or not model.gets_pictures:
        kept = [k for k in kept if k.is_pdf]  # a blind model gets pictures as words, not bytes
    if not kept:
        return None
    return Leaving(tuple(kept), model_ref, endpoint_name(provider.base_url))


def carried(messages: Iterable[Message]) -> set[str]:
    """The hashes of every picture and PDF a request's messages carry in any form."""
    hashes: set[str] = set()
    for message in messages:
        hashes.update(pdf.sha256 for pdf in message.pdfs)
        hashes.update(p.sha256 for p in message.pictures)
        hashes.update(p.sha256 for r in message.tool_results for p in r.pictures)
    return hashes


def without(messages: tuple[Message, ...], kept: list[Kept]) -> tuple[Message, ...]:
    """The messages with each kept picture and PDF replaced by a line saying it was here."""
    hashes = {k.sha256 for k in kept}
    if not hashes:
        return messages
    return tuple(
        replace(m, parts=tuple(_part_without(part, hashes) for part in m.parts)) for m in messages
    )


def _line(what: str, name: str) -> TextPart:
    return TextPart(f"[{what} ({name}) was here; it stays on the person's computer.]")


def _part_without(part: Part, hashes: set[str]) -> Part:
    if isinstance(part, PicturePart) and part.picture.sha256 in hashes:
        return _line("A picture", shown_name(part.picture.label) or "no name")
    if isinstance(part, PdfPart) and part.pdf.sha256 in hashes:
        return _line("A PDF", shown_name(part.pdf.name) or "no name")
    if isinstance(part, ToolResult):
        kept_parts: list[TextPart | PicturePart | PagesPart] = []
        for inner in part.parts:
            if isinstance(inner, PagesPart) and any(p.sha256 in hashes for p in inner.pictures):
                kept_parts.append(_line(f"Pages of {shown_name(inner.document)}", inner.span))
            elif isinstance(inner, PicturePart) and inner.picture.sha256 in hashes:
                kept_parts.append(_line("A picture", shown_name(inner.picture.label) or "no name"))
            else:
                kept_parts.append(inner)
        return replace(part, parts=tuple(kept_parts))
    return part


def held_back(
    store: Store, conversation_id: str, history: tuple[Message, ...]
) -> tuple[tuple[Message, ...], list[Kept]]:
    """Before a request leaves this computer: its history (each earlier picture and PDF
    that never left replaced by a line, when the person chose so for this chat), and the
    earlier ones that never left and go now unless withheld."""
    earlier = history[: turn_start(history)]
    kept = kept_here(earlier, store.crossings.sent_away(conversation_id))
    if kept and store.crossings.earlier_pictures(conversation_id) == EarlierPictures.WITHHOLD:
        return without(history, kept), []
    return history, kept


def first_crossing(
    kept: list[Kept],
    messages: tuple[Message, ...],
    history: tuple[Message, ...],
    model_ref: str,
    host: str,
) -> tuple[set[str], Notice | None]:
    """What a request leaving this computer carries (by hash: its pictures in any form, and
    every PDF, itself or Sightline's reading of it), and the disclosure of the earlier
    pictures and PDFs among them that leave for the first time."""
    leaving = carried(messages) | {pdf.sha256 for m in history for pdf in m.pdfs}
    going = [k for k in kept if k.sha256 in leaving]
    if not going:
        return leaving, None
    why = f"{model_ref} answers this chat now and gets the conversation"
    pictures = [k.label for k in going if not k.is_pdf]
    pdfs = [k.label for k in going if k.is_pdf]
    return leaving, leaving_notice(pictures, pdfs, model_ref, host, why)
