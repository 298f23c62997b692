"""What waits in the composer (pictures and PDFs), and what an attachment card says about sight.

Qt-free: `Attaching` keeps a `PendingAttachments`, reads what the person offers
with `read_offered` (off the UI thread), and widgets only show the snapshots
(`Attachments`) and sight notes (`SightNote`) it hands them. A locked PDF is not
read here: it comes back as `Read.locked`, for the window to ask its password.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from app.attachments import AttachmentError, load_attachment
from vision.pdf import PdfFile, PdfNeedsPassword
from vision.pictures import Picture, PictureError, sniff

if TYPE_CHECKING:  # the first paint needn't import routing's models
    from routing.models import ModelInfo

log = logging.getLogger(__name__)

# File types the Attach dialog offers.
PICTURE_SUFFIXES = ("png", "jpg", "jpeg", "gif", "webp", "bmp", "tif", "tiff")
PDF_SUFFIXES = ("pdf",)

BLIND_TIP = "The chosen model can't see pictures; pick one with an eye, or Auto picks one for you"


@dataclass(frozen=True)
class Offered:
    """Files the person offered at once (pictures, PDFs), and pictures that have no file."""

    paths: tuple[Path, ...] = ()
    # Each returns a picture's encoded bytes; it may be slow, so it runs off the UI thread.
    unnamed: tuple[Callable[[], bytes], ...] = ()
    how: str = "Pasted"  # names the unnamed ones: "Pasted picture 1.png"
    problems: tuple[str, ...] = ()  # what was refused before reading (a web address, say)

    @property
    def count(self) -> int:
        """How many files and pictures there are to read."""
        return len(self.paths) + len(self.unnamed)


@dataclass(frozen=True)
class AttachedPdf:
    """A PDF waiting in the composer, and whether its pages must be looked at."""

    pdf: PdfFile
    # True when Sightline's read of it needs a model that sees: no text could be
    # extracted (a scan), or one page is too large to send as text.
    scan: bool

    @property
    def sha256(self) -> str:
        """The PDF's SHA-256 (what removes its card)."""
        return self.pdf.sha256


@dataclass(frozen=True)
class Attachments:
    """What the composer shows: what the next message carries, and what went wrong."""

    pictures: tuple[Picture, ...] = ()
    pdfs: tuple[AttachedPdf, ...] = ()
    problems: tuple[str, ...] = ()
    reading: int = 0  # files still being read (or waiting for their password)
    locked: tuple[str, ...] = ()  # names of the PDFs whose password is being asked for

    @property
    def anything(self) -> bool:
        """Whether anything is attached."""
        return bool(self.pictures or self.pdfs)


