"""A conversation as Markdown, for reading: the branch shown, pictures in a folder beside it.

Each picture and attached PDF is written once, by its SHA-256, into a folder beside
the file (`<name>_files/<sha256>.<ext>`) and linked from the text; each answer's
stats are a quiet line under its heading.

The file and its folder are written both or neither. The pictures go into a new
hidden folder beside the file (made here, 0700, each file 0600 and new), which then
takes the folder's name; only then does the `.md` take its own, and when that fails
the folder is taken away again. The folder of an earlier export of the same name is
moved aside first and put back on failure, else removed: it is replaced only when
it holds nothing but an export's pictures, by their names. A pictures folder that
is a link to another place, or a file, is refused: nothing is written through a
link, and a rename never follows one.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from pathlib import Path
from typing import cast
from urllib.parse import quote

from app.export import Entry, Exported, ExportError
from app.private_files import FILE_MODE, FOLDER_MODE, write_private
from routing.answer_stats import stats_words
from routing.transcript import (
    NOTICE_LABELS,
    CarriedPart,
    Message,
    MessageStatus,
    Notice,
    PagesPart,
    Part,
    PdfPart,
    PicturePart,
    TextPart,
    ToolCall,
)
from vision.pictures import Picture

_EXTENSIONS = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/gif": "gif",
    "image/webp": "webp",
    "image/bmp": "bmp",
    "image/tiff": "tiff",
    "image/x-icon": "ico",
}
# What an export puts in its pictures folder; a folder holding anything else isn't one.
_EXPORTED_NAME = re.compile(r"[0-9a-f]{64}\.(?:png|jpg|gif|webp|bmp|tiff|ico|bin|pdf)")
# What a file manager leaves in a folder it showed (Finder, Explorer): an export's still.
_LITTER = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def write_markdown(exported: Exported, path: Path) -> Path:
    """Write `path` and its pictures folder beside it, both or neither; the file written."""
    files = path.with_name(f"{path.stem}_files")
    blobs = {_picture_name(sha, p.mime): p.data for sha, p in exported.pictures.items()}
    blobs |= {f"{sha}.pdf": pdf.data for sha, pdf in exported.pdfs.items()}
    text = markdown(exported, files.name)
    try:
        if blobs:
            _write_with_folder(path, text, files, blobs)
        else:
            write_private(path, text)
    except OSError as exc:
        raise ExportError(f"Can't write {path}: {exc.strerror or exc}.") from None
    return path


def _write_with_folder(path: Path, text: str, files: Path, blobs: dict[str, bytes]) -> None:
    """The pictures into a folder of their own under `files`, then the text into `path`."""
    earlier = _earlier_folder(path, files)
    staging = _beside(files, "part")
    staging.mkdir(mode=FOLDER_MODE)  # new: nothing else's, and never a link
    aside: Path | None = None
    try:
        for name, data in blobs.items():
            if not _EXPORTED_NAME.fullmatch(name):  # only from a damaged store
                raise ExportError(f"Can't write {path}: a picture's name {name[:80]!r} is wrong.")
            _write_new(staging / name, data)
        if earlier:
            moved = _beside(files, "old")
            _move_aside(path, files, moved)
            aside = moved
        # A folder renamed over a link, or over a folder with files in it, fails.
        os.rename(staging, files)
        try:
            write_private(path, text)
        except BaseException:
            os.rename(files, staging)  # emptied and removed below
            raise
    except BaseException:
        _remove_exported(staging)
        if aside is not None:
            os.rename(aside, files)  # the earlier export's folder, as it was
        raise
    if aside is not None:
        _remove_exported(aside)


def _beside(files: Path, what: str) -> Path:
    """A hidden name of our own beside the pictures folder."""
    return files.with_name(f".{files.name[:64]}.{os.urandom(6).hex()}.{what}")


def _earlier_folder(path: Path, files: Path) -> bool:
    """Whether an earlier export's pictures folder is there; ExportError when what is
    there is a link, a file, or a folder holding more than an export's pictures."""
    try:
        found = os.lstat(files)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(found.st_mode):
        raise ExportError(
            f"Can't write {path}: {files.name} beside it is a link to another place, and "
            "Sightline writes pictures only into a folder of its own. Move the link aside "
            "or export under another name."
        )
    if not stat.S_ISDIR(found.st_mode):
        raise ExportError(
            f"Can't write {path}: {files.name} beside it is a file, not a folder of its "
            "pictures. Move it aside or export under another name."
        )
    if not _holds_only_pictures(files):
        raise ExportError(
            f"Can't write {path}: {files.name} beside it holds files that aren't an "
            "export's pictures. Move it aside or export under another name."
        )
    return True


