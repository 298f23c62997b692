"""What a request reads of a long chat: its first turn and its newest turns, as far as a
model's window could ever reach, and how many messages between were left unread.

A model's window holds only so much, and what it can't hold is left out of the request
anyway (the first turn and the newest turns are kept: routing/fitting.py). So a turn
reads the chat from its end, a page of items at a time, until the newest turns weigh
`enough` (by the caller's `weigh`, a count the request can only exceed), then the first
turn; the messages between are counted, not read. What is never read is never shaped,
described or sent: a 5,000-message chat's send reads what its window holds, not the chat.
A chat lighter than `enough` is read whole.

The branch is found from every item's id, parent and kind alone (a few bytes a row,
checked as the whole chat's read checks it: app/store/branches.py); items are then read
by id, and the messages between are counted from their kinds.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.store.branches import shown_path
from app.store.tail import leaf

if TYPE_CHECKING:
    from app.store.items import StoredItem
    from routing.transcript import Message

# Items read at a time: a few at first (most windows hold a few dozen messages, a first
# turn is often two), twice as many each time after, up to PAGE.
FIRST_PAGE, PAGE = 16, 512

Load = Callable[[Sequence[int]], list["StoredItem"]]  # the items with these ids, in any order


@dataclass(frozen=True)
class Recent:
    """The messages a request reads, oldest first, and how many it left unread between
    the first turn and the newest turns (0: the chat was read whole)."""

    messages: tuple[Message, ...]
    unread: int = 0


def recent_messages(
    db: sqlite3.Connection,
    load: Load,
    conversation_id: str,
    weigh: Callable[[Message], int],
    enough: int,
) -> Recent:
    """The chat's first turn and its newest turns from where they weigh `enough`."""
    from routing.transcript import starts_turn  # not at first paint (app/store/__init__.py)

    ids, is_message = _branch(db, conversation_id)
    newest: list[Message] = []  # newest first
    weight, cut = 0, None  # cut: where in `ids` the newest turns begin
    for start, end in reversed(list(_pages(len(ids)))):
        for at, message in reversed(_messages(load, ids[start:end], start)):
            newest.append(message)
            weight += weigh(message)
            if weight >= enough and starts_turn(message):
                cut = at
                break
        if cut is not None:
            break
    if cut is None:  # lighter than `enough`: all of it was read
        return Recent(tuple(reversed(newest)))
    first = _first_turn(load, ids[:cut])
    if first is None:  # the newest turns reach back to the first: nothing between
        rest = [message for _, message in _messages(load, ids[:cut], 0)]
        return Recent((*rest, *reversed(newest)))
    reached, first_turn = first
    unread = sum(is_message[item] for item in ids[reached:cut])
    return Recent((*first_turn, *reversed(newest)), unread)


def _branch(db: sqlite3.Connection, conversation_id: str) -> tuple[list[int], dict[int, bool]]:
    """The ids of the shown branch, oldest first, and whether each item is a message."""
    cursor = db.cursor()
    cursor.row_factory = None  # plain tuples: a long chat has thousands of rows
    rows = cursor.execute(
        "SELECT id, parent_id, deleted_at IS NOT NULL, kind = 'message' FROM items"
        " WHERE conversation_id = ?",
        (conversation_id,),
    ).fetchall()
    links = [(item, parent, bool(deleted)) for item, parent, deleted, _ in rows]
    path = shown_path(conversation_id, links, leaf(db, conversation_id))
    return [item for item, _, _ in path], {row[0]: bool(row[3]) for row in rows}


def _pages(count: int, *, from_start: bool = False) -> list[tuple[int, int]]:
    """`count` items in pages (start, end), oldest first, growing from FIRST_PAGE to PAGE
    away from the end they are read from: the chat's end, or with `from_start` its start."""
    sizes: list[int] = []
    size, left = FIRST_PAGE, count
    while left > 0:
        sizes.append(min(size, left))
        left -= sizes[-1]
        size = min(2 * size, PAGE)
    if not from_start:
        sizes.reverse()
    pages, start = [], 0
    for size in sizes:
        pages.append((start, start + size))
        start += size
    return pages


def _messages(load: Load, ids: Sequence[int], offset: int) -> list[tuple[int, Message]]:
    """The messages among the items `ids` (notices left out), each with its place in the
    branch (`offset` + its index in `ids`), in the branch's order."""
    from routing.transcript import Message

    by_id = {stored.id: stored for stored in load(ids)}
    return [
        (offset + index, item)
        for index, item_id in enumerate(ids)
        if isinstance(item := by_id[item_id].item, Message)
    ]


def _first_turn(load: Load, ids: Sequence[int]) -> tuple[int, list[Message]] | None:
    """Where among `ids` the second turn begins, and the first turn's messages; None when
    no second turn begins before their end."""
    from routing.transcript import starts_turn

    found: list[Message] = []
    for start, end in _pages(len(ids), from_start=True):
        for at, message in _messages(load, ids[start:end], start):
            if found and starts_turn(message):
                return at, found
            found.append(message)
    return None
