"""A JSON export read back, every field checked before anything is made of it.

`read_json` takes a file `app.export_json` wrote (format 2, or 1 from before
versions), at most `MAX_IMPORT_BYTES`. A field of the wrong kind, a value that isn't
one of its kind's, a picture whose bytes don't match its SHA-256, an item that
follows one that isn't before it: each is an `ExportError` of one line naming the
place as a JSON path (`items[3].parts[0].text must be a string, not a number`).
The parts are read by the store's own reader (`app.store.part_reader`).

Memory stays near twice the file: its bytes are read once and decoded (the bytes
dropped at once), the text is parsed (the text dropped after), and what is made of
it shares the parsed strings instead of copying them.
"""

from __future__ import annotations

import base64
import binascii
import gc
import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn, cast

from app.export import Entry, Exported, ExportError
from app.export_json import FORMAT, VERSION
from app.store import ConversationSummary
from app.store.fields import FieldError, Fields, quoted
from app.store.part_reader import read_part
from routing.answer_stats import AnswerStats
from routing.transcript import Crossed, Message, MessageStatus, Notice, NoticeKind, Part, Role
from vision.pdf import MAX_PDF_BYTES, PdfFile
from vision.pictures import MAX_FILE_BYTES, Picture

# A chat of many pictures is hundreds of MB; past this, not an export of ours. Reading one
# takes about twice its size in memory; storing one that is a single text, three times
# (the text, SQLite's copy of it and the row it makes: 887 MB for 300 MB).
MAX_IMPORT_BYTES = 1_000_000_000
_READABLE = (1, VERSION)
_ROLES = ("system", "user", "assistant", "tool")
_MIMES = (
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "image/bmp",
    "image/tiff",
    "image/x-icon",
)
# By value: a dict lookup, where calling the enum costs a 200,000-item export a second.
_NOTICE_KINDS = {kind.value: kind for kind in NoticeKind}
_STATUSES = {status.value: status for status in MessageStatus}


def read_json(path: Path) -> Exported:
    """Read a JSON export back; ExportError names the file and what is wrong, and where."""
    from vision.files import FileRefused, read_capped

    def refuse(why: str) -> NoReturn:
        raise ExportError(f"{path} is not a Sightline export: {why}.") from None

    try:
        text = read_capped(path, MAX_IMPORT_BYTES, what="export").decode("utf-8")
    except FileRefused as exc:
        raise ExportError(str(exc)) from None
    except OSError as exc:
        raise ExportError(f"Can't read {path}: {exc.strerror or exc}.") from None
    except UnicodeDecodeError as exc:
        refuse(f"byte {exc.start} is not UTF-8 text")
    except MemoryError:
        raise ExportError(f"{path} is too large to read with the memory there is.") from None
    try:
        with _no_collection():
            data = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        refuse("it is nested too deeply")
    except json.JSONDecodeError as exc:
        refuse(f"it is not JSON ({exc.msg}, line {exc.lineno} column {exc.colno})")
    except ValueError as exc:  # NaN, Infinity, a number of thousands of digits
        refuse(f"it is not JSON ({exc})")
    except MemoryError:
        raise ExportError(f"{path} is too large to read with the memory there is.") from None
    del text  # what follows needs only the parsed data, which shares none of the text
    try:
        with _no_collection():
            return from_json(data)
    except FieldError as exc:
        refuse(str(exc))


