"""The ledger of a whole conversation: every crossing on every version, not only the
branch shown, each marked with the version it is on.

A regenerated answer or an edited message is a sibling of the one it replaced, so a
chat is a tree; a crossing on a version the person isn't looking at happened all the
same. The tree is walked from its first items down (each branch knowing its own turn,
as app/ledger.py reads one), every item read once however many versions share it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from app.ledger import Along, Crossing, Endpoint, with_hosts
from app.store import StoredItem
from routing.transcript import Message, starts_turn

_QUOTED = 40  # characters of a message quoted to name its turn


def whole_ledger(
    every: Sequence[StoredItem],
    shown: Collection[int],
    endpoints: Mapping[str, Endpoint] | None = None,
) -> list[Crossing]:
    """Every crossing `every` item (all versions, in the order made) records, oldest first;
    one on a version marked with it, and whether that version is the one `shown`."""
    known = endpoints or {}
    live = [s for s in every if not s.deleted]
    ids = {s.id for s in live}
    children: dict[int | None, list[StoredItem]] = defaultdict(list)
    for stored in live:  # a parent deleted (or missing) leaves its branch unread
        if stored.parent_id is None or stored.parent_id in ids:
            children[stored.parent_id].append(stored)
    by_id = {s.id: s for s in live}
    found: list[Crossing] = []
    stack: list[tuple[StoredItem, Along]] = [(s, Along()) for s in reversed(children[None])]
    visited: set[int] = set()
    while stack:
        stored, along = stack.pop()
        if stored.id in visited:  # a damaged file's loop is read once
            continue
        visited.add(stored.id)
        crossing = along.step(stored, known)
        if crossing is not None:
            version = _version_of(stored, by_id, children, shown)
            found.append(replace(crossing, version=version) if version else crossing)
        below = children[stored.id]
        stack.extend(
            (child, along.copy() if len(below) > 1 else along) for child in reversed(below)
        )
    found.sort(key=lambda c: c.when)
    return with_hosts(found)


def _version_of(
    stored: StoredItem,
    by_id: Mapping[int, StoredItem],
    children: Mapping[int | None, list[StoredItem]],
    shown: Collection[int],
) -> str:
    """The version an item is on: its nearest place where the chat has versions ("" when
    none does on its way up)."""
    at: StoredItem | None = stored
    seen: set[int] = set()
    while at is not None and at.id not in seen:
        seen.add(at.id)
        siblings = children.get(at.parent_id, [])
        if len(siblings) > 1:
            number = next(i for i, s in enumerate(siblings) if s.id == at.id) + 1
            where = "shown" if stored.id in shown else "not shown"
            return f"{_what(at, by_id)}, version {number} of {len(siblings)} ({where})"
        at = by_id.get(at.parent_id) if at.parent_id is not None else None
    return ""


def _what(version: StoredItem, by_id: Mapping[int, StoredItem]) -> str:
    """What has versions there: the person's message, or the answer to one."""
    item = version.item
    if isinstance(item, Message) and starts_turn(item):
        return f"your message “{_quoted(item.text)}”"
    asked = _up(version, by_id)
    if asked is None:
        return "the answer"
    assert isinstance(asked.item, Message)
    return f"the answer to “{_quoted(asked.item.text)}”"


def _up(stored: StoredItem, by_id: Mapping[int, StoredItem]) -> StoredItem | None:
    """The person's message above an item, walked up once past each (a loop ends it)."""
    seen = {stored.id}
    at = by_id.get(stored.parent_id) if stored.parent_id is not None else None
    while at is not None and at.id not in seen:
        if isinstance(at.item, Message) and starts_turn(at.item):
            return at
        seen.add(at.id)
        at = by_id.get(at.parent_id) if at.parent_id is not None else None
    return None


def _quoted(text: str) -> str:
    words = " ".join(text.split()) or "a picture"
    return words if len(words) <= _QUOTED else words[: _QUOTED - 1].rstrip() + "…"
