"""What a request reads of a long chat: its first turn and its newest turns, as far as a
model's window could ever reach, and how many messages between were left unread.

A model's window holds only so much, and what it can't hold is left out of the request
anyway (the first turn and the newest turns are kept: routing/fitting.py). So a turn
reads the chat from its end, a page of items at a time (FIRST_PAGE, then twice as many),
until the newest turns weigh `enough` (by the caller's `weigh`, a count the request can
only exceed), then the first turn; the messages between are counted, not read (but for
the rest of the last page). What is never read is never shaped, described or sent: a
5,000-message chat's send reads what its window holds, not the chat. A chat lighter than
`enough` is read whole.

The branch is found from every item's id, parent, kind and role alone, remembered from
one send to the next (app/store/shown_branch.py); items are then read by id. Where the
first turn ends is found from the person's messages' first words, so no item after it
is read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.store.shown_branch import MESSAGE, PERSONS, Row, ShownBranches

if TYPE_CHECKING:
    from app.store.items import StoredItem
    from routing.transcript import Message

# Items read at a time from the chat's end: a few at first (most windows hold a few
# dozen messages), twice as many each time after, up to PAGE (the first turn's too).
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
    branches: ShownBranches,
    load: Load,
    conversation_id: str,
    weigh: Callable[[Message], int],
    enough: int,
) -> Recent:
    """The chat's first turn and its newest turns from where they weigh `enough`."""
    from routing.transcript import starts_turn  # not at first paint (app/store/__init__.py)

    branch = branches.of(db, conversation_id)
    ids, rows = branch.ids, branch.rows
    newest: list[Message] = []  # newest first
    weight, cut = 0, None  # cut: where in `ids` the newest turns begin
    for start, end in _pages(len(ids)):
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
    second = _second_turn(db, ids[:cut], rows)
    end = second or cut  # where the first turn ends: the cut, when no second turn is before it
    first = [m for start in range(0, end, PAGE) for m in _read(load, ids, start, end)]
    return Recent((*first, *reversed(newest)), branch.messages_between(end, cut))


def _pages(count: int) -> list[tuple[int, int]]:
    """`count` items in pages (start, end), newest first, growing from FIRST_PAGE to PAGE."""
    pages: list[tuple[int, int]] = []
    size, end = FIRST_PAGE, count
    while end > 0:
        pages.append((max(0, end - size), end))
        end, size = pages[-1][0], min(2 * size, PAGE)
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


def _read(load: Load, ids: Sequence[int], start: int, end: int) -> list[Message]:
    """The messages among `ids[start:end]`, a page of them at most."""
    return [message for _, message in _messages(load, ids[start : min(end, start + PAGE)], start)]


def _second_turn(db: sqlite3.Connection, ids: Sequence[int], rows: dict[int, Row]) -> int | None:
    """Where among `ids` the second turn begins (None: not before their end), found from
    the person's messages' first words alone: none of them is read."""
    from routing.transcript import TOOL_PICTURES_OPENING, is_tool_pictures_text

    # The first message begins the first turn, whoever said it (notices before it are in it).
    first = next((at for at, item in enumerate(ids) if rows[item][2] & MESSAGE), len(ids))
    for at in range(first + 1, len(ids)):
        if rows[ids[at]][2] & PERSONS:
            (opening,) = db.execute(
                "SELECT substr(text, 1, ?) FROM items WHERE id = ?",
                (len(TOOL_PICTURES_OPENING), ids[at]),
            ).fetchone()
            if not is_tool_pictures_text(opening):
                return at
    return None
