"""The window's menu bar: File, Edit, View and Help, with the shortcuts people expect.

Each entry calls what the window already does (a button, a shortcut), so the menu
is one more way in, never a second implementation. Shortcuts live on these actions
only: the same key bound twice would make Qt run neither.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QToolButton

from app.ui.settings.appearance import ThemeChoice

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMessageBox

    from app.ui.main_window import MainWindow

ZOOM_STEPS = (0.8, 0.9, 1.0, 1.1, 1.25, 1.4, 1.6, 1.8, 2.0)  # the conversation's text size


class MenuBar:
    """Builds the window's menus and keeps their actions (tests and the window use them)."""

    def __init__(self, window: MainWindow) -> None:
        """Fill `window`'s menu bar."""
        self.window = window
        self.about_box: QMessageBox | None = None
        self._zoom = ZOOM_STEPS.index(1.0)
        self._base_point_size = window.view.font().pointSizeF()
        bar = window.menuBar()
        bar.setAccessibleName("Menu bar")
        # Qt's own button for menus that don't fit (a narrow window) is named too.
        for button in bar.findChildren(QToolButton):
            button.setAccessibleName("More menus")
        c = window.controller

        file = self._menu("&File")
        self.new_chat = self._add(
            file, "&New chat", c.new_conversation, QKeySequence.StandardKey.New
        )
        self.attach = self._add(file, "&Attach files…", window.composer.choose_files, "Ctrl+O")
        self.export = self._add(
            file, "&Export chat…", window.export_conversation, QKeySequence.StandardKey.Save
        )
        file.addSeparator()
        self.settings = self._add(file, "&Settings…", window.open_settings, "Ctrl+,")
        self.local_models = self._add(file, "&Local models…", lambda: window.local_models.open())
        file.addSeparator()
        # Ctrl+Q named outright: some platforms give the standard Quit key no binding.
        self.quit = self._add(file, "&Quit", window.close, "Ctrl+Q")

        edit = self._menu("&Edit")
        self.copy = self._add(edit, "&Copy message", self._copy_message)
        self.find = self._add(edit, "&Find chats", window.sidebar.focus_search, "Ctrl+F")
        self.chat_settings = self._add(edit, "C&hat settings…", window.chat_actions.open_settings)

        view = self._menu("&View")
        self.ledger = self._add(
            view,
            "Data &ledger",
            lambda: window.show_ledger(window.ledger.isHidden()),
            "Ctrl+Shift+L",
        )
        self.ledger.setCheckable(True)
        window.top.ledger_button.toggled.connect(self.ledger.setChecked)
        theme = view.addMenu("&Theme")
        theme.setAccessibleName("Theme")
        self.themes: dict[ThemeChoice, QAction] = {}
        for choice, words in (
            (ThemeChoice.SYSTEM, "&System"),
            (ThemeChoice.LIGHT, "&Light"),
            (ThemeChoice.DARK, "&Dark"),
        ):
            action = self._add(theme, words, partial(self.use_theme, choice))
            action.setCheckable(True)
            self.themes[choice] = action
        self._show_theme()
        view.addSeparator()
        self.zoom_in = self._add(view, "Zoom &in", lambda: self.zoom(+1), "Ctrl+=")
        self.zoom_in.setShortcuts([QKeySequence("Ctrl+="), QKeySequence("Ctrl++")])
        self.zoom_out = self._add(view, "Zoom &out", lambda: self.zoom(-1), "Ctrl+-")
        self.zoom_reset = self._add(view, "&Actual size", self.reset_zoom, "Ctrl+0")

        help_menu = self._menu("&Help")
        self.about = self._add(help_menu, "&About Sightline", self.show_about)
        self.logs = self._add(help_menu, "Open the &log folder", self.open_logs)

    def _menu(self, title: str) -> QMenu:
        menu = self.window.menuBar().addMenu(title)
        menu.setAccessibleName(title.replace("&", ""))
        return menu

    def _add(
        self,
        menu: QMenu,
        words: str,
        slot: object,
        key: QKeySequence | QKeySequence.StandardKey | str | None = None,
    ) -> QAction:
        action = menu.addAction(words)
        action.triggered.connect(slot)
        if key is not None:
            action.setShortcut(QKeySequence(key))
        return action

    # -- what the entries do ---------------------------------------------------------

    def _copy_message(self) -> None:
        view = self.window.view
        view.copy_row(view.currentIndex())

    def use_theme(self, choice: ThemeChoice, *_checked: object) -> None:
        """View ▸ Theme: the same choice as Settings ▸ Appearance, applied at once."""
        self.window.appearance.apply(choice)
        self._show_theme()

    def _show_theme(self) -> None:
        for choice, action in self.themes.items():
            action.setChecked(choice == self.window.appearance.choice)

    def zoom(self, step: int) -> None:
        """The conversation's text a step larger or smaller (the rest of the window stays)."""
        self._zoom = max(0, min(len(ZOOM_STEPS) - 1, self._zoom + step))
        self._apply_zoom()

    def reset_zoom(self) -> None:
        """The conversation's text at its usual size."""
        self._zoom = ZOOM_STEPS.index(1.0)
        self._apply_zoom()

    @property
    def zoom_factor(self) -> float:
        """How much larger than usual the conversation's text is."""
        return ZOOM_STEPS[self._zoom]

    def _apply_zoom(self) -> None:
        view = self.window.view
        font = view.font()
        font.setPointSizeF(self._base_point_size * self.zoom_factor)
        view.setFont(font)  # a FontChange: every row is laid out again at the new size

    def show_about(self) -> QMessageBox:
        """Help ▸ About: the version, and what Sightline is."""
        from PySide6.QtWidgets import QMessageBox  # the first paint needs no dialog

        from app.version import installed_version

        box = QMessageBox(self.window)
        box.setWindowTitle("About Sightline")
        box.setAccessibleName("About Sightline")
        box.setText(f"Sightline {installed_version()}")
        box.setInformativeText(
            "A chat client that runs on your computer first: every model can use pictures, "
            "as pictures where it sees and as words where it doesn't, and you always see "
            "which model looked at what and where your data went."
        )
        self.about_box = box
        box.open()  # window-modal without a nested event loop (qasync)
        return box

    def open_logs(self) -> None:
        """Help ▸ Open the log folder, in the file manager."""
        folder = self.window.controller.config.data_dir / "logs"
        if not folder.is_dir():
            self.window.statusBar().showMessage(f"There is no log folder yet ({folder}).", 8000)
            return
        from PySide6.QtCore import QUrl
        from PySide6.QtGui import QDesktopServices

        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))
