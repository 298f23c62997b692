"""Hostile places to write a Markdown export, as `sightline export -o` meets them: one clear
line, nothing written through a link, and no pictures folder left without its text."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.store import Store
from routing.transcript import user_message
from tests.conftest import SightlineHome
from tests.faults.cli import one_clear_line, sightline
from tests.pictures import make_picture


@pytest.fixture
def chat(home: SightlineHome) -> str:
    """A chat with a picture, so its Markdown has a pictures folder."""
    with Store.open(home.data) as store:
        chat = store.conversations.create("Pictures")
        store.add_message(chat, user_message("What is it?", (make_picture("red"),)))
        return chat


def test_a_pictures_folder_linked_elsewhere_is_refused_and_nothing_lands_there(
    home: SightlineHome, chat: str, tmp_path: Path
) -> None:
    elsewhere, out = tmp_path / "elsewhere", tmp_path / "out"
    elsewhere.mkdir()
    out.mkdir()
    (out / "chat_files").symlink_to(elsewhere)
    done = sightline(home.env(), "export", chat, "-o", str(out / "chat.md"))
    assert done.returncode == 1
    assert one_clear_line(done) == (
        f"sightline: Can't write {out / 'chat.md'}: chat_files beside it is a link to another "
        "place, and Sightline writes pictures only into a folder of its own. Move the link "
        "aside or export under another name."
    )
    assert list(elsewhere.iterdir()) == []
    assert [p.name for p in out.iterdir()] == ["chat_files"]


def test_a_text_that_cant_be_written_leaves_no_pictures_folder_behind(
    home: SightlineHome, chat: str, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    (out / "chat.md").mkdir(parents=True)
    done = sightline(home.env(), "export", chat, "-o", str(out / "chat.md"))
    assert done.returncode == 1
    assert one_clear_line(done) == f"sightline: Can't write {out / 'chat.md'}: Is a directory."
    assert [p.name for p in out.iterdir()] == ["chat.md"]  # no chat_files, nothing hidden
