"""A whole conversation added at once (an import): one transaction, every row in bulk.

`Store.bulk`. The items are given in the order they were made, each naming the
one it follows by its position among them (always an earlier one, so no file can
make a loop). Everything is written inside one transaction, so an error, a Ctrl+C
or a killed process leaves no conversation at all, never part of one; rows go in
with `executemany`, so 200,000 items take seconds, not an hour. Each item is
stored as `Items.add_message` and `add_notice` store one: its words redacted the
same way, its pictures and PDFs once each by SHA-256.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass

from app.store.connection import Connection
from app.store.conversations import insert_conversation, short_title
from app.store.parts import encode_parts
from routing.answer_stats import AnswerStats
from routing.secrets import redact
from routing.transcript import Message, Notice
from vision.pdf import PdfFile
from vision.pictures import Picture

_TITLE_FROM = 4096  # characters of a first message a title is looked for in
_WORDS = re.compile(r"\S")


@dataclass(frozen=True)
class NewItem:
    """One message or notice of a conversation added whole, and its place in it."""

    item: Message | Notice
    created_at: float
    parent: int | None = None  # the position of the item it follows, before this one


class Bulk:
    """Conversations added whole, in one transaction each."""

    def __init__(self, connection: Connection) -> None:
        """Add conversations to this connection's database."""
        self._connection = connection

    def add_conversation(
        self, title: str, model: str, items: Sequence[NewItem], leaf: int | None
    ) -> str:
        """A new conversation holding `items`, showing the branch to the one at position
        `leaf` (None: the last); all of it written or none. Its id."""
        _check_places(items, leaf)
        now = self._connection.now()
        with self._connection.write() as db:
            conversation_id = insert_conversation(db, title or _first_words(items), model, now)
            first = _next_item_id(db)
            blobs = _Blobs()
            db.executemany(
                "INSERT INTO items (id, conversation_id, seq, created_at, kind, role, status, "
                "model, text, parts, notice_kind, details, crossed, parent_id, stats) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                _rows(conversation_id, first, items, blobs),
            )
            blobs.write(db)
            if items:
                at = len(items) - 1 if leaf is None else leaf
                db.execute(
                    "UPDATE conversations SET leaf_id = ? WHERE id = ?",
                    (first + at, conversation_id),
                )
        self._connection.last_touched = conversation_id
        return conversation_id


def _check_places(items: Sequence[NewItem], leaf: int | None) -> None:
    """Refuse a parent that isn't an earlier item: the store never holds a loop."""
    for position, new in enumerate(items):
        if new.parent is not None and not 0 <= new.parent < position:
            raise ValueError(f"item {position} follows {new.parent}, which is not before it")
    if leaf is not None and not 0 <= leaf < len(items):
        raise ValueError(f"the item shown last, {leaf}, is not one of the {len(items)}")


def _next_item_id(db: sqlite3.Connection) -> int:
    """The id the next item gets (inside the write transaction, so nobody takes it first)."""
    (largest,) = db.execute("SELECT COALESCE(MAX(id), 0) FROM items").fetchone()
    row = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'items'").fetchone()
    return max(int(largest), int(row[0]) if row else 0) + 1


class _Blobs:
    """The pictures and PDFs the items use, each kept once, and which item uses which."""

    def __init__(self) -> None:
        self.pictures: dict[str, Picture] = {}
        self.pdfs: dict[str, PdfFile] = {}
        self.item_pictures: list[tuple[int, str]] = []
        self.item_pdfs: list[tuple[int, str]] = []

    def write(self, db: sqlite3.Connection) -> None:
        db.executemany(
            "INSERT OR IGNORE INTO pictures (sha256, mime, width, height, data) "
            "VALUES (?, ?, ?, ?, ?)",
            ((p.sha256, p.mime, p.width, p.height, p.data) for p in self.pictures.values()),
        )
        db.executemany(
            "INSERT OR IGNORE INTO item_pictures (item_id, sha256) VALUES (?, ?)",
            self.item_pictures,
        )
        db.executemany(
            "INSERT OR IGNORE INTO pdfs (sha256, pages, data) VALUES (?, ?, ?)",
            ((p.sha256, p.pages, p.data) for p in self.pdfs.values()),
        )
        db.executemany(
            "INSERT OR IGNORE INTO item_pdfs (item_id, sha256) VALUES (?, ?)", self.item_pdfs
        )


Row = tuple[object, ...]


def _rows(
    conversation_id: str, first: int, items: Sequence[NewItem], blobs: _Blobs
) -> Iterator[Row]:
    """Each item as its row, made as `executemany` takes it (one at a time, so the
    parts' JSON of 200,000 items is never all held at once)."""
    for position, new in enumerate(items):
        item_id = first + position
        parent = None if new.parent is None else first + new.parent
        place = (item_id, conversation_id, position + 1, new.created_at)
        item = new.item
        if isinstance(item, Notice):
            crossed = json.dumps(asdict(item.crossed)) if item.crossed else ""
            # Redacted as `add_notice` redacts, so the window, exports and the ledger read it clean.
            notice = ("notice", None, None, "", redact(item.text), "[]", item.kind.value)
            yield (*place, *notice, redact(item.details), crossed, parent, None)
            continue
        encoded = encode_parts(item.parts, redacting=item.role != "user")
        for picture in encoded.pictures:
            blobs.pictures.setdefault(picture.sha256, picture)
            blobs.item_pictures.append((item_id, picture.sha256))
        for pdf in encoded.pdfs:
            blobs.pdfs.setdefault(pdf.sha256, pdf)
            blobs.item_pdfs.append((item_id, pdf.sha256))
        parts = json.dumps(encoded.parts, ensure_ascii=False) if encoded.parts else "[]"
        message = ("message", item.role, item.status.value, item.model, encoded.text, parts)
        yield (*place, *message, None, "", "", parent, _stats_column(item.stats))


def _stats_column(stats: AnswerStats | None) -> str | None:
    return json.dumps(stats.to_json()) if stats is not None and stats.known else None


def _first_words(items: Sequence[NewItem]) -> str:
    """A title from the first words a person wrote, as `add_message` names a new chat."""
    for new in items:
        if isinstance(new.item, Message) and new.item.role == "user":
            text = new.item.text
            start = _WORDS.search(text)
            if start is not None:  # a slice: a title never needs a 300 MB message split up
                return short_title(text[start.start() : start.start() + _TITLE_FROM])
    return ""
