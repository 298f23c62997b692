"""A chat's working folder, kept with it (app/turn/agent_folder.py): chosen, else kept on
the person's message, else the default; kept once, on the first turn that works there."""

from __future__ import annotations

from pathlib import Path

from app.store import Store
from app.turn.agent_folder import FOLDER, AgentFolders, kept_folder
from routing.transcript import CarriedPart, Message, TextPart, user_message


def keeping(folder: Path) -> CarriedPart:
    return CarriedPart(FOLDER, "fake", {"cwd": str(folder)})


def test_the_folder_is_read_from_the_first_message_that_keeps_one(tmp_path: Path) -> None:
    first, later = tmp_path / "first", tmp_path / "later"
    messages = [
        user_message("no folder here"),
        Message("user", (TextPart("hello"), keeping(first))),
        Message("user", (TextPart("again"), keeping(later))),
    ]
    assert kept_folder(messages) == first
    assert kept_folder([user_message("hi")]) is None
    # A part without a usable path keeps nothing.
    assert kept_folder([Message("user", (CarriedPart(FOLDER, "fake", {"cwd": 3}),))]) is None


def test_a_chat_without_one_works_in_the_default_and_keeps_it(store: Store, tmp_path: Path) -> None:
    folders = AgentFolders(store, tmp_path)
    chat = store.conversations.create()
    assert folders.folder(chat) is None and folders.folder("") is None
    folder, carried = folders.for_turn(chat, "fake")
    assert (folder, carried) == (tmp_path, (keeping(tmp_path),))


def test_a_chosen_folder_is_worked_in_and_kept_with_the_next_message(
    store: Store, tmp_path: Path
) -> None:
    folders = AgentFolders(store, Path("/nowhere"))
    chat = store.conversations.create()
    folders.choose(chat, tmp_path)
    assert folders.folder(chat) == tmp_path
    folder, carried = folders.for_turn(chat, "fake")
    assert (folder, carried) == (tmp_path, (keeping(tmp_path),))
    # Once the person's message carries it, later turns keep nothing more.
    store.add_message(chat, Message("user", (TextPart("hello"), *carried)))
    assert folders.for_turn(chat, "fake") == (tmp_path, ())


def test_a_kept_folder_is_found_again_by_a_later_run(store: Store, tmp_path: Path) -> None:
    chat = store.conversations.create()
    store.add_message(chat, Message("user", (TextPart("hello"), keeping(tmp_path))))
    folders = AgentFolders(store, Path("/elsewhere"))  # as `ask --conversation` makes them
    assert folders.folder(chat) == tmp_path
    assert folders.for_turn(chat, "fake") == (tmp_path, ())
