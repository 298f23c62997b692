"""A window showing one picture at full size: fit to the window by default, Esc closes.

The picture is an accessible image: its description is what a seeing model said it shows
(shown under it for everyone), else its name and size; "Describe this picture" asks for
those words (app/ui/describing.py).

A large picture is decoded on a worker thread (a 4K screenshot takes ~80 ms): the viewer
opens at the picture's size at once, saying it is opening it, and shows it when decoded.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtGui import QGuiApplication, QImage, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.presenters.pending import size_words
from app.store import PictureWords
from app.ui.conversation.thumbnails import BACKGROUND_PIXELS, decode, decode_whole, fit
from app.ui.conversation.thumbnails import shown_size as upright_size
from vision.pictures import Picture

_MIN = QSize(360, 260)
_SCREEN_SHARE = 0.85  # the viewer opens at most this much of the screen


def viewer_title(picture: Picture) -> str:
    """The viewer's title: the picture's name and size."""
    return f"{picture.label or 'Picture'} — {size_words(picture)}"


class PictureViewer(QDialog):
    """One picture in a scroll area; "Actual size" switches from fitting to 100 %."""

    describe_requested = Signal(object)  # the Picture: the person asked for it in words
    # Once a large picture, decoded off the window's thread, replaces "Opening the
    # picture…": what a screen reader should hear (the window's announcer says it).
    opened = Signal(str)

    def __init__(
        self, picture: Picture, parent: QWidget | None = None, words: PictureWords | None = None
    ) -> None:
        """A viewer for `picture` (decoded once: a large one on a worker thread), with the
        words held for it if any."""
        super().__init__(parent)
        self.picture = picture
        self.setWindowTitle(viewer_title(picture))
        self.setAccessibleName("Picture viewer")
        self.setSizeGripEnabled(True)
        self.opening = picture.width * picture.height > BACKGROUND_PIXELS
        self.image = QImage() if self.opening else decode(picture.data)
        self._fitted_for = QSize()

        self.label = QLabel(self)
        self.label.setAccessibleName(picture.label or "Picture")
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self.area = QScrollArea(self)
        self.area.setAccessibleName("Picture")
        self.area.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.area.setWidget(self.label)
        self.info = QLabel(self)
        self.info.setAccessibleName("Picture size")
        self.actual = QPushButton("Actual size", self)
        self.actual.setAccessibleName("Actual size")
        self.actual.setToolTip("Show the picture pixel for pixel (F fits it to the window again)")
        self.actual.setCheckable(True)
        self.words = QLabel(self)
        self.words.setAccessibleName("Description")
        self.words.setWordWrap(True)
        self.words.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.words.hide()
        self.describe = QPushButton("Describe this picture", self)
        self.describe.setAccessibleName("Describe this picture")
        self.describe.setToolTip("Ask a model that sees to say what the picture shows")
        self.describe.setAutoDefault(False)
        self.close_button = QPushButton("Close", self)
        self.close_button.setAccessibleName("Close")
        self.close_button.setAutoDefault(False)
        self.actual.setAutoDefault(False)

        bar = QHBoxLayout()
        bar.addWidget(self.info, 1)
        bar.addWidget(self.describe)
        bar.addWidget(self.actual)
        bar.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.area, 1)
        layout.addWidget(self.words)
        layout.addLayout(bar)
        self.describe.clicked.connect(lambda: self.describe_requested.emit(self.picture))
        self.label.setAccessibleDescription(f"{picture.label or 'Picture'}, {size_words(picture)}")
        if words is not None:
            self.show_words(words.words, words.looker)

        self.actual.toggled.connect(self._show)
        self.close_button.clicked.connect(self.reject)
        fit_again = QShortcut(QKeySequence("F"), self)
        fit_again.activated.connect(lambda: self.actual.setChecked(False))
        # Refit when the visible area changes size: the dialog's own resize comes
        # before its children are laid out, so it would fit the old size.
        self.area.viewport().installEventFilter(self)
        self.resize(self._opening_size())
        self._show()
        if self.opening:
            decode_whole(picture.data, self, self._decoded)

    def show_words(self, words: str, looker: str) -> None:
        """What a seeing model said the picture shows: under it, and as its description."""
        said = f"As {looker} described it: {words}"
        self.words.setText(said)
        self.words.show()
        self.label.setAccessibleDescription(said)
        self.describe.hide()

    def show_state(self, words: str, *, asking: bool) -> None:
        """Where asking for a description stands: under way, or why it could not be."""
        self.words.setText(words)
        self.words.show()
        self.describe.setEnabled(not asking)

    @property
    def fitting(self) -> bool:
        """Whether the picture is scaled to fit the window (the default)."""
        return not self.actual.isChecked()

    def shown_size(self) -> QSize:
        """The size the picture is drawn at, in logical pixels."""
        pixmap = self.label.pixmap()
        if pixmap.isNull():
            return QSize()
        return pixmap.deviceIndependentSize().toSize()

    def _opening_size(self) -> QSize:
        screen = self.screen() or QGuiApplication.primaryScreen()
        room = screen.availableGeometry().size() * _SCREEN_SHARE if screen else QSize(1200, 800)
        chrome = QSize(40, 80)  # margins, frame and the button bar
        # From the header, as the picture stands (a large one is still being decoded).
        size = upright_size(self.picture) if self.opening or not self.image.isNull() else _MIN
        return (size + chrome).boundedTo(room).expandedTo(_MIN)

    def _decoded(self, image: QImage) -> None:
        self.image = image
        self.opening = False
        self.actual.setEnabled(True)
        self._show()
        if image.isNull():
            self.opened.emit(f"{self.picture.label or 'The picture'} can't be shown here.")
        else:
            self.opened.emit(f"{self.picture.label or 'The picture'} is shown: {self.info.text()}")

    def _show(self, *_args: object) -> None:
        if self.opening:
            self.label.setText("Opening the picture…")
            self.info.setText(size_words(self.picture))
            self.actual.setEnabled(False)
            return
        if self.image.isNull():
            self.label.setText("This picture can't be shown here.")
            self.info.setText(size_words(self.picture))
            self.actual.setEnabled(False)
            return
        ratio = self.devicePixelRatioF()
        natural = QSize(
            round(self.image.width() / ratio), round(self.image.height() / ratio)
        ).expandedTo(QSize(1, 1))
        if self.fitting:
            room = self.area.viewport().size() - QSize(2, 2)
            shown = fit(natural, room.expandedTo(QSize(1, 1)))
            self.area.setWidgetResizable(True)
        else:
            shown = natural
            self.area.setWidgetResizable(False)
        self._fitted_for = self.area.viewport().size()
        self.label.setPixmap(self._pixmap(shown, ratio))
        self.label.resize(shown)
        percent = round(100 * shown.width() / natural.width())
        how = f"fitted, {percent} %" if self.fitting and percent < 100 else "actual size"
        self.info.setText(f"{size_words(self.picture)} · {how}")

    def _pixmap(self, size: QSize, ratio: float) -> QPixmap:
        pixels = QSize(round(size.width() * ratio), round(size.height() * ratio))
        image = self.image
        if pixels != image.size():
            image = image.scaled(
                pixels,
                Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )
        pixmap = QPixmap.fromImage(QImage(image))
        pixmap.setDevicePixelRatio(ratio)
        return pixmap

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Fit the picture again when the visible area changes size (only while fitting)."""
        if (
            event.type() == QEvent.Type.Resize
            and self.fitting
            and self.area.viewport().size() != self._fitted_for
        ):
            self._show()
        return False
