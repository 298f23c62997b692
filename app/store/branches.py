"""Versions of a conversation: every item follows a parent, and a chat shows one branch.

A regenerated answer, or a message edited and sent again, is a sibling of the one it
replaces: it follows the same parent. A conversation keeps its *leaf*, the newest item
of the branch it shows; the branch is the walk from the leaf back to the first item.
Showing another version moves the leaf to the newest item under that version, so the
branch the person sees is the one later turns build on. Deleting marks items (their
place in the tree stays until the Undo is over); purging gives their children their
parent, so what came after a deleted message stays in the chat.

A damaged file (an item that follows itself, a loop, a parent that isn't there) is
never walked for ever: every walk keeps what it has visited, and a chat whose items
don't all lead back to its start is `DamagedConversation` for that chat alone.
"""

from __future__ import annotations

import builtins
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from app.store.connection import Connection, StoreError, shown_id
from app.store.conversations import drop_unused_blobs

if TYPE_CHECKING:
    from app.store.items import StoredItem


_LOOP_NAMED = 3  # items of a loop named in a message


class DamagedConversation(StoreError):
    """A conversation whose items don't all lead back to its first (the file is damaged
    there): it can't be read, and the other conversations are not affected."""

    def __init__(self, conversation_id: str, what: str) -> None:
        """`what` says which item is wrong, e.g. "item 7 follows itself"."""
        self.conversation_id = conversation_id
        self.what = what
        super().__init__(
            f"Sightline can't read the conversation {shown_id(conversation_id)}: its {what}, "
            "so the file is damaged there. The other conversations are not affected."
        )


def tree_damage(parents: Mapping[int, int | None]) -> str | None:
    """What is wrong when some item (id -> the item it follows) doesn't lead back to the
    first, else None. Each item is visited once, so a loop costs no more than a chain."""
    sound: set[int] = set()
    for start in parents:
        trail: list[int] = []
        on_trail: set[int] = set()
        at: int | None = start
        while at is not None and at not in sound:
            if at in on_trail:
                return _loop(trail[trail.index(at) :])
            trail.append(at)
            on_trail.add(at)
            parent = parents[at]
            if parent is not None and parent not in parents:
                return f"item {at} follows item {parent}, which isn't in it"
            at = parent
        sound.update(trail)
    return None


def _loop(loop: list[int]) -> str:
    if len(loop) == 1:
        return f"item {loop[0]} follows itself"
    named = ", ".join(map(str, sorted(loop)[:_LOOP_NAMED]))
    more = f" and {len(loop) - _LOOP_NAMED} more" if len(loop) > _LOOP_NAMED else ""
    return f"items {named}{more} follow each other in a loop"


Link = tuple[int, int | None, bool]  # an item's id, the item it follows, whether it is deleted


def shown_path(conversation_id: str, links: Sequence[Link], leaf: int | None) -> list[Link]:
    """The branch that ends at `leaf` as links, oldest first, deleted items left out.

    Only ids are walked, so a long chat's branch is found before any item is read.
    Deleted items are walked through (their children still follow them) but not shown.
    `DamagedConversation` when the items don't all lead back to the first.
    """
    parents = {item: parent for item, parent, _ in links}
    if links and (damage := tree_damage(parents)) is not None:
        raise DamagedConversation(conversation_id, damage)
    by_id = {link[0]: link for link in links}
    path: list[Link] = []
    at = leaf if leaf in by_id else None
    while at is not None:  # a sound tree: every walk up ends at the first item
        path.append(by_id[at])
        at = parents[at]
    path.reverse()
    return [link for link in path if not link[2]]


def versions_of(links: Sequence[Link]) -> dict[int | None, list[int]]:
    """Each parent's children not deleted, oldest first: the versions that follow it."""
    children: dict[int | None, list[int]] = defaultdict(list)
    for item, parent, deleted in links:
        if not deleted:
            children[parent].append(item)
    return children


