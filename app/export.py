"""Export a conversation to Markdown or JSON, notices and pictures included.

Markdown is for reading: each picture and attached PDF is written once, by its
SHA-256, into a folder beside the file (`<name>_files/<sha256>.<ext>`) and
linked from the text. JSON is for keeping: every item in order, notices
included, every version of a regenerated answer or an edited message (each item
names the one it follows, and the versions shown are marked; an answer carries
its stats), and every picture and PDF once with its facts, SHA-256 and bytes in
base64, so `read_json` gives back the same messages, notices, versions, stats and
bytes. Markdown shows the branch shown, each answer's stats in a quiet line.

`snapshot` reads the store (on the store's thread); the writers only touch
files, so they can run in a worker thread. Every file is created 0600 and written
whole, and a pictures folder made here is 0700 (app/private_files.py): an export
holds the conversation, readable by the person only unless they change it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, cast
from urllib.parse import quote

from app.private_files import make_private_folder, write_private
from app.store import ConversationSummary, Store
from routing.answer_stats import AnswerStats, stats_words
from routing.transcript import (
    CarriedPart,
    Crossed,
    Message,
    MessageStatus,
    Notice,
    NoticeKind,
    PagesPart,
    Part,
    PdfPart,
    PicturePart,
    ResultPart,
    Role,
    TextPart,
    ToolCall,
    ToolResult,
)
from vision.pdf import PdfFile
from vision.pictures import Picture

FORMAT = "sightline.conversation"
VERSION = 2  # 2: items carry their id, the id they follow, and whether they are shown
_READABLE = (1, 2)
MAX_IMPORT_BYTES = 1 << 30  # a chat of many pictures is hundreds of MB; past this, not ours
_EXTENSIONS = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/gif": "gif",
    "image/webp": "webp",
    "image/bmp": "bmp",
    "image/tiff": "tiff",
    "image/x-icon": "ico",
}
_NOTICE_WORDS = {
    NoticeKind.ROUTING: "Routing",
    NoticeKind.DISCLOSURE: "Disclosure",
    NoticeKind.HEAL: "Retried",
    NoticeKind.BUDGET: "Budget",
    NoticeKind.ERROR: "Error",
    NoticeKind.INFO: "Note",
    NoticeKind.SIGHT: "Sight check",
    NoticeKind.NOBODY_SEES: "No sight",
}


class ExportError(Exception):
    """An export can't be written or read back; the message says which file and why."""


@dataclass(frozen=True)
class Entry:
    """One message or notice of an exported conversation, with when it was stored."""

    created_at: float
    item: Message | Notice
    id: int = 0  # its number in this export
    parent: int | None = None  # the entry it follows (None: the first)
    shown: bool = True  # on the branch the chat shows


@dataclass(frozen=True)
class Exported:
    """A conversation as it is exported: its summary and every item, in order."""

    conversation: ConversationSummary
    entries: tuple[Entry, ...]  # every version, in the order they were made

    @property
    def shown(self) -> tuple[Entry, ...]:
        """The entries on the branch the chat shows, in order."""
        return tuple(entry for entry in self.entries if entry.shown)

    @property
    def pictures(self) -> dict[str, Picture]:
        """Every picture the conversation uses, once each, by SHA-256 (first label kept)."""
        found: dict[str, Picture] = {}
        for entry in self.entries:
            if isinstance(entry.item, Message):
                for picture in _pictures_of(entry.item):
                    found.setdefault(picture.sha256, picture)
        return found

    @property
    def pdfs(self) -> dict[str, PdfFile]:
        """Every attached PDF, once each, by SHA-256 (first name kept)."""
        found: dict[str, PdfFile] = {}
        for entry in self.entries:
            if isinstance(entry.item, Message):
                for pdf in entry.item.pdfs:
                    found.setdefault(pdf.sha256, pdf)
        return found


def snapshot(store: Store, conversation_id: str) -> Exported:
    """Read a conversation for export; ExportError when there is no such conversation."""
    summary = store.conversations.get(conversation_id)
    if summary is None:
        raise ExportError(f"There is no conversation {conversation_id!r} to export.")
    shown = {s.id for s in store.items(conversation_id)}
    every = store.every_item(conversation_id)
    parents = {s.id: s.parent_id for s in every}
    deleted = {s.id for s in every if s.deleted}

    def kept_parent(item_id: int | None) -> int | None:
        # What follows a deleted item (waiting for Undo) follows what it followed.
        seen: set[int] = set()
        while item_id in deleted and item_id not in seen:
            seen.add(item_id)
            item_id = parents.get(item_id)
        return item_id

    entries = tuple(
        Entry(s.created_at, s.item, s.id, kept_parent(s.parent_id), s.id in shown)
        for s in every
        if not s.deleted
    )
    return Exported(summary, entries)


def file_name_for(title: str) -> str:
    """A file name (without suffix) from a conversation title, safe on every system."""
    cleaned = "".join(" " if c in '<>:"/\\|?*' or ord(c) < 32 else c for c in title)
    cleaned = " ".join(cleaned.split()).strip(" .")[:80].strip(" .")
    return cleaned or "conversation"


