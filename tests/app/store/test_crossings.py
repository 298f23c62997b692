"""What left this computer, per chat, and the choice for a chat's earlier pictures."""

from __future__ import annotations

from pathlib import Path

from app.store import Store


def test_what_left_is_kept_per_chat_across_a_reopen(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    with Store.open(folder) as store:
        chat, other = store.conversations.create(), store.conversations.create()
        assert store.crossings.sent_away(chat) == set()
        store.crossings.note_sent_away(chat, ["a" * 64, "b" * 64])
        store.crossings.note_sent_away(chat, ["a" * 64])  # sent again: noted once
        store.crossings.note_sent_away(chat, [])  # nothing left: nothing written
    with Store.open(folder) as store:
        assert store.crossings.sent_away(chat) == {"a" * 64, "b" * 64}
        assert store.crossings.sent_away(other) == set()
        store.conversations.delete(chat)
        assert store.crossings.sent_away(chat) == set()


def test_the_earlier_pictures_choice_is_kept_per_chat(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    with Store.open(folder) as store:
        chat, other = store.conversations.create(), store.conversations.create()
        assert store.crossings.earlier_pictures(chat) == ""  # undecided
        store.crossings.set_earlier_pictures(chat, "withhold")
    with Store.open(folder) as store:
        assert store.crossings.earlier_pictures(chat) == "withhold"
        assert store.crossings.earlier_pictures(other) == ""
        assert store.crossings.earlier_pictures("no such chat") == ""
