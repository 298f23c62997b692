"""A chat as Markdown with its pictures folder beside it, in real folders: both written or
neither, private, and never through a link."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.export import Exported, ExportError, snapshot
from app.export_markdown import write_markdown
from app.store import Store
from routing.transcript import user_message
from tests.pdfs import text_pdf
from tests.pictures import make_picture
from vision.pdf import open_pdf

RED, BLUE = make_picture("red"), make_picture("blue")
MEMO = open_pdf(text_pdf(["Friday"]), name="memo.pdf")
NAMES = sorted([f"{RED.sha256}.png", f"{BLUE.sha256}.png", f"{MEMO.sha256}.pdf"])


@pytest.fixture
def exported(tmp_path: Path) -> Iterator[Exported]:
    """A chat with two pictures and a PDF."""
    with Store.open(tmp_path / "data") as store:
        chat = store.conversations.create()
        store.add_message(chat, user_message("Look", (RED, BLUE), (MEMO,)))
        yield snapshot(store, chat)


def left_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_the_file_and_its_folder_are_private(exported: Exported, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    write_markdown(exported, out / "chat.md")
    assert left_in(out) == ["chat.md", "chat_files"]  # nothing of the writing left beside
    assert left_in(out / "chat_files") == NAMES
    assert stat.S_IMODE(os.stat(out / "chat_files").st_mode) == 0o700
    modes = {
        stat.S_IMODE(p.stat().st_mode) for p in [out / "chat.md", *(out / "chat_files").iterdir()]
    }
    assert modes == {0o600}
    assert (out / "chat_files" / f"{RED.sha256}.png").read_bytes() == RED.data


def test_a_pictures_folder_that_is_a_link_is_refused_and_nothing_is_written_through_it(
    exported: Exported, tmp_path: Path
) -> None:
    elsewhere, out = tmp_path / "elsewhere", tmp_path / "out"
    elsewhere.mkdir()
    out.mkdir()
    (out / "chat_files").symlink_to(elsewhere)
    with pytest.raises(ExportError) as caught:
        write_markdown(exported, out / "chat.md")
    assert str(caught.value) == (
        f"Can't write {out / 'chat.md'}: chat_files beside it is a link to another place, and "
        "Sightline writes pictures only into a folder of its own. Move the link aside or "
        "export under another name."
    )
    assert left_in(elsewhere) == []
    assert left_in(out) == ["chat_files"]  # the link, as it was; no .md, nothing hidden
    (out / "chat_files").unlink()
    (out / "chat_files").symlink_to(tmp_path / "nowhere")  # a dangling link too
    with pytest.raises(ExportError, match="is a link to another place"):
        write_markdown(exported, out / "chat.md")
    assert not (tmp_path / "nowhere").exists()


def test_a_picture_name_that_is_a_link_in_an_earlier_folder_is_refused(
    exported: Exported, tmp_path: Path
) -> None:
    target = tmp_path / "precious.png"
    target.write_bytes(b"the person's own")
    files = tmp_path / "chat_files"
    files.mkdir()
    (files / f"{RED.sha256}.png").symlink_to(target)
    with pytest.raises(ExportError, match="holds files that aren't an export's pictures"):
        write_markdown(exported, tmp_path / "chat.md")
    assert target.read_bytes() == b"the person's own"
    assert left_in(files) == [f"{RED.sha256}.png"] and (files / f"{RED.sha256}.png").is_symlink()
    assert not (tmp_path / "chat.md").exists()


def test_a_text_that_cant_be_written_leaves_no_pictures_folder(
    exported: Exported, tmp_path: Path
) -> None:
    (tmp_path / "chat.md").mkdir()  # what the .md would replace is a folder: no rename can
    with pytest.raises(ExportError, match=r"^Can't write .*chat\.md: Is a directory\.$"):
        write_markdown(exported, tmp_path / "chat.md")
    assert left_in(tmp_path) == ["chat.md", "data"]  # no chat_files, nothing hidden left
    assert left_in(tmp_path / "chat.md") == []


def test_an_earlier_exports_folder_is_replaced_and_put_back_when_the_text_fails(
    exported: Exported, tmp_path: Path
) -> None:
    files = tmp_path / "chat_files"
    files.mkdir()
    old = files / f"{'0' * 64}.png"  # a picture of an earlier export of this name
    old.write_bytes(b"earlier")
    (tmp_path / "chat.md").mkdir()
    with pytest.raises(ExportError):
        write_markdown(exported, tmp_path / "chat.md")
    assert left_in(files) == [old.name] and old.read_bytes() == b"earlier"  # as it was
    (tmp_path / "chat.md").rmdir()
    write_markdown(exported, tmp_path / "chat.md")
    assert left_in(files) == NAMES  # this export's pictures only
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chat.md", "chat_files", "data"]


def test_a_pictures_folder_holding_other_files_or_a_file_in_its_place_is_refused(
    exported: Exported, tmp_path: Path
) -> None:
    files = tmp_path / "chat_files"
    files.mkdir()
    (files / "notes.txt").write_text("mine")
    with pytest.raises(ExportError, match="holds files that aren't an export's pictures"):
        write_markdown(exported, tmp_path / "chat.md")
    assert left_in(files) == ["notes.txt"]
    (files / "notes.txt").unlink()
    files.rmdir()
    files.write_text("a file")
    with pytest.raises(ExportError, match="chat_files beside it is a file, not a folder"):
        write_markdown(exported, tmp_path / "chat.md")
    assert files.read_text() == "a file"
