"""A failed turn retried: the failure gives way to the new answer instead of staying as a
version of it ("‹ 1 / 2 ›" with an error as version 1 helps nobody).

A response failed when it holds an error notice or an answer that failed, and nothing a
person would want back: no answer that completed or was stopped, no tool result (a tool
ran: that stays on record). Its items go — the error, the routing notice, the failed
words — except a notice recording a crossing, which the ledger keeps; the retry's answer
follows the last of those, else the person's message. Any other response stays, and the
retry becomes another version beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from app.store.branches import begins_turn
from app.store.items import StoredItem
from routing.transcript import MessageStatus, Notice, NoticeKind

if TYPE_CHECKING:
    from app.store import Store

_CROSSINGS = (NoticeKind.DISCLOSURE, NoticeKind.HEAL)  # told before crossings were facts
_KEPT = (MessageStatus.COMPLETE, MessageStatus.STOPPED, MessageStatus.STREAMING)


def response_to(branch: Sequence[StoredItem], asked: StoredItem) -> list[StoredItem]:
    """The items of the shown branch that answered `asked`, up to the next message of the
    person's."""
    at = next((i for i, s in enumerate(branch) if s.id == asked.id), len(branch))
    found = []
    for stored in branch[at + 1 :]:
        if begins_turn(stored):
            break
        found.append(stored)
    return found


def _records_crossing(notice: Notice) -> bool:
    return notice.crossed is not None or notice.kind in _CROSSINGS


def replaced_by_retry(branch: Sequence[StoredItem], asked: StoredItem) -> tuple[list[int], int]:
    """The ids a retry of the turn `asked` began replaces ([] when its response did not
    fail), and the item the retry's answer follows."""
    response = response_to(branch, asked)
    kept = [s for s in response if isinstance(s.item, Notice) and _records_crossing(s.item)]
    if len(kept) == len(response):  # nothing but crossings, as a retry leaves a failure
        return [], kept[-1].id if kept else asked.id
    failed = False
    for stored in response:
        item = stored.item
        if isinstance(item, Notice):
            failed = failed or item.kind == NoticeKind.ERROR
        elif item.role == "tool" or item.status in _KEPT:
            return [], asked.id
        else:
            failed = True  # an answer that failed, or was cut off by a crash
    if not failed:
        return [], asked.id
    gone = [s.id for s in response if s not in kept]
    return gone, kept[-1].id if kept else asked.id


def make_way_for_retry(store: Store, conversation_id: str, asked: StoredItem) -> None:
    """Before the turn `asked` began is answered again: a failed response gives way (its
    items purged, crossings kept), and the chat's leaf is where the new answer follows."""
    gone, follows = replaced_by_retry(store.items(conversation_id), asked)
    if gone:
        store.branches.delete(gone)
        store.branches.purge(gone)
    store.branches.rewind(conversation_id, follows)
