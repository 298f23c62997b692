"""How long one turn may take in all: `TURN_SECONDS`, unless its provider says otherwise.

Every stream and every agent also has an idle limit (routing/wires/bounded.py, the
agent engines): that one catches silence. This one catches a turn that never ends
though it never falls silent — a model or agent sending a tiny update every few
seconds. It counts the time the model or agent works: from a request's sending to its
stream's end, and an agent's turn from its prompt to its answer, but never the
person's time deciding an approval card (the clock is paused meanwhile). A provider's
`turn_seconds` (its config table) replaces it. When the clock runs out the turn ends
with a clear error and keeps what came; an agent is cancelled first.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from routing.errors import TurnTooLong
from routing.models import ProviderConfig
from routing.wires.bounded import next_within

__all__ = [
    "TURN_SECONDS",
    "TurnClock",
    "duration",
    "output_cut",
    "turn_limit",
    "turn_too_long",
    "worked_too_long",
]

# Far longer than a real answer takes (a slow local model's long answer runs minutes),
# short enough that a turn that never ends is noticed the same hour. Read when a
# turn starts, so tests can lower it.
TURN_SECONDS = 30 * 60.0

T = TypeVar("T")


def turn_limit(provider: ProviderConfig | None) -> float:
    """The overall limit of a turn answered by `provider`: its own, else Sightline's."""
    own = provider.turn_seconds if provider is not None else None
    return own if own is not None else TURN_SECONDS


def duration(seconds: float) -> str:
    """Seconds in words: "30 minutes", "90 seconds", "1 second"."""
    if seconds >= 120 and seconds % 60 == 0:
        return f"{seconds / 60:g} minutes"
    return f"{seconds:g} second{'' if seconds == 1 else 's'}"


def turn_too_long(server: str, limit: float, provider_id: str) -> TurnTooLong:
    """The error for a model's turn past its overall limit, naming the server it waited on."""
    return TurnTooLong(
        f"This turn took longer than {duration(limit)}, the most one turn may take, so "
        f"Sightline stopped waiting for {server}; what came is kept.",
        provider_id=provider_id,
        detail=f"turn over {limit:g} s (the provider's turn_seconds sets it)",
    )


def output_cut(name: str, limit: int) -> str:
    """An agent's turn stopped at the cap on its output (`name`: "The agent x", "Codex (x)")."""
    return (
        f"{name} sent more than {limit:,} characters in this turn (its words, thoughts and "
        "tools' output), the most Sightline keeps, so it was stopped there; what fits is kept."
    )


def worked_too_long(name: str, limit: float) -> str:
    """An agent's turn stopped at its overall limit."""
    return (
        f"{name} worked on this turn for longer than {duration(limit)}, the most one turn may "
        "take, so it was stopped; what it said is kept."
    )


class TurnClock:
    """The time one turn has taken so far, counted only while it runs."""

    def __init__(self, limit: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self._clock = clock
        self._spent = 0.0
        self._since: float | None = None  # running since then; None: paused

    def start(self) -> None:
        """The model or agent works from now."""
        if self._since is None:
            self._since = self._clock()

    def stop(self) -> None:
        """The model or agent waits (for the person, for a tool) from now."""
        if self._since is not None:
            self._spent += self._clock() - self._since
            self._since = None

    @contextmanager
    def paused(self) -> Iterator[None]:
        """The clock stopped inside the block (the person deciding), running again after it
        if it ran before."""
        running = self._since is not None
        self.stop()
        try:
            yield
        finally:
            if running:
                self.start()

    def left(self) -> float:
        """Seconds the turn may still take (0 or less: it is over)."""
        running = 0.0 if self._since is None else self._clock() - self._since
        return self.limit - self._spent - running

    async def watch(
        self, events: AsyncIterator[T], too_long: Callable[[], Exception]
    ) -> AsyncGenerator[T, None]:
        """`events` with the clock running; `too_long()` raised once it runs out."""
        # The timeout spans only the wait for the next event, never the caller's work
        # on one; that work is still counted.
        self.start()
        try:
            while True:
                if (left := self.left()) <= 0:
                    raise too_long()
                try:
                    event = await next_within(events, asyncio.timeout(left), too_long)
                except StopAsyncIteration:
                    return
                yield event
        finally:
            self.stop()
            if isinstance(events, AsyncGenerator):  # closed now, not when collected
                await events.aclose()
