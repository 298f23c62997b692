"""The top bar's sight buttons for the picked model: "Check sight", "Check again" and
"Mark blind" / "Unmark blind", and the picker's right-click menu that marks a model blind.

Only a model learned blind (it refused pictures) can be checked again; a model nobody
says sees (or one checked before) can be given the sight check on demand. A model whose
listing says it sees keeps that word whatever a check says; when a check said otherwise
the bar offers to mark it blind, and the person may mark any model blind from the picker
(right-click), or take their mark back. What they do is the controller's `sight`
(app/presenters/sight_checks.py).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMenu

from app.ui.models.model_picker import PickerRole
from app.ui.top_bar import MARK_BLIND, MARK_BLIND_TIP, UNMARK_BLIND, UNMARK_BLIND_TIP

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow

# SightFrom's values as text: routing.models loads only after the first paint.
_SAID = ("listing", "preset")


class SightButtons:
    """Which of the buttons the picked model offers, and what a click asks."""

    def __init__(self, window: MainWindow) -> None:
        """Wire `window`'s top bar buttons and follow its picker."""
        self._window = window
        self.menu: QMenu | None = None  # the open right-click menu, if any
        top, picker, c = window.top, window.picker, window.controller
        top.check_sight_button.clicked.connect(lambda: c.check_sight(picker.current_ref()))
        top.check_again_button.clicked.connect(lambda: c.sight.check_again(picker.current_ref()))
        top.mark_blind_button.clicked.connect(self._mark_clicked)
        picker.currentIndexChanged.connect(self.show)
        for widget in (picker, picker.view()):
            widget.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        picker.customContextMenuRequested.connect(
            lambda at: self._menu_at(picker.current_ref(), picker.mapToGlobal(at))
        )
        view = picker.view()
        view.customContextMenuRequested.connect(
            lambda at: self._menu_at(
                str(view.indexAt(at).data(PickerRole.REF) or ""), view.mapToGlobal(at)
            )
        )

    def _model(self, ref: str) -> object | None:
        return next((m for m in self._window.picker.models() if m.ref == ref), None)

    def show(self, *_args: object) -> None:
        """Show the buttons the picked model offers."""
        top, picker = self._window.top, self._window.picker
        ref = picker.current_ref()
        learned = ref in self._window.controller.sight.learned_blind()
        top.check_again_button.setVisible(learned)
        model = self._model(ref)
        sight_from = str(getattr(model, "sight_from", ""))
        unsaid = bool(model) and sight_from in ("unknown", "checked")
        takes = model is not None and getattr(model, "takes_pictures", False)
        top.check_sight_button.setVisible(unsaid and takes and not learned)
        # The listing's word stands over a check that said otherwise: the person may mark it.
        doubted = (
            sight_from in _SAID
            and getattr(model, "sees", None) is True
            and str(getattr(model, "checked", None) or "sees") != "sees"
        )
        marked = sight_from == "marked"
        button = top.mark_blind_button
        button.setText(UNMARK_BLIND if marked else MARK_BLIND)
        button.setToolTip(UNMARK_BLIND_TIP if marked else MARK_BLIND_TIP)
        button.setAccessibleName(
            "Unmark this model as blind" if marked else "Mark this model blind"
        )
        button.setVisible(marked or doubted)

    def _mark_clicked(self) -> None:
        ref = self._window.picker.current_ref()
        marked = str(getattr(self._model(ref), "sight_from", "")) == "marked"
        self._window.controller.sight.mark(ref, not marked)
        self.show()

    def sight_menu(self, ref: str) -> QMenu | None:
        """The right-click menu of a model in the picker: mark it blind, or unmark it (None
        for Auto, an agent, a header)."""
        model = self._model(ref)
        if model is None or not getattr(model, "takes_pictures", False):
            return None
        marked = str(getattr(model, "sight_from", "")) == "marked"
        menu = QMenu(self._window.picker)
        menu.setAccessibleName(f"Sight of {ref}")
        words = f"Unmark {ref} as blind" if marked else f"Mark {ref} blind"
        action = menu.addAction(words, partial(self._mark, ref, not marked))
        action.setToolTip(
            UNMARK_BLIND_TIP if marked else "Sightline puts pictures into words for it"
        )
        menu.setToolTipsVisible(True)
        return menu

    def _mark(self, ref: str, blind: bool) -> None:
        self._window.controller.sight.mark(ref, blind)
        self.show()

    def _menu_at(self, ref: str, where: QPoint) -> None:
        menu = self.sight_menu(ref)
        if menu is None:
            return
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.menu = menu
        menu.popup(where)
