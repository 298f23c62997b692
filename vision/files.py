"""Reading a file a person (or a model's tool call) named: regular files only, within a cap.

A path can name a device that never ends (/dev/zero), a FIFO that blocks until a
writer comes, a folder, or a file of gigabytes. Each gets one clear line instead of
a hang or an exhausted memory: the file is opened without blocking, checked to be
a regular file, and read no further than its kind's cap.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from vision.labels import shown_name

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # opening a FIFO must not wait for a writer
_BINARY = getattr(os, "O_BINARY", 0)


class FileRefused(OSError):
    """A file that can't be read as asked; the message names it and says why."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def size_words(size: int) -> str:
    """A size as a person reads it: 12 KB, 3.4 MB, 2.0 GB."""
    if size < 1_000_000:
        return f"{max(1, round(size / 1000))} KB"
    if size < 1_000_000_000:
        return f"{size / 1_000_000:.1f} MB"
    return f"{size / 1_000_000_000:.1f} GB"


def read_capped(path: Path, cap: int, *, what: str = "file") -> bytes:
    """The bytes of a regular file of at most `cap` bytes; FileRefused for anything else."""
    name = shown_name(str(path))
    try:
        fd = os.open(path, os.O_RDONLY | _NONBLOCK | _BINARY)
    except OSError as exc:
        raise FileRefused(f"Can't read {name}: {exc.strerror or exc}.") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(f"{name} is {_kind(info.st_mode)}, not a {what} Sightline can read.")
        if info.st_size > cap:
            raise FileRefused(
                f"{name} is {size_words(info.st_size)}; a {what} may be at most {size_words(cap)}."
            )
        chunks: list[bytes] = []
        got = 0
        while got <= cap:  # a file that grows while it is read stops at the cap too
            chunk = os.read(fd, min(1 << 20, cap + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > cap:
            raise FileRefused(f"{name} grew past {size_words(cap)} while it was read.")
        return b"".join(chunks)
    except OSError as exc:
        if isinstance(exc, FileRefused):
            raise
        raise FileRefused(f"Can't read {name}: {exc.strerror or exc}.") from None
    finally:
        os.close(fd)