@contextmanager
def _no_collection() -> Iterator[None]:
    """Python's cycle collector paused: made of millions of new objects, none of them a
    cycle to free, a large export would otherwise spend half its reading in it."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a number JSON has")


def from_json(data: Any) -> Exported:
    """An export from its parsed JSON, every field checked; FieldError says where it is wrong."""
    top = Fields(data, "")
    form = top.text("format")
    if form != FORMAT:
        raise FieldError(f"format must be {FORMAT!r}, not {quoted(form)}")
    version = top.whole("version")
    if version not in _READABLE:
        newer = " (a newer Sightline wrote it)" if version > VERSION else ""
        raise FieldError(f"version {version} is not one this Sightline reads{newer}")
    conversation = top.object("conversation")
    summary = ConversationSummary(
        conversation.text("id"),
        conversation.text("title"),
        conversation.text("model"),
        conversation.number("created_at"),
        conversation.number("updated_at"),
    )
    blobs = _Blobs(
        {p.sha256: p for p in map(_picture, top.objects("pictures"))},
        # Exports made before PDFs were kept have none.
        {p.sha256: p for p in map(_pdf, top.objects("pdfs", []))},
    )
    return Exported(summary, _entries(top.objects("items"), blobs))


class _Blobs:
    """The pictures and PDFs the file carries, found by the parts that name them."""

    def __init__(self, pictures: dict[str, Picture], pdfs: dict[str, PdfFile]) -> None:
        self._pictures, self._pdfs = pictures, pdfs

    def picture_for(self, sha256: str, label: str, where: str) -> Picture:
        found = self._pictures.get(sha256)
        if found is None:
            raise FieldError(f"{where} names a picture the file doesn't carry")
        return replace(found, label=label) if label else found

    def pdf_for(self, sha256: str, name: str, where: str) -> PdfFile:
        found = self._pdfs.get(sha256)
        if found is None:
            raise FieldError(f"{where} names a PDF the file doesn't carry")
        return replace(found, name=name)


def _bytes(fields: Fields, cap: int, what: str) -> bytes:
    """The base64 `data` of a picture or PDF, within `cap` and matching its `sha256`."""
    sha256, encoded = fields.text("sha256"), fields.text("data")
    if len(encoded) > (cap + 2) // 3 * 4:  # before decoding: never more than the cap
        raise FieldError(f"{fields.where} is larger than a {what} may be")
    try:
        blob = base64.b64decode(encoded, validate=True)
    except binascii.Error:
        raise FieldError(f"{fields.where}.data is not base64") from None
    if hashlib.sha256(blob).hexdigest() != sha256:
        raise FieldError(f"{fields.where}: the {what} {quoted(sha256)} does not match its bytes")
    return blob


def _picture(fields: Fields) -> Picture:
    blob = _bytes(fields, MAX_FILE_BYTES, "picture")
    mime = fields.choice("mime", _MIMES)
    width, height = fields.whole("width", least=1), fields.whole("height", least=1)
    return Picture(blob, mime, width, height, fields.text("sha256"))


def _pdf(fields: Fields) -> PdfFile:
    blob = _bytes(fields, MAX_PDF_BYTES, "PDF")
    return PdfFile(blob, "", fields.text("sha256"), fields.maybe_whole("pages"))


def _entries(items: list[Fields], blobs: _Blobs) -> tuple[Entry, ...]:
    """Each item, checked to follow one before it: a file can't make a loop."""
    entries: list[Entry] = []
    seen: dict[int, int] = {}  # id -> its place in the file
    for index, fields in enumerate(items):
        # Version 1 had one branch: each item follows the one before it.
        entry_id = fields.whole("id", index + 1)
        if entry_id in seen:
            raise FieldError(f"{fields.where}.id is {entry_id}, as items[{seen[entry_id]}]'s is")
        parent = entries[-1].id if entries else None
        if "parent" in fields.raw:
            parent = None if fields.raw["parent"] is None else fields.whole("parent")
        if parent is not None and parent not in seen:
            raise FieldError(f"{fields.where}.parent names {parent}, which is no item before it")
        seen[entry_id] = index
        entries.append(
            Entry(
                fields.number("created_at"),
                _item(fields, blobs),
                entry_id,
                parent,
                fields.flag("shown", True),
            )
        )
    return tuple(entries)


def _item(fields: Fields, blobs: _Blobs) -> Message | Notice:
    if fields.choice("type", ("message", "notice")) == "notice":
        crossed = fields.maybe_object("crossed")  # older exports have none
        return Notice(
            _NOTICE_KINDS[fields.choice("kind", _NOTICE_KINDS)],
            fields.text("text"),
            fields.text("details", ""),
            None if crossed is None else _crossed(crossed),
        )
    parts: list[Part] = [read_part(part, blobs) for part in fields.objects("parts")]
    stats = fields.maybe_object("stats")  # older exports have none
    return Message(
        role=cast(Role, fields.choice("role", _ROLES)),
        parts=tuple(parts),
        model=fields.text("model", ""),
        status=_STATUSES[fields.choice("status", _STATUSES, "complete")],
        stats=None if stats is None else _stats(stats),
    )


def _crossed(fields: Fields) -> Crossed:
    local = None if fields.raw.get("local") is None else fields.flag("local")
    return Crossed(
        fields.text("model"), fields.text("host"), fields.text("what"), fields.text("why"), local
    )


def _stats(fields: Fields) -> AnswerStats | None:
    stats = AnswerStats(
        input_tokens=fields.maybe_whole("input_tokens"),
        output_tokens=fields.maybe_whole("output_tokens"),
        first_token_seconds=fields.maybe_seconds("first_token_seconds"),
        streaming_seconds=fields.maybe_seconds("streaming_seconds"),
        context_used=fields.maybe_whole("context_used"),
        context_size=fields.maybe_whole("context_size"),
    )
    return stats if stats.known else None
