"""A chat's shown branch as a send reads it (app/store/recent.py), remembered from one send
to the next.

The branch is found from every item's id, parent and what it is (a few bytes a row, read
from the branch's index), walked up from the leaf as app/store/tail.py walks it, saying
where a damaged chat breaks. A 5,000-item chat's read and walk took most of what a send
in it cost over a short chat's. Yet a chat's shape changes only by new items, or by what
bumps its `branch_stamp` (schema step 19's triggers, whichever process writes: a parent,
the bin, a kind or role changed, an item removed). So while the stamp stays, a send reads
only the items made since the last (their ids are above every id read then: SQLite gives
a new row an id above the table's largest, and a largest one removed bumps its chat's
stamp), and walks up from the leaf until it meets the leaf it walked from before. Any
other change reads and walks the whole chat again.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from app.store.branches import DamagedConversation

Row = tuple[int, "int | None", int]  # id, parent, what it is (DELETED | MESSAGE | PERSONS)
DELETED, MESSAGE, PERSONS = 1, 2, 4  # a Row's bits: in the bin; a message; the person's
# Each item's Row, from the branch's index alone (schema step 18): no item's words are
# read, and its three facts come as one number (a long chat has thousands of rows).
BRANCH_ROWS = (  # `IS`, never NULL: a damaged row's missing kind or role is "not that"
    "SELECT id, parent_id, (deleted_at IS NOT NULL) | ((kind IS 'message') << 1)"
    " | ((kind IS 'message' AND role IS 'user') << 2) FROM items WHERE conversation_id = ?"
)
_NEWER_ROWS = f"{BRANCH_ROWS} AND id > ?"
KEPT = 4  # chats remembered: a 5,000-item chat's branch takes about a megabyte


@dataclass
class Branch:
    """One chat's shown branch: `ids` oldest first, every item's `rows` (the branch's and
    the others'), and how many messages come before each place in `ids`."""

    ids: list[int]
    rows: dict[int, Row]
    messages_before: list[int]  # [i]: the messages among ids[:i]; one longer than ids
    leaf: int | None
    stamp: int
    newest: int  # the largest id read (0: none)

    def messages_between(self, start: int, end: int) -> int:
        """How many of `ids[start:end]` are messages (not notices)."""
        return self.messages_before[end] - self.messages_before[start]


class ShownBranches:
    """The shown branches of the last few chats a send read; use from one thread.

    A `Branch` it gives is its own and changes with the next call for the same chat: read
    it before asking again."""

    def __init__(self) -> None:
        """Nothing remembered yet."""
        self._kept: dict[str, Branch] = {}  # oldest first

    def of(self, db: sqlite3.Connection, conversation_id: str) -> Branch:
        """The chat's shown branch now (empty for a chat that isn't there).
        `DamagedConversation` where the walk up from the leaf breaks."""
        found = db.execute(
            "SELECT branch_stamp, leaf_id FROM conversations WHERE id = ?", (conversation_id,)
        ).fetchone()
        kept = self._kept.pop(conversation_id, None)
        if found is None:
            return Branch([], {}, [0], None, 0, 0)
        stamp, leaf = found
        if kept is None or kept.stamp != stamp:
            branch = _whole(db, conversation_id, stamp, leaf)
        else:
            branch = _grown(db, conversation_id, kept, leaf)
        self._kept[conversation_id] = branch
        while len(self._kept) > KEPT:
            del self._kept[next(iter(self._kept))]
        return branch


def _whole(db: sqlite3.Connection, conversation_id: str, stamp: int, leaf: int | None) -> Branch:
    """The branch read and walked whole."""
    branch = Branch([], _rows(db, BRANCH_ROWS, conversation_id), [0], None, stamp, 0)
    branch.newest = max(branch.rows, default=0)
    _walk_to(branch, conversation_id, leaf)
    return branch


def _grown(db: sqlite3.Connection, conversation_id: str, kept: Branch, leaf: int | None) -> Branch:
    """`kept` with the items made since it was read, walked from `leaf` to its leaf."""
    newer = _rows(db, _NEWER_ROWS, conversation_id, kept.newest)
    kept.rows.update(newer)
    kept.newest = max(newer, default=kept.newest)
    if leaf != kept.leaf:
        _walk_to(kept, conversation_id, leaf)
    return kept


def _rows(db: sqlite3.Connection, query: str, *params: object) -> dict[int, Row]:
    cursor = db.cursor()
    cursor.row_factory = None  # plain tuples: a long chat has thousands of rows
    return {row[0]: row for row in cursor.execute(query, params)}


def _walk_to(branch: Branch, conversation_id: str, leaf: int | None) -> None:
    """Make `leaf` the branch's leaf: walked up through the items' parents, each visited once,
    until the branch's own leaf (what is above it is known) or the first item. A loop or a
    parent that isn't in the chat, met on the way, is `DamagedConversation` (as a walk from
    the end says it: app/store/tail.py)."""
    rows, stop = branch.rows, branch.leaf
    walked: list[int] = []  # newest first
    seen: set[int] = set()
    child, at = None, leaf
    while at is not None and at != stop:
        row = rows.get(at)
        if row is None:
            what = f"item {child} follows item {at}, which isn't in it"
            raise DamagedConversation(conversation_id, what)
        if at in seen:
            what = f"item {child} follows item {at} again, in a loop"
            raise DamagedConversation(conversation_id, what)
        seen.add(at)
        # A deleted item is walked through (its children follow it), not shown.
        if not row[2] & DELETED:
            walked.append(at)
        child, at = at, row[1]
    if at is None:  # up to the first item: the whole branch is what was walked
        branch.ids, branch.messages_before = [], [0]
    walked.reverse()
    count = branch.messages_before[-1]
    for item in walked:
        count += bool(rows[item][2] & MESSAGE)
        branch.messages_before.append(count)
    branch.ids.extend(walked)
    branch.leaf = leaf
