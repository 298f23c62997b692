"""The composer's attachments: a strip of cards, what went wrong, and drops and pastes.

Cards (`cards.py`) only show what the controller holds (its `Attachments`, a
`SightNote` for pictures and a `PdfNote` per PDF); removing one is a request.
`offer_from_mime` turns a drop or a paste into an `Offered` without reading any
file (a picture or a PDF): the controller reads them off the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from app.ui.named import small_label
from app.ui.theme import show_problem
from app.ui.viewport import own_viewport

if TYPE_CHECKING:
    from PySide6.QtCore import QMimeData

    from app.presenters.pdf_notes import PdfNote
    from app.presenters.pending import Attachments, Offered, SightNote
    from app.store import PictureWords
    from app.ui.composer.cards import Card, PdfCard, PictureCard
    from vision.pictures import Picture

# -- drops and pastes --------------------------------------------------------------


def carries_attachments(mime: QMimeData) -> bool:
    """Whether a drag or paste holds files on this computer or picture data (cheap: no reading)."""
    if mime.hasUrls() and any(url.isLocalFile() for url in mime.urls()):
        return True
    return mime.hasImage() and not _has_words(mime)


def offer_from_mime(mime: QMimeData, how: str) -> Offered | None:
    """The files or picture a drop or paste offers, or None when it is something else (words)."""
    from app.presenters.pending import Offered  # the first drop comes after the first paint

    urls = mime.urls() if mime.hasUrls() else []
    paths = tuple(Path(url.toLocalFile()) for url in urls if url.isLocalFile())
    if paths:
        elsewhere = tuple(
            f"{url.toDisplayString()} is not a file on this computer; save it, then attach it."
            for url in urls
            if not url.isLocalFile()
        )
        return Offered(paths=paths, problems=elsewhere)
    if mime.hasImage() and not _has_words(mime):
        return Offered(unnamed=(_image_bytes(mime),), how=how)
    return None


def _has_words(mime: QMimeData) -> bool:
    # Office apps put a rendering of copied text beside it; the words are what's meant.
    # A lone address (a browser's "copy image") isn't words.
    text = mime.text().strip() if mime.hasText() else ""
    return bool(text) and (any(c.isspace() for c in text) or "://" not in text)


def _image_bytes(mime: QMimeData) -> Callable[[], bytes]:
    if mime.hasFormat("image/png"):
        data = mime.data("image/png").data()
        if data:
            return lambda: bytes(data)  # the very bytes copied, not a re-encoding
    from PySide6.QtCore import QBuffer, QIODevice  # with the first pasted picture
    from PySide6.QtGui import QImage, QPixmap

    value = mime.imageData()
    image = value.toImage() if isinstance(value, QPixmap) else QImage(value)

    def encode() -> bytes:
        # QImage and QBuffer are reentrant: this runs in a worker thread on a copy.
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        # The stub wants bytes for the format, but PySide6 takes only a str here.
        image.save(buffer, "PNG")  # type: ignore[call-overload]
        return bytes(buffer.data().data())

    return encode


class AttachmentDrops(QObject):
    """An event filter that takes files and pictures dropped on a widget (which accepts drops)."""

    offered = Signal(object)  # Offered

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Accept drags that carry files or pictures; report what was dropped."""
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            assert isinstance(event, QDragEnterEvent | QDropEvent)
            if carries_attachments(event.mimeData()):
                event.acceptProposedAction()
                return True
        elif kind == QEvent.Type.Drop:
            assert isinstance(event, QDropEvent)
            offer = offer_from_mime(event.mimeData(), "Dropped")
            if offer is not None:
                event.acceptProposedAction()
                self.offered.emit(offer)
                return True
        return False


# -- the strip -------------------------------------------------------------------


