"""Rows of `items` read back: each the message or notice it stores, as a `StoredItem`.

Apart from `app.store.items`, which the store is made of, so that opening the store and
listing its chats (the window's first paint) loads none of the transcript, its parts, the
pictures or the PDFs: they load with this module, when an item is first read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, cast

from app.store.items import StoredItem
from app.store.parts import Blobs, Encoded
from app.store.streamed_words import streamed
from routing.answer_stats import AnswerStats
from routing.secrets import redact_secrets
from routing.transcript import (
    Crossed,
    Message,
    MessageStatus,
    Notice,
    NoticeKind,
    Part,
    Role,
    TextPart,
)

# Read by position: a name looked up in a sqlite3.Row walks its columns each time, and
# this runs for every item of a chat each time a turn reads it.
_COLUMNS = (
    "id",
    "conversation_id",
    "seq",
    "created_at",
    "kind",
    "role",
    "status",
    "model",
    "text",
    "parts",
    "notice_kind",
    "details",
    "crossed",
    "parent_id",
    "deleted_at",
    "stats",
)
_ITEM_COLUMNS = ", ".join(_COLUMNS)
_NO_PARTS = "[]"  # most messages' parts column: words only
_PARTS = _COLUMNS.index("parts")
_STATUSES = {status.value: status for status in MessageStatus}


class ReadRows:
    """Items of words read before, kept by their whole row: a row read again unchanged is
    the item it was. A turn reads every item of its chat for each request it sends, and
    all but the newest few are as they were (reading a 5,000-message chat: 28 → 17 ms).

    Only rows whose parts are words alone are kept (no picture's or PDF's bytes held),
    about KEPT_BYTES of them; each store keeps its own, used from its thread.
    When full, a random one goes: a chat read in order that holds more than is kept would
    let each go just before it is read again, were the least recently used to go.
    """

    KEPT_BYTES = 16_000_000  # a 5,000-message chat of ~350 characters each: 7.7 MB

    def __init__(self) -> None:
        from cachetools import RRCache

        self._kept: RRCache[tuple[Any, ...], StoredItem] = RRCache(
            maxsize=self.KEPT_BYTES, getsizeof=_bytes
        )

    @property
    def kept_bytes(self) -> int:
        """What is kept now, counted as KEPT_BYTES counts it."""
        return int(self._kept.currsize)

    def item(self, row: tuple[Any, ...], blobs: Blobs) -> StoredItem:
        """The item a row of `_COLUMNS` stores."""
        if row[_PARTS] != _NO_PARTS:  # pictures, PDFs, tool calls: read each time
            return _load_item(row, blobs)
        found = self._kept.get(row)
        if found is None:
            found = _load_item(row, blobs)
            if _bytes(found) <= self.KEPT_BYTES:
                self._kept[row] = found
        return found


def _bytes(stored: StoredItem) -> int:
    """What an item of words and its row take, about: its characters, and 1,200 bytes of
    objects (its row's, its own; measured with tracemalloc)."""
    return 1_200 + len(stored.item.text)


def load(
    db: sqlite3.Connection, where: str, *params: object, read: ReadRows | None = None
) -> list[StoredItem]:
    """The items matching a WHERE clause (the store's SQL, never a person's words), each
    picture read once, an answer still streaming with its words so far (`read`: the
    store's items of words read before)."""
    rows = db.cursor()
    rows.row_factory = None  # plain tuples, read by position
    rows.execute(f"SELECT {_ITEM_COLUMNS} FROM items WHERE {where}", params)
    blobs = Blobs(db)
    parse = _load_item if read is None else read.item
    loaded = [parse(row, blobs) for row in rows.fetchall()]
    return [_with_chunks(db, stored) for stored in loaded]


def written(
    db: sqlite3.Connection, row: Mapping[str, Any], encoded: Encoded | None = None
) -> StoredItem:
    """An item just inserted, from the columns written (`row`), read as `load` reads its
    row: what the store made of it (redacted, parts re-read) is what a later load gives,
    without reading the item, or the pictures and PDFs it just wrote, back. Nothing has
    streamed into it yet."""
    blobs = Blobs(db)
    if encoded is not None:
        blobs.keep(encoded)
    return _load_item(tuple(row.get(column) for column in _COLUMNS), blobs)


def _with_chunks(db: sqlite3.Connection, stored: StoredItem) -> StoredItem:
    """A message still streaming, with the words streamed so far."""
    item = stored.item
    if not isinstance(item, Message) or item.status != MessageStatus.STREAMING:
        return stored
    words = redact_secrets(streamed(db, stored.id))
    if not words:
        return stored
    text = item.text + words
    parts = (TextPart(text), *(p for p in item.parts if not isinstance(p, TextPart)))
    return stored._replace(item=replace(item, parts=parts))


def stats_from(column: str | None) -> AnswerStats | None:
    """The `stats` column read back; one that can't be read is no stats, not a broken chat."""
    if not column:
        return None
    try:
        return AnswerStats.from_json(json.loads(column))
    except ValueError:  # not JSON (json.JSONDecodeError is a ValueError)
        return None


def _load_item(row: Sequence[Any], blobs: Blobs) -> StoredItem:
    """A row of `items` (its `_COLUMNS`, in order) as the message or notice it stores."""
    (
        item_id,
        conversation_id,
        seq,
        created_at,
        kind,
        role,
        status,
        model,
        text,
        parts_column,
        notice_kind,
        details,
        crossed,
        parent_id,
        deleted_at,
        stats,
    ) = row
    item: Message | Notice
    if kind == "notice":
        crossing = Crossed(**json.loads(crossed)) if crossed else None
        item = Notice(NoticeKind(notice_kind), text, details, crossing)
    else:
        parts: list[Part] = [TextPart(text)] if text else []
        if parts_column != _NO_PARTS:
            parts.extend(blobs.decode(data) for data in json.loads(parts_column))
        item = Message(
            role=cast(Role, role),
            parts=tuple(parts),
            model=model,
            status=_STATUSES.get(status) or MessageStatus(status),
            stats=stats_from(stats),
        )
    return StoredItem(
        id=item_id,
        conversation_id=conversation_id,
        seq=seq,
        created_at=created_at,
        item=item,
        parent_id=parent_id,
        deleted=deleted_at is not None,
    )
