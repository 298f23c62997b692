"""`read_file`: the words of a text file, a picture as a picture, a PDF's text.

The model gets a clear result for anything it can't read (a folder, a device, a
pipe, a missing or unreadable file) rather than an exception or a wait, and never
more than a bounded amount of text at once: only a regular file is opened, without
blocking, and no more of it is read than can be sent (vision/files.py).
"""

from __future__ import annotations

import asyncio
import errno
import stat
from pathlib import Path

from app.tools.base import error_result, text_result
from routing.transcript import PagesPart, PicturePart, ResultPart, TextPart, ToolCall, ToolResult
from routing.wires.base import ToolSpec
from vision.files import FileRefused, read_head
from vision.labels import shown_name
from vision.pictures import PictureError, open_picture

MAX_TEXT_CHARS = 100_000
_PICTURE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff"}

SPEC = ToolSpec(
    name="read_file",
    description=(
        "Read a file on this computer: text files return their text, pictures return "
        "the picture, PDFs return their text page by page (scanned pages as pictures). "
        "`path` may start with ~."
    ),
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "The file to read."},
            "pages": {
                "type": "string",
                "description": 'For PDFs: which pages, like "4-8" or "4-" (default: from 1).',
            },
        },
        "required": ["path"],
    },
)


class ReadFile:
    """The built-in `read_file` tool."""

    spec = SPEC

    def __init__(self, base: Path | None = None) -> None:
        self.base = base or Path.cwd()

    async def run(self, call: ToolCall) -> ToolResult:
        """Read the file named in the call, off the event loop."""
        raw = call.arguments.get("path")
        if not isinstance(raw, str) or not raw.strip():
            return error_result(call, "read_file needs a `path` (a string).")
        if "\x00" in raw:  # no file name holds one; the system would raise, not say so
            return error_result(call, "read_file's `path` holds a NUL character: no file has it.")
        return await asyncio.to_thread(self._read, call, raw.strip())

    def _read(self, call: ToolCall, raw: str) -> ToolResult:
        path = Path(raw).expanduser()
        if not path.is_absolute():
            path = self.base / path
        try:
            info = path.stat()
        except FileNotFoundError:
            return error_result(call, f"{path} does not exist.")
        except OSError as exc:
            return error_result(call, f"{path} can't be read: {exc.strerror or exc}.")
        if stat.S_ISDIR(info.st_mode):
            return error_result(call, f"{path} is a folder, not a file.")
        if not stat.S_ISREG(info.st_mode):
            return error_result(call, f"{path} is not a regular file (a device or a pipe).")
        suffix = path.suffix.lower()
        try:
            head = _head(path)
            if suffix == ".pdf" or head.startswith(b"%PDF"):
                pages = call.arguments.get("pages")
                return pdf_result(call, path, pages if isinstance(pages, str | int) else None)
            if suffix in _PICTURE_SUFFIXES or _looks_like_picture(head):
                return _picture(call, path)
            return text_result(call, _text(path))
        except FileRefused as exc:  # no permission, or swapped for a pipe since the check
            if exc.errno == errno.EACCES:
                return error_result(call, f"{path} can't be read: permission denied.")
            return error_result(call, str(exc))
        except PermissionError:
            return error_result(call, f"{path} can't be read: permission denied.")
        except OSError as exc:
            return error_result(call, f"{path} can't be read: {exc.strerror or exc}.")


def _head(path: Path) -> bytes:
    return read_head(path, 16, what="file to read")[0]


def _looks_like_picture(head: bytes) -> bool:
    signatures = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"BM")
    return head.startswith(signatures) or (head[:4] == b"RIFF" and head[8:12] == b"WEBP")


def _picture(call: ToolCall, path: Path) -> ToolResult:
    try:
        picture = open_picture(path)
    except PictureError as exc:
        return error_result(call, str(exc))
    kind = picture.mime.removeprefix("image/").upper()
    words = f"{shown_name(path.name)}: a {kind} picture, {picture.width}×{picture.height} pixels."
    return ToolResult(call.id, call.name, (TextPart(words), PicturePart(picture)))


def _text(path: Path) -> str:
    # Enough bytes for the most characters sent, however large the file.
    data, size = read_head(path, MAX_TEXT_CHARS * 4, what="file to read")
    if b"\x00" in data[:8192] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return f"{path} looks like a binary file ({size} bytes); it has no text to read."
    text = _decode(data)
    if len(text) > MAX_TEXT_CHARS or size > len(data):
        shown = text[:MAX_TEXT_CHARS]
        return (
            f"{shown}\n\n[Only the first {len(shown):,} characters of {path} ({size:,} bytes) "
            "are shown.]"
        )
    return text


# Encodings people's files are really in; left to itself the detector favours
# rare Mac code pages for short Latin text.
_LIKELY_ENCODINGS = [
    "utf_16", "utf_32", "cp1252", "cp1250", "cp1251", "cp1253", "cp1254", "cp1255",
    "cp1256", "cp1257", "koi8_r", "shift_jis", "euc_jp", "gb18030", "big5", "euc_kr",
]  # fmt: skip


def _decode(data: bytes) -> str:
    """Text from bytes: UTF-8, else a BOM, else the likeliest legacy encoding."""
    from charset_normalizer import from_bytes

    for bom, encoding in (
        (b"\xef\xbb\xbf", "utf-8-sig"),
        (b"\xff\xfe", "utf-16"),
        (b"\xfe\xff", "utf-16"),
    ):
        if data.startswith(bom):
            return data.decode(encoding, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    best = from_bytes(data, cp_isolation=_LIKELY_ENCODINGS).best()
    return str(best) if best is not None else data.decode("cp1252", errors="replace")


def pdf_result(call: ToolCall, path: Path, pages: str | int | None) -> ToolResult:
    """A PDF read text first; a scan or an oversized page comes back as page pictures."""
    from vision.pdf import PdfError, PdfNeedsPassword, read_pdf  # with the first PDF read

    try:
        read = read_pdf(path, pages=None if pages is None else str(pages))
    except PdfNeedsPassword as exc:
        return error_result(
            call, f"{exc} Sightline can't read it here; open it in the window to enter it."
        )
    except PdfError as exc:
        return error_result(call, str(exc))
    candidate = read.candidate
    if candidate is None:
        return text_result(
            call, read.text() or f"{shown_name(path.name)} has no text on those pages."
        )
    parts: list[ResultPart] = [
        PagesPart.from_candidate(shown_name(path.name), candidate, read.total_pages)
    ]
    if read.continuation:
        parts.append(TextPart(read.continuation))
    return ToolResult(call.id, call.name, tuple(parts))
