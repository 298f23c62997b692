"""A picture's words kept with the picture: across a reopen, replaced by newer words, and
gone with the picture when its conversation is deleted for good."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from app.store import PictureWords, Store
from app.store.picture_words import MAX_WORDS
from routing.transcript import user_message
from tests.pictures import named_picture, numbered_picture

RED = named_picture("red.png", "red", (64, 48))
BLUE = named_picture("blue.png", "blue", (32, 32))


def test_words_are_kept_with_a_stored_picture_across_a_reopen(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    with Store.open(folder) as store:
        chat = store.conversations.create()
        store.add_message(chat, user_message("look", (RED, BLUE)))
        assert store.picture_words.of([RED.sha256, BLUE.sha256]) == {}
        assert store.picture_words.keep(RED.sha256, "  A red square.  ", "ollama:llava:7b")
        assert store.picture_words.keep(RED.sha256, "A red rectangle.", "ollama:moondream:1.8b")
    with Store.open(folder) as store:
        assert store.picture_words.of([RED.sha256, BLUE.sha256, "f" * 64]) == {
            RED.sha256: PictureWords("A red rectangle.", "ollama:moondream:1.8b")
        }


def test_no_words_are_kept_for_a_picture_nobody_stored(tmp_path: Path) -> None:
    with Store.open(tmp_path / "data") as store:
        assert not store.picture_words.keep(RED.sha256, "A red square.", "ollama:llava:7b")
        assert store.picture_words.of([RED.sha256]) == {}


def test_long_words_are_cut_to_the_cap(tmp_path: Path) -> None:
    with Store.open(tmp_path / "data") as store:
        chat = store.conversations.create()
        store.add_message(chat, user_message("look", (RED,)))
        store.picture_words.keep(RED.sha256, "red " * MAX_WORDS, "ollama:llava:7b")
        assert len(store.picture_words.of([RED.sha256])[RED.sha256].words) == MAX_WORDS


def test_the_words_go_with_the_picture_when_its_chat_is_deleted_for_good(tmp_path: Path) -> None:
    with Store.open(tmp_path / "data") as store:
        chat = store.conversations.create()
        store.add_message(chat, user_message("look", (RED,)))
        store.picture_words.keep(RED.sha256, "A red square.", "ollama:llava:7b")
        store.conversations.delete(chat)
        store.conversations.purge()
        assert store.picture_words.of([RED.sha256]) == {}
    rows = sqlite3.connect(tmp_path / "data" / Store.DB_NAME).execute(
        "SELECT count(*) FROM picture_words"
    )
    assert rows.fetchone() == (0,)


def test_many_pictures_are_asked_about_in_batches(tmp_path: Path) -> None:
    pictures = [numbered_picture(i) for i in range(1_200)]
    with Store.open(tmp_path / "data") as store:
        chat = store.conversations.create()
        store.add_message(chat, user_message("many", tuple(pictures)))
        for picture in pictures[::100]:
            store.picture_words.keep(picture.sha256, picture.label, "ollama:llava:7b")
        found = store.picture_words.of([p.sha256 for p in pictures])
        assert sorted(w.words for w in found.values()) == sorted(p.label for p in pictures[::100])