def shown_branch(every: Sequence[StoredItem], leaf: int | None) -> list[StoredItem]:
    """The items on the branch that ends at `leaf`, oldest first, with their versions."""
    links = [(s.id, s.parent_id, s.deleted) for s in every]
    by_id = {stored.id: stored for stored in every}
    conversation = every[0].conversation_id if every else ""
    return with_versions(
        [by_id[item] for item, _, _ in shown_path(conversation, links, leaf)], versions_of(links)
    )


def with_versions(
    items: Sequence[StoredItem], versions: Mapping[int | None, list[int]]
) -> list[StoredItem]:
    """`items`, each with the versions that follow its parent."""
    shown = []
    for stored in items:
        siblings = versions.get(stored.parent_id, ())
        # A copy only where there are versions to name: most items have none, and a
        # copy of each would cost a long chat most of its opening time.
        shown.append(stored._replace(versions=tuple(siblings)) if len(siblings) > 1 else stored)
    return shown


def response_of(branch: Sequence[StoredItem], item_id: int) -> list[int]:
    """The ids of one turn's answer: what follows its person's message on the branch,
    up to the next message of the person (tool-picture messages belong to the answer)."""
    ids = [s.id for s in branch]
    at = ids.index(item_id)
    if begins_turn(branch[at]):
        at += 1
    else:  # from inside the answer: back to its first item
        while at > 0 and not begins_turn(branch[at - 1]):
            at -= 1
    found = []
    for stored in branch[at:]:
        if begins_turn(stored):
            break
        found.append(stored.id)
    return found


def asked_in(branch: Sequence[StoredItem], item_id: int | None = None) -> StoredItem | None:
    """The person's message that began the turn `item_id` is part of (the latest turn's
    when None); None when the person has said nothing before it."""
    end = (
        len(branch)
        if item_id is None
        else next((i + 1 for i, s in enumerate(branch) if s.id == item_id), 0)
    )
    return next((s for s in reversed(branch[:end]) if begins_turn(s)), None)


def begins_turn(stored: StoredItem) -> bool:
    """Whether an item is the person's message that begins a turn."""
    from routing.transcript import Message, starts_turn

    return isinstance(stored.item, Message) and starts_turn(stored.item)


def mend_rewinds(db: sqlite3.Connection) -> None:
    """After a start: a chat whose leaf has items below it was rewound for an answer
    that a crash cut off before its first item; it shows its newest branch again.
    (Inside the caller's transaction.)"""
    rows = db.execute(
        "SELECT c.id, c.leaf_id FROM conversations AS c WHERE EXISTS ("
        "SELECT 1 FROM items WHERE parent_id = c.leaf_id AND deleted_at IS NULL)"
    ).fetchall()
    for conversation_id, leaf in rows:
        _show_newest_below(db, conversation_id, leaf)


def _show_newest_below(db: sqlite3.Connection, conversation_id: str, item_id: int) -> None:
    """Make the newest (highest id) live item anywhere under `item_id` the leaf."""
    rows = db.execute(
        "SELECT id, parent_id FROM items WHERE conversation_id = ? AND deleted_at IS NULL",
        (conversation_id,),
    ).fetchall()
    children: dict[int, list[int]] = defaultdict(list)
    for child, parent in rows:
        children[parent].append(child)
    leaf, below, seen = item_id, [item_id], {item_id}
    while below:  # `seen`: in a damaged file an item may be below itself
        at = below.pop()
        leaf = max(leaf, at)
        fresh = [child for child in children.get(at, ()) if child not in seen]
        seen.update(fresh)
        below.extend(fresh)
    db.execute("UPDATE conversations SET leaf_id = ? WHERE id = ?", (leaf, conversation_id))


