"""The composer's attachments: a strip of picture cards, what went wrong, and drops and pastes.

Cards only show what the controller holds (its `Attachments` and a `SightNote`);
removing one is a request. `offer_from_mime` turns a drop or a paste into an
`Offered` without reading any file: the controller reads them off the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import (
    QBuffer,
    QEvent,
    QIODevice,
    QMimeData,
    QObject,
    QRect,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QColor,
    QDragEnterEvent,
    QDropEvent,
    QImage,
    QPainter,
    QPaintEvent,
    QPalette,
    QPixmap,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.icons import badge_image, struck_badge_image
from app.ui.message_delegate import blend
from app.ui.pending import Offered, Sight, SightNote, size_words
from app.ui.thumbnails import fit, shown_size, thumbnail
from vision.pictures import Picture

CARD = QSize(276, 64)
THUMB = QSize(48, 48)
MARK = 14  # the sight marker's size
# Not from the palette: "can't see" must stand out in light and dark themes alike.
BLIND_COLOR = "#c2410c"
PROBLEM_COLOR = "#dc2626"


# -- drops and pastes --------------------------------------------------------------


def carries_pictures(mime: QMimeData) -> bool:
    """Whether a drag or paste holds files on this computer or picture data (cheap: no reading)."""
    if mime.hasUrls() and any(url.isLocalFile() for url in mime.urls()):
        return True
    return mime.hasImage() and not _has_words(mime)


def offer_from_mime(mime: QMimeData, how: str) -> Offered | None:
    """The pictures a drop or paste offers, or None when it is something else (words)."""
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


class PictureDrops(QObject):
    """An event filter that takes pictures dropped on a widget (which must accept drops)."""

    offered = Signal(object)  # Offered

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Accept drags that carry pictures; report what was dropped."""
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            assert isinstance(event, QDragEnterEvent | QDropEvent)
            if carries_pictures(event.mimeData()):
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


# -- cards -------------------------------------------------------------------------


def _small_label(text: str, name: str, parent: QWidget, scale: float = 0.88) -> QLabel:
    label = QLabel(text, parent)
    label.setAccessibleName(name)
    font = label.font()
    font.setPointSizeF(max(7.0, font.pointSizeF() * scale))
    label.setFont(font)
    return label