class PendingAttachments:
    """The next message's pictures and PDFs, each in the order attached, each once."""

    def __init__(self) -> None:
        """Nothing attached."""
        self._pictures: list[Picture] = []
        self._pdfs: list[AttachedPdf] = []
        self._problems: tuple[str, ...] = ()
        self._unnamed = 0
        self.reading = 0
        self.locked: list[str] = []  # counted in `reading` too: a message waits for them

    @property
    def pictures(self) -> tuple[Picture, ...]:
        """The attached pictures."""
        return tuple(self._pictures)

    @property
    def pdfs(self) -> tuple[AttachedPdf, ...]:
        """The attached PDFs."""
        return tuple(self._pdfs)

    def snapshot(self) -> Attachments:
        """The state to show."""
        return Attachments(
            self.pictures, self.pdfs, self._problems, self.reading, tuple(self.locked)
        )

    def set_problems(self, problems: Iterable[str]) -> None:
        """Show these problems instead of the last ones."""
        self._problems = tuple(problems)

    def add_problems(self, problems: Iterable[str]) -> None:
        """Show these problems too."""
        self._problems += tuple(problems)

    def add(self, pictures: Iterable[Picture] = (), pdfs: Iterable[AttachedPdf] = ()) -> None:
        """Attach pictures and PDFs; one already attached is noted, not attached twice."""
        have = {p.sha256 for p in self._pictures} | {p.sha256 for p in self._pdfs}
        for picture in pictures:
            if self._new(picture.sha256, picture.label or "That picture", have):
                self._pictures.append(picture)
        for attached in pdfs:
            if self._new(attached.sha256, attached.pdf.name or "That PDF", have):
                self._pdfs.append(attached)

    def _new(self, sha256: str, name: str, have: set[str]) -> bool:
        if sha256 in have:
            self._problems += (f"{name} is attached already.",)
            return False
        have.add(sha256)
        return True

    def remove(self, sha256: str) -> None:
        """Take one picture or PDF off."""
        self._pictures = [p for p in self._pictures if p.sha256 != sha256]
        self._pdfs = [p for p in self._pdfs if p.sha256 != sha256]

    def take(self) -> Attachments:
        """Everything attached, for a message being sent; nothing stays attached."""
        taken = Attachments(self.pictures, self.pdfs)
        self._pictures, self._pdfs, self._problems = [], [], ()
        return taken

    def give_back(self, attachments: Attachments) -> None:
        """Put a failed message's pictures and PDFs back, before any attached since."""
        back = {p.sha256 for p in attachments.pictures} | {p.sha256 for p in attachments.pdfs}
        self._pictures = [
            *attachments.pictures,
            *(p for p in self._pictures if p.sha256 not in back),
        ]
        self._pdfs = [*attachments.pdfs, *(p for p in self._pdfs if p.sha256 not in back)]

    def unnamed_label(self, how: str) -> str:
        """A name for a picture that came without a file."""
        self._unnamed += 1
        return f"{how} picture {self._unnamed}.png"


@dataclass
class Read:
    """What reading offered files gave: in the order offered, and what needs a password."""

    pictures: list[Picture] = field(default_factory=list)
    pdfs: list[AttachedPdf] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    locked: list[Path] = field(default_factory=list)  # PDFs that need their password


async def read_offered(offered: Offered, label_for: Callable[[str], str]) -> Read:
    """Open every offered file and picture in worker threads."""
    import asyncio  # here, not at the top: the window paints before asyncio loads

    jobs = [asyncio.to_thread(_open, path) for path in offered.paths]
    jobs += [asyncio.to_thread(_sniff, read, label_for(offered.how)) for read in offered.unnamed]
    read = Read(problems=list(offered.problems))
    for result in await asyncio.gather(*jobs):
        if isinstance(result, Picture):
            read.pictures.append(result)
        elif isinstance(result, AttachedPdf):
            read.pdfs.append(result)
        elif isinstance(result, Path):
            read.locked.append(result)
        else:
            read.problems.append(result)
    return read


def read_file(path: Path, password: str | None = None) -> Picture | AttachedPdf:
    """One attached file, read (blocking: call in a worker thread).

    Raises AttachmentError naming the file and why, or PdfNeedsPassword for a
    locked PDF without (or with a wrong) password.
    """
    attachment = load_attachment(path, password=password)
    if attachment.pdfs:
        return attached_pdf(attachment.pdfs[0])
    return attachment.pictures[0]


def attached_pdf(pdf: PdfFile) -> AttachedPdf:
    """The PDF with whether it is a scan (slow: it reads the PDF, once for the card and the
    request that sends it)."""
    from routing.documents import is_scan

    return AttachedPdf(pdf, is_scan(pdf))


def _open(path: Path) -> Picture | AttachedPdf | Path | str:
    """A file read, its path when it is a locked PDF, or what went wrong in words."""
    try:
        return read_file(path)
    except PdfNeedsPassword:
        return path
    except AttachmentError as exc:
        return str(exc)


def _sniff(read: Callable[[], bytes], label: str) -> Picture | str:
    try:
        return sniff(read(), label)
    except PictureError as exc:
        return str(exc)
    except Exception:  # a clipboard that can't be encoded: say so, keep the window
        log.exception("reading %s failed", label)
        return f"{label} could not be read; copy it again, or save it and attach the file."


# -- sight -----------------------------------------------------------------------


