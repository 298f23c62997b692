"""The window's side of a conversation's pictures and PDFs: a picture opened in its viewer,
a PDF in the system's, and "Describe this picture".

The view's menu, the picture viewer and a composer card's menu ask for a description; the
controller's `describing` looks (app/ui/describing.py), and the answer reaches the rows'
screen-reader descriptions, the composer's card, an open viewer of that picture, and the
status bar.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt

if TYPE_CHECKING:
    from app.ui.conversation.picture_viewer import PictureViewer
    from app.ui.main_window import MainWindow
    from vision.pdf import PdfFile
    from vision.pictures import Picture

_SHOWN_MS = 10000


class PictureActions(QObject):
    """Opens a window's pictures and PDFs, and carries its requests for descriptions to its
    controller and the answers back."""

    def __init__(self, window: MainWindow) -> None:
        """Wire the window's view, conversation, composer and viewer to the controller."""
        super().__init__(window)
        self.window = window
        self.viewer: PictureViewer | None = None  # the picture shown in its own window
        describing = window.controller.describing
        window.conversation.picture_words = describing.words
        window.composer.strip.picture_words = describing.words
        window.view.picture_clicked.connect(self.open_picture)
        window.view.pdf_clicked.connect(self.open_pdf)
        window.view.describe_clicked.connect(self.describe)
        window.composer.describe_requested.connect(self.describe)
        describing.started.connect(lambda sha256, words: self._state(sha256, words, asking=True))
        describing.failed.connect(lambda sha256, why: self._state(sha256, why, asking=False))
        describing.described.connect(self._described)

    def open_picture(self, picture: Picture) -> PictureViewer:
        """Show a picture in its own window (replacing one already open), with its words."""
        from app.ui.conversation.picture_viewer import PictureViewer  # on first use, not at start

        if self.viewer is not None:
            self.viewer.close()
        words = self.window.controller.describing.words([picture.sha256]).get(picture.sha256)
        viewer = PictureViewer(picture, self.window, words)
        viewer.describe_requested.connect(self.describe)
        viewer.opened.connect(self.window.announcer.announce)
        viewer.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        viewer.finished.connect(lambda _result, shown=viewer: self._viewer_closed(shown))
        self.viewer = viewer
        viewer.show()  # not modal: the chat stays usable beside it
        viewer.activateWindow()  # so Esc reaches it, not the window's Stop
        return viewer

    def _viewer_closed(self, viewer: PictureViewer) -> None:
        if self.viewer is viewer:
            self.viewer = None

    def open_pdf(self, pdf: PdfFile) -> None:
        """Open a PDF of the conversation in the system's viewer."""
        from app.ui.conversation.pdf_opening import open_outside  # on first use, not at start

        try:
            if not open_outside(pdf):
                self._tell(f"No program here opens {pdf.name}.")
        except OSError as exc:  # the temporary copy couldn't be written
            self._tell(f"{pdf.name} could not be opened: {exc}")

    def describe(self, picture: Picture) -> None:
        """Ask for `picture` in words, for the open chat, by the chat's model's rules."""
        self.window.controller.describing.describe(picture, self.window.picker.current_ref())

    def _tell(self, words: str) -> None:
        self.window.statusBar().showMessage(words, _SHOWN_MS)

    def _state(self, sha256: str, words: str, *, asking: bool) -> None:
        self._tell(words)
        if self.viewer is not None and self.viewer.picture.sha256 == sha256:
            self.viewer.show_state(words, asking=asking)

    def _described(self, sha256: str, words: str, looker: str) -> None:
        self.window.conversation.picture_described(sha256)
        self.window.composer.strip.show_words(sha256, words, looker)
        if self.viewer is not None and self.viewer.picture.sha256 == sha256:
            self.viewer.show_words(words, looker)
        self._tell(f"Described by {looker}.")
