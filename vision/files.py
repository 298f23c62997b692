"""Reading a file a person (or a model's tool call) named: regular files only, within a cap.

A path can name a device that never ends (/dev/zero), a FIFO that blocks until a
writer comes, a folder, or a file of gigabytes. Each gets one clear line instead of
a hang or an exhausted memory: the path is checked to be a regular file before it
is opened (opening some devices does something), opened without blocking (so a
FIFO swapped in meanwhile can't wait for a writer), checked again, and read no
further than its kind's cap.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from vision.labels import shown_name

_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # opening a FIFO must not wait for a writer
    | getattr(os, "O_NOCTTY", 0)  # a terminal swapped in must not become ours
    | getattr(os, "O_BINARY", 0)
)
_CHUNK = 1 << 20


class FileRefused(OSError):
    """A file that can't be read as asked; the message names it and says why.

    `errno` is the system's, when the system refused (EACCES for permission).
    """


def _failed(name: str, exc: OSError) -> FileRefused:
    refused = FileRefused(f"Can't read {name}: {exc.strerror or exc}.")
    refused.errno = exc.errno
    return refused


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
        return f"{size / 1_000_000:.1f} MB".replace(".0 MB", " MB")
    return f"{size / 1_000_000_000:.1f} GB"


def too_large(name: str, size: int, cap: int, what: str) -> str:
    """The words for something over its cap: "x.pdf is too large (2.0 GB); a PDF may be at most
    200 MB."."""
    shown = size_words(size)
    if shown == size_words(cap):  # 200,000,001 bytes is no "200 MB" to the person reading
        shown = f"over {shown}"
    return f"{name} is too large ({shown}); a {what} may be at most {size_words(cap)}."


def _refused(name: str, mode: int, what: str) -> FileRefused:
    return FileRefused(f"{name} is {_kind(mode)}, not a {what} Sightline can read.")


def _open_regular(path: Path, name: str, what: str) -> tuple[int, os.stat_result]:
    """A descriptor of the regular file at `path`, and its facts; FileRefused otherwise."""
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise _refused(name, mode, what)
        fd = os.open(path, _FLAGS)
    except FileRefused:
        raise
    except OSError as exc:
        raise _failed(name, exc) from None
    try:
        info = os.fstat(fd)  # what was opened, which a race may have swapped
        if not stat.S_ISREG(info.st_mode):
            raise _refused(name, info.st_mode, what)
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def _read_upto(fd: int, limit: int, expected: int) -> bytes:
    """At most `limit` bytes from `fd`: usually one read of the file's size, so one allocation."""
    first = os.read(fd, min(limit, max(expected, 0) + 1))
    if not first or len(first) >= limit:
        return first
    chunks, got = [first], len(first)
    while got < limit:  # short reads, files that grow, and /proc files whose size says 0
        chunk = os.read(fd, min(_CHUNK, limit - got))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_capped(path: Path, cap: int, *, what: str = "file") -> bytes:
    """The bytes of a regular file of at most `cap` bytes; FileRefused for anything else."""
    name = shown_name(str(path))
    fd, info = _open_regular(path, name, what)
    try:
        if info.st_size > cap:
            raise FileRefused(too_large(name, info.st_size, cap, what))
        data = _read_upto(fd, cap + 1, info.st_size)  # one byte more tells a file that grew
    except FileRefused:
        raise
    except OSError as exc:
        raise _failed(name, exc) from None
    finally:
        os.close(fd)
    if len(data) > cap:
        raise FileRefused(f"{name} grew past {size_words(cap)} while it was read.")
    return data


def read_head(path: Path, count: int, *, what: str = "file") -> tuple[bytes, int]:
    """The first `count` bytes of a regular file (fewer if it is shorter) and its size."""
    name = shown_name(str(path))
    fd, info = _open_regular(path, name, what)
    try:
        return _read_upto(fd, count, min(info.st_size, count)), info.st_size
    except OSError as exc:
        raise _failed(name, exc) from None
    finally:
        os.close(fd)


def content_hash(data: bytes) -> str:
    """The SHA-256 of a file's bytes, in hex: how a picture or PDF is known wherever it goes.

    `hashlib` loads OpenSSL's library (3-4 ms), so it is imported with the first
    file hashed rather than before the window's first paint.
    """
    import hashlib

    return hashlib.sha256(data).hexdigest()
