"""Rows of `items` read back: each the message or notice it stores, as a `StoredItem`.

Apart from `app.store.items`, which the store is made of, so that opening the store and
listing its chats (the window's first paint) loads none of the transcript, its parts, the
pictures or the PDFs: they load with this module, when an item is first read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
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

_ITEM_COLUMNS = (
    "id, conversation_id, seq, created_at, kind, role, status, model, text, parts, "
    "notice_kind, details, crossed, parent_id, deleted_at, stats"
)


def load(db: sqlite3.Connection, where: str, *params: object) -> list[StoredItem]:
    """The items matching a WHERE clause (the store's SQL, never a person's words), each
    picture read once, an answer still streaming with its words so far."""
    rows = db.execute(f"SELECT {_ITEM_COLUMNS} FROM items WHERE {where}", params)
    blobs = Blobs(db)
    loaded = [_load_item(row, blobs) for row in rows.fetchall()]
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
    return _load_item(row, blobs)


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
    return replace(stored, item=replace(item, parts=parts))


def stats_from(column: str | None) -> AnswerStats | None:
    """The `stats` column read back; one that can't be read is no stats, not a broken chat."""
    if not column:
        return None
    try:
        return AnswerStats.from_json(json.loads(column))
    except ValueError:  # not JSON (json.JSONDecodeError is a ValueError)
        return None


def _load_item(row: sqlite3.Row | Mapping[str, Any], blobs: Blobs) -> StoredItem:
    """A row of `items` as the message or notice it stores."""
    item: Message | Notice
    if row["kind"] == "notice":
        crossed = Crossed(**json.loads(row["crossed"])) if row["crossed"] else None
        item = Notice(NoticeKind(row["notice_kind"]), row["text"], row["details"], crossed)
    else:
        parts: list[Part] = [TextPart(row["text"])] if row["text"] else []
        parts.extend(blobs.decode(data) for data in json.loads(row["parts"]))
        item = Message(
            role=cast(Role, row["role"]),
            parts=tuple(parts),
            model=row["model"],
            status=MessageStatus(row["status"]),
            stats=stats_from(row["stats"]),
        )
    return StoredItem(
        id=row["id"],
        conversation_id=row["conversation_id"],
        seq=row["seq"],
        created_at=row["created_at"],
        item=item,
        parent_id=row["parent_id"],
        deleted=row["deleted_at"] is not None,
    )