class AttachmentStrip(QScrollArea):
    """The cards side by side above the message box; scrolls sideways when they don't fit."""

    remove_requested = Signal(str)
    describe_requested = Signal(object)  # a Picture the person asked to have described

    def __init__(self, parent: QWidget | None = None) -> None:
        """An empty, hidden strip."""
        super().__init__(parent)
        # The words held for pictures, by SHA-256 (the window's is the controller's
        # `describing.words`): a card made for a picture already described says so.
        self.picture_words: Callable[[Iterable[str]], Mapping[str, PictureWords]] = lambda _: {}
        self.setAccessibleName("Attachments")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidgetResizable(True)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        own_viewport(self).setAutoFillBackground(False)  # before `setWidget` puts `inner` in it
        self._inner = inner = QWidget(self)
        self._row = QHBoxLayout(inner)
        self._row.setContentsMargins(0, 0, 0, 0)
        self._row.setSpacing(8)
        self.reading = small_label("", "Reading files", inner)
        self._row.addWidget(self.reading)
        self._row.addStretch(1)
        self.setWidget(inner)
        self._cards: dict[str, Card] = {}
        self.hide()

    def cards(self) -> list[Card]:
        """The cards, in the order shown (pictures, then PDFs, as the message carries them)."""
        if not self._cards:  # none made yet: their module may not even be loaded
            return []
        from app.ui.composer.cards import Card

        items = (self._row.itemAt(i) for i in range(self._row.count()))
        return [w for item in items if item and isinstance(w := item.widget(), Card)]

    def picture_cards(self) -> list[PictureCard]:
        """The pictures' cards, in order."""
        from app.ui.composer.cards import PictureCard  # loaded with the first card

        return [c for c in self.cards() if isinstance(c, PictureCard)]

    def pdf_cards(self) -> list[PdfCard]:
        """The PDFs' cards, in order."""
        from app.ui.composer.cards import PdfCard  # loaded with the first card

        return [c for c in self.cards() if isinstance(c, PdfCard)]

    def show_attachments(
        self, attachments: Attachments, sight: SightNote, pdf_notes: Mapping[str, PdfNote]
    ) -> None:
        """Show the attachments' cards (reusing those already made) and how many are being read."""
        wanted = [p.sha256 for p in attachments.pictures] + [p.sha256 for p in attachments.pdfs]
        for sha256 in [s for s in self._cards if s not in wanted]:
            card = self._cards.pop(sha256)
            self._row.removeWidget(card)
            card.deleteLater()
        if wanted:
            self._show_cards(attachments, sight, pdf_notes)
        self.reading.setText(_progress(attachments.reading, attachments.locked))
        reading = attachments.reading
        self.reading.setVisible(bool(reading))
        self.setVisible(attachments.anything or bool(reading))
        self._fit_height()

    def _show_cards(
        self, attachments: Attachments, sight: SightNote, pdf_notes: Mapping[str, PdfNote]
    ) -> None:
        # The cards' module (thumbnails, painting) loads with the first card, not at start.
        from app.ui.composer.cards import PdfCard, PictureCard

        for position, picture in enumerate(attachments.pictures):
            made = self._card(picture.sha256, partial(self._picture_card, picture))
            self._place(made, position)
            if isinstance(made, PictureCard):
                made.set_sight(sight)
        for position, attached in enumerate(attachments.pdfs, start=len(attachments.pictures)):
            made = self._card(attached.sha256, partial(PdfCard, attached, self._inner))
            self._place(made, position)
            note = pdf_notes.get(attached.sha256)
            if isinstance(made, PdfCard) and note is not None:
                made.set_note(note)

    def _picture_card(self, picture: Picture) -> PictureCard:
        from app.ui.composer.cards import PictureCard  # loaded by `show_attachments`

        card = PictureCard(picture, self._inner)
        card.describe_requested.connect(self.describe_requested)
        words = self.picture_words([picture.sha256]).get(picture.sha256)
        if words is not None:
            card.show_words(words.words, words.looker)
        return card

    def show_words(self, sha256: str, words: str, looker: str) -> None:
        """A picture's words, said now: its card describes it with them."""
        from app.ui.composer.cards import PictureCard  # loaded by `show_attachments`

        card = self._cards.get(sha256)
        if isinstance(card, PictureCard):
            card.show_words(words, looker)

    def _card(self, sha256: str, make: Callable[[], Card]) -> Card:
        card = self._cards.get(sha256)
        if card is None:
            card = make()
            card.remove_requested.connect(self.remove_requested)
            self._cards[sha256] = card
        return card

    def _place(self, card: Card, position: int) -> None:
        self._row.removeWidget(card)
        self._row.insertWidget(position, card)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Make room for the sideways scroll bar only when the cards overflow."""
        super().resizeEvent(event)
        self._fit_height()

    def _fit_height(self) -> None:
        if self.isHidden():  # measured again when shown (`show_attachments`)
            return
        overflow = self._inner.sizeHint().width() > self.viewport().width()
        bar = self.horizontalScrollBar().sizeHint().height() if overflow else 0
        from app.ui.composer.cards import CARD  # loaded by `show_attachments`

        self.setFixedHeight(CARD.height() + bar)


class ProblemBar(QFrame):
    """What went wrong attaching, one line per file, until dismissed or replaced."""

    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        """A hidden bar."""
        super().__init__(parent)
        self.setAccessibleName("Attach problems")
        self.label = QLabel(self)
        self.label.setAccessibleName("Attach problems")
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        show_problem(self.label)
        self.dismiss = QToolButton(self)
        self.dismiss.setText("×")
        self.dismiss.setAutoRaise(True)
        self.dismiss.setAccessibleName("Dismiss attach problems")
        self.dismiss.setToolTip("Dismiss")
        self.dismiss.clicked.connect(self.dismissed)
        row = QHBoxLayout(self)
        row.setContentsMargins(2, 0, 0, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.dismiss, 0, Qt.AlignmentFlag.AlignTop)
        self._problems: tuple[str, ...] = ()
        self.hide()

    def problems(self) -> tuple[str, ...]:
        """The problems shown."""
        return self._problems

    def show_problems(self, problems: Sequence[str]) -> None:
        """Show these problems (none: hide)."""
        self._problems = tuple(problems)
        self.label.setText("\n".join(self._problems))
        self.setVisible(bool(self._problems))


def _progress(reading: int, locked: tuple[str, ...]) -> str:
    """What the strip says while files are read or a locked PDF waits for its password."""
    read = reading - len(locked)
    words = [f"Reading {read} file{'s' * (read != 1)}…"] if read > 0 else []
    if locked:
        words.append(f"Waiting for the password of {', '.join(locked)}…")
    return " ".join(words)