def write(exported: Exported, path: Path) -> Path:
    """Write the export in the format the file's suffix names (.json, else Markdown)."""
    if path.suffix.lower() == ".json":
        return write_json(exported, path)
    return write_markdown(exported, path)


# -- Markdown ----------------------------------------------------------------------


def write_markdown(exported: Exported, path: Path) -> Path:
    """Write `path` and its pictures folder beside it; returns the file written."""
    files = path.with_name(f"{path.stem}_files")
    pictures, pdfs = exported.pictures, exported.pdfs
    try:
        if pictures or pdfs:
            make_private_folder(files)
            for sha, picture in pictures.items():
                write_private(files / _picture_name(sha, picture.mime), picture.data)
            for sha, pdf in pdfs.items():
                write_private(files / f"{sha}.pdf", pdf.data)
        write_private(path, markdown(exported, files.name))
    except OSError as exc:
        raise ExportError(f"Can't write {path}: {exc.strerror or exc}.") from None
    return path


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
    word = _NOTICE_WORDS.get(notice.kind, notice.kind.value.title())
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


# -- JSON ----------------------------------------------------------------------------


def write_json(exported: Exported, path: Path) -> Path:
    """Write the conversation as one JSON document; returns the file written."""
    try:
        write_private(path, json.dumps(to_json(exported), ensure_ascii=False, indent=2) + "\n")
    except OSError as exc:
        raise ExportError(f"Can't write {path}: {exc.strerror or exc}.") from None
    return path


def to_json(exported: Exported) -> dict[str, Any]:
    """The export as JSON-ready data."""
    summary = exported.conversation
    return {
        "format": FORMAT,
        "version": VERSION,
        "conversation": {
            "id": summary.id,
            "title": summary.title,
            "model": summary.model,
            "created_at": summary.created_at,
            "updated_at": summary.updated_at,
        },
        "items": [_entry_json(entry) for entry in exported.entries],
        "pictures": [
            {
                "sha256": sha,
                "mime": picture.mime,
                "width": picture.width,
                "height": picture.height,
                "data": base64.b64encode(picture.data).decode("ascii"),
            }
            for sha, picture in exported.pictures.items()
        ],
        "pdfs": [
            {
                "sha256": sha,
                "pages": pdf.pages,
                "data": base64.b64encode(pdf.data).decode("ascii"),
            }
            for sha, pdf in exported.pdfs.items()
        ],
    }


def _entry_json(entry: Entry) -> dict[str, Any]:
    item = entry.item
    place = {"id": entry.id, "parent": entry.parent, "shown": entry.shown}
    if isinstance(item, Notice):
        return place | {
            "type": "notice",
            "created_at": entry.created_at,
            "kind": item.kind.value,
            "text": item.text,
            "details": item.details,
            "crossed": asdict(item.crossed) if item.crossed else None,
        }
    message: dict[str, Any] = place | {
        "type": "message",
        "created_at": entry.created_at,
        "role": item.role,
        "model": item.model,
        "status": item.status.value,
        "parts": [_part_json(part) for part in item.parts],
    }
    if item.stats is not None and item.stats.known:
        # What was measured, and the speed it gives for whoever reads the file (not read back:
        # it follows from the rest).
        rate = item.stats.tokens_per_second
        speed = {} if rate is None else {"tokens_per_second": round(rate, 1)}
        message["stats"] = item.stats.to_json() | speed
    return message


def _part_json(part: Part) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, PicturePart):
        return {"type": "picture", "sha256": part.picture.sha256, "label": part.picture.label}
    if isinstance(part, PdfPart):
        return {"type": "pdf", "sha256": part.pdf.sha256, "name": part.pdf.name}
    if isinstance(part, PagesPart):
        return {
            "type": "pages",
            "document": part.document,
            "first": part.first,
            "pictures": [_part_json(PicturePart(p)) for p in part.pictures],
            "extraction_error": part.extraction_error,
            "total_pages": part.total_pages,
        }
    if isinstance(part, ToolCall):
        return {
            "type": "tool_call",
            "id": part.id,
            "name": part.name,
            "arguments": dict(part.arguments),
        }
    if isinstance(part, CarriedPart):  # kept, so an imported chat goes on as it would have
        return {
            "type": "carried",
            "shape": part.shape,
            "source": part.source,
            "data": dict(part.data),
        }
    return {
        "type": "tool_result",
        "call_id": part.call_id,
        "name": part.name,
        "is_error": part.is_error,
        "parts": [_part_json(sub) for sub in part.parts],
    }


def read_json(path: Path) -> Exported:
    """Read a JSON export back; ExportError names the file and what is wrong."""
    from vision.files import FileRefused, read_capped

    try:
        data = json.loads(read_capped(path, MAX_IMPORT_BYTES, what="export").decode("utf-8"))
        return from_json(data)
    except FileRefused as exc:
        raise ExportError(str(exc)) from None
    except OSError as exc:
        raise ExportError(f"Can't read {path}: {exc.strerror or exc}.") from None
    except RecursionError:
        raise ExportError(f"{path} is not a Sightline export: it is nested too deeply.") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise ExportError(f"{path} is not a Sightline export: {exc}") from None


