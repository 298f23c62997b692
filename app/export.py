"""A conversation as it is exported: its summary and every item, notices included.

`snapshot` reads it from the store (on the store's thread); `write` puts it in a
file in the format the file's suffix names, Markdown for reading
(`app.export_markdown`: the branch shown, pictures in a folder beside it) or JSON
for keeping (`app.export_json`: every version, every picture and PDF, read back by
`app.import_json`). The writers only touch files, so they can run in a worker
thread; every file they make is 0600 and every folder 0700 (app/private_files.py):
an export holds the conversation, readable by the person only unless they change it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.store import ConversationSummary, Store
from routing.transcript import Message, Notice
from vision.pdf import PdfFile
from vision.pictures import Picture


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
        from app.export_json import write_json

        return write_json(exported, path)
    from app.export_markdown import write_markdown

    return write_markdown(exported, path)


def _pictures_of(message: Message) -> list[Picture]:
    """The message's own pictures and those inside its tool results, in order."""
    return [*message.pictures, *(p for r in message.tool_results for p in r.pictures)]
