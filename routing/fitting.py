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


def turns(messages: Sequence[Message]) -> list[tuple[Message, ...]]:
    """The messages in turns: each begins where the person spoke (what comes before the
    first such message is a turn of its own)."""
    found: list[list[Message]] = []
    for message in messages:
        if not found or starts_turn(message):
            found.append([])
        found[-1].append(message)
    return [tuple(turn) for turn in found]


def fit(
    messages: Sequence[Message], budget: int, count: Callable[[Message], int], unread: int = 0
) -> Fitted | None:
    """The messages within `budget` tokens, leaving out the oldest turns but the first;
    None when the current turn alone doesn't fit. `unread`: messages of the chat between
    its first turn and the rest of `messages` that were not even read (too old for the
    window to reach): left out as well."""
    grouped = turns(messages)
    if not grouped:
        return Fitted((), unread, 0)
    sizes = [sum(count(m) for m in turn) for turn in grouped]
    if sum(sizes) <= budget:
        return Fitted(tuple(messages), unread, sum(sizes))
    current = len(grouped) - 1
    used = sizes[current]
    if used > budget:
        return None
    kept = {current}
    if current > 0 and used + sizes[0] <= budget:
        kept.add(0)
        used += sizes[0]
    # The newest turns before the current one, while they fit; the oldest between go.
    for index in range(current - 1, 0, -1):
        if used + sizes[index] > budget:
            break
        kept.add(index)
        used += sizes[index]
    chosen = tuple(m for i in sorted(kept) for m in grouped[i])
    return Fitted(chosen, len(messages) - len(chosen) + unread, used)
