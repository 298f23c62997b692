"""The window's menu bar: File, Edit, View and Help, with the shortcuts people expect; and
the window's keys that no entry has (Esc stops, Ctrl+K, F2, Ctrl+End, Ctrl+Z).

Each entry calls what the window already does (a button, a shortcut), so the menu
is one more way in, never a second implementation. A shortcut lives on one action
or key only: the same key bound twice would make Qt run neither.

The bar and its four menus are in the first frame; their entries, and the shortcuts
with them, are added just after it (`fill`, from the window's first paint): none is
seen before a menu opens or a key is pressed, and making them (with PySide6's
`QKeySequence` and `QShortcut` classes, built at their first use) took 7.6 M
instructions before the paint.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QMenu, QToolButton, QWidget

from app.ui.settings.appearance import ThemeChoice

if TYPE_CHECKING:
    from PySide6.QtGui import QAction, QKeySequence
    from PySide6.QtWidgets import QMessageBox

    from app.ui.main_window import MainWindow

ZOOM_STEPS = (0.8, 0.9, 1.0, 1.1, 1.25, 1.4, 1.6, 1.8, 2.0)  # the window's text size
_BASE_FONT: dict[QApplication, QFont] = {}  # the application's font at actual size


def base_font() -> QFont:
    """The application's font before any zoom (read once per process: a window opened
    later, in tests, must not take a zoomed font for actual size)."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    if app not in _BASE_FONT:
        _BASE_FONT[app] = QFont(app.font())
    return QFont(_BASE_FONT[app])


