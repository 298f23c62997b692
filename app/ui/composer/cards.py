"""The composer's attachment cards: a picture's (thumbnail, size, sight) and a PDF's.

A card only shows what the controller holds: the attachment, and a note on
what the chosen model gets of it. Removing one is a request, by SHA-256.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRect, QSize, Qt, Signal
from PySide6.QtGui import QAction, QColor, QPainter, QPaintEvent, QPalette, QPixmap
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from app.presenters.pdf_notes import PdfNote, PdfWay, pages_words
from app.presenters.pending import AttachedPdf, Sight, SightNote, size_words
from app.ui.conversation.painting import blend, paint_document
from app.ui.conversation.thumbnails import fit, ready, shown_size
from app.ui.icons import badge_image, struck_badge_image
from app.ui.named import small_label
from vision.pictures import Picture

CARD = QSize(330, 64)  # room for "Described by qwen2.5vl:3b on this computer"
PDF_CARD = QSize(304, 64)  # wider: "Pages read by a model that sees" should fit unelided
THUMB = QSize(48, 48)
DOCUMENT = QSize(36, 46)  # a PDF's page mark, inside the thumbnail's square
MARK = 14  # the sight marker's size
# Not from the palette: "can't see" must stand out in light and dark themes alike.
BLIND_COLOR = "#c2410c"


class Card(QFrame):
    """What every card has: a tile on the left, a name, a size, a note row, and ×."""

    remove_requested = Signal(str)  # the attachment's SHA-256
    _ready = False  # set once a card's parts exist: a palette may change while they're made

    def __init__(
        self, sha256: str, name: str, kind: str, parent: QWidget | None, size: QSize = CARD
    ) -> None:
        """A card for the attachment `name` ("Picture", "PDF": `kind`, for screen readers)."""
        super().__init__(parent)
        self.setFixedSize(size)
        self.sha256 = sha256
        self._name_text = name
        self._warn = False  # the border takes the warning colour
        self.thumb = QLabel(self)
        self.thumb.setFixedSize(THUMB)
        self.thumb.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.name = QLabel(self)
        self.name.setAccessibleName(f"{kind} name")
        self.size_label = small_label("", f"{kind} size", self)
        self.note_row = QHBoxLayout()
        self.note_row.setSpacing(4)
        self.remove = QToolButton(self)
        self.remove.setText("×")
        self.remove.setAutoRaise(True)
        self.remove.setAccessibleName(f"Remove {name}")
        self.remove.setToolTip(f"Remove {name}")
        self.remove.clicked.connect(lambda: self.remove_requested.emit(sha256))

        words = QVBoxLayout()
        words.setSpacing(1)
        words.addWidget(self.name)
        words.addWidget(self.size_label)
        words.addLayout(self.note_row)
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 6, 2, 6)
        row.setSpacing(8)
        row.addWidget(self.thumb)
        row.addLayout(words, 1)
        row.addWidget(self.remove, 0, Qt.AlignmentFlag.AlignTop)

    def words_width(self) -> int:
        """The room the layout leaves the words: card less margins, spacing, tile and ×."""
        return self.width() - 8 - 2 - 2 * 8 - THUMB.width() - self.remove.sizeHint().width()

    def show_name(self) -> None:
        """The name, elided in the middle to fit (the whole name in its tooltip)."""
        metrics = self.name.fontMetrics()
        self.name.setText(
            metrics.elidedText(self._name_text, Qt.TextElideMode.ElideMiddle, self.words_width())
        )
        self.name.setToolTip(self._name_text)

    def colors(self) -> tuple[QColor, QColor]:
        """The palette's base and text colours."""
        palette = self.palette()
        return palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.Text)

    def paintEvent(self, event: QPaintEvent) -> None:
        """A rounded card; its border takes the warning colour when something is amiss."""
        base, text = self.colors()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QColor(BLIND_COLOR) if self._warn else blend(base, text, 0.16))
        painter.setBrush(
            blend(base, QColor(BLIND_COLOR), 0.06) if self._warn else blend(base, text, 0.03)
        )
        painter.drawRoundedRect(self.rect().adjusted(0, 0, -1, -1), 8, 8)
        self.paint_tile(painter, base, text)
        painter.end()

    def paint_tile(self, painter: QPainter, base: QColor, text: QColor) -> None:
        """Anything drawn over the tile (nothing here)."""

    def changeEvent(self, event: QEvent) -> None:
        """Redraw in the new colours when the palette changes."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self._ready:
            self.refresh()

    def refresh(self) -> None:
        """Show everything again, in the current colours."""


class PictureCard(Card):
    """One attached picture: thumbnail, name, size, whether the model sees it, and ×; its
    menu (a right click, or the Menu key on ×) asks for it in words."""

    describe_requested = Signal(object)  # the Picture

    def __init__(self, picture: Picture, parent: QWidget | None = None) -> None:
        """A card for `picture`; its sight marker is set by `set_sight`."""
        name = picture.label or "Picture"
        super().__init__(picture.sha256, name, "Picture", parent)
        self.picture = picture
        self.described = ""  # what a seeing model said it shows, once said
        describe = QAction("Describe this picture", self)
        describe.triggered.connect(lambda: self.describe_requested.emit(self.picture))
        self.addAction(describe)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.sight = Sight.UNKNOWN
        self.thumb.setAccessibleName(f"Thumbnail of {name}")
        self.size_label.setText(size_words(picture))
        self.mark = QLabel(self)
        self.mark.setAccessibleName("Sight marker")
        self.mark.setFixedSize(MARK, MARK)
        self.sight_label = small_label("", "Sight", self)
        self.note_row.addWidget(self.mark)
        self.note_row.addWidget(self.sight_label, 1)
        self._note = SightNote(Sight.UNKNOWN, "", "")
        self._decoding = False  # its thumbnail decoded on a worker thread: drawn once done
        self._ready = True
        self.refresh()

    def show_words(self, words: str, looker: str) -> None:
        """What a seeing model said the picture shows: the start of its description."""
        self.described = f"As {looker} described it: {words}"
        self.refresh()

    def set_sight(self, note: SightNote) -> None:
        """Show whether the chosen model sees this picture."""
        self.sight = note.sight
        self._warn = note.sight == Sight.BLIND
        self._note = note
        self.refresh()

    def refresh(self) -> None:
        """Thumbnail, name, marker and words, in the current colours."""
        base, text = self.colors()
        ratio = self.devicePixelRatioF()
        # A large picture is decoded on a worker thread: its tile waits as a faint frame.
        size = fit(shown_size(self.picture), THUMB)
        pixmap = ready(self.picture, size, ratio, self, self.refresh)
        self._decoding = pixmap is None
        self.thumb.setPixmap(pixmap or QPixmap())
        if pixmap is not None and pixmap.isNull():
            self.thumb.setText("?")
        self.show_name()
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
        self.sight_label.setText(self._fitting(note))
        for widget in (self.mark, self.sight_label):
            widget.setToolTip(note.tip)
        self.setToolTip(note.tip)
        self.setAccessibleName(f"{self._name_text}, {size_words(self.picture)}")
        self.setAccessibleDescription("\n".join(w for w in (self.described, note.tip) if w))
        self.update()

    def _fitting(self, note: SightNote) -> str:
        """The note's words, else the first shorter wording that fits: a model's name is
        dropped whole rather than cut mid-word; only the shortest is ever elided."""
        metrics, room = self.sight_label.fontMetrics(), self.words_width() - MARK - 4
        choices = (note.words, *note.shorter)
        for words in choices:
            if metrics.horizontalAdvance(words) <= room:
                return words
        return metrics.elidedText(choices[-1], Qt.TextElideMode.ElideRight, room)

    def paint_tile(self, painter: QPainter, base: QColor, text: QColor) -> None:
        """A hairline round the thumbnail: a white picture mustn't melt into the card; a
        faint frame where a large one is still being decoded."""
        if self._decoding:
            painter.setPen(blend(base, text, 0.22))
            painter.setBrush(blend(base, text, 0.08))
            painter.drawRoundedRect(self.thumb.geometry().adjusted(0, 0, -1, -1), 4, 4)
            return
        pixmap = self.thumb.pixmap()
        if pixmap.isNull():
            return
        size = pixmap.deviceIndependentSize().toSize()
        frame = QRect(0, 0, size.width(), size.height())
        frame.moveCenter(self.thumb.geometry().center())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setPen(blend(base, text, 0.22))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(frame.adjusted(-1, -1, 0, 0))


class PdfCard(Card):
    """One attached PDF: a document mark, its name, pages and size, how the model gets it, ×."""

    def __init__(self, attached: AttachedPdf, parent: QWidget | None = None) -> None:
        """A card for `attached`; what the model gets is set by `set_note`."""
        pdf = attached.pdf
        name = pdf.name or "PDF"
        super().__init__(pdf.sha256, name, "PDF", parent, PDF_CARD)
        self.attached = attached
        self.thumb.setAccessibleName(f"Document mark of {name}")
        self.size_label.setText(pages_words(pdf))
        self.note_label = small_label("", "How the model gets it", self)
        self.note_row.addWidget(self.note_label, 1)
        self.note = PdfNote(PdfWay.TEXT, "", "")
        self._ready = True
        self.refresh()

    def set_note(self, note: PdfNote) -> None:
        """Show what the chosen model gets of this PDF."""
        self.note = note
        self.refresh()

    def refresh(self) -> None:
        """Mark, name and words, in the current colours."""
        base, text = self.colors()
        ratio = self.devicePixelRatioF()
        mark = QPixmap(round(DOCUMENT.width() * ratio), round(DOCUMENT.height() * ratio))
        mark.setDevicePixelRatio(ratio)
        mark.fill(Qt.GlobalColor.transparent)
        painter = QPainter(mark)
        paint_document(painter, QRect(0, 0, DOCUMENT.width(), DOCUMENT.height()), base, text)
        painter.end()
        self.thumb.setPixmap(mark)
        self.show_name()
        faded = blend(base, text, 0.62)
        self.size_label.setStyleSheet(f"color: {faded.name()}")
        self.note_label.setStyleSheet(f"color: {blend(base, text, 0.7).name()}")
        note = self.note
        self.note_label.setText(
            self.note_label.fontMetrics().elidedText(
                note.words, Qt.TextElideMode.ElideRight, self.words_width()
            )
        )
        self.note_label.setToolTip(note.tip)
        self.setToolTip(note.tip)
        words = f", {note.words}" if note.words else ""
        self.setAccessibleName(f"{self._name_text}, PDF, {pages_words(self.attached.pdf)}{words}")
        self.setAccessibleDescription(note.tip)
        self.update()
