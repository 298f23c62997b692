"""The model picker's open list: as wide as its widest row, measured as it opens."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.ui.icons import BADGE
from app.ui.models.model_picker import ModelPicker
from routing.models import ModelInfo

LONG = "a-model-whose-name-is-far-longer-than-the-closed-box-shows:70b-instruct-q4"
LONGER = f"{LONG}-with-an-even-longer-tail-on-its-name"


def _picker(qtbot: QtBot) -> ModelPicker:
    picker = ModelPicker()
    qtbot.addWidget(picker)
    picker.show()
    qtbot.waitExposed(picker)
    return picker


def _room_for(picker: ModelPicker, name: str) -> int:
    """The width a row needs for `name` whole and its two badges."""
    return picker.view().fontMetrics().horizontalAdvance(name) + 2 * BADGE


def test_the_open_list_shows_the_longest_name_whole(qtbot: QtBot) -> None:
    picker = _picker(qtbot)
    picker.set_models([ModelInfo("ollama", LONG, sees=True, tools=True, local=True)])
    assert picker.view().minimumWidth() < _room_for(picker, LONG)  # not measured yet
    picker.showPopup()
    qtbot.waitUntil(picker.view().isVisible)
    assert picker.view().width() >= _room_for(picker, LONG)
    picker.hidePopup()


def test_models_listed_while_the_list_is_open_widen_it(qtbot: QtBot) -> None:
    picker = _picker(qtbot)
    picker.set_models([ModelInfo("ollama", "short", local=True)])
    picker.showPopup()
    qtbot.waitUntil(picker.view().isVisible)
    picker.set_models([ModelInfo("ollama", LONGER, sees=True, local=True)])
    assert picker.view().minimumWidth() >= _room_for(picker, LONGER)
    picker.hidePopup()
