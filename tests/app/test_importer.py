"""A JSON export added back to the store, through real files: a new conversation with every
version, when each item was made, and the branch the export showed."""

from __future__ import annotations

from pathlib import Path

from app.export import snapshot, write
from app.import_json import read_json
from app.importer import add_to_store
from app.store import Store, StoredItem
from routing.transcript import Message, Notice, NoticeKind, TextPart, user_message


def shape(items: list[StoredItem]) -> list[tuple[object, int | None, float]]:
    """Each item with the place of the one it follows, and when it was made."""
    place = {s.id: n for n, s in enumerate(items)}
    return [
        (s.item, None if s.parent_id is None else place[s.parent_id], s.created_at) for s in items
    ]


def test_an_export_comes_back_as_a_new_chat_with_every_version(tmp_path: Path) -> None:
    with Store.open(tmp_path / "data") as store:
        chat = store.conversations.create("Colours", "ollama:llama3.2:3b")
        question = store.add_message(chat, user_message("name a colour"))
        store.add_message(chat, Message("assistant", (TextPart("Red."),), "m"))
        store.branches.rewind(chat, question.id)  # a second answer: another version
        store.add_message(chat, Message("assistant", (TextPart("Blue."),), "m"))
        store.add_notice(chat, Notice(NoticeKind.INFO, "Answered here."))
        store.branches.rewind(chat, question.id)
        store.add_message(chat, Message("assistant", (TextPart("Green."),), "m"))
        store.branches.show_version(store.items(chat)[1].versions[1])  # Blue, and its notice
        path = write(snapshot(store, chat), tmp_path / "chat.json")

        copy = add_to_store(store, read_json(path))
        assert copy != chat
        assert shape(store.every_item(copy)) == shape(store.every_item(chat))
        assert [s.item for s in store.items(copy)] == [s.item for s in store.items(chat)]
        assert [s.item.text for s in store.items(copy)] == [
            "name a colour",
            "Blue.",
            "Answered here.",
        ]
        summary = store.conversations.get(copy)
        assert summary is not None and (summary.title, summary.model) == (
            "Colours",
            "ollama:llama3.2:3b",
        )
        again = add_to_store(store, read_json(path))  # a file imported twice is two chats
        assert len({chat, copy, again}) == 3
