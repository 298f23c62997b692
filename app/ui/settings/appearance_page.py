"""Settings ▸ Appearance: System, Light, Dark or High contrast, applied the moment it is
chosen."""

from __future__ import annotations

from functools import partial

from PySide6.QtWidgets import QButtonGroup, QGroupBox, QLabel, QRadioButton, QVBoxLayout, QWidget

from app.ui.settings.appearance import Appearance, ThemeChoice

_WORDS = {
    ThemeChoice.SYSTEM: "&System (follow this computer)",
    ThemeChoice.LIGHT: "&Light",
    ThemeChoice.DARK: "&Dark",
    ThemeChoice.HIGH_CONTRAST: "&High contrast (black and white)",
}
_NAMES = {choice: f"{choice.value.replace('-', ' ').capitalize()} theme" for choice in _WORDS}


class AppearancePage(QWidget):
    """The theme choice; it needs no Save: the window changes at once, and remembers."""

    def __init__(self, appearance: Appearance | None, parent: QWidget | None = None) -> None:
        """A page acting on `appearance` (None: a window without one, the choice is shown
        but does nothing)."""
        super().__init__(parent)
        self.setAccessibleName("Appearance")
        self._appearance = appearance
        group = QGroupBox("Theme", self)
        self.buttons: dict[ThemeChoice, QRadioButton] = {}
        self._group = QButtonGroup(self)
        column = QVBoxLayout(group)
        current = appearance.choice if appearance is not None else ThemeChoice.SYSTEM
        for choice, words in _WORDS.items():
            button = QRadioButton(words, group)
            button.setAccessibleName(_NAMES[choice])
            button.setChecked(choice == current)
            button.toggled.connect(partial(self._toggled, choice))
            self._group.addButton(button)
            self.buttons[choice] = button
            column.addWidget(button)
        note = QLabel(
            "Applied at once and kept for the next start. System turns to high contrast "
            "when this computer asks for it.",
            group,
        )
        note.setWordWrap(True)
        note.setAccessibleName("About the theme")
        column.addWidget(note)
        layout = QVBoxLayout(self)
        layout.addWidget(group)
        layout.addStretch(1)

    def _toggled(self, choice: ThemeChoice, on: bool) -> None:
        if on:
            self.choose(choice)

    def choose(self, choice: ThemeChoice) -> None:
        """Use the theme now."""
        if self._appearance is not None and self._appearance.choice != choice:
            self._appearance.apply(choice)