class AttachmentCard(QFrame):
    """One attached picture: thumbnail, name, size, whether the model sees it, and ×."""

    remove_requested = Signal(str)  # the picture's SHA-256

    def __init__(self, picture: Picture, parent: QWidget | None = None) -> None:
        """A card for `picture`; its sight marker is set by `set_sight`."""
        super().__init__(parent)
        self.picture = picture
        self.sight = Sight.UNKNOWN
        self.setFixedSize(CARD)
        name = picture.label or "Picture"
        self.thumb = QLabel(self)
        self.thumb.setAccessibleName(f"Thumbnail of {name}")
        self.thumb.setFixedSize(THUMB)
        self.thumb.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.name = QLabel(self)
        self.name.setAccessibleName("Picture name")
        self.size_label = _small_label(size_words(picture), "Picture size", self)
        self.mark = QLabel(self)
        self.mark.setAccessibleName("Sight marker")
        self.mark.setFixedSize(MARK, MARK)
        self.sight_label = _small_label("", "Sight", self)
        self.remove = QToolButton(self)
        self.remove.setText("×")
        self.remove.setAutoRaise(True)
        self.remove.setAccessibleName(f"Remove {name}")
        self.remove.setToolTip(f"Remove {name}")
        self.remove.clicked.connect(lambda: self.remove_requested.emit(picture.sha256))

        sight_row = QHBoxLayout()
        sight_row.setSpacing(4)
        sight_row.addWidget(self.mark)
        sight_row.addWidget(self.sight_label, 1)
        words = QVBoxLayout()
        words.setSpacing(1)
        words.addWidget(self.name)
        words.addWidget(self.size_label)
        words.addLayout(sight_row)
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 6, 2, 6)
        row.setSpacing(8)
        row.addWidget(self.thumb)
        row.addLayout(words, 1)
        row.addWidget(self.remove, 0, Qt.AlignmentFlag.AlignTop)
        self._name_text = name
        self._note = SightNote(Sight.UNKNOWN, "", "")
        self._paint_parts()

    def set_sight(self, note: SightNote) -> None:
        """Show whether the chosen model sees this picture."""
        self.sight = note.sight
        self._note = note
        self._paint_parts()

    def _paint_parts(self) -> None:
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.Text)
        base = palette.color(QPalette.ColorRole.Base)
        ratio = self.devicePixelRatioF()
        pixmap = thumbnail(self.picture, fit(shown_size(self.picture), THUMB), ratio)
        self.thumb.setPixmap(pixmap)
        if pixmap.isNull():
            self.thumb.setText("?")
        metrics = self.name.fontMetrics()
        # The room the layout leaves the words: card less margins, spacing, thumbnail and ×.
        width = CARD.width() - 8 - 2 - 2 * 8 - THUMB.width() - self.remove.sizeHint().width()
        self.name.setText(metrics.elidedText(self._name_text, Qt.TextElideMode.ElideMiddle, width))
        self.name.setToolTip(self._name_text)
        note = self._note
        blind = note.sight == Sight.BLIND
        color = QColor(BLIND_COLOR) if blind else blend(base, text, 0.7)
        if note.sight == Sight.UNKNOWN:
            mark = QPixmap()
        elif blind:
            mark = QPixmap.fromImage(struck_badge_image("eye", color, MARK, ratio))
        else:
            eye = QColor(color)
            eye.setAlphaF(0.45 if note.sight == Sight.MAYBE else 1.0)
            mark = QPixmap.fromImage(badge_image("eye", eye, MARK, ratio))
        self.mark.setPixmap(mark)
        self.size_label.setStyleSheet(f"color: {blend(base, text, 0.62).name()}")
        self.sight_label.setStyleSheet(f"color: {color.name()}")
        self.sight_label.setText(
            self.sight_label.fontMetrics().elidedText(
                note.words, Qt.TextElideMode.ElideRight, width - MARK - 4
            )
        )
        for widget in (self.mark, self.sight_label):
            widget.setToolTip(note.tip)
        self.setToolTip(note.tip)
        self.setAccessibleName(f"{self._name_text}, {size_words(self.picture)}")
        self.setAccessibleDescription(note.tip)
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        """A rounded card; its border takes the warning colour when the model can't see."""
        palette = self.palette()
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        blind = self.sight == Sight.BLIND
        painter.setPen(QColor(BLIND_COLOR) if blind else blend(base, text, 0.16))
        painter.setBrush(
            blend(base, QColor(BLIND_COLOR), 0.06) if blind else blend(base, text, 0.03)
        )
        painter.drawRoundedRect(self.rect().adjusted(0, 0, -1, -1), 8, 8)
        # A hairline round the thumbnail: a white picture mustn't melt into the card.
        pixmap = self.thumb.pixmap()
        if not pixmap.isNull():
            size = pixmap.deviceIndependentSize().toSize()
            frame = QRect(0, 0, size.width(), size.height())
            frame.moveCenter(self.thumb.geometry().center())
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            painter.setPen(blend(base, text, 0.22))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(frame.adjusted(-1, -1, 0, 0))
        painter.end()

    def changeEvent(self, event: QEvent) -> None:
        """Redraw in the new colours when the palette changes."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._paint_parts()


class AttachmentStrip(QScrollArea):
    """The cards side by side above the message box; scrolls sideways when they don't fit."""

    remove_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        """An empty, hidden strip."""
        super().__init__(parent)
        self.setAccessibleName("Attached pictures")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidgetResizable(True)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._inner = inner = QWidget(self)
        self._row = QHBoxLayout(inner)
        self._row.setContentsMargins(0, 0, 0, 0)
        self._row.setSpacing(8)
        self.reading = _small_label("", "Reading pictures", inner)
        self._row.addWidget(self.reading)
        self._row.addStretch(1)
        self.setWidget(inner)
        self.viewport().setAutoFillBackground(False)
        self._cards: dict[str, AttachmentCard] = {}
        self.hide()

    def cards(self) -> list[AttachmentCard]:
        """The cards, in the order shown."""
        items = (self._row.itemAt(i) for i in range(self._row.count()))
        return [w for item in items if item and isinstance(w := item.widget(), AttachmentCard)]

    def show_pictures(self, pictures: Sequence[Picture], reading: int, note: SightNote) -> None:
        """Show these pictures' cards (reusing those already made) and how many are being read."""
        wanted = {p.sha256 for p in pictures}
        for sha256 in [s for s in self._cards if s not in wanted]:
            card = self._cards.pop(sha256)
            self._row.removeWidget(card)
            card.deleteLater()
        for position, picture in enumerate(pictures):
            made = self._cards.get(picture.sha256)
            if made is None:
                card = AttachmentCard(picture, self._inner)
                card.remove_requested.connect(self.remove_requested)
                self._cards[picture.sha256] = card
            else:
                card = made
                self._row.removeWidget(card)
            self._row.insertWidget(position, card)
            card.set_sight(note)
        self.reading.setText(f"Reading {reading} file{'s' * (reading != 1)}…" if reading else "")
        self.reading.setVisible(bool(reading))
        self.setVisible(bool(pictures) or bool(reading))
        self._fit_height()

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Make room for the sideways scroll bar only when the cards overflow."""
        super().resizeEvent(event)
        self._fit_height()

    def _fit_height(self) -> None:
        overflow = self._inner.sizeHint().width() > self.viewport().width()
        bar = self.horizontalScrollBar().sizeHint().height() if overflow else 0
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
        self.label.setStyleSheet(f"color: {PROBLEM_COLOR}")
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