class Sight(StrEnum):
    """What happens to an attached picture with the chosen model."""

    SEES = "sees"  # the model sees: it gets the picture
    MAYBE = "maybe"  # unknown, but its provider takes pictures: it gets the picture
    BLIND = "blind"  # the model can't see the picture
    AUTO = "auto"  # Sightline picks a model that sees
    UNKNOWN = "unknown"  # the model isn't offered right now


@dataclass(frozen=True)
class SightNote:
    """A card's sight marker: which, its few words, and its tooltip."""

    sight: Sight
    words: str
    tip: str
    # Shorter words for a narrow card, tried in turn: a model's name is never cut.
    shorter: tuple[str, ...] = ()


def sight_note(
    ref: str,
    models: Sequence[ModelInfo],
    *,
    check_sight: bool = True,
    vision_model: str = "",
    hosts: Mapping[str, str] | None = None,
) -> SightNote:
    """What a card says about its picture when `ref` ("auto" or "provider:model") answers.

    For a model that can't see, it says who will look instead, as the turn will choose
    (`vision_model` is the configured describer; `hosts` names each provider's host).
    """
    if ref == "auto":
        if any(m.local and m.gets_pictures for m in models):
            return SightNote(
                Sight.AUTO,
                "Auto picks one that sees",
                "With Auto, Sightline picks a model on this computer that sees pictures, "
                "and says which.",
            )
        return SightNote(
            Sight.BLIND,
            "No model here sees it",
            "No ready model on this computer sees pictures, so the model Auto picks "
            "can't see this one.",
        )
    model = next((m for m in models if m.ref == ref), None)
    if model is None:
        return SightNote(
            Sight.UNKNOWN,
            "Sight unknown",
            f"{ref} isn't offered by a ready provider now, so Sightline can't tell "
            "whether it sees pictures.",
        )
    if not model.gets_pictures:
        return _described(model, models, vision_model, hosts or {})
    if model.sees is None and check_sight:
        return SightNote(
            Sight.MAYBE,
            "Sight checked first",
            f"Nobody says whether {model.name} sees pictures, so before this one goes "
            "Sightline asks it about a small probe picture, then sends this one as a picture "
            "or in words as the answer shows.",
        )
    if model.sees is None:
        return SightNote(
            Sight.MAYBE,
            "Sight unknown",
            f"{model.name} may or may not see pictures; Sightline sends this one as it is.",
        )
    return SightNote(Sight.SEES, f"{model.name} sees it", f"{model.name} sees pictures.")


def size_words(picture: Picture) -> str:
    """A picture's size for a person: "1280×800 · 245 KB"."""
    return f"{picture.width}×{picture.height} · {byte_words(picture.size_bytes)}"


def byte_words(count: int) -> str:
    """Bytes as a person reads them: "812 bytes", "245 KB", "3.4 MB"."""
    if count < 1024:
        return f"{count} bytes"
    if count < 1024 * 1024:
        return f"{max(1, round(count / 1024))} KB"
    return f"{count / (1024 * 1024):.1f} MB"


def _described(
    model: ModelInfo, models: Sequence[ModelInfo], vision_model: str, hosts: Mapping[str, str]
) -> SightNote:
    """A blind model's card: who will put the picture into words for it, or that nobody may."""
    from routing.router import choose_looker

    looker = choose_looker(models, model, configured=vision_model)
    if looker is None:
        return SightNote(
            Sight.BLIND,
            "No model can look: it will be noted",
            f"{model.name} can't see pictures, and no model that sees may look at this one "
            f"for it, so {model.name} is told a picture is here. {BLIND_TIP}.",
        )
    seer = looker.model
    if seer.local:
        words = f"Described by {seer.name} on this computer"
        # Where stays before who: it is what the person must not lose.
        shorter = (f"Described here by {seer.name}", "Described on this computer", "Described here")
    else:
        words = f"{seer.name} at {hosts.get(seer.provider_id, 'its provider')} will describe it"
        shorter = (f"{seer.name} will describe it", "Described off this computer", "Described")
    return SightNote(
        Sight.BLIND,
        words,
        f"{model.name} can't see pictures: {seer.ref} looks at this one and {model.name} "
        f"gets its words. {BLIND_TIP}.",
        shorter,
    )
