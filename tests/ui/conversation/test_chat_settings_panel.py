"""The chat settings panel on its own: a note under each setting the chat's model doesn't
take, saying why, and none for one it takes or for Auto."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.ui.conversation.chat_settings_panel import ChatSettingsPanel
from routing.capabilities import resolved
from routing.chat_settings import ChatSettings
from routing.context_window import Overflow
from routing.models import ModelInfo


def _panel(qtbot: QtBot, model: ModelInfo | None) -> ChatSettingsPanel:
    panel = ChatSettingsPanel(
        "A chat", ChatSettings(temperature=0.5), "", lambda _: None, None, model
    )
    qtbot.addWidget(panel)
    return panel


def test_each_setting_the_model_does_not_take_is_noted_with_why(qtbot: QtBot) -> None:
    claude = resolved(ModelInfo("anthropic", "claude-opus-4-8"), "anthropic")
    panel = _panel(qtbot, claude)
    assert {k: v.text() for k, v in panel.notes.items()} == {
        "temperature": "anthropic:claude-opus-4-8 doesn't take a temperature (its provider "
        "says so): it isn't sent to it.",
        "context_length": "anthropic:claude-opus-4-8 doesn't take a context length (its API "
        "has no such setting): it isn't sent to it.",
    }
    assert panel.temperature.text() == "0.5"  # still the chat's: another model may take it


def test_a_model_that_takes_them_all_or_auto_has_no_notes(qtbot: QtBot) -> None:
    assert _panel(qtbot, resolved(ModelInfo("ollama", "llama3.2:3b"), "ollama")).notes == {}
    assert _panel(qtbot, None).notes == {}


def test_what_the_chat_does_past_the_window_is_chosen_and_kept(qtbot: QtBot) -> None:
    saved: list[ChatSettings] = []
    panel = ChatSettingsPanel(
        "A chat", ChatSettings(overflow=Overflow.STOP), "", saved.append, None, None
    )
    qtbot.addWidget(panel)
    assert panel.overflow.currentData() == "stop"  # the chat's own choice is shown
    panel.overflow.setCurrentIndex(panel.overflow.findData("leave_out"))
    panel.try_save()
    assert [s.overflow for s in saved] == [Overflow.LEAVE_OUT]
    # "As in Settings" keeps nothing of the chat's own.
    assert _panel(qtbot, None).chosen().overflow is None
