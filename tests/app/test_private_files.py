"""Private files and folders: 0700 and 0600 whatever the umask, written whole, tightened by name."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from app import logs, paths
from app.private_files import (
    create_private_file,
    make_private_folder,
    tighten,
    tighten_folder,
    write_private,
)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture(params=[0o022, 0o000], ids=["umask-022", "umask-000"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    """Run with this umask; the usual one, and one that takes nothing away."""
    mask: int = request.param
    before = os.umask(mask)
    try:
        yield mask
    finally:
        os.umask(before)


def test_a_private_folder_and_its_missing_parents_are_0700(umask: int, tmp_path: Path) -> None:
    folder = tmp_path / "a" / "b" / "c"
    make_private_folder(folder)
    assert [mode(p) for p in (tmp_path / "a", tmp_path / "a" / "b", folder)] == [0o700] * 3


def test_an_existing_folder_is_left_as_the_person_set_it(umask: int, tmp_path: Path) -> None:
    folder = tmp_path / "theirs"
    folder.mkdir()
    folder.chmod(0o755)
    make_private_folder(folder / "new")
    assert (mode(folder), mode(folder / "new")) == (0o755, 0o700)


def test_a_private_write_is_0600_replaces_whole_and_leaves_nothing_behind(
    umask: int, tmp_path: Path
) -> None:
    target = tmp_path / "index.json"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o644)
    write_private(target, "new ✓")
    assert target.read_text(encoding="utf-8") == "new ✓" and mode(target) == 0o600
    write_private(tmp_path / "blob.bin", b"\x00\xff")
    assert mode(tmp_path / "blob.bin") == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blob.bin", "index.json"]


def test_a_failed_private_write_keeps_what_was_there(tmp_path: Path) -> None:
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "inside").write_text("kept", encoding="utf-8")
    with pytest.raises(OSError):
        write_private(occupied, "a file can't replace a folder that holds one")
    assert (occupied / "inside").read_text(encoding="utf-8") == "kept"
    assert [p.name for p in tmp_path.iterdir()] == ["occupied"]  # no temporary file left


def test_a_created_file_is_0600_and_an_existing_one_untouched(umask: int, tmp_path: Path) -> None:
    create_private_file(tmp_path / "db")
    (tmp_path / "theirs").write_text("x", encoding="utf-8")
    (tmp_path / "theirs").chmod(0o644)
    create_private_file(tmp_path / "theirs")
    assert (mode(tmp_path / "db"), mode(tmp_path / "theirs")) == (0o600, 0o644)
    assert (tmp_path / "theirs").read_text(encoding="utf-8") == "x"


def test_tightening_takes_only_the_groups_and_others_bits_and_only_named_entries(
    tmp_path: Path,
) -> None:
    (tmp_path / "logs").mkdir(mode=0o755)
    for name, bits in (("mine.db", 0o644), ("logs/a.log", 0o664), ("notes.txt", 0o644)):
        (tmp_path / name).write_text("x", encoding="utf-8")
        (tmp_path / name).chmod(bits)
    tmp_path.chmod(0o755)
    (tmp_path / "link").symlink_to(tmp_path / "notes.txt")
    tighten_folder(tmp_path, ["mine.db", "logs/a.log", "link", "missing"])
    assert mode(tmp_path) == 0o700 and mode(tmp_path / "logs") == 0o700
    assert (mode(tmp_path / "mine.db"), mode(tmp_path / "logs" / "a.log")) == (0o600, 0o600)
    # The person's own file, and one a link points at, are not Sightline's to change.
    assert mode(tmp_path / "notes.txt") == 0o644
    executable = tmp_path / "run.sh"
    executable.write_text("", encoding="utf-8")
    executable.chmod(0o755)
    tighten(executable)
    assert mode(executable) == 0o700  # the owner's bits stay


def test_the_data_folder_is_tightened_once_per_process(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    paths.open_data_dir(folder)
    assert mode(folder) == 0o700
    folder.chmod(0o750)  # the person's choice, after this start
    paths.open_data_dir(folder)
    assert mode(folder) == 0o750


def test_every_log_file_is_0600_rotated_copies_too(
    umask: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logs, "LOG_BYTES", 2_000)
    root = logging.getLogger()
    before = list(root.handlers)
    level = root.level
    try:
        path = logs.setup_logging(tmp_path / "data")
        assert path is not None
        for n in range(200):
            logging.getLogger("test").warning("line %d of a log that must rotate", n)
    finally:
        for handler in [h for h in root.handlers if h not in before]:
            root.removeHandler(handler)
            handler.close()
        root.setLevel(level)
    folder = tmp_path / "data" / "logs"
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["sightline.log", "sightline.log.1", "sightline.log.2", "sightline.log.3"]
    assert {name: mode(folder / name) for name in names} == dict.fromkeys(names, 0o600)
    assert (mode(tmp_path / "data"), mode(folder)) == (0o700, 0o700)
