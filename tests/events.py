"""Reading what a stream gave: every event of a turn or of a wire's answer, the events
before it failed, a reading stopped part way as Stop stops it, how a turn ended, and the
notices it left."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterable, Coroutine, Iterable
from typing import Any, TypeVar

import pytest

from app.store import Store
from app.turn.events import ItemAdded, TurnEnded, TurnEvent
from routing.errors import ProviderError
from routing.transcript import Notice, NoticeKind

T = TypeVar("T")


async def collect(stream: AsyncIterable[T]) -> list[T]:
    """Every event of a stream, in order."""
    events: list[T] = []
    await _read_into(events, stream)
    return events


async def collect_until_error(stream: AsyncIterable[T]) -> tuple[list[T], ProviderError]:
    """The events before the stream failed, and the provider error it failed with (the
    test fails if it ends without one)."""
    events: list[T] = []
    with pytest.raises(ProviderError) as caught:
        await _read_into(events, stream)
    return events, caught.value


async def _read_into(events: list[T], stream: AsyncIterable[T]) -> None:
    """Append the stream's events as they come; the stream is closed even when reading
    it fails, as the app closes a turn it stops reading."""
    iterator = aiter(stream)
    try:
        async for event in iterator:
            events.append(event)
    finally:
        if isinstance(iterator, AsyncGenerator):
            await iterator.aclose()


async def stopped_once(
    started: asyncio.Event, reading: Coroutine[Any, Any, object], seconds: float = 20.0
) -> None:
    """Run `reading` until it sets `started` (within `seconds`), then cancel it as the
    window's Stop does; it must end cancelled."""
    task = asyncio.create_task(reading)
    await asyncio.wait_for(started.wait(), seconds)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def ended(events: list[TurnEvent]) -> TurnEnded:
    """The turn's last event, which must be its end."""
    last = events[-1]
    assert isinstance(last, TurnEnded), last
    return last


def notices(events: Iterable[TurnEvent]) -> list[Notice]:
    """The notices a turn added, in order."""
    return [
        e.item.item for e in events if isinstance(e, ItemAdded) and isinstance(e.item.item, Notice)
    ]


def stored_notices(
    store: Store, conversation_id: str, kind: NoticeKind | None = None
) -> list[Notice]:
    """The conversation's stored notices (of one kind, if given), in order."""
    found = [i.item for i in store.items(conversation_id) if isinstance(i.item, Notice)]
    return [n for n in found if kind is None or n.kind == kind]