class MenuBar:
    """Builds the window's menus and keeps their actions (tests and the window use them)."""

    def __init__(self, window: MainWindow) -> None:
        """The menu bar with its four menus, and the text size of the last run."""
        self.window = window
        self.about_box: QMessageBox | None = None
        remembered = window.state.zoom()
        self._zoom = min(range(len(ZOOM_STEPS)), key=lambda n: abs(ZOOM_STEPS[n] - remembered))
        if QApplication.font().pointSizeF() != self._point_size():
            self._apply_zoom(remember=False)  # before the first paint: no relayout after it
        bar = window.menuBar()
        bar.setAccessibleName("Menu bar")
        # Qt's own button for menus that don't fit (a narrow window) is named too.
        for button in bar.findChildren(QToolButton):
            button.setAccessibleName("More menus")
        self._menus = [self._menu(title) for title in ("&File", "&Edit", "&View", "&Help")]
        self.themes: dict[ThemeChoice, QAction] = {}  # View ▸ Theme's entries, once filled

    def fill(self) -> None:
        """Add every menu's entries and their shortcuts, and the window's other keys (once,
        after the first paint)."""
        from PySide6.QtGui import QKeySequence

        if not self._menus:
            return
        self._keys()
        file, edit, view, help_menu = self._menus
        self._menus = []
        window = self.window
        c = window.controller
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

        self.copy = self._add(edit, "&Copy message", self._copy_message)
        self.find = self._add(edit, "&Find chats", window.find_chats, "Ctrl+F")
        self.chat_settings = self._add(edit, "C&hat settings…", window.chat_actions.open_settings)

        self.ledger = self._add(
            view,
            "Data &ledger",
            lambda: window.show_ledger(not window.arrangement.ledger_open),
            "Ctrl+Shift+L",
        )
        self.ledger.setCheckable(True)
        window.top.ledger_button.toggled.connect(self.ledger.setChecked)
        theme = view.addMenu("&Theme")
        theme.setAccessibleName("Theme")
        for choice, words in (
            (ThemeChoice.SYSTEM, "&System"),
            (ThemeChoice.LIGHT, "&Light"),
            (ThemeChoice.DARK, "&Dark"),
            (ThemeChoice.HIGH_CONTRAST, "&High contrast"),
        ):
            action = self._add(theme, words, partial(self.use_theme, choice))
            action.setCheckable(True)
            self.themes[choice] = action
        self._show_theme()
        # Settings ▸ Appearance (or the system) may choose too: the ticks follow.
        window.appearance.changed.connect(self._show_theme)
        view.addSeparator()
        self.zoom_in = self._add(view, "Zoom &in", lambda: self.zoom(+1), "Ctrl+=")
        self.zoom_in.setShortcuts([QKeySequence("Ctrl+="), QKeySequence("Ctrl++")])
        self.zoom_out = self._add(view, "Zoom &out", lambda: self.zoom(-1), "Ctrl+-")
        self.zoom_reset = self._add(view, "&Actual size", self.reset_zoom, "Ctrl+0")

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
        from PySide6.QtGui import QKeySequence

        action = menu.addAction(words)
        action.triggered.connect(slot)
        if key is not None:
            action.setShortcut(QKeySequence(key))
        return action

    def _keys(self) -> None:
        from PySide6.QtGui import QKeySequence, QShortcut

        window = self.window
        keys = (
            (QKeySequence(Qt.Key.Key_Escape), window.controller.stop),
            (QKeySequence("Ctrl+K"), window.open_model_picker),
            (QKeySequence(Qt.Key.Key_F2), window.rename_current),
            (QKeySequence("Ctrl+End"), window.view.jump_to_latest),
            # Text boxes keep their own Ctrl+Z (they claim it first); elsewhere it undoes a delete.
            (QKeySequence.StandardKey.Undo, window.undo),
        )
        for key, action in keys:
            QShortcut(key, window).activated.connect(action)

    # -- what the entries do ---------------------------------------------------------

    def _copy_message(self) -> None:
        view = self.window.view
        view.copy_row(view.currentIndex())

    def use_theme(self, choice: ThemeChoice, *_checked: object) -> None:
        """View ▸ Theme: the same choice as Settings ▸ Appearance, applied at once."""
        self.window.appearance.apply(choice)
        self._show_theme()

    def _show_theme(self, *_choice: object) -> None:
        for choice, action in self.themes.items():
            action.setChecked(choice == self.window.appearance.choice)

    def zoom(self, step: int) -> None:
        """The window's text a step larger or smaller, kept for the next start."""
        self._zoom = max(0, min(len(ZOOM_STEPS) - 1, self._zoom + step))
        self._apply_zoom()

    def reset_zoom(self) -> None:
        """The window's text at its usual size."""
        self._zoom = ZOOM_STEPS.index(1.0)
        self._apply_zoom()

    @property
    def zoom_factor(self) -> float:
        """How much larger than usual the window's text is."""
        return ZOOM_STEPS[self._zoom]

    def _point_size(self) -> float:
        return base_font().pointSizeF() * self.zoom_factor

    def _apply_zoom(self, *, remember: bool = True) -> None:
        """The application's font at the zoom's size: every widget whose font is inherited
        follows (a FontChange: the conversation lays out every row again), as do dialogs
        and menus opened later; a widget with a size of its own (a title, a caption) is
        scaled by as much."""
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        before = app.font().pointSizeF()
        ratio = self._point_size() / before if before > 0 else 1.0
        own = [
            (widget, widget.font().pointSizeF())
            for widget in app.allWidgets()
            if widget.testAttribute(Qt.WidgetAttribute.WA_SetFont)
        ]
        font = base_font()
        font.setPointSizeF(self._point_size())
        app.setFont(font)
        # Qt posts the change to each widget: taken now, so what kept its size shows.
        app.sendPostedEvents(None, QEvent.Type.ApplicationFontChange)
        if sheet := app.styleSheet():  # high contrast's: under a sheet only windows follow
            app.setStyleSheet(sheet)  # the sheet again: every widget takes the new font
        for widget, size in own:
            if size > 0 and widget.font().pointSizeF() == size:  # it kept its own size
                _scale(widget, ratio)
        if remember:
            self.window.state.save_zoom(self.zoom_factor)

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


def _scale(widget: QWidget, ratio: float) -> None:
    font = widget.font()
    font.setPointSizeF(max(6.0, font.pointSizeF() * ratio))
    widget.setFont(font)