class Branches:
    """Moving between versions, and deleting with Undo (`Store.branches`)."""

    def __init__(self, connection: Connection) -> None:
        """The branches kept in this connection's database."""
        self._connection = connection

    def check(self, conversation_id: str) -> None:
        """`DamagedConversation` when this conversation can't be read (its items don't all
        lead back to its first), before anything is added to it."""
        with self._connection.read() as db:
            rows = db.execute(
                "SELECT id, parent_id FROM items WHERE conversation_id = ?", (conversation_id,)
            ).fetchall()
        if (damage := tree_damage(dict(rows))) is not None:
            raise DamagedConversation(conversation_id, damage)

    def damaged(self) -> dict[str, str]:
        """The listed conversations that can't be read, each with what is wrong in it."""
        with self._connection.read() as db:
            # Only a suspect is walked: a loop has an item that follows a later one (ids
            # grow), and a missing parent is found by its id. Both are one scan in SQLite.
            suspects = [
                row[0]
                for row in db.execute(
                    "SELECT DISTINCT i.conversation_id FROM items AS i "
                    "JOIN conversations AS c ON c.id = i.conversation_id "
                    "LEFT JOIN items AS p ON p.id = i.parent_id "
                    "WHERE c.deleted_at IS NULL AND i.parent_id IS NOT NULL AND ("
                    "i.parent_id >= i.id OR p.id IS NULL OR p.conversation_id != i.conversation_id)"
                )
            ]
        found: dict[str, str] = {}
        for conversation_id in suspects:
            try:
                self.check(conversation_id)
            except DamagedConversation as exc:
                found[conversation_id] = exc.what
        return found

    def rewind(self, conversation_id: str, item_id: int | None) -> None:
        """Make `item_id` the leaf (None: before the first item), so what is added next
        follows it: the new answer or message becomes another version of what did."""
        with self._connection.write() as db:
            db.execute(
                "UPDATE conversations SET leaf_id = ? WHERE id = ?", (item_id, conversation_id)
            )

    def show_version(self, item_id: int) -> None:
        """Show the branch through this version: its newest item below it becomes the leaf."""
        with self._connection.write() as db:
            row = db.execute(
                "SELECT conversation_id FROM items WHERE id = ?", (item_id,)
            ).fetchone()
            if row is not None:
                _show_newest_below(db, row[0], item_id)

    def delete(self, item_ids: Iterable[int]) -> None:
        """Hide these items at once; they stay restorable until `purge`."""
        ids = [(self._connection.now(), i) for i in item_ids]
        with self._connection.write() as db:
            db.executemany("UPDATE items SET deleted_at = ? WHERE id = ?", ids)

    def restore(self, item_ids: Iterable[int]) -> None:
        """Undo a delete."""
        with self._connection.write() as db:
            db.executemany(
                "UPDATE items SET deleted_at = NULL WHERE id = ?", [(i,) for i in item_ids]
            )

    def purge(self, item_ids: Iterable[int] | None = None) -> None:
        """Remove deleted items for good (these, or every one); their children move up."""
        with self._connection.write() as db:
            if item_ids is None:
                rows = db.execute(
                    "SELECT id, parent_id FROM items WHERE deleted_at IS NOT NULL ORDER BY id"
                ).fetchall()
            else:
                wanted = sorted(set(item_ids))
                rows = [
                    row
                    for i in wanted
                    for row in db.execute(
                        "SELECT id, parent_id FROM items WHERE id = ? AND deleted_at IS NOT NULL",
                        (i,),
                    ).fetchall()
                ]
            for item_id, _ in rows:  # oldest first, so a chain of them collapses
                (parent,) = db.execute(
                    "SELECT parent_id FROM items WHERE id = ?", (item_id,)
                ).fetchone()
                db.execute("UPDATE items SET parent_id = ? WHERE parent_id = ?", (parent, item_id))
                db.execute(
                    "UPDATE conversations SET leaf_id = ? WHERE leaf_id = ?", (parent, item_id)
                )
                db.execute("DELETE FROM items WHERE id = ?", (item_id,))
            if rows:
                drop_unused_blobs(db)

    def deleted(self) -> builtins.list[int]:
        """Items deleted and waiting for their Undo to end (a crash re-offers nothing: purge)."""
        with self._connection.read() as db:
            return [
                row[0] for row in db.execute("SELECT id FROM items WHERE deleted_at IS NOT NULL")
            ]

    def shown(self, conversation_id: str) -> set[int]:
        """The ids of the items the chat shows (its branch to the leaf), nothing parsed."""
        from app.store.tail import shown_set

        with self._connection.read() as db:
            return shown_set(db, conversation_id)
