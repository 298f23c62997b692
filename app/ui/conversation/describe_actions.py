"""The window's side of "Describe this picture": the view's menu, the picture viewer and
a composer card's menu ask, the controller's `describing` looks (app/ui/describing.py),
and the answer reaches the rows' screen-reader descriptions, the composer's card, an open
viewer of that picture, and the status bar.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow
    from vision.pictures import Picture

_SHOWN_MS = 10000


class DescribeActions(QObject):
    """Carries a window's requests for descriptions to its controller, and back."""

    def __init__(self, window: MainWindow) -> None:
        """Wire the window's view, conversation and viewer to the controller's describing."""
        super().__init__(window)
        self.window = window
        describing = window.controller.describing
        window.conversation.picture_words = describing.words
        window.composer.strip.picture_words = describing.words
        window.view.describe_clicked.connect(self.describe)
        window.composer.describe_requested.connect(self.describe)
        describing.started.connect(lambda sha256, words: self._state(sha256, words, asking=True))
        describing.failed.connect(lambda sha256, why: self._state(sha256, why, asking=False))
        describing.described.connect(self._described)

    def describe(self, picture: Picture) -> None:
        """Ask for `picture` in words, for the open chat, by the chat's model's rules."""
        self.window.controller.describing.describe(picture, self.window.picker.current_ref())

    def _state(self, sha256: str, words: str, *, asking: bool) -> None:
        self.window.statusBar().showMessage(words, _SHOWN_MS)
        viewer = self.window.viewer
        if viewer is not None and viewer.picture.sha256 == sha256:
            viewer.show_state(words, asking=asking)

    def _described(self, sha256: str, words: str, looker: str) -> None:
        self.window.conversation.picture_described(sha256)
        self.window.composer.strip.show_words(sha256, words, looker)
        viewer = self.window.viewer
        if viewer is not None and viewer.picture.sha256 == sha256:
            viewer.show_words(words, looker)
        self.window.statusBar().showMessage(f"Described by {looker}.", _SHOWN_MS)
