"""Files and folders only the person can read: made 0700 and 0600, written whole or not at all.

Everything Sightline writes (the database, the log, the key index, the config file,
exports) holds the person's words or settings, so it is created private whatever
the umask: a folder with mode 0700, a file with 0600, from the first byte (never
made readable and then chmod-ed). A default ACL or a later chmod by the person is
theirs; only folders Sightline owns (the data folder) are tightened when found
open to others, as older releases left them.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path

FOLDER_MODE = 0o700
FILE_MODE = 0o600
_OTHERS = 0o077  # the group's and everyone else's bits


def private_opener(path: str, flags: int) -> int:
    """An `opener` for `open()` that creates a missing file with mode 0600."""
    return os.open(path, flags, FILE_MODE)


def make_private_folder(folder: Path) -> None:
    """Create the folder, and any missing parents, with mode 0700; an existing one is left as is."""
    missing: list[Path] = []
    for candidate in (folder, *folder.parents):
        if candidate.is_dir():
            break
        missing.append(candidate)
    for path in reversed(missing):
        # mkdir's mode passes through the umask, which can only take bits away.
        path.mkdir(mode=FOLDER_MODE, exist_ok=True)


def create_private_file(path: Path) -> None:
    """Create an empty file with mode 0600 if there is none; an existing one is left as is."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))


def write_private(path: Path, data: bytes | str) -> None:
    """Write a file whole or not at all, with mode 0600, replacing any older one.

    The bytes go to a temporary file beside it (created 0600), are synced, and
    take the file's name in one step, so a crash leaves the old file or the new,
    never half of one, and no moment leaves them readable to others.
    """
    blob = data.encode("utf-8") if isinstance(data, str) else data
    # Beside it, so the rename stays on one file system; short, so it fits any name limit.
    temporary = path.with_name(f".{path.name[:64]}.{os.urandom(6).hex()}.part")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        with os.fdopen(descriptor, "wb") as out:
            out.write(blob)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable, where the system allows opening a folder."""
    if os.name != "posix":
        return
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass  # some file systems can't sync a folder; the data itself is synced
    finally:
        os.close(descriptor)


def tighten(path: Path) -> None:
    """Take the group's and others' permissions off a file or folder; a link is left alone."""
    try:
        found = os.lstat(path)
    except OSError:
        return  # not there (or not ours to look at): nothing to tighten
    mode = stat.S_IMODE(found.st_mode)
    if stat.S_ISLNK(found.st_mode) or not mode & _OTHERS:
        return
    with contextlib.suppress(OSError):  # not ours to change (another owner): leave it
        os.chmod(path, mode & ~_OTHERS)


def tighten_folder(folder: Path, names: Iterable[str]) -> None:
    """Tighten a folder Sightline owns and the named entries in it (a folder's named ones too).

    Names, not a walk: the folder may be one the person chose, holding their own
    files, and only Sightline's are Sightline's to change.
    """
    tighten(folder)
    for name in names:
        head, _, rest = name.partition("/")
        if rest:
            tighten_folder(folder / head, [rest])
        else:
            tighten(folder / head)
