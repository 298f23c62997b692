"""A conversation fitted to a model's window: what is left out when it no longer fits.

By default the first turn (it usually says what the chat is about) and the newest turns
are kept and the oldest turns between them left out, whole turns at a time, so a tool's
call is never sent without its result. The current turn (the person's message, its
attachments and this turn's tool steps) is never left out: when it alone doesn't fit,
nothing is sent and the person is told. The chat may instead stop at the limit. Leaving
out only ever sends less: what the data ledger records is untouched by it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from routing.transcript import Message, starts_turn


@dataclass(frozen=True)
class Fitted:
    """The messages that go, how many were left out, and the tokens they take."""

    messages: tuple[Message, ...]
    left_out: int
    tokens: int


def _turn_start(messages: Sequence[Message], end: int, least: int) -> int:
    """Where the turn ending at `end` began: the last message before it, at `least` or
    later, where the person spoke; `least` when none did."""
    for index in range(end - 1, least, -1):
        if starts_turn(messages[index]):
            return index
    return least


def fit(
    messages: Sequence[Message], budget: int, count: Callable[[Message], int], unread: int = 0
) -> Fitted | None:
    """The messages within `budget` tokens, leaving out the oldest turns but the first;
    None when the current turn alone doesn't fit. `unread`: messages of the chat between
    its first turn and the rest of `messages` that were not even read (too old for the
    window to reach): left out as well.

    A turn begins where the person spoke (what comes before the first such message is a
    turn of its own). A chat that doesn't fit whole is split into turns from the newest
    back, only as far as they fit, not all of it.
    """
    total = len(messages)
    if not total:
        return Fitted((), unread, 0)
    counts = list(map(count, messages))  # each message counted once
    whole = sum(counts)
    if whole <= budget:
        return Fitted(tuple(messages), unread, whole)
    first_end = next((i for i in range(1, total) if starts_turn(messages[i])), total)
    kept_from = _turn_start(messages, total, 0)  # the current turn
    used = sum(counts[kept_from:])
    if used > budget:  # the current turn alone (the first, when it is the only one)
        return None
    first = sum(counts[:first_end])
    keep_first = used + first <= budget
    if keep_first:
        used += first
    # The newest turns before the current one, while they fit; the oldest between go.
    while kept_from > first_end:
        start = _turn_start(messages, kept_from, first_end)
        tokens = sum(counts[start:kept_from])
        if used + tokens > budget:
            break
        used += tokens
        kept_from = start
    head = tuple(messages[:first_end]) if keep_first else ()
    chosen = head + tuple(messages[kept_from:])
    return Fitted(chosen, total - len(chosen) + unread, used)
