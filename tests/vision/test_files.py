"""Reading a named file: regular files only, never waiting, never past the cap."""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

import pytest

from vision.files import FileRefused, read_capped, read_head, size_words, too_large


def test_a_regular_file_within_its_cap_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"x" * 1000)
    assert read_capped(path, 1000) == b"x" * 1000
    assert read_head(path, 10) == (b"x" * 10, 1000)
    assert read_head(path, 5000) == (b"x" * 1000, 1000)


def test_one_byte_over_the_cap_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.pdf"
    with path.open("wb") as handle:
        handle.truncate(200_000_001)  # sparse
    with pytest.raises(FileRefused) as refused:
        read_capped(path, 200_000_000, what="PDF")
    assert str(refused.value) == f"{path} is too large (over 200 MB); a PDF may be at most 200 MB."


@pytest.mark.parametrize(
    ("kind", "says"),
    [("zero", "is a device"), ("fifo", "is a pipe (FIFO)"), ("folder", "is a folder")],
)
def test_what_is_no_regular_file_is_refused_at_once(tmp_path: Path, kind: str, says: str) -> None:
    path = {"zero": Path("/dev/zero"), "fifo": tmp_path / "pipe", "folder": tmp_path}[kind]
    if kind == "fifo":
        os.mkfifo(path)  # no writer: a blocking open would wait for ever
    started = time.monotonic()
    for read in (lambda: read_capped(path, 10, what="picture"), lambda: read_head(path, 5)):
        with pytest.raises(FileRefused, match="Sightline can read") as refused:
            read()
        assert says in str(refused.value)
    assert time.monotonic() - started < 1


def test_a_file_whose_size_says_nothing_is_still_read_no_further_than_the_cap() -> None:
    # /proc files are regular and say they are empty, yet hold bytes: like a file that grows.
    with pytest.raises(FileRefused, match="grew past"):
        read_capped(Path("/proc/self/status"), 10)
    head, size = read_head(Path("/proc/self/status"), 5)
    assert head == b"Name:" and size == 0


def test_a_missing_file_keeps_the_systems_reason(tmp_path: Path) -> None:
    with pytest.raises(FileRefused, match=r"Can't read .*nowhere: No such file") as refused:
        read_capped(tmp_path / "nowhere", 10)
    assert refused.value.errno == errno.ENOENT


def test_sizes_in_words() -> None:
    assert [size_words(n) for n in (1, 12_345, 4_000_000, 3_456_789, 2 * 10**9)] == [
        "1 KB", "12 KB", "4 MB", "3.5 MB", "2.0 GB",
    ]  # fmt: skip
    assert too_large("a.png", 60_000_000, 50_000_000, "picture") == (
        "a.png is too large (60 MB); a picture may be at most 50 MB."
    )