def _holds_only_pictures(folder: Path) -> bool:
    with os.scandir(folder) as entries:
        return all(
            _is_ours(entry.name) and entry.is_file(follow_symlinks=False) for entry in entries
        )


def _is_ours(name: str) -> bool:
    return name in _LITTER or _EXPORTED_NAME.fullmatch(name) is not None


def _move_aside(path: Path, files: Path, aside: Path) -> None:
    """The earlier folder renamed to `aside`; a link put there meanwhile is put back, refused."""
    os.rename(files, aside)  # moves a link itself, never where it points
    if stat.S_ISDIR(os.lstat(aside).st_mode) and _holds_only_pictures(aside):
        return
    os.rename(aside, files)
    _earlier_folder(path, files)  # says what it is now
    raise ExportError(f"Can't write {path}: {files.name} beside it changed while it was written.")


def _write_new(path: Path, data: bytes) -> None:
    """A new file (never one that is there, nor a link), 0600, synced."""
    descriptor = os.open(path, _NEW_FILE, FILE_MODE)
    with os.fdopen(descriptor, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())


def _remove_exported(folder: Path) -> None:
    """Remove a folder of ours and the export's pictures in it (nothing else: a folder
    holding more stays)."""
    try:
        with os.scandir(folder) as entries:
            names = [e.name for e in entries if _is_ours(e.name)]
        for name in names:
            (folder / name).unlink(missing_ok=True)
        folder.rmdir()
    except OSError:
        pass  # gone already, or holding more than ours: left as it is


def markdown(exported: Exported, files_folder: str) -> str:
    """The conversation as Markdown, pictures linked inside `files_folder`."""
    summary = exported.conversation
    lines = [
        f"# {_one_line(summary.title) or 'New chat'}",
        "",
        f"*Exported from Sightline on {_when(time.time())}. "
        f"Model: {summary.model or 'auto'}. Started {_when(summary.created_at)}.*",
        "",
    ]
    for entry in exported.shown:
        if isinstance(entry.item, Notice):
            lines += _notice_lines(entry.item)
        else:
            lines += _message_lines(entry, files_folder)
    return "\n".join(lines).rstrip() + "\n"


def _message_lines(entry: Entry, folder: str) -> list[str]:
    message = cast(Message, entry.item)
    author = {"user": "You", "tool": "Tool results", "system": "System"}.get(
        message.role, message.model or "Assistant"
    )
    status = "" if message.status == MessageStatus.COMPLETE else f" ({message.status.value})"
    lines = [f"## {author} · {_when(entry.created_at)}{status}", ""]
    said = stats_words(message.stats) if message.stats is not None else ""
    if said and message.role == "assistant":
        lines += [f"*{said}*", ""]  # quiet, as the window shows it under the answer
    for part in message.parts:
        lines += _part_lines(part, folder)
    return lines


def _part_lines(part: Part, folder: str) -> list[str]:
    if isinstance(part, TextPart):
        return [part.text, ""] if part.text else []
    if isinstance(part, PicturePart):
        return [_picture_link(part.picture, folder), ""]
    if isinstance(part, PdfPart):
        name = part.pdf.name.replace("[", "(").replace("]", ")")
        return [f"[{name}]({quote(f'{folder}/{part.pdf.sha256}.pdf')})", ""]
    if isinstance(part, PagesPart):
        return [part.lead_in, "", *(_picture_link(p, folder) for p in part.pictures), ""]
    if isinstance(part, CarriedPart):
        return []  # a wire's own items, not for reading
    if isinstance(part, ToolCall):
        arguments = json.dumps(dict(part.arguments), ensure_ascii=False, indent=2)
        return [f"**Tool call** `{part.name}` ({part.id}):", "", "```json", arguments, "```", ""]
    failed = " — error" if part.is_error else ""
    lines = [f"**Tool result** `{part.name}` ({part.call_id}){failed}:", ""]
    for sub in part.parts:
        if isinstance(sub, TextPart):
            lines += ["```", sub.text.replace("```", "` ` `"), "```", ""]
        else:
            lines += _part_lines(sub, folder)
    return lines


def _notice_lines(notice: Notice) -> list[str]:
    word = NOTICE_LABELS.get(notice.kind, notice.kind.value.title())
    lines = [f"> **{word}:** {_one_line(notice.text)}"]
    if notice.details:
        lines += [">", f"> {_one_line(notice.details)}"]
    return [*lines, ""]


def _picture_link(picture: Picture, folder: str) -> str:
    alt = (picture.label or "picture").replace("[", "(").replace("]", ")")
    target = quote(f"{folder}/{_picture_name(picture.sha256, picture.mime)}")
    return f"![{alt}]({target})"


def _picture_name(sha: str, mime: str) -> str:
    return f"{sha}.{_EXTENSIONS.get(mime, 'bin')}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))
