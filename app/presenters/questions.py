"""Questions the window puts to the person, each with the future its asker awaits.

Qt-free: the controller asks, and tells the window what to show with two
callbacks; the window answers by serial number. An asker cancelled while it
waits (Stop, closing) forgets its question, and `settled` says so.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

if TYPE_CHECKING:  # asyncio itself loads after the window's first paint
    import asyncio


class Numbered(Protocol):
    """A question the window can answer by its serial number."""

    @property
    def serial(self) -> int:
        """Unique among the questions of one `Questions`."""
        ...


R = TypeVar("R", bound=Numbered)
A = TypeVar("A")


class Questions(Generic[R, A]):
    """The questions still open, in the order asked."""

    def __init__(self, asked: Callable[[R], None], settled: Callable[[R], None]) -> None:
        """Call `asked` when a question opens and `settled` once it is answered or dropped."""
        self._asked = asked
        self._settled = settled
        self._serials = itertools.count(1)
        self._open: dict[int, tuple[R, asyncio.Future[A]]] = {}

    def next_serial(self) -> int:
        """The serial number for the next question."""
        return next(self._serials)

    async def put(self, request: R) -> A:
        """Show the question and wait for its answer."""
        import asyncio  # here: the window paints before asyncio loads

        future: asyncio.Future[A] = asyncio.get_running_loop().create_future()
        self._open[request.serial] = (request, future)
        self._asked(request)
        try:
            return await future
        finally:
            del self._open[request.serial]
            self._settled(request)

    def answer(self, serial: int, answer: A) -> bool:
        """Give the person's answer to an open question; False when it is no longer open."""
        entry = self._open.get(serial)
        if entry is None or entry[1].done():
            return False
        entry[1].set_result(answer)
        return True

    def waiting(self) -> list[R]:
        """The open questions, oldest first."""
        return [request for request, _ in self._open.values()]
