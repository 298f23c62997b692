"""read_file on real files: text in several encodings, pictures, PDFs, and what it refuses."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.tools.read_file import MAX_TEXT_CHARS, ReadFile
from routing.transcript import ToolCall, ToolResult
from tests.pdfs import encrypted_pdf, scanned_pdf, text_pdf
from tests.pictures import picture_bytes, picture_file


async def read(path: Path | str, base: Path | None = None) -> ToolResult:
    return await ReadFile(base).run(ToolCall("c1", "read_file", {"path": str(path)}))


async def test_utf8_text(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("Grüße — naïve café\n", encoding="utf-8")
    result = await read(tmp_path / "notes.md")
    assert not result.is_error and result.text == "Grüße — naïve café\n"


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        ("Der Bär aß Äpfel und Öl, während die Übung lief. " * 20, "cp1252"),
        ("Der Bär aß Äpfel und Öl, während die Übung lief. " * 20, "utf-16"),
        ("Съешь же ещё этих мягких французских булок, да выпей чаю. " * 5, "cp1251"),
        ("いろはにほへと ちりぬるを わかよたれそ つねならむ" * 5, "shift_jis"),
    ],
)
async def test_other_encodings_are_detected(tmp_path: Path, text: str, encoding: str) -> None:
    (tmp_path / "legacy.txt").write_bytes(text.encode(encoding))
    result = await read(tmp_path / "legacy.txt")
    assert result.text == text


async def test_relative_paths_and_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.txt").write_text("here")
    assert (await read("a.txt", base=tmp_path)).text == "here"
    monkeypatch.setenv("HOME", str(tmp_path))
    assert (await read("~/a.txt")).text == "here"


async def test_big_text_is_cut_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "big.log").write_text("x" * (MAX_TEXT_CHARS + 5000))
    result = await read(tmp_path / "big.log")
    assert result.text.startswith("x" * 100)
    assert f"Only the first {MAX_TEXT_CHARS:,} characters" in result.text


async def test_a_picture_comes_back_as_a_picture(tmp_path: Path) -> None:
    picture_file(tmp_path / "shot.png", "purple", (30, 20))
    result = await read(tmp_path / "shot.png")
    [picture] = result.pictures
    assert (picture.mime, picture.width, picture.height) == ("image/png", 30, 20)
    assert "30×20 pixels" in result.text


async def test_a_picture_without_its_suffix_is_still_a_picture(tmp_path: Path) -> None:
    (tmp_path / "download").write_bytes(picture_bytes("red", (5, 5), "JPEG"))
    assert (await read(tmp_path / "download")).pictures[0].mime == "image/jpeg"


async def test_a_broken_picture_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"junk" * 10)
    result = await read(tmp_path / "broken.png")
    assert result.is_error and "broken.png" in result.text


async def test_pdf_text_with_page_numbers(tmp_path: Path) -> None:
    (tmp_path / "report.pdf").write_bytes(text_pdf(["Revenue grew", "Costs fell", "Outlook"]))
    call = ToolCall("c1", "read_file", {"path": str(tmp_path / "report.pdf"), "pages": "2-3"})
    result = await ReadFile().run(call)
    assert not result.is_error and not result.pictures
    assert result.text == "--- page 2 ---\nCosts fell\n\n--- page 3 ---\nOutlook"


async def test_a_scanned_pdf_comes_back_as_labelled_page_pictures(tmp_path: Path) -> None:
    (tmp_path / "scan.pdf").write_bytes(scanned_pdf(6))
    call = ToolCall("c1", "read_file", {"path": str(tmp_path / "scan.pdf"), "pages": "4-8"})
    result = await ReadFile().run(call)
    assert [p.label for p in result.pictures] == [
        "scan.pdf, page 4",
        "scan.pdf, page 5",
        "scan.pdf, page 6",
    ]
    assert "No text could be extracted from pages 4-6 of scan.pdf" in result.text


async def test_an_encrypted_pdf_says_it_needs_its_password(tmp_path: Path) -> None:
    (tmp_path / "locked.pdf").write_bytes(encrypted_pdf("hunter2"))
    result = await read(tmp_path / "locked.pdf")
    assert result.is_error and "protected by a password" in result.text


async def test_broken_pdf(tmp_path: Path) -> None:
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.7\n garbage")
    result = await read(tmp_path / "broken.pdf")
    assert result.is_error and "damaged or not a PDF" in result.text


@pytest.mark.parametrize("case", ["folder", "missing", "device", "unreadable", "binary", "nopath"])
async def test_what_cannot_be_read_says_why(tmp_path: Path, case: str) -> None:
    if case == "folder":
        result = await read(tmp_path)
        expected = "is a folder"
    elif case == "missing":
        result = await read(tmp_path / "nope.txt")
        expected = "does not exist"
    elif case == "device":
        result = await read("/dev/null")
        expected = "not a regular file"
    elif case == "unreadable":
        if os.geteuid() == 0:
            # root reads every file; a FIFO is what nobody can read like a file
            os.mkfifo(tmp_path / "pipe")
            result = await read(tmp_path / "pipe")
            expected = "not a regular file"
        else:
            (tmp_path / "secret.txt").write_text("x")
            (tmp_path / "secret.txt").chmod(0)
            result = await read(tmp_path / "secret.txt")
            expected = "permission denied"
    elif case == "binary":
        (tmp_path / "blob.bin").write_bytes(bytes(range(256)) * 8)
        result = await read(tmp_path / "blob.bin")
        assert "binary file" in result.text
        return
    else:
        result = await ReadFile().run(ToolCall("c1", "read_file", {}))
        expected = "needs a `path`"
    assert result.is_error and expected in result.text
