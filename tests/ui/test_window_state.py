"""The window's remembered state (window.ini in the data folder) is the person's only."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMainWindow, QSplitter
from pytestqt.qtbot import QtBot

from app.ui.window_state import Remembered, WindowState

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")


def test_window_state_is_written_0600_even_with_an_open_umask(qtbot: QtBot, tmp_path: Path) -> None:
    window, splitter = QMainWindow(), QSplitter()
    qtbot.addWidget(window)
    qtbot.addWidget(splitter)
    state = WindowState(tmp_path)
    before = os.umask(0)
    try:
        state.save(window, splitter, Remembered(last_chat="abc"))
        state.save(window, splitter, Remembered(last_chat="def"))  # and again, replaced
    finally:
        os.umask(before)
    assert stat.S_IMODE(state.path.stat().st_mode) == 0o600
    assert state.restore(window, splitter).last_chat == "def"


def test_a_first_start_reads_no_file_and_leaves_none(qtbot: QtBot, tmp_path: Path) -> None:
    window, splitter = QMainWindow(), QSplitter()
    qtbot.addWidget(window)
    qtbot.addWidget(splitter)
    state = WindowState(tmp_path)
    assert state.restore(window, splitter) == Remembered()
    assert state.zoom() == 1.0
    assert state.value("appearance/theme", "system") == "system"
    assert not state.path.exists()


def test_a_kept_value_comes_back_as_text_from_a_file_the_persons_only(tmp_path: Path) -> None:
    state = WindowState(tmp_path)
    before = os.umask(0)
    try:
        state.keep("appearance/theme", "dark")
        state.save_zoom(1.25)
    finally:
        os.umask(before)
    assert stat.S_IMODE(state.path.stat().st_mode) == 0o600
    again = WindowState(tmp_path)  # as the next start reads it
    assert again.value("appearance/theme", "system") == "dark"
    assert again.zoom() == 1.25
