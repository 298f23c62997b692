"""The window as a screen reader reads it: the real AT-SPI tree of the running app
(tests/ui/screen_reader/), a chat opened the way a screen reader selects it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.presenters.pending import byte_words
from app.presenters.when import today_or_full_when
from app.store import Store
from routing.transcript import Message, Notice, NoticeKind, TextPart, user_message
from tests.pictures import named_picture
from tests.ui.screen_reader.bus import ScreenReader, missing, window_on_bus

LACKING = missing()
RED = named_picture("red.png", "red", (64, 48))
pytestmark = pytest.mark.skipif(bool(LACKING), reason=f"AT-SPI can't run here: {LACKING}")


def _nodes(tree: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield tree
    for child in tree.get("children", ()):
        yield from _nodes(child)


def _named(tree: dict[str, Any], role: str, name: str) -> dict[str, Any] | None:
    return next((n for n in _nodes(tree) if n["role"] == role and n["name"] == name), None)


def _conversation_items(tree: dict[str, Any], field: str = "name") -> list[str]:
    view = _named(tree, "list", "Conversation")
    return [c[field] for c in (view or {}).get("children", ()) if c["role"] == "list item"]


@pytest.fixture
def chat_read(tmp_path: Path) -> Iterator[tuple[ScreenReader, list[str]]]:
    """The window on the bus, with one chat stored; and when each of its items was written,
    as the window says it."""
    data = tmp_path / "data"
    with Store.open(data) as store:
        chat = store.conversations.create()
        written = [
            store.add_message(chat, user_message("What colour is this?", (RED,))),
            store.add_notice(
                chat, Notice(NoticeKind.ROUTING, "ollama:llava:7b answers at 127.0.0.1:11434.")
            ),
            store.add_message(
                chat, Message("assistant", (TextPart("It is red."),), model="ollama:llava:7b")
            ),
        ]
        store.picture_words.keep(RED.sha256, "A red rectangle, wider than tall.", "ollama:llava:7b")
    with window_on_bus(data, tmp_path / "config") as screen_reader:
        yield screen_reader, [today_or_full_when(stored.created_at) for stored in written]


def test_every_message_and_notice_is_read_in_order_with_its_author_and_time(
    chat_read: tuple[ScreenReader, list[str]],
) -> None:
    reader, (asked, routed, answered) = chat_read
    red_size = byte_words(RED.size_bytes)
    reader.until(lambda tree: _named(tree, "list", "Conversation list") is not None)
    reader.walk("select", "list", "Conversation list", "0")
    tree = reader.until(lambda tree: len(_conversation_items(tree)) == 3)
    you, notice, answer = _conversation_items(tree)
    assert you == f"You, {asked}: What colour is this? (1 picture: red.png, 64×48 · {red_size})"
    assert notice == f"Routing notice, {routed}: ollama:llava:7b answers at 127.0.0.1:11434."
    assert answer == f"ollama:llava:7b, {answered}: It is red."


def test_a_picture_is_heard_in_the_words_a_seeing_model_said_of_it(
    chat_read: tuple[ScreenReader, list[str]],
) -> None:
    reader, _written = chat_read
    reader.until(lambda tree: _named(tree, "list", "Conversation list") is not None)
    reader.walk("select", "list", "Conversation list", "0")
    tree = reader.until(lambda tree: len(_conversation_items(tree)) == 3)
    you, notice, answer = _conversation_items(tree, "description")
    assert you == "red.png, as ollama:llava:7b described it: A red rectangle, wider than tall."
    assert (notice, answer) == ("", "")


# What a screen reader lands on and must be able to name (AT-SPI role names).
CONTROLS = {
    "push button",
    "toggle button",
    "check box",
    "radio button",
    "combo box",
    "text",
    "entry",
    "password text",
    "spin button",
    "slider",
    "list",
    "table",
    "tree",
    "page tab",
    "menu item",
    "check menu item",
    "radio menu item",
    "menu",
}


def test_every_control_on_the_bus_has_a_name(chat_read: tuple[ScreenReader, list[str]]) -> None:
    reader, _written = chat_read
    reader.until(lambda tree: _named(tree, "list", "Conversation list") is not None)
    reader.walk("select", "list", "Conversation list", "0")
    tree = reader.until(lambda tree: len(_conversation_items(tree)) == 3)
    nameless = [n["role"] for n in _nodes(tree) if n["role"] in CONTROLS and not n["name"]]
    assert nameless == []
    roles = {n["role"] for n in _nodes(tree)}
    assert {"push button", "list", "combo box", "text"} <= roles  # the walk saw the controls


def test_every_control_of_settings_has_a_name_when_opened_over_the_bus(
    chat_read: tuple[ScreenReader, list[str]],
) -> None:
    reader, _written = chat_read
    reader.until(lambda tree: _named(tree, "push button", "Settings") is not None)
    reader.walk("press", "push button", "Settings")
    tree = reader.until(lambda tree: _named(tree, "dialog", "Settings") is not None)
    dialog = _named(tree, "dialog", "Settings")
    assert dialog is not None
    nameless = [n["role"] for n in _nodes(dialog) if n["role"] in CONTROLS and not n["name"]]
    assert nameless == []
    assert sum(n["role"] == "page tab" for n in _nodes(dialog)) >= 4
