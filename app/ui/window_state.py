"""What the window remembers between runs: its size and place, the splitter, the ledger, the chat,
the text size.

Kept with QSettings in an INI file in the data folder (`window.ini`), not in the
platform's settings store: the last open chat is an id in that folder's database,
so the two belong together (another `SIGHTLINE_DATA_DIR` has its own), and a
test's temporary data folder keeps its window state to itself. The theme chosen in
Settings ▸ Appearance is kept here too (`value`, `keep`).

A first start has no file, and reads nothing: QSettings (and QByteArray) are
imported once there is one to read or write, as PySide6 builds a class's enums at
its first import, before the window's first paint.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from app.private_files import create_private_file

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QMainWindow, QSplitter

FILE_NAME = "window.ini"


class Remembered(NamedTuple):
    """The parts of the last run that aren't Qt geometry (a named tuple: a start makes one
    before its first paint, and a dataclass compiles its methods as it is defined)."""

    last_chat: str = ""  # the conversation open at the end ("" for a new chat)
    ledger_open: bool = False
    ledger_width: int = 0  # 0: never set
    sidebar_width: int = 0  # as the person left it (a small window narrows it); 0: never set


class WindowState:
    """Saves and restores one window's state in the data folder."""

    def __init__(self, data_dir: Path) -> None:
        """State kept in `data_dir`'s window.ini."""
        self.path = data_dir / FILE_NAME

    def _settings(self) -> QSettings:
        from PySide6.QtCore import QSettings

        return QSettings(str(self.path), QSettings.Format.IniFormat)

    def _to_write(self) -> QSettings:
        with contextlib.suppress(OSError):  # made 0600 first: QSettings keeps a file's mode
            create_private_file(self.path)
        return self._settings()

    def value(self, key: str, default: str) -> str:
        """What is kept under `key` (as text: an INI file keeps no types), or `default`."""
        if not self.path.exists():
            return default
        return str(self._settings().value(key, default))

    def keep(self, key: str, value: str) -> None:
        """Keep `value` under `key` now."""
        settings = self._to_write()
        settings.setValue(key, value)
        settings.sync()

    def save(self, window: QMainWindow, splitter: QSplitter, remembered: Remembered) -> None:
        """Remember the window's geometry, the splitter's sizes and the rest."""
        settings = self._to_write()
        settings.setValue("window/geometry", window.saveGeometry())
        settings.setValue("window/splitter", splitter.saveState())
        settings.setValue("window/ledger_open", remembered.ledger_open)
        settings.setValue("window/ledger_width", remembered.ledger_width)
        settings.setValue("window/sidebar_width", remembered.sidebar_width)
        settings.setValue("chat/last", remembered.last_chat)
        settings.sync()  # now: the process may be about to end

    def zoom(self) -> float:
        """The text size of the last run (View ▸ Zoom), 1.0 when none or unreadable."""
        try:
            factor = float(self.value("view/zoom", "1.0"))
        except ValueError:
            return 1.0
        return factor if 0.5 <= factor <= 3.0 else 1.0

    def save_zoom(self, factor: float) -> None:
        """Remember the text size now: it is kept even if the window never closes."""
        self.keep("view/zoom", str(round(factor, 3)))

    def restore(self, window: QMainWindow, splitter: QSplitter) -> Remembered:
        """Put the window and splitter back as they were, and say what else was remembered."""
        if not self.path.exists():
            return Remembered()  # a first start
        from PySide6.QtCore import QByteArray

        settings = self._settings()
        geometry = settings.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            # restoreGeometry moves a window that would be off every screen back onto one.
            window.restoreGeometry(geometry)
        sizes = settings.value("window/splitter")
        if isinstance(sizes, QByteArray) and not sizes.isEmpty():
            splitter.restoreState(sizes)
        last = settings.value("chat/last", "")
        # INI files keep no types: booleans and numbers come back as text.
        ledger_open = str(settings.value("window/ledger_open", "false")).lower() == "true"
        width, side = (_width(settings, key) for key in ("ledger_width", "sidebar_width"))
        return Remembered(last if isinstance(last, str) else "", ledger_open, width, side)


def _width(settings: QSettings, key: str) -> int:
    """A remembered width in pixels; 0 when none, or unreadable."""
    try:
        return max(int(str(settings.value(f"window/{key}", 0))), 0)
    except ValueError:
        return 0