def from_json(data: dict[str, Any]) -> Exported:
    """An export from its JSON data; pictures are checked against their SHA-256."""
    if data.get("format") != FORMAT:
        raise ValueError(f"format is {data.get('format')!r}, not {FORMAT!r}")
    if data.get("version") not in _READABLE:
        raise ValueError(f"version {data.get('version')!r} is not one of {_READABLE}")
    pictures: dict[str, Picture] = {}
    for raw in data["pictures"]:
        blob = base64.b64decode(raw["data"], validate=True)
        if hashlib.sha256(blob).hexdigest() != raw["sha256"]:
            raise ValueError(f"picture {raw['sha256']} does not match its bytes")
        pictures[raw["sha256"]] = Picture(
            blob, raw["mime"], int(raw["width"]), int(raw["height"]), raw["sha256"]
        )
    pdfs: dict[str, PdfFile] = {}
    for raw in data.get("pdfs", []):  # exports made before PDFs were kept have none
        blob = base64.b64decode(raw["data"], validate=True)
        if hashlib.sha256(blob).hexdigest() != raw["sha256"]:
            raise ValueError(f"PDF {raw['sha256']} does not match its bytes")
        pages = raw.get("pages")
        pdfs[raw["sha256"]] = PdfFile(
            blob, "", raw["sha256"], None if pages is None else int(pages)
        )
    conversation = data["conversation"]
    summary = ConversationSummary(
        conversation["id"],
        conversation["title"],
        conversation["model"],
        float(conversation["created_at"]),
        float(conversation["updated_at"]),
    )
    blobs = _Blobs(pictures, pdfs)
    entries = tuple(
        _entry_from(raw, blobs, number) for number, raw in enumerate(data["items"], start=1)
    )
    return Exported(summary, entries)


@dataclass(frozen=True)
class _Blobs:
    pictures: dict[str, Picture]
    pdfs: dict[str, PdfFile]


def _entry_from(raw: dict[str, Any], blobs: _Blobs, number: int) -> Entry:
    item: Message | Notice
    if raw["type"] == "notice":
        crossed = raw.get("crossed")  # older exports have none
        item = Notice(
            NoticeKind(raw["kind"]),
            raw["text"],
            raw.get("details", ""),
            Crossed(**crossed) if crossed else None,
        )
    elif raw["type"] == "message":
        item = Message(
            role=cast(Role, raw["role"]),
            parts=tuple(_part_from(part, blobs) for part in raw["parts"]),
            model=raw.get("model", ""),
            status=MessageStatus(raw.get("status", MessageStatus.COMPLETE.value)),
            stats=AnswerStats.from_json(raw.get("stats")),  # older exports have none
        )
    else:
        raise ValueError(f"unknown item type {raw['type']!r}")
    # Version 1 had one branch: each item follows the one before it.
    parent = raw.get("parent", number - 1 if number > 1 else None)
    entry_id = int(raw.get("id", number))
    return Entry(
        float(raw["created_at"]),
        item,
        entry_id,
        None if parent is None else int(parent),
        bool(raw.get("shown", True)),
    )


def _part_from(raw: dict[str, Any], blobs: _Blobs) -> Part:
    kind = raw["type"]
    if kind == "text":
        return TextPart(raw["text"])
    if kind == "picture":
        picture = blobs.pictures[raw["sha256"]]  # KeyError: a picture the file doesn't carry
        return PicturePart(replace(picture, label=raw.get("label", "")))
    if kind == "pdf":
        return PdfPart(replace(blobs.pdfs[raw["sha256"]], name=raw.get("name", "")))
    if kind == "pages":
        pictures = tuple(cast(PicturePart, _part_from(p, blobs)).picture for p in raw["pictures"])
        total = raw.get("total_pages")
        return PagesPart(
            raw["document"],
            int(raw["first"]),
            pictures,
            raw["extraction_error"],
            None if total is None else int(total),
        )
    if kind == "tool_call":
        return ToolCall(raw["id"], raw["name"], raw.get("arguments", {}))
    if kind == "carried":
        return CarriedPart(str(raw["shape"]), str(raw["source"]), dict(raw["data"]))
    if kind == "tool_result":
        parts = tuple(_part_from(sub, blobs) for sub in raw["parts"])
        if any(not isinstance(p, TextPart | PicturePart | PagesPart) for p in parts):
            raise ValueError("a tool result holds only text, pictures and pages")
        return ToolResult(
            raw["call_id"],
            raw["name"],
            cast(tuple[ResultPart, ...], parts),
            bool(raw.get("is_error", False)),
        )
    raise ValueError(f"unknown part type {kind!r}")


def _pictures_of(message: Message) -> list[Picture]:
    """The message's own pictures and those inside its tool results, in order."""
    return [*message.pictures, *(p for r in message.tool_results for p in r.pictures)]
