"""The top bar's sight buttons for the picked model: "Check sight" and "Check again".

Only a model learned blind (it refused pictures) can be checked again; a model nobody
says sees (or one checked before) can be given the sight check on demand. What they do
is the controller's `sight` (app/presenters/sight_checks.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow


class SightButtons:
    """Which of the two buttons the picked model offers, and what a click asks."""

    def __init__(self, window: MainWindow) -> None:
        """Wire `window`'s top bar buttons and follow its picker."""
        self._window = window
        top, picker, c = window.top, window.picker, window.controller
        top.check_sight_button.clicked.connect(lambda: c.check_sight(picker.current_ref()))
        top.check_again_button.clicked.connect(lambda: c.sight.check_again(picker.current_ref()))
        picker.currentIndexChanged.connect(self.show)

    def show(self, *_args: object) -> None:
        """Show the buttons the picked model offers."""
        top, picker = self._window.top, self._window.picker
        ref = picker.current_ref()
        learned = ref in self._window.controller.sight.learned_blind()
        top.check_again_button.setVisible(learned)
        model = next((m for m in picker.models() if m.ref == ref), None)
        # SightFrom's values as text: routing.models loads only after the first paint.
        unsaid = bool(model) and str(getattr(model, "sight_from", "")) in ("unknown", "checked")
        takes = model is not None and model.takes_pictures
        top.check_sight_button.setVisible(unsaid and takes and not learned)
